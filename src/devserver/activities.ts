/**
 * Activity tasks: scheduling with timeouts and retry policy filled as the real server
 * fills them, dispatch, heartbeats, completion by token or by id, retries with
 * exponential backoff (no events), timeouts, and cancellation.
 *
 * As in the real server, ActivityTaskStarted is written only when the activity reaches a
 * final outcome (with the last attempt number and previous failure), so retries leave no
 * trace in history.
 */
import { status } from '@grpc/grpc-js';
import { type CommandContext, commandMetadata } from './command-context.ts';
import { decodeToken, Engine, encodeToken } from './engine.ts';
import { RpcError } from './errors.ts';
import type { CallContext } from './grpc.ts';
import { appendNew, newEvent, PREVIOUS_EVENT, record } from './history.ts';
import { type ActivityState, RUNNING, type RunState } from './model.ts';
import { duration, durationMs, type Msg, timestamp } from './proto.ts';
import { fillRetryPolicy, nextRetry } from './retry-policy.ts';
import { queueKey, scheduleWorkflowTask } from './workflow-task-schedule.ts';
import { versionStamp } from './worker-polls.ts';

// --- scheduling ----------------------------------------------------------------------

/** Fills timeouts the way the real server validates ScheduleActivityTask. */
function fillTimeouts(a: Msg, runTimeoutMs: number): Msg {
  let scheduleToClose = durationMs(a.scheduleToCloseTimeout);
  let scheduleToStart = durationMs(a.scheduleToStartTimeout);
  let startToClose = durationMs(a.startToCloseTimeout);
  let heartbeat = durationMs(a.heartbeatTimeout);
  if (scheduleToClose > 0) {
    scheduleToStart = scheduleToStart > 0 ? Math.min(scheduleToStart, scheduleToClose) : scheduleToClose;
    startToClose = startToClose > 0 ? Math.min(startToClose, scheduleToClose) : scheduleToClose;
  } else {
    // commandProblem() has checked that start-to-close is set when schedule-to-close is not.
    scheduleToClose = runTimeoutMs;
    if (scheduleToStart <= 0) scheduleToStart = scheduleToClose;
  }
  if (runTimeoutMs > 0) {
    scheduleToClose = Math.min(scheduleToClose || runTimeoutMs, runTimeoutMs);
    scheduleToStart = Math.min(scheduleToStart || runTimeoutMs, runTimeoutMs);
    startToClose = Math.min(startToClose, runTimeoutMs);
  }
  heartbeat = Math.min(heartbeat, startToClose);
  return {
    ...a,
    scheduleToCloseTimeout: duration(scheduleToClose),
    scheduleToStartTimeout: duration(scheduleToStart),
    startToCloseTimeout: duration(startToClose),
    heartbeatTimeout: duration(heartbeat),
    retryPolicy: fillRetryPolicy(a.retryPolicy),
  };
}

export function scheduleFromCommand(ctx: CommandContext, a: Msg, command: Msg): void {
  const { run, engine } = ctx;
  const attributes = fillTimeouts(
    { ...a, taskQueue: a.taskQueue?.name ? a.taskQueue : { name: run.taskQueue, kind: 'TASK_QUEUE_KIND_NORMAL' } },
    run.runTimeoutMs,
  );
  const scheduledEventId = appendNew(
    run,
    'ActivityTaskScheduled',
    {
      activityId: attributes.activityId,
      activityType: attributes.activityType,
      taskQueue: attributes.taskQueue,
      header: attributes.header,
      input: attributes.input,
      scheduleToCloseTimeout: attributes.scheduleToCloseTimeout,
      scheduleToStartTimeout: attributes.scheduleToStartTimeout,
      startToCloseTimeout: attributes.startToCloseTimeout,
      heartbeatTimeout: attributes.heartbeatTimeout,
      workflowTaskCompletedEventId: ctx.completedEventId,
      retryPolicy: attributes.retryPolicy,
      useWorkflowBuildId: attributes.useWorkflowBuildId,
      priority: attributes.priority,
    },
    commandMetadata(command),
  );
  const now = Date.now();
  const activity: ActivityState = {
    scheduledEventId,
    activityId: attributes.activityId,
    activityType: attributes.activityType?.name ?? '',
    taskQueue: attributes.taskQueue.name,
    attributes,
    attempt: 1,
    phase: 'SCHEDULED',
    scheduledAt: now,
    attemptScheduledAt: now,
    cancelRequested: false,
    dispatchId: Engine.newId(),
  };
  run.activities[scheduledEventId] = activity;
  // Eager execution, as the real server grants it: the worker that scheduled the activity
  // on its own task queue gets it in the completion response instead of polling for it.
  if (a.requestEagerExecution && activity.taskQueue === run.taskQueue) ctx.eagerActivities.push(scheduledEventId);
  else enqueueActivity(engine, run, activity);
}

/** Starts the eagerly requested activities (none if the same completion closed the run). */
export function startEager(
  engine: Engine,
  run: RunState,
  scheduledEventIds: number[],
  identity: string,
  workerVersion: Msg | undefined,
): Msg[] {
  const tasks: Msg[] = [];
  for (const id of scheduledEventIds) {
    const activity = run.activities[id];
    if (activity && run.status === RUNNING)
      tasks.push(startActivity(engine, run, activity, identity, versionStamp(workerVersion)));
  }
  return tasks;
}

export function enqueueActivity(engine: Engine, run: RunState, activity: ActivityState): void {
  engine.activityQueues.add(queueKey(run.namespace, activity.taskQueue), {
    run: Engine.keyOf(run),
    scheduledEventId: activity.scheduledEventId,
    dispatchId: activity.dispatchId,
  });
}

// --- polling -------------------------------------------------------------------------

export async function pollActivityTask(engine: Engine, request: Msg, call: CallContext): Promise<Msg> {
  engine.namespace(request.namespace);
  const key = queueKey(request.namespace, request.taskQueue?.name ?? '');
  return engine.pollTask(engine.activityQueues, key, call, (ticket) => {
    const run = engine.state.runs[ticket.run];
    const activity = run?.activities[ticket.scheduledEventId];
    if (!run || run.status !== RUNNING || activity?.phase !== 'SCHEDULED' || activity.dispatchId !== ticket.dispatchId)
      return undefined;
    return startActivity(engine, run, activity, request.identity, versionStamp(request.workerVersionCapabilities));
  });
}

function startActivity(
  engine: Engine,
  run: RunState,
  activity: ActivityState,
  identity: string,
  workerVersion: Msg | undefined,
): Msg {
  activity.phase = 'STARTED';
  activity.startedAt = Date.now();
  activity.lastHeartbeatAt = undefined;
  activity.identity = identity;
  activity.workerVersion = workerVersion;
  const a = activity.attributes;
  const response = {
    taskToken: encodeToken({
      kind: 'activity',
      run: Engine.keyOf(run),
      scheduledEventId: activity.scheduledEventId,
      attempt: activity.attempt,
      dispatchId: activity.dispatchId,
    }),
    workflowNamespace: run.namespace,
    workflowType: { name: run.workflowType },
    workflowExecution: { workflowId: run.workflowId, runId: run.runId },
    activityType: a.activityType,
    activityId: activity.activityId,
    header: a.header,
    input: a.input,
    heartbeatDetails: activity.heartbeatDetails,
    scheduledTime: timestamp(activity.scheduledAt),
    currentAttemptScheduledTime: timestamp(activity.attemptScheduledAt),
    startedTime: timestamp(activity.startedAt),
    attempt: activity.attempt,
    scheduleToCloseTimeout: a.scheduleToCloseTimeout,
    startToCloseTimeout: a.startToCloseTimeout,
    heartbeatTimeout: a.heartbeatTimeout,
    retryPolicy: a.retryPolicy,
    priority: a.priority,
  };
  engine.touch(run);
  return response;
}

// --- responses from workers ----------------------------------------------------------

/** The started activity a token (or an id triple) refers to; NOT_FOUND when stale. */
function byToken(engine: Engine, taskToken: string): { run: RunState; activity: ActivityState } {
  const token = decodeToken(taskToken, 'activity');
  const run = engine.state.runs[token.run ?? ''];
  const activity = run?.activities[token.scheduledEventId ?? -1];
  if (
    !run ||
    run.status !== RUNNING ||
    activity?.phase !== 'STARTED' ||
    activity.dispatchId !== token.dispatchId ||
    activity.attempt !== token.attempt
  ) {
    throw new RpcError(
      status.NOT_FOUND,
      'invalid activityID or activity already timed out or invoking workflow is completed',
    );
  }
  return { run, activity };
}

function byId(engine: Engine, request: Msg): { run: RunState; activity: ActivityState } {
  const run = engine.runningRun(request.namespace, { workflowId: request.workflowId, runId: request.runId });
  const activity = Object.values(run.activities).find((a) => a.activityId === request.activityId);
  if (!activity) throw new RpcError(status.NOT_FOUND, `activity ${request.activityId} not found`);
  if (activity.phase !== 'STARTED')
    throw new RpcError(status.NOT_FOUND, `activity ${request.activityId} is not started`);
  return { run, activity };
}

const target = (engine: Engine, request: Msg, isById: boolean) =>
  isById ? byId(engine, request) : byToken(engine, request.taskToken);

export function heartbeat(engine: Engine, request: Msg, isById: boolean): Msg {
  const { run, activity } = target(engine, request, isById);
  if (request.details) activity.heartbeatDetails = request.details;
  activity.lastHeartbeatAt = Date.now();
  engine.touch(run);
  return { cancelRequested: activity.cancelRequested, activityPaused: false, activityReset: false };
}

export function completed(engine: Engine, request: Msg, isById: boolean): Msg {
  const { run, activity } = target(engine, request, isById);
  finish(engine, run, activity, 'ActivityTaskCompleted', { result: request.result, identity: request.identity });
  return {};
}

export function failed(engine: Engine, request: Msg, isById: boolean): Msg {
  const { run, activity } = target(engine, request, isById);
  if (request.lastHeartbeatDetails) activity.heartbeatDetails = request.lastHeartbeatDetails;
  const failure = request.failure ?? { message: 'activity failed' };
  const retry = retryDecision(activity, failure);
  if (retry.delayMs !== undefined) scheduleRetry(engine, run, activity, failure, retry.delayMs);
  else
    finish(engine, run, activity, 'ActivityTaskFailed', {
      failure,
      identity: request.identity,
      retryState: retry.state,
    });
  return {};
}

export function canceled(engine: Engine, request: Msg, isById: boolean): Msg {
  const { run, activity } = target(engine, request, isById);
  finish(engine, run, activity, 'ActivityTaskCanceled', {
    details: request.details,
    latestCancelRequestedEventId: activity.latestCancelRequestedEventId,
    identity: request.identity,
  });
  return {};
}

/** Final outcome: record ActivityTaskStarted and the outcome event, wake the workflow. */
function finish(engine: Engine, run: RunState, activity: ActivityState, type: string, attributes: Msg): void {
  delete run.activities[activity.scheduledEventId];
  const events: Msg[] = [];
  const everStarted = activity.phase === 'STARTED' || activity.attempt > 1;
  if (everStarted) {
    events.push(
      newEvent('ActivityTaskStarted', {
        scheduledEventId: activity.scheduledEventId,
        identity: activity.identity,
        requestId: activity.dispatchId,
        attempt: activity.attempt,
        lastFailure: activity.lastFailure,
        workerVersion: activity.workerVersion,
      }),
    );
  }
  events.push(
    newEvent(type, {
      ...attributes,
      scheduledEventId: activity.scheduledEventId,
      startedEventId: everStarted ? PREVIOUS_EVENT : 0,
    }),
  );
  record(run, events);
  scheduleWorkflowTask(engine, run);
  engine.touch(run);
}

// --- retries -------------------------------------------------------------------------

/** Either a delay before the next attempt or the RetryState explaining why there is none. */
function retryDecision(activity: ActivityState, failure: Msg): { delayMs?: number; state?: string } {
  const scheduleToClose = durationMs(activity.attributes.scheduleToCloseTimeout);
  return nextRetry({
    policy: activity.attributes.retryPolicy,
    attempt: activity.attempt,
    failure,
    deadline: scheduleToClose > 0 ? activity.scheduledAt + scheduleToClose : undefined,
  });
}

function scheduleRetry(engine: Engine, run: RunState, activity: ActivityState, failure: Msg, delayMs: number): void {
  activity.lastFailure = failure;
  activity.attempt++;
  activity.phase = 'BACKOFF';
  activity.retryAt = Date.now() + delayMs;
  activity.startedAt = undefined;
  engine.touch(run);
}

// --- timeouts ------------------------------------------------------------------------

type TimeoutKind = 'schedule-to-start' | 'schedule-to-close' | 'start-to-close' | 'heartbeat' | 'retry';

export function activityDeadlines(run: RunState): Array<{ name: string; at: number }> {
  const out: Array<{ name: string; at: number }> = [];
  for (const act of Object.values(run.activities)) {
    const a = act.attributes;
    const add = (kind: TimeoutKind, at: number) => out.push({ name: `activity:${act.scheduledEventId}:${kind}`, at });
    const scheduleToClose = durationMs(a.scheduleToCloseTimeout);
    if (scheduleToClose > 0) add('schedule-to-close', act.scheduledAt + scheduleToClose);
    if (act.phase === 'SCHEDULED') {
      const s2s = durationMs(a.scheduleToStartTimeout);
      if (s2s > 0 && s2s !== scheduleToClose) add('schedule-to-start', act.attemptScheduledAt + s2s);
    } else if (act.phase === 'STARTED') {
      add('start-to-close', act.startedAt! + durationMs(a.startToCloseTimeout));
      const hb = durationMs(a.heartbeatTimeout);
      if (hb > 0) add('heartbeat', (act.lastHeartbeatAt ?? act.startedAt!) + hb);
    } else {
      add('retry', act.retryAt!);
    }
  }
  return out;
}

const TIMEOUT_TYPES: Record<Exclude<TimeoutKind, 'retry'>, [string, string]> = {
  'schedule-to-start': ['TIMEOUT_TYPE_SCHEDULE_TO_START', 'ScheduleToStart'],
  'schedule-to-close': ['TIMEOUT_TYPE_SCHEDULE_TO_CLOSE', 'ScheduleToClose'],
  'start-to-close': ['TIMEOUT_TYPE_START_TO_CLOSE', 'StartToClose'],
  heartbeat: ['TIMEOUT_TYPE_HEARTBEAT', 'Heartbeat'],
};

export function onActivityDeadline(engine: Engine, run: RunState, name: string): void {
  const [, id, kind] = name.split(':') as [string, string, TimeoutKind];
  const activity = run.activities[id];
  if (!activity) return;
  if (kind === 'retry') {
    activity.phase = 'SCHEDULED';
    activity.retryAt = undefined;
    activity.attemptScheduledAt = Date.now();
    activity.dispatchId = Engine.newId();
    enqueueActivity(engine, run, activity);
    engine.touch(run);
    return;
  }
  // Schedule-to-start defaults to schedule-to-close: an attempt that no worker picked up
  // times out as SCHEDULE_TO_START, as on a real server.
  const s2s = durationMs(activity.attributes.scheduleToStartTimeout);
  if (
    kind === 'schedule-to-close' &&
    activity.phase === 'SCHEDULED' &&
    s2s > 0 &&
    activity.attemptScheduledAt + s2s <= Date.now()
  ) {
    return onActivityDeadline(engine, run, `activity:${id}:schedule-to-start`);
  }
  const [timeoutType, label] = TIMEOUT_TYPES[kind];
  const failure: Msg = {
    message: `activity ${label} timeout`,
    source: '',
    timeoutFailureInfo: { timeoutType, lastHeartbeatDetails: activity.heartbeatDetails },
  };
  // Only start-to-close and heartbeat timeouts are retried, as in the real server.
  const retry =
    kind === 'start-to-close' || kind === 'heartbeat'
      ? retryDecision(activity, failure)
      : { state: 'RETRY_STATE_TIMEOUT' };
  if (retry.delayMs !== undefined) {
    scheduleRetry(engine, run, activity, failure, retry.delayMs);
    return;
  }
  if (activity.lastFailure && kind === 'schedule-to-close') failure.cause = activity.lastFailure;
  finish(engine, run, activity, 'ActivityTaskTimedOut', { failure, retryState: retry.state });
}

// --- cancellation --------------------------------------------------------------------

export function cancelFromCommand(ctx: CommandContext, a: Msg): void {
  const { run } = ctx;
  const scheduledEventId = Number(a.scheduledEventId);
  const cancelRequestedId = appendNew(run, 'ActivityTaskCancelRequested', {
    scheduledEventId,
    workflowTaskCompletedEventId: ctx.completedEventId,
  });
  const activity = run.activities[scheduledEventId];
  if (!activity) return;
  activity.latestCancelRequestedEventId = cancelRequestedId;
  if (activity.phase === 'STARTED') {
    // The worker learns about it from its next heartbeat response.
    activity.cancelRequested = true;
    return;
  }
  delete run.activities[scheduledEventId];
  appendNew(run, 'ActivityTaskCanceled', {
    scheduledEventId,
    startedEventId: 0,
    latestCancelRequestedEventId: cancelRequestedId,
    identity: ctx.identity,
  });
  ctx.needsTask = true;
}

/** PendingActivityInfo for DescribeWorkflowExecution. */
export function describePending(run: RunState): Msg[] {
  return Object.values(run.activities).map((act) => ({
    activityId: act.activityId,
    activityType: { name: act.activityType },
    state: act.cancelRequested
      ? 'PENDING_ACTIVITY_STATE_CANCEL_REQUESTED'
      : act.phase === 'STARTED'
        ? 'PENDING_ACTIVITY_STATE_STARTED'
        : 'PENDING_ACTIVITY_STATE_SCHEDULED',
    heartbeatDetails: act.heartbeatDetails,
    lastHeartbeatTime: act.lastHeartbeatAt ? timestamp(act.lastHeartbeatAt) : undefined,
    lastStartedTime: act.startedAt ? timestamp(act.startedAt) : undefined,
    attempt: act.attempt,
    maximumAttempts: act.attributes.retryPolicy?.maximumAttempts ?? 0,
    scheduledTime: timestamp(act.attemptScheduledAt),
    nextAttemptScheduleTime: act.retryAt ? timestamp(act.retryAt) : undefined,
    lastFailure: act.lastFailure,
    lastWorkerIdentity: act.identity,
    activityOptions: {
      taskQueue: act.attributes.taskQueue,
      scheduleToCloseTimeout: act.attributes.scheduleToCloseTimeout,
      scheduleToStartTimeout: act.attributes.scheduleToStartTimeout,
      startToCloseTimeout: act.attributes.startToCloseTimeout,
      heartbeatTimeout: act.attributes.heartbeatTimeout,
      retryPolicy: act.attributes.retryPolicy,
    },
  }));
}
