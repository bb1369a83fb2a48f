/**
 * A plan step's calls: its tool as an activity (one per item of a for-each step) or its
 * agent as a child mission, each recorded in the plan's ledger. Workflow code only.
 */
import * as wf from '@temporalio/workflow';
import type { FailedAttempt } from '../../kernel/schemas.ts';
import type { Step } from '../../plans/schema.ts';
import { failureDetails, failureMessage } from '../lifecycle.ts';
import type { Json, PlanActivities, PlanLedgerEntry, StepOutcome } from './contract.ts';
import type { PlanState } from './state.ts';
import { retryPolicyFor } from '../retry-policies.ts';

type Activities = PlanActivities;

export type RunOutcome = (
  | { ok: true; value: Json; attempts: number; cause?: undefined; error?: undefined }
  | { ok: false; error: string; attempts: number; cause: unknown }
) & { failedAttempts?: FailedAttempt[] };

/** The attempts that failed before the last, when there were any: why the step was retried. */
export const retried = (failedAttempts: FailedAttempt[] | undefined) =>
  failedAttempts?.length ? { failedAttempts } : {};

/** A forEach step: each item's tool call at once, each its own activity; the result is the list of results. */
export async function runEachItem(state: PlanState, step: Step, items: Json[]): Promise<RunOutcome> {
  const round = nextRound(state, step);
  const outcomes = await Promise.all(items.map((args, index) => runToolStep(state, step, args, { index, round })));
  const attempts = outcomes.reduce((n, o) => n + o.attempts, 0);
  const failed = outcomes.findIndex((o) => !o.ok);
  if (failed >= 0) {
    const o = outcomes[failed]!;
    return { ok: false, error: `item ${failed}: ${o.error}`, attempts, cause: o.cause };
  }
  return { ok: true, value: outcomes.map((o) => (o.ok ? o.value : null)), attempts };
}

/** Activity and child ids of a step's next run are unique by the step's ledger entries so far. */
const nextRound = (state: PlanState, step: Step): number => state.ledger.filter((e) => e.stepId === step.id).length + 1;

export async function runToolStep(
  state: PlanState,
  step: Step,
  args: Json,
  each?: { index: number; round: number },
): Promise<RunOutcome> {
  const entry = toolLedger(state, step, each);
  try {
    const out: StepOutcome = await callTool(state, step, args, entry.activity, each);
    return toolDone(state, entry, out);
  } catch (err) {
    return toolFailed(state, entry, err);
  }
}

export function toolLedger(state: PlanState, step: Step, each?: { index: number; round: number }) {
  const activityId = each
    ? `step-${step.id}-${each.round}-item${each.index}`
    : `step-${step.id}-${nextRound(state, step)}`;
  return state.startLedger(step, activityId);
}

export function callTool(
  state: PlanState,
  step: Step,
  args: Json,
  activityId: string,
  each?: { index: number },
): Promise<StepOutcome> {
  const policy = retryPolicyFor(state.catalog.tools[step.tool!]?.sideEffect ?? 'external');
  const { runPlanStep } = wf.proxyActivities<Activities>({ startToCloseTimeout: state.options.timeouts.stepMs });
  return runPlanStep.executeWithOptions(
    {
      activityId,
      summary: `${step.id}: ${step.description}`.slice(0, 200),
      startToCloseTimeout: state.options.timeouts.stepMs,
      heartbeatTimeout: state.options.timeouts.heartbeatMs,
      retry: step.retry ? { ...policy, maximumAttempts: step.retry.maxAttempts } : policy,
    },
    [
      {
        agent: state.input.agent,
        planId: state.planId,
        stepId: step.id,
        tool: step.tool!,
        args,
        ...(each ? { item: each.index } : {}),
      },
    ],
  );
}

export function toolDone(state: PlanState, entry: PlanLedgerEntry, out: StepOutcome): RunOutcome {
  state.toolCalls += out.attempt;
  Object.assign(
    entry,
    { status: 'completed', attempts: out.attempt, idempotencyKey: out.idempotencyKey, result: out.result },
    retried(out.failedAttempts),
    out.unavailable ? { unavailable: out.unavailable } : {},
  );
  return { ok: true, value: out.result, attempts: out.attempt, ...retried(out.failedAttempts) };
}

export function toolFailed(state: PlanState, entry: PlanLedgerEntry, err: unknown): RunOutcome {
  const details = failureDetails(err);
  state.toolCalls += details.attempt;
  const error = failureMessage(err);
  Object.assign(
    entry,
    { status: 'failed', attempts: details.attempt, idempotencyKey: details.idempotencyKey ?? '', error },
    retried(details.failedAttempts),
  );
  return { ok: false, error, attempts: details.attempt, cause: err, ...retried(details.failedAttempts) };
}

/** An agent step is a Navigator mission run as a child workflow; its result is the mission's. */
export async function runAgentStep(state: PlanState, step: Step, input: Json): Promise<RunOutcome> {
  const workflowId = `${state.planId}--${step.id}-${nextRound(state, step)}`;
  const entry = state.startLedger(step, workflowId);
  try {
    const value = await wf.executeChild('navigatorMission', {
      workflowId,
      // the step's description reaches the agent's model through its Mission Log
      args: [
        {
          agent: step.agent!,
          input,
          runId: workflowId,
          ...(step.description
            ? { journal: { plan_step: { plan: state.planId, step: step.id, description: step.description } } }
            : {}),
        },
      ],
      staticSummary: `plan ${state.planId} step ${step.id}: ${step.description}`.slice(0, 200),
      parentClosePolicy: 'TERMINATE',
    });
    Object.assign(entry, { status: 'completed', attempts: 1, idempotencyKey: workflowId, result: value as Json });
    return { ok: true, value: value as Json, attempts: 1 };
  } catch (err) {
    const error = failureMessage(err);
    Object.assign(entry, { status: 'failed', attempts: 1, idempotencyKey: workflowId, error });
    return { ok: false, error, attempts: 1, cause: err };
  }
}
