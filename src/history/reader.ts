/**
 * The one way missions and plans are read (the client library, the CLI and the console
 * all read through it):
 *
 *  - a closed run is read from its history, never queried: the history is fetched once,
 *    its payloads decoded with the client's codecs (stored references resolved), and
 *    replayed here against the workflow code, which answers every query as the run's last
 *    state (src/history/replay.ts). Kept by run id and history length: a closed run is
 *    fetched and replayed once per reader, whatever is asked of it. Only when this
 *    process's workflow code cannot replay the history (a CLI older or newer than the
 *    run's code) is a worker asked instead, with the deadline below;
 *  - a running run is queried, with a deadline (NAVIGATOR_QUERY_TIMEOUT_MS, default
 *    3 s). When nobody answers in time, the task queue's pollers (DescribeTaskQueue) say
 *    why: a worker polling this very moment is only slow and is asked again (up to four
 *    deadlines in all); else the query fails with a {@link WorkerUnavailableError}: "no
 *    worker is polling task queue X; start one with `navigator worker --task-queue X`"
 *    (no poller, or the server says it saw none recently), or, when the queue was polled
 *    within the last 70 s, that its worker may have stopped just now or be too busy (a
 *    real server lists a stopped worker for minutes with its last poll; after 20-30 s it
 *    answers the query itself that no poller was seen). What the history holds can still
 *    be read ({@link RunReader.fromHistory}).
 *
 * One reader per Temporal client ({@link readerOf}): every handle on that client shares
 * its cache.
 */
import { QueryNotRegisteredError, type WorkflowClient, type WorkflowExecutionDescription } from '@temporalio/client';
import { status as grpcStatus } from '@grpc/grpc-js';
import proto from '@temporalio/proto';
import { decodePayloads, type DecodeReport } from '../codec/history.ts';
import type { QueryAnswer } from './readout-interceptor.ts';
import { HistoryReplayError, readOut } from './replay.ts';

/** How long a query of a running run may wait for a worker, unless told otherwise. */
export const DEFAULT_QUERY_TIMEOUT_MS = 3000;

/**
 * A poller whose last poll is older than this is not counted as polling: an idle worker
 * polls again at least every minute, and the real server keeps pollers listed for 5
 * minutes after their last poll (the embedded one lists only workers that poll now).
 */
export const POLLED_WITHIN_MS = 70_000;
/**
 * A poll this recent means a worker is there now (it polls again as soon as a poll ends;
 * the embedded server lists a worker between two polls for 5 s): it is only slow.
 */
const POLLING_NOW_MS = 6000;
/** How many query deadlines a worker that is there now, but slow, is given in all. */
const SLOW_WORKER_ROUNDS = 4;

/** The query timeout of this process: NAVIGATOR_QUERY_TIMEOUT_MS, else {@link DEFAULT_QUERY_TIMEOUT_MS}. */
export function queryTimeoutFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.NAVIGATOR_QUERY_TIMEOUT_MS?.trim();
  if (!raw) return DEFAULT_QUERY_TIMEOUT_MS;
  const ms = Number(raw);
  if (!Number.isFinite(ms) || ms <= 0)
    throw new RangeError(`NAVIGATOR_QUERY_TIMEOUT_MS=${raw}: expected a number of milliseconds above 0`);
  return ms;
}

/** A worker seen on a task queue (DescribeTaskQueue). */
export interface PollerSeen {
  identity: string;
  /** when it last polled, as the server recorded it */
  lastAccessTime: Date | null;
}

/**
 * A query of a running run that no worker answered in time. `polling` says whether a
 * worker polled the task queue recently (then it may have stopped just now, or be too
 * busy to answer); without one, nothing will answer until a worker starts.
 */
export class WorkerUnavailableError extends Error {
  override readonly name = 'WorkerUnavailableError';
  constructor(
    message: string,
    readonly workflowId: string,
    readonly taskQueue: string,
    readonly polling: boolean,
    readonly pollers: PollerSeen[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The run's history holds no state yet: no worker took its first workflow task (started while none polled). */
export class NotRunYetError extends Error {
  override readonly name = 'NotRunYetError';
  constructor(readonly workflowId: string) {
    super(`${workflowId} has not run yet: no worker took its first workflow task, so its history holds no state`);
  }
}

/** A read's value, and why it came from history when no worker answered a running run (else null). */
export interface Answered<T> {
  value: T;
  unavailable: WorkerUnavailableError | null;
}

/**
 * `ask`'s answer; when no worker answers (a running run whose worker is gone), `fromHistory`'s,
 * with the reason: every view of a running run then still shows what its history holds, and
 * says why (a banner, a line, a non-zero exit). Any other failure is the caller's.
 */
export async function orFromHistory<T>(ask: () => Promise<T>, fromHistory: () => Promise<T>): Promise<Answered<T>> {
  try {
    return { value: await ask(), unavailable: null };
  } catch (err) {
    if (!(err instanceof WorkerUnavailableError)) throw err;
    return { value: await fromHistory(), unavailable: err };
  }
}

/** What the end of a run's history says: each query's answer as the workflow's state there. */
export interface HistoryState {
  workflowId: string;
  runId: string;
  /** the workflow type (`navigatorMission`, `planExecution`) */
  type: string;
  /** Temporal's status when it was read: RUNNING, COMPLETED, FAILED, ... */
  temporalStatus: string;
  historyLength: number;
  /** the workflow task the answers are from (0: no workflow task ran yet) */
  at: number;
  answers: Record<string, QueryAnswer>;
  /** payloads of the history that did not decode (missing from the payload store, a key that is gone) */
  decodeFailures: DecodeReport['failures'];
  /** the workflow code could not replay the history to its end */
  replayError?: string;
}

export interface RunReaderOptions {
  /** how long a query of a running run waits for a worker @default NAVIGATOR_QUERY_TIMEOUT_MS, else 3000 */
  queryTimeoutMs?: number;
  /** how many run states are kept @default 64 */
  max?: number;
}

export class RunReader {
  readonly queryTimeoutMs: number;
  private readonly max: number;
  /** `runId:historyLength` → the state read there (in flight or done); Map order is order of use */
  private readonly states = new Map<string, Promise<HistoryState>>();

  constructor(
    readonly client: WorkflowClient,
    opts: RunReaderOptions = {},
  ) {
    this.queryTimeoutMs = opts.queryTimeoutMs ?? queryTimeoutFromEnv();
    this.max = opts.max ?? 64;
  }

  /** Where the workflow stands (its latest run): no worker involved. */
  describe(workflowId: string): Promise<WorkflowExecutionDescription> {
    return this.client.getHandle(workflowId).describe();
  }

  /**
   * The latest run's state at the end of its history, replayed here (for a closed run, the
   * state every query of it would answer from). Read once per run and history length.
   */
  async fromHistory(workflowId: string, description?: WorkflowExecutionDescription): Promise<HistoryState> {
    const d = description ?? (await this.describe(workflowId));
    const key = `${d.runId}:${d.historyLength}`;
    const had = this.states.get(key);
    if (had) {
      this.states.delete(key);
      this.states.set(key, had);
      return had;
    }
    const loading = this.load(d);
    this.states.set(key, loading);
    loading.catch(() => this.states.get(key) === loading && this.states.delete(key));
    if (this.states.size > this.max) this.states.delete(this.states.keys().next().value!);
    return loading;
  }

  /**
   * The answers of the named queries: from history for a closed run; from the worker for a
   * running one (each with the deadline), or a {@link WorkerUnavailableError}.
   */
  async read(
    workflowId: string,
    names: readonly string[],
    described?: WorkflowExecutionDescription,
  ): Promise<{ description: WorkflowExecutionDescription; answers: unknown[]; from: 'history' | 'worker' }> {
    const description = described ?? (await this.describe(workflowId));
    if (isClosed(description)) {
      try {
        return {
          description,
          answers: this.pick(await this.fromHistory(workflowId, description), names),
          from: 'history',
        };
      } catch (err) {
        if (!(err instanceof HistoryReplayError)) throw err;
        // this process's code is not the run's (a CLI newer or older than the workers): a worker with the run's code may answer
        const handle = this.client.getHandle(workflowId);
        const answers = await this.client.connection
          .withDeadline(Date.now() + this.queryTimeoutMs, () => Promise.all(names.map((name) => handle.query(name))))
          .catch(() => null);
        if (!answers)
          throw new HistoryReplayError(`${err.message}; no worker answered a query of it either`, { cause: err });
        return { description, answers, from: 'worker' };
      }
    }
    const handle = this.client.getHandle(workflowId);
    const started = Date.now();
    for (;;) {
      try {
        const answers = await this.client.connection.withDeadline(Date.now() + this.queryTimeoutMs, () =>
          Promise.all(names.map((name) => handle.query(name))),
        );
        return { description, answers, from: 'worker' };
      } catch (err) {
        if (!unanswered(err)) throw err;
        // it may have closed meanwhile: then its history has the answer
        const now = await this.describe(workflowId);
        if (isClosed(now))
          return {
            description: now,
            answers: this.pick(await this.fromHistory(workflowId, now), names),
            from: 'history',
          };
        const seen = await this.pollers(now.taskQueue).catch(() => [] as PollerSeen[]);
        // a worker polling this very moment is alive, only slow (a loaded machine): it is given more time, up to a limit
        const alive =
          !serverSaysNoPoller(err) &&
          seen.some((p) => p.lastAccessTime && Date.now() - p.lastAccessTime.getTime() < POLLING_NOW_MS);
        if (alive && Date.now() - started < this.queryTimeoutMs * SLOW_WORKER_ROUNDS) continue;
        throw this.unavailable(workflowId, now.taskQueue, seen, err);
      }
    }
  }

  /** One query's answer (see {@link read}). */
  async query<T>(workflowId: string, name: string): Promise<T> {
    return (await this.read(workflowId, [name])).answers[0] as T;
  }

  /** One query's answer, else (no worker answers a running run) the answer its history holds. */
  async queryOrHistory<T>(workflowId: string, name: string): Promise<T> {
    const read = await orFromHistory(
      () => this.query<T>(workflowId, name),
      async () => answerOf<T>(await this.fromHistory(workflowId), name),
    );
    return read.value;
  }

  /** The workers seen polling `taskQueue` for workflow tasks, as the server lists them. */
  async pollers(taskQueue: string): Promise<PollerSeen[]> {
    const { TaskQueueType, TaskQueueKind } = proto.temporal.api.enums.v1;
    const response = await this.client.workflowService.describeTaskQueue({
      namespace: this.client.options.namespace,
      taskQueue: { name: taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    return (response.pollers ?? []).map((p) => ({
      identity: p.identity ?? '',
      lastAccessTime:
        p.lastAccessTime?.seconds != null
          ? new Date(Number(p.lastAccessTime.seconds) * 1000 + Math.floor((p.lastAccessTime.nanos ?? 0) / 1e6))
          : null,
    }));
  }

  /** Why nobody answered, as an error that says what to do. */
  private unavailable(
    workflowId: string,
    taskQueue: string,
    seen: PollerSeen[],
    cause: unknown,
  ): WorkerUnavailableError {
    const start = `start one with \`navigator worker --task-queue ${taskQueue}\``;
    const now = Date.now();
    const recent = serverSaysNoPoller(cause)
      ? []
      : seen.filter((p) => p.lastAccessTime && now - p.lastAccessTime.getTime() < POLLED_WITHIN_MS);
    if (recent.length === 0)
      return new WorkerUnavailableError(
        `no worker is polling task queue ${taskQueue}; ${start}`,
        workflowId,
        taskQueue,
        false,
        seen,
        { cause },
      );
    const latest = recent.reduce((a, b) => (a.lastAccessTime!.getTime() >= b.lastAccessTime!.getTime() ? a : b));
    const ago = Math.max(0, Math.round((now - latest.lastAccessTime!.getTime()) / 1000));
    return new WorkerUnavailableError(
      `no worker answered within ${this.queryTimeoutMs / 1000} s: task queue ${taskQueue} was last polled ${ago} s ago (by ${latest.identity || 'a worker'}), so its worker may have stopped just now or be too busy to answer; if none runs, ${start}`,
      workflowId,
      taskQueue,
      true,
      seen,
      { cause },
    );
  }

  private pick(state: HistoryState, names: readonly string[]): unknown[] {
    return names.map((name) => answerOf(state, name));
  }

  private async load(d: WorkflowExecutionDescription): Promise<HistoryState> {
    const history = await this.client.getHandle(d.workflowId, d.runId).fetchHistory();
    // stored references and encrypted payloads: decoded with the client's codecs, as the audit does
    const decoded = await decodePayloads(history, this.client.options.loadedDataConverter.payloadCodecs);
    const out = await readOut(d.workflowId, history);
    return {
      workflowId: d.workflowId,
      runId: d.runId,
      type: d.type,
      temporalStatus: d.status.name,
      historyLength: history.events?.length ?? d.historyLength,
      at: out.at,
      answers: out.answers,
      decodeFailures: decoded.failures,
      ...(out.replayError ? { replayError: out.replayError } : {}),
    };
  }
}

/** A query's answer from a history state, or the error its handler threw (as a query would). */
export function answerOf<T = unknown>(state: HistoryState, name: string): T {
  const answer = state.answers[name];
  if (!answer) {
    if (state.at === 0) throw new NotRunYetError(state.workflowId);
    throw new QueryNotRegisteredError(
      `the workflow has no query ${name} (history of run ${state.runId})`,
      grpcStatus.INVALID_ARGUMENT,
    );
  }
  if ('error' in answer) throw new Error(answer.error);
  return (answer.ok ?? null) as T;
}

export const isClosed = (d: Pick<WorkflowExecutionDescription, 'status'>): boolean => d.status.name !== 'RUNNING';

/** The query could not be answered by a worker: the deadline passed, or the server knows no poller. */
function unanswered(err: unknown): boolean {
  const code = grpcCode(err);
  return code === grpcStatus.DEADLINE_EXCEEDED || code === grpcStatus.CANCELLED || serverSaysNoPoller(err);
}

function serverSaysNoPoller(err: unknown): boolean {
  return grpcCode(err) === grpcStatus.FAILED_PRECONDITION && /poller/i.test(messageOf(err));
}

function grpcCode(err: unknown): number | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number') return code;
  }
  return undefined;
}

function messageOf(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++)
    parts.push(String((e as Error).message ?? e));
  return parts.join(': ');
}

const readers = new WeakMap<WorkflowClient, RunReader>();

/**
 * The reader of a Temporal client: one per client, so every handle on it shares what was
 * read. Options given make a new one when they differ from the current reader's.
 */
export function readerOf(client: WorkflowClient, opts?: RunReaderOptions): RunReader {
  let reader = readers.get(client);
  const differs = opts?.queryTimeoutMs !== undefined && opts.queryTimeoutMs !== reader?.queryTimeoutMs;
  if (!reader || differs) readers.set(client, (reader = new RunReader(client, opts)));
  return reader;
}
