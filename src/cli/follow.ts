/**
 * Following a mission live from the CLI: one line each time what it does changes (the
 * pass and turn, the model answering with its tokens so far, the program running, each
 * external effect, what it waits for), until it waits or ends.
 *
 * Sources, all read-only: the status and ledger queries, and the heartbeat details of
 * the running `runPass` activity (from describe), which say what the pass is doing.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import type { LedgerEntry, StatusView } from '../workflows/contract.ts';
import { ledgerQuery, statusQuery } from '../workflows/messages.ts';
import { type Settled, closedState, parked } from './mission-view.ts';


export interface FollowOptions {
  /** one line of output (without the newline) */
  write: (line: string) => void;
  /** follow past a wait, until the workflow closes */
  untilClosed?: boolean;
  /** stops following (the mission goes on) */
  signal?: AbortSignal;
  /** @default 250 */
  pollMs?: number;
  /** clock for the line prefix @default the local time of day */
  now?: () => string;
}

/** What the running pass activity says it does (its last heartbeat details), if any. */
export async function passActivityText(handle: WorkflowHandle): Promise<string | null> {
  const d = await handle.describe();
  const pass = (d.raw.pendingActivities ?? []).find((a) => a.activityType?.name === 'runPass');
  const payloads = pass?.heartbeatDetails?.payloads;
  if (!payloads?.length) return null;
  const details = (await decodeFirst(handle, payloads)) as { text?: unknown } | null;
  return typeof details?.text === 'string' ? details.text : null;
}

async function decodeFirst(handle: WorkflowHandle, payloads: Payload[]): Promise<unknown> {
  const { payloadCodecs, payloadConverter } = handle.client.options.loadedDataConverter;
  let decoded = payloads;
  for (const codec of [...payloadCodecs].reverse()) decoded = await codec.decode(decoded);
  return payloadConverter.fromPayload(decoded[0]!);
}

/** The lines that describe the mission now; each is printed once, when it first appears. */
export function describeNow(status: StatusView | null, activity: string | null, ledger: readonly LedgerEntry[]): string[] {
  const lines: string[] = [];
  if (!status) return ['no status yet (is a worker running for this task queue?)'];
  if (status.status === 'running' && activity) lines.push(activity);
  else if (status.status === 'running') lines.push(`pass ${status.passes}: running`);
  for (const e of ledger) {
    if (e.sideEffect !== 'external') continue;
    const what = `effect ${e.taskId ?? e.tool} (tool ${e.tool})`;
    lines.push(e.status === 'running' ? `${what}: running` : e.status === 'completed' ? `${what}: done` : `${what}: failed: ${e.error ?? ''}`);
  }
  if (status.status === 'waiting' && status.pending) lines.push(`waiting for ${status.pending.key}${status.pending.deadline ? ` until ${status.pending.deadline}` : ''}`);
  else if (status.status !== 'running') lines.push(status.status);
  return lines;
}

const timeOfDay = () => new Date().toTimeString().slice(0, 8);

/**
 * Prints what the mission does as it changes, until it waits or ends (or closes, with
 * `untilClosed`), or `signal` aborts. Returns where it stands then.
 *
 * Effects that had finished before following began (an earlier pass, seen by `watch`
 * after a decision) are listed once as earlier, not stamped with the time they were read. When the mission
 * closes, its last reading is printed before returning: effects that finished just
 * before the end are not lost.
 */
export async function follow(handle: WorkflowHandle, opts: FollowOptions): Promise<Settled> {
  const seen = new Set<string>();
  const now = opts.now ?? timeOfDay;
  const print = (lines: string[], stamp: string) => {
    for (const line of lines) {
      if (seen.has(line)) continue;
      seen.add(line);
      opts.write(`${stamp} ${line}`);
    }
  };
  for (let first = true; ; first = false) {
    const closed = await closedState(handle);
    const status = await handle.query(statusQuery).catch(() => null);
    if (opts.signal?.aborted) return { status, closed };
    const [activity, ledger] = await Promise.all([
      !closed && status?.status === 'running' ? passActivityText(handle).catch(() => null) : null,
      handle.query(ledgerQuery).catch(() => [] as LedgerEntry[]),
    ]);
    const earlier = first ? ledger.filter((e) => e.status !== 'running') : [];
    print(describeNow(status, null, earlier).filter((l) => l.startsWith('effect ')), 'earlier');
    print(describeNow(status, activity, ledger), now());
    if (closed) return { status, closed };
    if (!opts.untilClosed && parked(status)) return { status, closed: null };
    await sleep(opts.pollMs ?? 250, opts.signal);
  }
}

/** Waits `ms` or until `signal` aborts; the abort listener goes with the wait (one per poll would pile up). */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const onAbort = () => (clearTimeout(t), resolve());
    const t = setTimeout(() => (signal?.removeEventListener('abort', onAbort), resolve()), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
