/**
 * Following a mission live from the CLI: one line each time what it does changes (the
 * pass and turn, the model answering with its tokens so far, the program running, each
 * external effect, what it waits for), until it waits or ends.
 *
 * Sources, all read-only: the status and ledger queries, and the heartbeat details of
 * the running `runPass` activity (from describe), which say what the pass is doing: the
 * program as the model writes it, and each call the program makes itself.
 */

export type { Retry } from '../../client/live-pass.ts';
import type { WorkflowHandle } from '@temporalio/client';
import { type MissionHandle, missionOf } from '../../client/mission/client.ts';
import { type LivePass, type Retry, activitiesNow as readActivities } from '../../client/live-pass.ts';
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

/**
 * What the running activities say (src/client/live-pass.ts): the pass's line (what it does),
 * the live pass itself, and the activities Temporal retries, by activity id.
 */
export async function activitiesNow(
  handle: WorkflowHandle,
): Promise<{ pass: string | null; live: LivePass | null; retries: Map<string, Retry> }> {
  const { live, retries } = await readActivities(handle);
  // while the program streams in, its lines say how far the model is: no line per token count
  const pass =
    live && live.phase === 'model' && live.program !== undefined
      ? live.text.replace(/, \d+ tokens$/, '')
      : (live?.text ?? null);
  return { pass, live, retries };
}

/**
 * The program as the model writes it, line by line, and the pass's own tool calls as they
 * start and end. Program lines repeat (two closing fences), so they are not deduplicated
 * like the other lines: each pass and turn remembers how many it printed.
 */
export class LiveProgramLines {
  /** by `pass/turn`: the lines printed */
  private readonly shown = new Map<string, { lines: number }>();

  /** The new program lines of `live` (a line while the model writes is printed once complete). */
  programLines(live: LivePass): string[] {
    if (live.turn === undefined) return [];
    const key = `${live.pass}/${live.turn}`;
    const was = this.shown.get(key) ?? { lines: 0 };
    const writing = live.phase === 'model';
    // once the model is done, its whole answer (or the program alone when nothing streamed): the rest of it
    const text = live.program ?? '';
    const lines = text.split('\n');
    const complete = writing ? lines.length - 1 : text.trim() ? lines.length : 0;
    if (complete <= was.lines) return [];
    this.shown.set(key, { lines: complete });
    return lines.slice(was.lines, complete).map((l) => `  | ${l}`);
  }
}

/** One line per state of each call the pass's program makes itself. */
export function callLines(live: LivePass | null): string[] {
  return (live?.calls ?? []).map((c) => {
    const what = `pass ${live!.pass}, turn ${c.turn}: call ${c.n}, tool ${c.tool}${c.taskId ? ` (task ${c.taskId})` : ''}`;
    if (c.status === 'running') return `${what}: started`;
    return c.status === 'done'
      ? `${what}: done in ${c.ms ?? 0} ms`
      : `${what}: failed in ${c.ms ?? 0} ms: ${c.error ?? ''}`;
  });
}

/** The lines that describe the mission now; each is printed once, when it first appears. */
export function describeNow(
  status: StatusView | null,
  activity: string | null,
  ledger: readonly LedgerEntry[],
  retries: ReadonlyMap<string, Retry> = new Map(),
): string[] {
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
    lines.push(
      e.status === 'running'
        ? `${what}: running`
        : e.status === 'completed'
          ? `${what}: done${e.attempts > 1 ? ` (${e.attempts} attempts${lastRetryReason(e)})` : ''}`
          : `${what}: failed: ${e.error ?? ''}`,
    );
  }
  if (status.status === 'waiting' && status.pending)
    lines.push(
      `waiting for ${status.pending.key}${status.pending.deadline ? ` until ${status.pending.deadline}` : ''}`,
    );
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
  const program = new LiveProgramLines();
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
    print(
      describeNow(status, null, earlier).filter((l) => l.startsWith('effect ')),
      'earlier',
    );
    const stamp = now();
    print(describeNow(status, activities?.pass ?? null, ledger, activities?.retries), stamp);
    if (activities?.live) {
      for (const line of program.programLines(activities.live)) opts.write(`${stamp} ${line}`);
      print(callLines(activities.live), stamp);
    }
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
