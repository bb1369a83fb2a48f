/**
 * Scheduling workflow tasks: the WorkflowTaskScheduled event and the ticket on the normal
 * or sticky queue. Most domain modules schedule a task when they give a run something to
 * see, so this sits below them, apart from dispatch and completion (workflow-tasks.ts).
 */
import { Engine } from './engine.ts';
import { appendNew } from './history.ts';
import { RUNNING, type RunState, type WorkflowTaskState } from './model.ts';
import { duration, type Msg } from './proto.ts';

/** The key of a task queue in the engine's queues. */
export const queueKey = (namespace: string, taskQueue: string) => `${namespace}/${taskQueue}`;

/**
 * Schedules a workflow task unless one is already scheduled or running (then owes one).
 * `speculative`: only to deliver an update (see {@link WorkflowTaskState.speculative}).
 */
export function scheduleWorkflowTask(
  engine: Engine,
  run: RunState,
  attempt = 1,
  availableAt?: number,
  speculative = false,
): void {
  if (run.status !== RUNNING) return;
  if (run.wft) {
    if (run.wft.startedEventId) run.wftPending = true;
    else if (!speculative) makeNormal(run, run.wft);
    return;
  }
  if (run.firstTaskAt && run.firstTaskAt > Date.now()) return; // the start delay deadline schedules it
  const sticky = run.sticky;
  const asSpeculative = speculative && attempt === 1 && nothingNewSinceLastTask(run);
  const wft: WorkflowTaskState = {
    attempt,
    transient: attempt > 1 || asSpeculative,
    ...(asSpeculative ? { speculative: true } : {}),
    scheduledEventId: 0,
    scheduledAt: Date.now(),
    queue: sticky?.queue ?? run.taskQueue,
    sticky: !!sticky,
    availableAt,
    dispatchId: Engine.newId(),
  };
  run.wft = wft;
  run.wftPending = false;
  if (!wft.transient) wft.scheduledEventId = appendNew(run, 'WorkflowTaskScheduled', scheduledAttributes(run, wft));
  if (!availableAt || availableAt <= Date.now()) enqueueWorkflowTask(engine, run);
}

/** History ends with the last task's own events: a task now shows the worker nothing new. */
export function nothingNewSinceLastTask(run: RunState): boolean {
  return run.lastCompletionEnd === run.events.length && run.buffered.length === 0;
}

/** A speculative task that is not started yet becomes a normal one: its scheduled event is written now. */
export function makeNormal(run: RunState, wft: WorkflowTaskState): void {
  if (!wft.speculative || wft.startedEventId) return;
  wft.speculative = false;
  wft.transient = false;
  wft.scheduledEventId = appendNew(run, 'WorkflowTaskScheduled', scheduledAttributes(run, wft));
}

export function scheduledAttributes(run: RunState, wft: WorkflowTaskState): Msg {
  return {
    taskQueue: taskQueueOf(run, wft),
    startToCloseTimeout: duration(run.taskTimeoutMs),
    attempt: wft.attempt,
  };
}

function taskQueueOf(run: RunState, wft: WorkflowTaskState): Msg {
  return wft.sticky
    ? { name: wft.queue, kind: 'TASK_QUEUE_KIND_STICKY', normalName: run.taskQueue }
    : { name: run.taskQueue, kind: 'TASK_QUEUE_KIND_NORMAL' };
}

export function enqueueWorkflowTask(engine: Engine, run: RunState): void {
  const wft = run.wft!;
  engine.workflowQueues.add(queueKey(run.namespace, wft.queue), {
    kind: 'task',
    run: Engine.keyOf(run),
    dispatchId: wft.dispatchId,
  });
}

/** Moves a not-yet-started task to the normal queue (sticky worker gone or timed out). */
export function moveToNormalQueue(engine: Engine, run: RunState): void {
  const wft = run.wft;
  if (!wft || wft.startedEventId || !wft.sticky) return;
  wft.sticky = false;
  wft.queue = run.taskQueue;
  wft.dispatchId = Engine.newId();
  if (!wft.availableAt || wft.availableAt <= Date.now()) enqueueWorkflowTask(engine, run);
}
