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
  if (cronOf(ctx.run)) return continueCron(ctx, { lastCompletionResult: a.result });
  closeRun(ctx.engine, ctx.run, 'WORKFLOW_EXECUTION_STATUS_COMPLETED', 'WorkflowExecutionCompleted', {
    result: a.result,
    workflowTaskCompletedEventId: ctx.completedEventId,
  });
}

export function failFromCommand(ctx: CommandContext, a: Msg): void {
  const started = ctx.run.events[0]!.workflowExecutionStartedEventAttributes as Msg;
  // a cron workflow without a retry policy goes on to its next time, carrying the failure
  if (cronOf(ctx.run) && !started.retryPolicy) return continueCron(ctx, { failure: a.failure ?? {} });
  const { retryState, newExecutionRunId } = retryRun(ctx.engine, ctx.run, a.failure ?? {});
  closeRun(ctx.engine, ctx.run, 'WORKFLOW_EXECUTION_STATUS_FAILED', 'WorkflowExecutionFailed', {
    failure: a.failure,
    retryState,
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

const cronOf = (run: RunState): string | undefined => (run.events[0]?.workflowExecutionStartedEventAttributes as Msg | undefined)?.cronSchedule || undefined;

/**
 * A cron run that closed starts the next one at the schedule's next time, as Temporal
 * does: the run ends ContinuedAsNew (initiator CRON_SCHEDULE, the backoff recorded), the
 * next keeps the first run id and gets the result (or the failure) of this one.
 */
function continueCron(ctx: CommandContext, carried: { lastCompletionResult?: Msg; failure?: Msg }): void {
  const { engine, run } = ctx;
  const started = run.events[0]!.workflowExecutionStartedEventAttributes as Msg;
  const spec = cronOf(run)!;
  const backoffMs = cronDelayMs(spec, Date.now());
  const next = createRun(engine, engine.namespace(run.namespace), {
    ...sameWorkflow(run, started),
    startDelayMs: backoffMs,
    firstRunId: run.firstRunId,
    executionExpiresAt: run.executionExpiresAt,
    parent: run.parent,
    cronSchedule: spec,
    continuedFrom: { runId: run.runId, initiator: 'CONTINUE_AS_NEW_INITIATOR_CRON_SCHEDULE', ...carried },
  });
  run.newRunId = next.runId;
  closeRun(engine, run, 'WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW', 'WorkflowExecutionContinuedAsNew', {
    newExecutionRunId: next.runId,
    workflowType: { name: run.workflowType },
    taskQueue: { name: run.taskQueue, kind: 'TASK_QUEUE_KIND_NORMAL' },
    input: started.input,
    workflowRunTimeout: duration(run.runTimeoutMs),
    workflowTaskTimeout: duration(run.taskTimeoutMs),
    workflowTaskCompletedEventId: ctx.completedEventId,
    backoffStartInterval: duration(backoffMs),
    initiator: 'CONTINUE_AS_NEW_INITIATOR_CRON_SCHEDULE',
    ...carried,
    header: started.header,
    memo: run.memo,
    searchAttributes: run.searchAttributes,
  });
  scheduleWorkflowTask(engine, next);
  engine.touch(next);
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
  // A run timeout is retried under the workflow's retry policy; the execution timeout is final.
  const retry = name === 'run:timeout'
    ? retryRun(engine, run, { message: 'workflow run timed out', timeoutFailureInfo: { timeoutType: 'TIMEOUT_TYPE_START_TO_CLOSE' } })
    : { retryState: 'RETRY_STATE_TIMEOUT' };
  closeRun(engine, run, 'WORKFLOW_EXECUTION_STATUS_TIMED_OUT', 'WorkflowExecutionTimedOut', {
    retryState: retry.retryState === 'RETRY_STATE_IN_PROGRESS' ? retry.retryState : 'RETRY_STATE_TIMEOUT',
    newExecutionRunId: retry.newExecutionRunId,
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
  const decision = nextRetry({ policy: fillRetryPolicy(started.retryPolicy), attempt, failure, deadline: run.executionExpiresAt });
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
