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
import { type MissionHandle, missionOf } from '../../client/mission/client.ts';
import type { LedgerEntry, StatusView } from '../../workflows/mission/contract.ts';
import { type Settled, closedState, parked } from './view.ts';
import { failedAttemptLine } from '../attempts-view.ts';


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

/** An activity Temporal is retrying: its attempt now and why the last one failed. */
export interface Retry {
  attempt: number;
  why: string;
}

/**
 * What the running activities say: the pass's last heartbeat details (what it does), and
 * each activity in its second attempt or later with the failure of the one before, by
 * activity id (`runPass` for the pass). Why an effect is retried shows while it is.
 */
export async function activitiesNow(handle: WorkflowHandle): Promise<{ pass: string | null; retries: Map<string, Retry> }> {
  const pending = (await handle.describe()).raw.pendingActivities ?? [];
  const retries = new Map<string, Retry>();
  for (const a of pending) {
    const why = a.lastFailure?.message;
    if (!why || (a.attempt ?? 1) < 2) continue;
    retries.set(a.activityType?.name === 'runPass' ? 'runPass' : (a.activityId ?? ''), { attempt: a.attempt!, why: why.split('\n')[0]! });
  }
  const payloads = pending.find((a) => a.activityType?.name === 'runPass')?.heartbeatDetails?.payloads;
  if (!payloads?.length) return { pass: null, retries };
  const details = (await decodeFirst(handle, payloads)) as { text?: unknown } | null;
  return { pass: typeof details?.text === 'string' ? details.text : null, retries };
}

async function decodeFirst(handle: WorkflowHandle, payloads: Payload[]): Promise<unknown> {
  const { payloadCodecs, payloadConverter } = handle.client.options.loadedDataConverter;
  let decoded = payloads;
  for (const codec of [...payloadCodecs].reverse()) decoded = await codec.decode(decoded);
  return payloadConverter.fromPayload(decoded[0]!);
}

/** The lines that describe the mission now; each is printed once, when it first appears. */
export function describeNow(status: StatusView | null, activity: string | null, ledger: readonly LedgerEntry[], retries: ReadonlyMap<string, Retry> = new Map()): string[] {
  const lines: string[] = [];
  if (!status) return ['no status yet (is a worker running for this task queue?)'];
  const passRetry = retries.get('runPass');
  if (status.status === 'running' && passRetry) lines.push(`pass ${status.passes}: ${retrying(passRetry)}`);
  if (status.status === 'running' && activity) lines.push(activity);
  else if (status.status === 'running') lines.push(`pass ${status.passes}: running`);
  for (const e of ledger) {
    if (e.sideEffect !== 'external') continue;
    const what = `effect ${e.taskId ?? e.tool} (tool ${e.tool})`;
    const retry = e.status === 'running' ? retries.get(e.activity) : undefined;
    if (retry) lines.push(`${what}: ${retrying(retry)}`);
    lines.push(e.status === 'running' ? `${what}: running` : e.status === 'completed' ? `${what}: done${e.attempts > 1 ? ` (${e.attempts} attempts${lastRetryReason(e)})` : ''}` : `${what}: failed: ${e.error ?? ''}`);
  }
  if (status.status === 'waiting' && status.pending) lines.push(`waiting for ${status.pending.key}${status.pending.deadline ? ` until ${status.pending.deadline}` : ''}`);
  else if (status.status !== 'running') lines.push(status.status);
  return lines;
}

const retrying = (r: Retry) => `retrying, attempt ${r.attempt}, the last one failed: ${r.why}`;

/** Why a finished call was retried: the last failed attempt before the one that answered. */
const lastRetryReason = (e: LedgerEntry): string => {
  const last = e.failedAttempts?.at(-1);
  return last ? `; ${failedAttemptLine(last)}` : '';
};

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
export async function follow(handle: MissionHandle | WorkflowHandle, opts: FollowOptions): Promise<Settled> {
  const mission = missionOf(handle);
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
    const closed = await closedState(mission.workflow);
    const status = await mission.status().catch(() => null);
    if (opts.signal?.aborted) return { status, closed };
    const [activities, ledger] = await Promise.all([
      !closed && status?.status === 'running' ? activitiesNow(mission.workflow).catch(() => null) : null,
      mission.ledger().catch(() => [] as LedgerEntry[]),
    ]);
    const earlier = first ? ledger.filter((e) => e.status !== 'running') : [];
    print(describeNow(status, null, earlier).filter((l) => l.startsWith('effect ')), 'earlier');
    print(describeNow(status, activities?.pass ?? null, ledger, activities?.retries), now());
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
