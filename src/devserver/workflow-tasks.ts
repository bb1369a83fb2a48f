/**
 * Workflow tasks: dispatch to pollers (normal and sticky queues), completion, failure and
 * timeouts; scheduling is workflow-task-schedule.ts. Mirrors the real server's rules that
 * the SDK depends on: events arriving during a task are buffered; a task closing the
 * workflow while events are buffered fails with UnhandledCommand; attempts after the
 * first are transient.
 */
import { status } from '@grpc/grpc-js';
import { startEager } from './activities.ts';
import { applyCompletion, commandProblem } from './commands.ts';
import { decodeToken, Engine, encodeToken } from './engine.ts';
import { RpcError } from './errors.ts';
import type { CallContext } from './grpc.ts';
import { appendNew, flushBuffered, newEvent, nextEventId } from './history.ts';
import { RUNNING, type RunState, type WorkflowTaskState } from './model.ts';
import { durationMs, type Msg, timestamp, unpackAny } from './proto.ts';
import * as queries from './queries.ts';
import * as updates from './updates.ts';
import {
  enqueueWorkflowTask,
  makeNormal,
  moveToNormalQueue,
  nothingNewSinceLastTask,
  queueKey,
  scheduledAttributes,
  scheduleWorkflowTask,
} from './workflow-task-schedule.ts';
import { versionStamp } from './worker-polls.ts';

// --- polling -------------------------------------------------------------------------

export async function pollWorkflowTask(engine: Engine, request: Msg, call: CallContext): Promise<Msg> {
  engine.namespace(request.namespace);
  const queueName = request.taskQueue?.name ?? '';
  return engine.pollTask(engine.workflowQueues, queueKey(request.namespace, queueName), call, (ticket) =>
    ticket.kind === 'task'
      ? startWorkflowTask(engine, ticket.run, ticket.dispatchId, request)
      : queries.startLegacyQuery(engine, ticket.queryId, queueName, request),
  );
}

function startWorkflowTask(engine: Engine, key: string, dispatchId: string, request: Msg): Msg | undefined {
  const run = engine.state.runs[key];
  const wft = run?.wft;
  if (!run || run.status !== RUNNING || !wft || wft.dispatchId !== dispatchId || wft.startedEventId) return undefined;
  wft.startedAt = Date.now();
  wft.identity = request.identity;
  wft.requestId = Engine.newId();
  wft.workerVersion = versionStamp(request.workerVersionCapabilities);
  const startedAttributes = {
    scheduledEventId: 0,
    identity: request.identity,
    requestId: wft.requestId,
    ...continueAsNewSuggestion(run),
    workerVersion: wft.workerVersion,
  };
  // Something was written since it was scheduled: the worker sees events, so the task stays.
  if (wft.speculative && !nothingNewSinceLastTask(run)) makeNormal(run, wft);
  let transientEvents: Msg[] = [];
  if (wft.transient) {
    // Transient attempt: its events are shown to the worker but written only on completion.
    wft.scheduledEventId = nextEventId(run);
    wft.startedEventId = wft.scheduledEventId + 1;
    startedAttributes.scheduledEventId = wft.scheduledEventId;
    transientEvents = [
      { ...newEvent('WorkflowTaskScheduled', scheduledAttributes(run, wft)), eventId: wft.scheduledEventId },
      { ...newEvent('WorkflowTaskStarted', startedAttributes), eventId: wft.startedEventId },
    ];
  } else {
    startedAttributes.scheduledEventId = wft.scheduledEventId;
    wft.startedEventId = appendNew(run, 'WorkflowTaskStarted', startedAttributes);
  }
  const firstEvent = wft.sticky ? run.lastCompletedStartedEventId + 1 : 1;
  const response: Msg = {
    taskToken: encodeToken({ kind: 'workflow', run: key, dispatchId }),
    workflowExecution: { workflowId: run.workflowId, runId: run.runId },
    workflowType: { name: run.workflowType },
    previousStartedEventId: run.lastCompletedStartedEventId,
    startedEventId: wft.startedEventId,
    attempt: wft.attempt,
    backlogCountHint: 0,
    history: { events: [...run.events.slice(firstEvent - 1), ...transientEvents] },
    workflowExecutionTaskQueue: { name: run.taskQueue, kind: 'TASK_QUEUE_KIND_NORMAL' },
    scheduledTime: timestamp(wft.scheduledAt),
    startedTime: timestamp(wft.startedAt),
    queries: queries.attachToTask(engine, run, dispatchId),
    messages: updates.deliverToTask(run, wft),
  };
  engine.touch(run);
  return response;
}

/** The real server's default limits for suggesting continue-as-new. */
const SUGGEST_CAN_EVENTS = 4096;
const SUGGEST_CAN_BYTES = 4 * 1024 * 1024;

function continueAsNewSuggestion(run: RunState): Msg {
  const historySizeBytes = run.historySizeBytes ?? 0;
  const reasons = [
    ...(run.events.length >= SUGGEST_CAN_EVENTS ? ['SUGGEST_CONTINUE_AS_NEW_REASON_TOO_MANY_HISTORY_EVENTS'] : []),
    ...(historySizeBytes >= SUGGEST_CAN_BYTES ? ['SUGGEST_CONTINUE_AS_NEW_REASON_HISTORY_SIZE_TOO_LARGE'] : []),
  ];
  return { historySizeBytes, suggestContinueAsNew: reasons.length > 0, suggestContinueAsNewReasons: reasons };
}

// --- completion and failure ----------------------------------------------------------

function startedTask(engine: Engine, taskToken: string): { run: RunState; wft: WorkflowTaskState } {
  const token = decodeToken(taskToken, 'workflow');
  const run = engine.state.runs[token.run ?? ''];
  const wft = run?.wft;
  if (!run || run.status !== RUNNING || !wft?.startedEventId || wft.dispatchId !== token.dispatchId) {
    throw new RpcError(status.NOT_FOUND, 'Workflow task not found.');
  }
  return { run, wft };
}

export function respondWorkflowTaskCompleted(engine: Engine, request: Msg): Msg {
  const { run, wft } = startedTask(engine, request.taskToken);
  queries.answerFromTask(engine, request.queryResults ?? {});
  rejectBadCompletion(engine, run, request);
  if (wft.speculative && onlyRejections(request) && run.buffered.length === 0)
    return dropSpeculative(engine, run, wft, request);
  writeTransientEvents(run, wft);
  const completedEventId = appendNew(run, 'WorkflowTaskCompleted', completedAttributes(wft, request));
  run.wft = undefined;
  run.lastCompletedStartedEventId = wft.startedEventId!;
  const outcome = applyCompletion(engine, run, request, completedEventId);
  run.lastCompletionEnd = run.events.length;
  if (run.status === RUNNING) {
    stickyFrom(run, request);
    updates.undeliver(run, wft.dispatchId);
    const flushed = flushBuffered(run);
    if (
      flushed > 0 ||
      outcome.needsTask ||
      run.wftPending ||
      request.forceCreateNewWorkflowTask ||
      updates.hasUndelivered(run)
    ) {
      scheduleWorkflowTask(engine, run);
    }
  }
  queries.afterTask(engine, run);
  const activityTasks = startEager(engine, run, outcome.eagerActivities, request.identity, request.workerVersionStamp);
  engine.touch(run);
  return activityTasks.length ? { activityTasks } : {};
}

/** The worker's sticky queue for the next task, if it asked for one. */
function stickyFrom(run: RunState, request: Msg): void {
  const sticky = request.stickyAttributes?.workerTaskQueue?.name;
  run.sticky = sticky
    ? { queue: sticky, timeoutMs: durationMs(request.stickyAttributes.scheduleToStartTimeout) || 10_000 }
    : undefined;
}

/** No command, and every message an update rejection: the real server writes nothing for it. */
function onlyRejections(request: Msg): boolean {
  if ((request.commands ?? []).length > 0 || request.forceCreateNewWorkflowTask) return false;
  return (request.messages ?? []).every((m: Msg) => unpackAny(m.body)?.type === 'temporal.api.update.v1.Rejection');
}

/**
 * A speculative task that only rejected updates leaves no trace in history, as on the real
 * server: the rejections complete their updates, the worker is told to roll its history back
 * to the last completed task (`resetHistoryEventId`), and the next task starts where this one
 * did. The SDK flags this task's completion carried are lost with it, as there.
 */
function dropSpeculative(engine: Engine, run: RunState, wft: WorkflowTaskState, request: Msg): Msg {
  applyCompletion(engine, run, request, 0);
  run.wft = undefined;
  stickyFrom(run, request);
  updates.undeliver(run, wft.dispatchId);
  if (run.wftPending || updates.hasUndelivered(run)) scheduleWorkflowTask(engine, run, 1, undefined, !run.wftPending);
  queries.afterTask(engine, run);
  engine.touch(run);
  return { resetHistoryEventId: run.lastCompletedStartedEventId };
}

/**
 * Fails the task (and throws the error the SDK expects) when the completion cannot be
 * applied: a command this server rejects, or closing the workflow while it has not yet
 * seen new events (UnhandledCommand: the SDK evicts the run and retries with them).
 */
function rejectBadCompletion(engine: Engine, run: RunState, request: Msg): void {
  const commands: Msg[] = request.commands ?? [];
  const ns = engine.namespace(run.namespace);
  let problem = commands.map((c) => commandProblem(ns, c)).find((p) => p !== undefined);
  let nextAttempt: number | undefined;
  if (!problem && closesWorkflow(commands) && (run.buffered.length > 0 || updates.hasUndelivered(run))) {
    problem = { cause: 'WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND', message: 'UnhandledCommand' };
    nextAttempt = 1; // not a failure of the workflow code: no backoff, a fresh attempt
  }
  if (!problem) return;
  endTask(
    engine,
    run,
    'WorkflowTaskFailed',
    {
      cause: problem.cause,
      failure: { message: problem.message, source: 'NavigatorDevServer' },
      identity: request.identity,
    },
    nextAttempt,
  );
  throw new RpcError(status.INVALID_ARGUMENT, problem.message);
}

function completedAttributes(wft: WorkflowTaskState, request: Msg): Msg {
  return {
    scheduledEventId: wft.scheduledEventId,
    startedEventId: wft.startedEventId,
    identity: request.identity,
    binaryChecksum: request.binaryChecksum,
    workerVersion: request.workerVersionStamp,
    // Replay needs the SDK's flags and names recorded here.
    sdkMetadata: request.sdkMetadata,
    meteringMetadata: request.meteringMetadata,
    deployment: request.deployment,
    versioningBehavior: request.versioningBehavior,
    deploymentOptions: request.deploymentOptions,
  };
}

const CLOSING = [
  'COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION',
  'COMMAND_TYPE_FAIL_WORKFLOW_EXECUTION',
  'COMMAND_TYPE_CANCEL_WORKFLOW_EXECUTION',
  'COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION',
];

function closesWorkflow(commands: Msg[]): boolean {
  return commands.some((c) => CLOSING.includes(c.commandType));
}

function writeTransientEvents(run: RunState, wft: WorkflowTaskState): void {
  if (!wft.transient) return;
  // History has not changed since the attempt started (new events were buffered), so
  // these are exactly the events the worker was shown.
  const started = {
    scheduledEventId: wft.scheduledEventId,
    identity: wft.identity,
    requestId: wft.requestId,
    ...continueAsNewSuggestion(run),
    workerVersion: wft.workerVersion,
  };
  appendNew(run, 'WorkflowTaskScheduled', scheduledAttributes(run, wft));
  appendNew(run, 'WorkflowTaskStarted', started);
}

export function respondWorkflowTaskFailed(engine: Engine, request: Msg): Msg {
  const { run } = startedTask(engine, request.taskToken);
  endTask(engine, run, 'WorkflowTaskFailed', {
    cause: request.cause ?? 'WORKFLOW_TASK_FAILED_CAUSE_UNSPECIFIED',
    failure: request.failure,
    identity: request.identity,
    binaryChecksum: request.binaryChecksum,
    workerVersion: request.workerVersion,
  });
  return {};
}

/**
 * Ends the running task without completing it: records WorkflowTaskFailed or
 * WorkflowTaskTimedOut (first attempt only; later attempts stay transient), writes the
 * buffered events and schedules the next attempt on the normal queue.
 */
function endTask(
  engine: Engine,
  run: RunState,
  eventType: 'WorkflowTaskFailed' | 'WorkflowTaskTimedOut',
  attributes: Msg,
  nextAttempt?: number,
): void {
  const wft = run.wft!;
  // A failed or timed-out speculative task is kept, as a normal first attempt.
  if (wft.speculative && wft.startedEventId) {
    writeTransientEvents(run, wft);
    wft.transient = false;
  }
  if (!wft.transient) {
    appendNew(run, eventType, {
      scheduledEventId: wft.scheduledEventId,
      startedEventId: wft.startedEventId,
      ...attributes,
    });
  }
  run.wft = undefined;
  // The worker that held the task may be gone, and its cache is stale either way.
  run.sticky = undefined;
  updates.undeliver(run, wft.dispatchId);
  flushBuffered(run);
  const attempt = nextAttempt ?? wft.attempt + 1;
  const backoff = eventType === 'WorkflowTaskFailed' && attempt > 2 ? Math.min(10_000, 1000 * 2 ** (attempt - 3)) : 0;
  scheduleWorkflowTask(engine, run, attempt, backoff ? Date.now() + backoff : undefined);
  queries.afterTask(engine, run);
  engine.touch(run);
}

// --- deadlines -----------------------------------------------------------------------

export function workflowTaskDeadlines(run: RunState): Array<{ name: string; at: number }> {
  const wft = run.wft;
  if (!wft) return run.firstTaskAt ? [{ name: 'wft:first', at: run.firstTaskAt }] : [];
  if (wft.startedEventId) return [{ name: 'wft:start-to-close', at: wft.startedAt! + run.taskTimeoutMs }];
  const out = [];
  if (wft.availableAt && wft.availableAt > Date.now()) out.push({ name: 'wft:available', at: wft.availableAt });
  if (wft.sticky && run.sticky)
    out.push({ name: 'wft:sticky-schedule-to-start', at: wft.scheduledAt + run.sticky.timeoutMs });
  return out;
}

export function onWorkflowTaskDeadline(engine: Engine, run: RunState, name: string): void {
  const wft = run.wft;
  if (name === 'wft:first') {
    run.firstTaskAt = undefined;
    scheduleWorkflowTask(engine, run);
  } else if (name === 'wft:available' && wft && !wft.startedEventId) {
    wft.availableAt = undefined;
    enqueueWorkflowTask(engine, run);
  } else if (name === 'wft:start-to-close' && wft?.startedEventId) {
    endTask(engine, run, 'WorkflowTaskTimedOut', { timeoutType: 'TIMEOUT_TYPE_START_TO_CLOSE' });
  } else if (name === 'wft:sticky-schedule-to-start' && wft && !wft.startedEventId) {
    stickyScheduleToStartTimeout(engine, run, wft);
  }
  engine.touch(run);
}

/** The sticky worker did not pick the task up in time: hand it to any worker. */
function stickyScheduleToStartTimeout(engine: Engine, run: RunState, wft: WorkflowTaskState): void {
  run.sticky = undefined;
  if (wft.transient) {
    moveToNormalQueue(engine, run);
    return;
  }
  appendNew(run, 'WorkflowTaskTimedOut', {
    scheduledEventId: wft.scheduledEventId,
    timeoutType: 'TIMEOUT_TYPE_SCHEDULE_TO_START',
  });
  run.wft = undefined;
  scheduleWorkflowTask(engine, run);
}

/** ShutdownWorker / ResetStickyTaskQueue: the sticky queue has no worker any more. */
export function dropStickyQueue(engine: Engine, namespace: string, stickyQueue: string): void {
  for (const run of Object.values(engine.state.runs)) {
    if (run.namespace !== namespace || run.sticky?.queue !== stickyQueue) continue;
    resetSticky(engine, run);
  }
  queries.moveStickyQueries(engine, namespace, stickyQueue);
}

export function resetSticky(engine: Engine, run: RunState): void {
  run.sticky = undefined;
  moveToNormalQueue(engine, run);
  engine.touch(run);
}

/** After a restart no sticky worker exists; queued tasks go back to the normal queues. */
export function restoreWorkflowTask(engine: Engine, run: RunState): void {
  run.sticky = undefined;
  const wft = run.wft;
  if (!wft || wft.startedEventId) return;
  wft.sticky = false;
  wft.queue = run.taskQueue;
  if (!wft.availableAt || wft.availableAt <= Date.now()) enqueueWorkflowTask(engine, run);
}
