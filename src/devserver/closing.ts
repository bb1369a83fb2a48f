/**
 * How a run closes by its own command or deadline: the complete, fail, cancel and
 * continue-as-new commands, the next run of a cron schedule or of a retry policy, and
 * run and execution timeouts.
 */
import type { CommandContext } from './command-context.ts';
import type { Engine } from './engine.ts';
import { abortWorkflowTask, closeRun, createRun, cronDelayMs, normalizeTimeouts, type RunParams } from './lifecycle.ts';
import { RUNNING, type RunState } from './model.ts';
import { duration, durationMs, type Msg } from './proto.ts';
import { fillRetryPolicy, nextRetry } from './retry-policy.ts';
import { scheduleWorkflowTask } from './workflow-task-schedule.ts';

export function completeFromCommand(ctx: CommandContext, a: Msg): void {
  // a cron workflow's run completes as any other, naming the next run, which gets its result
  const newExecutionRunId = cronOf(ctx.run)
    ? nextCronRun(ctx.engine, ctx.run, { lastCompletionResult: a.result })
    : undefined;
  closeRun(ctx.engine, ctx.run, 'WORKFLOW_EXECUTION_STATUS_COMPLETED', 'WorkflowExecutionCompleted', {
    result: a.result,
    workflowTaskCompletedEventId: ctx.completedEventId,
    newExecutionRunId,
  });
}

export function failFromCommand(ctx: CommandContext, a: Msg): void {
  const failure = a.failure ?? {};
  // the retry policy first; once it gives up (or with none), a cron workflow goes on to its next time
  const retry = retryRun(ctx.engine, ctx.run, failure);
  const newExecutionRunId =
    retry.newExecutionRunId ?? (cronOf(ctx.run) ? nextCronRun(ctx.engine, ctx.run, { failure }) : undefined);
  closeRun(ctx.engine, ctx.run, 'WORKFLOW_EXECUTION_STATUS_FAILED', 'WorkflowExecutionFailed', {
    failure: a.failure,
    retryState: retry.retryState,
    workflowTaskCompletedEventId: ctx.completedEventId,
    newExecutionRunId,
  });
}

export function cancelFromCommand(ctx: CommandContext, a: Msg): void {
  closeRun(ctx.engine, ctx.run, 'WORKFLOW_EXECUTION_STATUS_CANCELED', 'WorkflowExecutionCanceled', {
    details: a.details,
    workflowTaskCompletedEventId: ctx.completedEventId,
  });
}

export function continueAsNewFromCommand(ctx: CommandContext, a: Msg): void {
  const { engine, run } = ctx;
  const ns = engine.namespace(run.namespace);
  const timeouts = normalizeTimeouts(
    run.executionTimeoutMs,
    durationMs(a.workflowRunTimeout) || run.runTimeoutMs,
    durationMs(a.workflowTaskTimeout) || run.taskTimeoutMs,
  );
  const params: RunParams = {
    workflowId: run.workflowId,
    workflowType: a.workflowType?.name || run.workflowType,
    taskQueue: a.taskQueue?.name || run.taskQueue,
    input: a.input,
    header: a.header,
    ...timeouts,
    memo: a.memo ?? run.memo,
    searchAttributes: a.searchAttributes ?? run.searchAttributes,
    startDelayMs: durationMs(a.backoffStartInterval),
    retryPolicy: a.retryPolicy,
    firstRunId: run.firstRunId,
    executionExpiresAt: run.executionExpiresAt,
    parent: run.parent,
    continuedFrom: {
      runId: run.runId,
      initiator: a.initiator ?? 'CONTINUE_AS_NEW_INITIATOR_WORKFLOW',
      lastCompletionResult: a.lastCompletionResult,
      failure: a.failure,
    },
  };
  const next = createRun(engine, ns, params);
  run.newRunId = next.runId;
  closeRun(engine, run, 'WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW', 'WorkflowExecutionContinuedAsNew', {
    newExecutionRunId: next.runId,
    workflowType: { name: params.workflowType },
    taskQueue: { name: params.taskQueue, kind: 'TASK_QUEUE_KIND_NORMAL' },
    input: a.input,
    workflowRunTimeout: duration(timeouts.runTimeoutMs),
    workflowTaskTimeout: duration(timeouts.taskTimeoutMs),
    workflowTaskCompletedEventId: ctx.completedEventId,
    backoffStartInterval: a.backoffStartInterval,
    initiator: params.continuedFrom!.initiator,
    failure: a.failure,
    lastCompletionResult: a.lastCompletionResult,
    header: a.header,
    memo: params.memo,
    searchAttributes: params.searchAttributes,
  });
  scheduleWorkflowTask(engine, next);
  engine.touch(next);
}

/** What the next run of a chain (a retry, a cron run) repeats of this one. */
function sameWorkflow(run: RunState, started: Msg) {
  return {
    workflowId: run.workflowId,
    workflowType: run.workflowType,
    taskQueue: run.taskQueue,
    input: started.input,
    header: started.header,
    executionTimeoutMs: run.executionTimeoutMs,
    runTimeoutMs: run.runTimeoutMs,
    taskTimeoutMs: run.taskTimeoutMs,
    memo: run.memo,
    searchAttributes: run.searchAttributes,
    userMetadata: run.userMetadata,
  };
}

// --- cron ----------------------------------------------------------------------------

const cronOf = (run: RunState): string | undefined =>
  (run.events[0]?.workflowExecutionStartedEventAttributes as Msg | undefined)?.cronSchedule || undefined;

/**
 * Starts the next run of a cron workflow whose run is closing, as Temporal does: the run
 * closes with its own event (completed, failed, timed out) naming the new run, which starts
 * at the schedule's next time (initiator CRON_SCHEDULE, the backoff its first task waits)
 * as attempt 1 of the same workflow, keeps the first run id and gets the result of this run
 * (after a failure: the failure, and the last result this run had been given). Returns the
 * new run's id.
 */
function nextCronRun(engine: Engine, run: RunState, carried: { lastCompletionResult?: Msg; failure?: Msg }): string {
  const started = run.events[0]!.workflowExecutionStartedEventAttributes as Msg;
  const spec = cronOf(run)!;
  const next = createRun(engine, engine.namespace(run.namespace), {
    ...sameWorkflow(run, started),
    startDelayMs: cronDelayMs(spec, run.executionTime, Date.now()),
    retryPolicy: started.retryPolicy,
    firstRunId: run.firstRunId,
    executionExpiresAt: run.executionExpiresAt,
    parent: run.parent,
    cronSchedule: spec,
    continuedFrom: {
      runId: run.runId,
      initiator: 'CONTINUE_AS_NEW_INITIATOR_CRON_SCHEDULE',
      lastCompletionResult: carried.failure ? started.lastCompletionResult : carried.lastCompletionResult,
      failure: carried.failure,
    },
  });
  run.newRunId = next.runId;
  scheduleWorkflowTask(engine, next);
  engine.touch(next);
  return next.runId;
}

// --- run deadlines -------------------------------------------------------------------

export function runDeadlines(run: RunState): Array<{ name: string; at: number }> {
  const out = [];
  if (run.runExpiresAt) out.push({ name: 'run:timeout', at: run.runExpiresAt });
  if (run.executionExpiresAt) out.push({ name: 'run:execution-timeout', at: run.executionExpiresAt });
  return out;
}

export function onRunDeadline(engine: Engine, run: RunState, name: string): void {
  if (run.status !== RUNNING) return;
  abortWorkflowTask(run);
  // A run timeout is retried under the workflow's retry policy, or else a cron workflow goes
  // on to its next time; the execution timeout is final.
  const failure = {
    message: 'workflow run timed out',
    timeoutFailureInfo: { timeoutType: 'TIMEOUT_TYPE_START_TO_CLOSE' },
  };
  const retry: { retryState: string; newExecutionRunId?: string } =
    name === 'run:timeout' ? retryRun(engine, run, failure) : { retryState: 'RETRY_STATE_TIMEOUT' };
  const newExecutionRunId =
    retry.newExecutionRunId ??
    (name === 'run:timeout' && cronOf(run) ? nextCronRun(engine, run, { failure }) : undefined);
  closeRun(engine, run, 'WORKFLOW_EXECUTION_STATUS_TIMED_OUT', 'WorkflowExecutionTimedOut', {
    retryState: retry.retryState === 'RETRY_STATE_IN_PROGRESS' ? retry.retryState : 'RETRY_STATE_TIMEOUT',
    newExecutionRunId,
  });
}

/**
 * Starts the next attempt of a failed run when its retry policy allows, as the real
 * server does: a new run in the same chain, started after the backoff, that carries
 * the failure. Returns the RetryState for the closing event.
 */
function retryRun(engine: Engine, run: RunState, failure: Msg): { retryState: string; newExecutionRunId?: string } {
  const started = run.events[0]!.workflowExecutionStartedEventAttributes as Msg;
  if (!started.retryPolicy) return { retryState: 'RETRY_STATE_RETRY_POLICY_NOT_SET' };
  const attempt = Number(started.attempt ?? 1);
  const decision = nextRetry({
    policy: fillRetryPolicy(started.retryPolicy),
    attempt,
    failure,
    deadline: run.executionExpiresAt,
  });
  if (!('delayMs' in decision)) return { retryState: decision.state };
  const next = createRun(engine, engine.namespace(run.namespace), {
    ...sameWorkflow(run, started),
    startDelayMs: decision.delayMs,
    retryPolicy: started.retryPolicy,
    attempt: attempt + 1,
    firstRunId: run.firstRunId,
    executionExpiresAt: run.executionExpiresAt,
    parent: run.parent,
    continuedFrom: { runId: run.runId, initiator: 'CONTINUE_AS_NEW_INITIATOR_RETRY', failure },
  });
  run.newRunId = next.runId;
  scheduleWorkflowTask(engine, next);
  engine.touch(next);
  return { retryState: 'RETRY_STATE_IN_PROGRESS', newExecutionRunId: next.runId };
}
