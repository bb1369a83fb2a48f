/**
 * A run's state from its history, in the calling process: the history is replayed against
 * the workflow code here (as `navigator audit --history FILE` replays), with the read-out
 * interceptor (readout-interceptor.ts) in the bundle, and the workflow's queries are
 * answered from the state the replay reaches at the end of the history. No worker, no
 * query to the cluster: a closed run reads the same whether or not a worker runs, and a
 * running one whose worker is gone still shows what its history holds.
 *
 * One replay worker per process (HistoryReplayer: built on first use, closed after a few
 * idle seconds), with a bundle of its own (the workflow code, the interceptors a worker's
 * bundle has, plus the read-out), kept on disk between processes when running from this
 * repository's sources (src/workflows/bundle-cache.ts).
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import proto from '@temporalio/proto';
import type { HistoryReplayer } from './replayer.ts';
import { READOUT_MEMO, type QueryAnswer, type ReadoutRequest } from './readout-interceptor.ts';

type History = temporal.api.history.v1.IHistory;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const EventType = proto.temporal.api.enums.v1.EventType;

const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
/** The read-out interceptor module, for bundles of your own that read histories. */
export const readoutInterceptorModule = fileURLToPath(new URL(`./readout-interceptor.${ext}`, import.meta.url));

/** The workflow code of this process cannot replay the history (it changed since the run: nondeterminism, a workflow type it lacks). */
export class HistoryReplayError extends Error {
  override readonly name = 'HistoryReplayError';
}

/** What a replay read at the end of a history. */
export interface ReadOut {
  /** the event id of the workflow task the answers are from (0: no workflow task ran, nothing to replay) */
  at: number;
  /** each query's answer as the workflow state at that point gives it; empty when no workflow task ran */
  answers: Record<string, QueryAnswer>;
  /** why the workflow code could not replay this history (nondeterminism, code missing); the answers are then those of the last point reached, if any */
  replayError?: string;
}

/** The event id of the last workflow task that started: where a query of this history would read. */
export function lastWorkflowTask(history: History): number {
  const events = history.events ?? [];
  for (let i = events.length - 1; i >= 0; i--) {
    if (events[i]!.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED) return Number(events[i]!.eventId ?? 0);
  }
  return 0;
}

/** The history with the read-out request in its started event's memo (a copy: the caller's history is left alone). */
function withRequest(history: History, request: ReadoutRequest): History {
  const events = history.events ?? [];
  const first = events[0] as HistoryEvent;
  const attrs = first.workflowExecutionStartedEventAttributes ?? {};
  const fields = { ...(attrs.memo?.fields ?? {}), [READOUT_MEMO]: defaultPayloadConverter.toPayload(request) };
  const started = { ...first, workflowExecutionStartedEventAttributes: { ...attrs, memo: { fields } } } as HistoryEvent;
  return { ...history, events: [started, ...events.slice(1)] };
}

type Delivered = (historyLength: number, answers: Record<string, QueryAnswer>) => void;

/** Readings under way, by their token: the sink hands each its answers. */
const waiting = new Map<string, Delivered>();

let replayer: Promise<HistoryReplayer> | null = null;
let beforeFirstReplay: (() => Promise<void>) | null = null;

/**
 * Runs `setup` once before the first replay worker of the process is built: the CLI keeps
 * the SDK's INFO logs off its output there, without loading the worker for commands that
 * replay nothing.
 */
export function onFirstReplay(setup: () => Promise<void>): void {
  beforeFirstReplay = setup;
}

/**
 * The process's replay worker for reading (the bundle is made or loaded once). An audit may
 * replay on it too (AuditOptions.replayer): the read-out does nothing to a history without
 * its memo, so the replay is the same as on a worker's bundle.
 */
export function readReplayer(): Promise<HistoryReplayer> {
  replayer ??= (async () => {
    await beforeFirstReplay?.();
    const [{ HistoryReplayer }, { silentSpanSinks }, bundle] = await Promise.all([
      import('./replayer.ts'),
      import('../telemetry/setup.ts'),
      readerBundle(),
    ]);
    const sinks = {
      ...(silentSpanSinks as object),
      navigatorReadout: {
        answers: {
          fn: (_info: unknown, token: string, historyLength: number, json: string) =>
            waiting.get(token)?.(historyLength, JSON.parse(json) as Record<string, QueryAnswer>),
          callDuringReplay: true,
        },
      },
    };
    // the histories given are decoded already (the reader decodes them with the client's codecs)
    return new HistoryReplayer({ workflowBundle: bundle, sinks: sinks as never, replayName: 'navigator-read' }, 3000);
  })();
  replayer.catch(() => (replayer = null));
  return replayer;
}

/** The workflow code plus the interceptors of a worker's bundle and the read-out. */
export async function readerBundle(): Promise<{ code: string }> {
  const [{ bundleWorkflowCode }, { workflowsPath }, { workflowInterceptorModules }, { cachedBundle }] =
    await Promise.all([
      import('@temporalio/worker'),
      import('../workflows/path.ts'),
      import('../telemetry/setup.ts'),
      import('../workflows/bundle-cache.ts'),
    ]);
  const modules = [...workflowInterceptorModules, readoutInterceptorModule];
  const noop = () => undefined;
  const logger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };
  return cachedBundle([workflowsPath, ...modules], () =>
    bundleWorkflowCode({ workflowsPath, workflowInterceptorModules: modules, logger }),
  );
}

/**
 * Replays `history` (its payloads decoded already) and reads every query's answer at its
 * last workflow task. A history in which no workflow task started reads as nothing.
 */
export async function readOut(workflowId: string, history: History): Promise<ReadOut> {
  const at = lastWorkflowTask(history);
  if (at === 0) return { at: 0, answers: {} };
  const token = randomUUID();
  let last: { historyLength: number; answers: Record<string, QueryAnswer> } | null = null;
  waiting.set(token, (historyLength, answers) => (last = { historyLength, answers }));
  try {
    const [outcome] = await (
      await readReplayer()
    ).replay([{ workflowId, history: withRequest(history, { at, token }) }]);
    const got = last as { historyLength: number; answers: Record<string, QueryAnswer> } | null;
    const replayError = outcome?.error ? outcome.error.message : undefined;
    if (!got)
      throw new HistoryReplayError(
        `the history of ${workflowId} could not be read: this process's workflow code does not replay it (${replayError ?? 'the replay did not reach its end'})`,
      );
    return { at: got.historyLength, answers: got.answers, ...(replayError ? { replayError } : {}) };
  } finally {
    waiting.delete(token);
  }
}

/** Stops the process's reading replay worker now (it also stops by itself when idle). */
export async function closeReadReplayer(): Promise<void> {
  const r = replayer;
  replayer = null;
  if (r) await (await r).close();
}
