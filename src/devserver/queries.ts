/**
 * Queries, over the three delivery paths the SDK understands:
 *  - no workflow task pending: a legacy query task on the workflow's (sticky) queue,
 *    answered with RespondQueryTaskCompleted;
 *  - a task scheduled but not started: attached to that task's `queries` map and
 *    answered in RespondWorkflowTaskCompleted.queryResults;
 *  - a task running: deferred until it ends, then one of the above.
 * Pending queries live only in memory: their callers are live gRPC calls.
 */
import { status } from '@grpc/grpc-js';
import { decodeToken, Engine, encodeToken } from './engine.ts';
import { RpcError } from './errors.ts';
import type { CallContext } from './grpc.ts';
import { RUNNING, type RunState } from './model.ts';
import { polledWithin } from './pollers.ts';
import { type Msg, timestamp } from './proto.ts';
import { queueKey } from './workflow-task-schedule.ts';

interface PendingQuery {
  id: string;
  run: string;
  query: Msg;
  /** `queued`: another legacy query of the same run is with a worker; this one follows it */
  state: 'waiting' | 'attached' | 'queued' | 'legacy' | 'started';
  dispatchId?: string;
  /** Queue a legacy query task was put on. */
  queue?: string;
  /** Re-offers the query task on the normal queue if a worker took it and did not answer in time. */
  fallback?: NodeJS.Timeout;
  resolve(result: Msg): void;
}

/** Upper bound for a query whose caller set no deadline. */
const QUERY_TIMEOUT_MS = 60_000;
/** A query task a worker took but did not answer in this time goes to another worker. */
const QUERY_TASK_TIMEOUT_MS = 10_000;
/** A sticky queue nobody polled for this long has no worker: the real server's window (matching's stickyPollerUnavailableWindow). */
const STICKY_POLLER_UNAVAILABLE_MS = 10_000;

const registry = new WeakMap<Engine, Map<string, PendingQuery>>();

function pending(engine: Engine): Map<string, PendingQuery> {
  let map = registry.get(engine);
  if (!map) registry.set(engine, (map = new Map()));
  return map;
}

function rejected(run: RunState, condition: string | undefined): Msg | undefined {
  const notOpen = condition === 'QUERY_REJECT_CONDITION_NOT_OPEN' && run.status !== RUNNING;
  const notClean =
    condition === 'QUERY_REJECT_CONDITION_NOT_COMPLETED_CLEANLY' &&
    run.status !== RUNNING &&
    run.status !== 'WORKFLOW_EXECUTION_STATUS_COMPLETED';
  return notOpen || notClean ? { queryRejected: { status: run.status } } : undefined;
}

export async function queryWorkflow(engine: Engine, request: Msg, call: CallContext): Promise<Msg> {
  if (!request.query?.queryType) throw new RpcError(status.INVALID_ARGUMENT, 'QueryType is not set on request.');
  const run = engine.run(request.namespace, request.execution);
  const early = rejected(run, request.queryRejectCondition);
  if (early) return early;
  const result = await new Promise<Msg>((resolve, reject) => {
    const id = Engine.newId();
    // Without a worker nobody answers; the caller gets an error rather than waiting forever.
    const giveUp = setTimeout(
      () => {
        forget(engine, id);
        reject(new RpcError(status.DEADLINE_EXCEEDED, 'query timed out: no worker answered it'));
      },
      call.deadline ? Math.max(0, call.deadline - Date.now()) : QUERY_TIMEOUT_MS,
    );
    const answered = (value: Msg) => {
      clearTimeout(giveUp);
      resolve(value);
    };
    const query: PendingQuery = {
      id,
      run: Engine.keyOf(run),
      query: request.query ?? {},
      state: 'waiting',
      resolve: answered,
    };
    pending(engine).set(id, query);
    call.onCancel(() => {
      clearTimeout(giveUp);
      forget(engine, id);
    });
    route(engine, run, query);
  });
  if (result.resultType === 'QUERY_RESULT_TYPE_FAILED') {
    throw new RpcError(status.INVALID_ARGUMENT, result.errorMessage ?? 'query failed', {
      type: 'temporal.api.errordetails.v1.QueryFailedFailure',
      value: { failure: result.failure },
    });
  }
  return { queryResult: result.answer ?? { payloads: [] } };
}

function forget(engine: Engine, id: string): void {
  const query = pending(engine).get(id);
  if (query?.fallback) clearTimeout(query.fallback);
  pending(engine).delete(id);
  if (query && (query.state === 'legacy' || query.state === 'started')) dispatchNext(engine, query.run);
}

/** Decides the delivery path for a query that is not with a worker. */
function route(engine: Engine, run: RunState, query: PendingQuery): void {
  if (run.status === RUNNING && run.wft) {
    query.state = 'waiting'; // attached when the scheduled task starts, or deferred past the running one
    return;
  }
  // One legacy query task per run at a time: the SDK stalls on concurrent ones for the
  // same workflow (five at once took 20 s); the others follow as each is answered.
  if (legacyInFlight(engine, query)) {
    query.state = 'queued';
    return;
  }
  let sticky = run.status === RUNNING ? run.sticky : undefined;
  if (
    sticky &&
    !polledWithin(engine, run.namespace, 'TASK_QUEUE_TYPE_WORKFLOW', sticky.queue, STICKY_POLLER_UNAVAILABLE_MS)
  ) {
    // its worker is gone (killed: it never said so with ShutdownWorker): any worker answers,
    // and the run is no longer sticky, as the real server resets it on StickyWorkerUnavailable
    forgetSticky(engine, run, sticky.queue);
    sticky = undefined;
  }
  dispatchLegacy(engine, run, query, sticky?.queue ?? run.taskQueue);
  if (sticky) {
    // A sticky worker that does not pick the query up in time may be gone: the query goes to
    // the normal queue and the run stops being sticky, even when its caller has given up by
    // then (a query deadline shorter than the sticky timeout: else every later query would go
    // to the dead worker's queue again, and none would ever be answered)
    const queue = sticky.queue;
    if (query.fallback) clearTimeout(query.fallback);
    setTimeout(() => {
      if (query.state !== 'legacy' || query.queue !== queue) return; // taken by the sticky worker, or moved
      forgetSticky(engine, run, queue);
      if (pending(engine).has(query.id)) dispatchLegacy(engine, run, query, run.taskQueue);
    }, sticky.timeoutMs).unref();
  }
}

/** The run's sticky queue `queue` has no worker: its next query and task go to the normal queue. */
function forgetSticky(engine: Engine, run: RunState, queue: string): void {
  if (run.sticky?.queue !== queue || run.wft) return; // a task of its own meanwhile: its sticky timeout decides
  run.sticky = undefined;
  engine.touch(run);
}

function legacyInFlight(engine: Engine, query: PendingQuery): boolean {
  for (const other of pending(engine).values()) {
    if (other !== query && other.run === query.run && (other.state === 'legacy' || other.state === 'started'))
      return true;
  }
  return false;
}

/** The next queued query of `runKey`, once the one with a worker is answered or forgotten. */
function dispatchNext(engine: Engine, runKey: string): void {
  const run = engine.state.runs[runKey];
  if (!run) return;
  for (const query of pending(engine).values()) {
    if (query.run !== runKey || query.state !== 'queued') continue;
    route(engine, run, query);
    return;
  }
}

function dispatchLegacy(engine: Engine, run: RunState, query: PendingQuery, queue: string): void {
  query.state = 'legacy';
  query.queue = queue;
  engine.workflowQueues.add(queueKey(run.namespace, queue), { kind: 'query', queryId: query.id });
}

/** Queries to put in the `queries` map of a workflow task that is starting. */
export function attachToTask(engine: Engine, run: RunState, dispatchId: string): Msg | undefined {
  const key = Engine.keyOf(run);
  const out: Msg = {};
  for (const query of pending(engine).values()) {
    if (query.run !== key || query.state !== 'waiting') continue;
    query.state = 'attached';
    query.dispatchId = dispatchId;
    out[query.id] = query.query;
  }
  return Object.keys(out).length ? out : undefined;
}

export function answerFromTask(engine: Engine, results: Record<string, Msg>): void {
  for (const [id, result] of Object.entries(results)) answer(engine, id, result);
}

function answer(engine: Engine, id: string, result: Msg): void {
  const query = pending(engine).get(id);
  if (!query) return;
  forget(engine, id);
  query.resolve(result);
}

/** After a workflow task ends, reroute queries that were waiting on it. */
export function afterTask(engine: Engine, run: RunState): void {
  const key = Engine.keyOf(run);
  for (const query of pending(engine).values()) {
    if (query.run !== key || (query.state !== 'waiting' && query.state !== 'attached' && query.state !== 'queued'))
      continue;
    if (run.wft?.startedEventId) continue; // a new task is already running: wait for it
    route(engine, run, query);
  }
}

export function startLegacyQuery(engine: Engine, queryId: string, queueName: string, request: Msg): Msg | undefined {
  const query = pending(engine).get(queryId);
  if (!query || query.state !== 'legacy' || query.queue !== queueName) return undefined;
  const run = engine.state.runs[query.run];
  if (!run) return undefined;
  query.state = 'started';
  // A poll answered just as its worker went away loses the task; nothing else would
  // ever time it out, so an unanswered query task is offered again.
  if (query.fallback) clearTimeout(query.fallback);
  query.fallback = setTimeout(() => {
    if (query.state === 'started' && pending(engine).has(queryId)) dispatchLegacy(engine, run, query, run.taskQueue);
  }, QUERY_TASK_TIMEOUT_MS);
  const sticky = queueName !== run.taskQueue;
  const firstEvent = sticky ? run.lastCompletedStartedEventId + 1 : 1;
  const now = timestamp(Date.now());
  return {
    taskToken: encodeToken({ kind: 'query', queryId }),
    workflowExecution: { workflowId: run.workflowId, runId: run.runId },
    workflowType: { name: run.workflowType },
    previousStartedEventId: run.lastCompletedStartedEventId,
    startedEventId: run.lastCompletedStartedEventId,
    attempt: 1,
    history: { events: run.events.slice(firstEvent - 1) },
    query: query.query,
    workflowExecutionTaskQueue: { name: run.taskQueue, kind: 'TASK_QUEUE_KIND_NORMAL' },
    scheduledTime: now,
    startedTime: now,
    identity: request.identity,
  };
}

export function respondQueryTaskCompleted(engine: Engine, request: Msg): Msg {
  const token = decodeToken(request.taskToken, 'query');
  if (!pending(engine).has(token.queryId ?? '')) throw new RpcError(status.NOT_FOUND, 'query task not found');
  answer(engine, token.queryId!, {
    resultType: request.completedType,
    answer: request.queryResult,
    errorMessage: request.errorMessage,
    failure: request.failure,
  });
  return {};
}

/** A sticky worker shut down: its queued legacy queries go to the normal queue. */
export function moveStickyQueries(engine: Engine, namespace: string, stickyQueue: string): void {
  for (const query of pending(engine).values()) {
    const run = engine.state.runs[query.run];
    if (!run || run.namespace !== namespace || query.state !== 'legacy' || query.queue !== stickyQueue) continue;
    dispatchLegacy(engine, run, query, run.taskQueue);
  }
}
