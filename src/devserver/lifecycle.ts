/**
 * Workflow executions: start (request-id dedup, id reuse and conflict policies),
 * signal, signal-with-start, cancel requests, terminate, and closing a run. How a run
 * closes itself (commands, retries, cron, timeouts) is closing.ts.
 */
import { status } from '@grpc/grpc-js';
import { parseCron } from './cron.ts';
import { Engine } from './engine.ts';
import { RpcError } from './errors.ts';
import { append, appendNew, flushBuffered, newEvent, record } from './history.ts';
import { RUNNING, type ExecutionStatus, type NamespaceState, type ParentLink, type RunState } from './model.ts';
import { checkSearchAttributes } from './namespaces.ts';
import { duration, durationMs, type Msg, timestamp } from './proto.ts';
import * as queries from './queries.ts';
import { scheduleWorkflowTask } from './workflow-task-schedule.ts';

const DEFAULT_TASK_TIMEOUT_MS = 10_000;
const MAX_TASK_TIMEOUT_MS = 120_000;

/** What a new run is started with (from a start request or a continue-as-new). */
export interface RunParams {
  workflowId: string;
  workflowType: string;
  taskQueue: string;
  input?: Msg;
  header?: Msg;
  executionTimeoutMs: number;
  runTimeoutMs: number;
  taskTimeoutMs: number;
  memo?: Msg;
  searchAttributes?: Msg;
  userMetadata?: Msg;
  identity?: string;
  requestId?: string;
  startDelayMs?: number;
  retryPolicy?: Msg;
  /** Workflow retry attempt, from 1. */
  attempt?: number;
  priority?: Msg;
  firstRunId?: string;
  executionExpiresAt?: number;
  continuedFrom?: { runId: string; initiator?: string; lastCompletionResult?: Msg; failure?: Msg };
  /** a child workflow's parent */
  parent?: ParentLink;
  /** the run repeats on this cron schedule (the first task waits for its first time) */
  cronSchedule?: string;
}

export function normalizeTimeouts(executionMs: number, runMs: number, taskMs: number) {
  const runTimeoutMs = runMs > 0 ? (executionMs > 0 ? Math.min(runMs, executionMs) : runMs) : executionMs;
  const taskTimeoutMs = Math.min(
    taskMs > 0 ? taskMs : DEFAULT_TASK_TIMEOUT_MS,
    MAX_TASK_TIMEOUT_MS,
    runTimeoutMs || Infinity,
  );
  return { executionTimeoutMs: executionMs, runTimeoutMs, taskTimeoutMs };
}

/** The parent fields of a child's WorkflowExecutionStarted event. */
function parentAttributes(p: ParentLink): Msg {
  return {
    parentWorkflowNamespace: p.namespace,
    parentWorkflowNamespaceId: p.namespaceId,
    parentWorkflowExecution: { workflowId: p.workflowId, runId: p.runId },
    parentInitiatedEventId: p.initiatedEventId,
    rootWorkflowExecution: p.root,
  };
}

export function createRun(engine: Engine, ns: NamespaceState, p: RunParams): RunState {
  const now = Date.now();
  const runId = Engine.newId();
  const firstRunId = p.firstRunId ?? runId;
  const executionExpiresAt =
    p.executionExpiresAt ?? (p.executionTimeoutMs > 0 ? now + p.executionTimeoutMs : undefined);
  const startDelayMs = p.startDelayMs ?? 0;
  const run: RunState = {
    namespace: ns.name,
    workflowId: p.workflowId,
    runId,
    firstRunId,
    workflowType: p.workflowType,
    taskQueue: p.taskQueue,
    status: RUNNING,
    startedAt: now,
    executionTime: now + startDelayMs,
    requestIds: p.requestId ? [p.requestId] : [],
    events: [],
    buffered: [],
    runTimeoutMs: p.runTimeoutMs,
    executionTimeoutMs: p.executionTimeoutMs,
    taskTimeoutMs: p.taskTimeoutMs,
    runExpiresAt: p.runTimeoutMs > 0 ? now + p.runTimeoutMs : undefined,
    executionExpiresAt,
    firstTaskAt: startDelayMs > 0 ? now + startDelayMs : undefined,
    memo: p.memo,
    searchAttributes: p.searchAttributes,
    userMetadata: p.userMetadata,
    wftPending: false,
    lastCompletedStartedEventId: 0,
    activities: {},
    timers: {},
    updates: {},
    cancelRequested: false,
    stateTransitions: 0,
    ...(p.parent ? { parent: p.parent } : {}),
  };
  appendNew(
    run,
    'WorkflowExecutionStarted',
    {
      workflowType: { name: p.workflowType },
      taskQueue: { name: p.taskQueue, kind: 'TASK_QUEUE_KIND_NORMAL' },
      input: p.input,
      workflowExecutionTimeout: duration(p.executionTimeoutMs),
      workflowRunTimeout: duration(p.runTimeoutMs),
      workflowTaskTimeout: duration(p.taskTimeoutMs),
      continuedExecutionRunId: p.continuedFrom?.runId,
      initiator: p.continuedFrom?.initiator ?? (p.cronSchedule ? 'CONTINUE_AS_NEW_INITIATOR_CRON_SCHEDULE' : undefined),
      continuedFailure: p.continuedFrom?.failure,
      lastCompletionResult: p.continuedFrom?.lastCompletionResult,
      originalExecutionRunId: runId,
      identity: p.identity,
      firstExecutionRunId: firstRunId,
      retryPolicy: p.retryPolicy,
      attempt: p.attempt ?? 1,
      workflowExecutionExpirationTime: executionExpiresAt ? timestamp(executionExpiresAt) : undefined,
      firstWorkflowTaskBackoff: startDelayMs > 0 ? duration(startDelayMs) : undefined,
      memo: p.memo,
      searchAttributes: p.searchAttributes,
      header: p.header,
      workflowId: p.workflowId,
      priority: p.priority,
      ...(p.cronSchedule ? { cronSchedule: p.cronSchedule } : {}),
      ...(p.parent ? parentAttributes(p.parent) : {}),
    },
    p.userMetadata ? { userMetadata: p.userMetadata } : {},
  );
  engine.addRun(run);
  return run;
}

function paramsFromRequest(r: Msg): RunParams {
  return {
    workflowId: r.workflowId,
    workflowType: r.workflowType?.name ?? '',
    taskQueue: r.taskQueue?.name ?? '',
    input: r.input,
    header: r.header,
    ...normalizeTimeouts(
      durationMs(r.workflowExecutionTimeout),
      durationMs(r.workflowRunTimeout),
      durationMs(r.workflowTaskTimeout),
    ),
    memo: r.memo,
    searchAttributes: r.searchAttributes,
    userMetadata: r.userMetadata,
    identity: r.identity,
    requestId: r.requestId,
    startDelayMs: r.cronSchedule
      ? cronDelayMs(r.cronSchedule, Date.now(), Date.now())
      : durationMs(r.workflowStartDelay),
    retryPolicy: r.retryPolicy,
    priority: r.priority,
    ...(r.cronSchedule ? { cronSchedule: r.cronSchedule } : {}),
  };
}

function validateStart(ns: NamespaceState, r: Msg): void {
  if (!r.workflowId) throw new RpcError(status.INVALID_ARGUMENT, 'WorkflowId is not set on request.');
  if (!r.workflowType?.name) throw new RpcError(status.INVALID_ARGUMENT, 'WorkflowType is not set on request.');
  if (!r.taskQueue?.name) throw new RpcError(status.INVALID_ARGUMENT, 'TaskQueue is not set on request.');
  if (r.cronSchedule) {
    // the real server's words, which name neither the schedule nor what is wrong with it
    const refused = cronScheduleError(r.cronSchedule);
    if (refused) throw new RpcError(status.INVALID_ARGUMENT, refused);
    if (durationMs(r.workflowStartDelay) > 0)
      throw new RpcError(status.INVALID_ARGUMENT, 'CronSchedule and WorkflowStartDelay may not be used together.');
  }
  checkSearchAttributes(ns, r.searchAttributes);
}

function alreadyStarted(existing: RunState, requestId: string): RpcError {
  return new RpcError(
    status.ALREADY_EXISTS,
    `Workflow execution is already running. WorkflowId: ${existing.workflowId}, RunId: ${existing.runId}.`,
    {
      type: 'temporal.api.errordetails.v1.WorkflowExecutionAlreadyStartedFailure',
      value: { startRequestId: requestId, runId: existing.runId },
    },
  );
}

const CLOSED_UNSUCCESSFULLY: ExecutionStatus[] = [
  'WORKFLOW_EXECUTION_STATUS_FAILED',
  'WORKFLOW_EXECUTION_STATUS_CANCELED',
  'WORKFLOW_EXECUTION_STATUS_TERMINATED',
  'WORKFLOW_EXECUTION_STATUS_TIMED_OUT',
];

/**
 * Applies request-id dedup and the id conflict / reuse policies. Returns the run to
 * answer with when no new run must be started.
 */
function resolveExisting(engine: Engine, ns: NamespaceState, r: Msg): { existing?: RunState; reuse: boolean } {
  const existing = engine.currentRun(ns.name, r.workflowId);
  if (!existing) return { reuse: false };
  if (r.requestId && existing.requestIds.includes(r.requestId)) return { existing, reuse: true };
  const reusePolicy: string = r.workflowIdReusePolicy ?? '';
  if (existing.status === RUNNING) {
    const conflict: string = r.workflowIdConflictPolicy ?? '';
    if (conflict === 'WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING') {
      if (r.requestId) {
        existing.requestIds.push(r.requestId);
        engine.changed('runs', Engine.keyOf(existing)); // persisted, so a retry after a restart dedups
      }
      return { existing, reuse: true };
    }
    const terminate =
      conflict === 'WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING' ||
      reusePolicy === 'WORKFLOW_ID_REUSE_POLICY_TERMINATE_IF_RUNNING';
    if (!terminate) throw alreadyStarted(existing, r.requestId ?? '');
    terminateRun(engine, existing, 'terminated by a new start of the same workflow id', undefined, r.identity);
    return { reuse: false };
  }
  if (
    reusePolicy === 'WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE' ||
    (reusePolicy === 'WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY' &&
      !CLOSED_UNSUCCESSFULLY.includes(existing.status))
  ) {
    throw alreadyStarted(existing, r.requestId ?? '');
  }
  return { reuse: false };
}

export function startWorkflowExecution(engine: Engine, r: Msg): Msg {
  const ns = engine.namespace(r.namespace);
  validateStart(ns, r);
  const { existing, reuse } = resolveExisting(engine, ns, r);
  if (reuse && existing) {
    return { runId: existing.runId, started: existing.requestIds[0] === r.requestId, status: existing.status };
  }
  const run = createRun(engine, ns, paramsFromRequest(r));
  scheduleWorkflowTask(engine, run);
  engine.touch(run);
  return { runId: run.runId, started: true, status: RUNNING };
}

export function signalWithStart(engine: Engine, r: Msg): Msg {
  const ns = engine.namespace(r.namespace);
  validateStart(ns, r);
  if (!r.signalName) throw new RpcError(status.INVALID_ARGUMENT, 'SignalName is not set on request.');
  const signal = { signalName: r.signalName, input: r.signalInput, identity: r.identity, header: r.header };
  const current = engine.currentRun(ns.name, r.workflowId);
  if (current?.status === RUNNING && r.workflowIdConflictPolicy !== 'WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING') {
    signalRun(engine, current, signal);
    return { runId: current.runId, started: false };
  }
  // A running workflow was signalled above unless the caller asked to replace it, so what
  // is left are the reuse rules for a closed one (or that termination). Request-id dedup
  // does not apply: every signal-with-start delivers its signal.
  resolveExisting(engine, ns, { ...r, requestId: undefined });
  const run = createRun(engine, ns, paramsFromRequest(r));
  append(run, newEvent('WorkflowExecutionSignaled', signal));
  scheduleWorkflowTask(engine, run);
  engine.touch(run);
  return { runId: run.runId, started: true };
}

export function signalRun(engine: Engine, run: RunState, signal: Msg): void {
  record(run, [newEvent('WorkflowExecutionSignaled', signal)]);
  scheduleWorkflowTask(engine, run);
  engine.touch(run);
}

export function signalWorkflowExecution(engine: Engine, r: Msg): Msg {
  if (!r.signalName) throw new RpcError(status.INVALID_ARGUMENT, 'SignalName is not set on request.');
  const run = engine.runningRun(r.namespace, r.workflowExecution);
  signalRun(engine, run, { signalName: r.signalName, input: r.input, identity: r.identity, header: r.header });
  return {};
}

export function requestCancel(engine: Engine, r: Msg): Msg {
  const run = engine.runningRun(r.namespace, r.workflowExecution);
  if (r.firstExecutionRunId && r.firstExecutionRunId !== run.firstRunId)
    throw new RpcError(status.NOT_FOUND, 'workflow not found');
  cancelRun(engine, run, { cause: r.reason, identity: r.identity });
  return {};
}

/** Asks a running workflow to cancel (once): WorkflowExecutionCancelRequested and a task. */
export function cancelRun(engine: Engine, run: RunState, attributes: Msg): void {
  if (run.cancelRequested) return;
  run.cancelRequested = true;
  record(run, [newEvent('WorkflowExecutionCancelRequested', attributes)]);
  scheduleWorkflowTask(engine, run);
  engine.touch(run);
}

export function terminateWorkflowExecution(engine: Engine, r: Msg): Msg {
  const run = engine.runningRun(r.namespace, r.workflowExecution);
  terminateRun(engine, run, r.reason ?? '', r.details, r.identity);
  return {};
}

export function terminateRun(
  engine: Engine,
  run: RunState,
  reason: string,
  details: Msg | undefined,
  identity?: string,
): void {
  abortWorkflowTask(run);
  closeRun(engine, run, 'WORKFLOW_EXECUTION_STATUS_TERMINATED', 'WorkflowExecutionTerminated', {
    reason,
    details,
    identity,
  });
}

/** A workflow closed from outside while a task runs: that task fails (force close). */
export function abortWorkflowTask(run: RunState): void {
  const wft = run.wft;
  if (wft?.startedEventId && !wft.transient) {
    appendNew(run, 'WorkflowTaskFailed', {
      scheduledEventId: wft.scheduledEventId,
      startedEventId: wft.startedEventId,
      cause: 'WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND',
      identity: 'navigator-dev-server',
    });
  }
  run.wft = undefined;
  flushBuffered(run);
}

/** Writes the closing event and drops everything the run still had pending. */
export function closeRun(
  engine: Engine,
  run: RunState,
  finalStatus: ExecutionStatus,
  eventType: string,
  attributes: Msg,
): void {
  appendNew(run, eventType, attributes);
  run.status = finalStatus;
  run.closedAt = Date.now();
  run.wft = undefined;
  run.wftPending = false;
  run.sticky = undefined;
  run.activities = {};
  run.timers = {};
  run.runExpiresAt = undefined;
  run.executionExpiresAt = undefined;
  run.firstTaskAt = undefined;
  queries.afterTask(engine, run);
  engine.touch(run);
  engine.runClosed(run, eventType, attributes);
}

/**
 * The backoff before a cron run's first task, as Temporal computes it: the schedule's first
 * time after the last run's scheduled time (`scheduledMs`; a first run: now) that is not
 * before now, rounded up to whole seconds.
 */
export function cronDelayMs(spec: string, scheduledMs: number, nowMs: number): number {
  const cron = parseCron(spec);
  let next = nowMs < scheduledMs ? scheduledMs : cron.next(scheduledMs);
  while (next < nowMs) next = cron.next(next);
  return Math.ceil((next - nowMs) / 1000) * 1000;
}

/** Why the real server refuses a cron schedule at start, in its words; undefined if it does not. */
export function cronScheduleError(spec: string): string | undefined {
  let cron;
  try {
    cron = parseCron(spec);
  } catch {
    return 'invalid CronSchedule.';
  }
  try {
    cron.next(Date.now());
  } catch {
    return 'invalid CronSchedule, no time can be found to satisfy the schedule';
  }
  return undefined;
}
