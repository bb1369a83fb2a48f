/**
 * Question steps of a plan workflow: the step waits in `awaiting_answer` until a person
 * answers through the `answerStep` update. The update's validator makes the cheap checks
 * (the step exists, is a question, waits, has no answer yet); its handler has the answer
 * checked against the question's JSON Schema by an activity (zod stays out of the
 * workflow), one answer at a time. A refused answer fails the update with the reasons and
 * the step keeps waiting; an accepted one is the update's result (so history records it,
 * and the audit rebuilds the step from it) and the step's result.
 */
import * as wf from '@temporalio/workflow';
import { failure } from '../../kernel/failures.ts';
import type { Json, Step } from '../../plans/schema.ts';
import { askIsComputed } from '../../plans/references.ts';
import type { AnswerAck, PlanAck, PlanActivities, StepAnswer } from './contract.ts';
import { type PlanState, iso } from './state.ts';

const { checkPlanAnswer } = wf.proxyActivities<PlanActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5 },
});

/**
 * The question as it is put to the person: as written, or with its text and schema
 * computed from earlier results (recorded as the step's `resolved` before it waits).
 */
export function askOf(step: Step): { question: string; schema: { [key: string]: Json } } {
  const ask = (askIsComputed(step) && step.resolved ? step.resolved : step.ask!) as {
    question: string;
    schema: { [key: string]: Json };
  };
  return { question: ask.question, schema: ask.schema };
}

/** Waits for the answer (or a cancel or abort, which skip the step). */
export async function awaitAnswer(state: PlanState, step: Step, onWait: () => void): Promise<void> {
  const since = Date.now();
  const ask = askOf(step);
  state.questions.set(step.id, {
    stepId: step.id,
    description: step.description,
    question: ask.question,
    schema: ask.schema,
    since: iso(since),
  });
  state.updateStep(step.id, { status: 'awaiting_answer' }, since);
  onWait();
  await wf.condition(() => state.answers.has(step.id) || state.cancelReason !== null || state.abortReason !== null);
  state.questions.delete(step.id);
  const answer = state.answers.get(step.id);
  if (!answer) {
    const reason =
      state.cancelReason !== null ? `plan cancelled: ${state.cancelReason}` : `plan stopped: ${state.abortReason}`;
    return void state.updateStep(step.id, { status: 'skipped', reason }, Date.now());
  }
  const now = Date.now();
  const result = { ok: true, value: answer.value, attempts: 0, duration: now - since, timestamp: iso(now) };
  state.updateStep(step.id, { status: 'completed', result, ...(answer.by ? { answeredBy: answer.by } : {}) }, now);
}

/** The update validator's checks: shape, and the step is waiting for this answer. */
export function validateAnswer(state: PlanState, req: unknown): void {
  if (typeof req !== 'object' || req === null || Array.isArray(req)) throw new Error('expected {stepId, value, by?}');
  const problem = state.answerProblem((req as { stepId?: unknown }).stepId);
  if (problem) throw new Error(problem);
  if ((req as { value?: unknown }).value === undefined) throw new Error('value: the answer is missing');
}

/** The update handler: the answer checked on the worker, then recorded for the waiting step. */
export async function acceptAnswer(state: PlanState, req: StepAnswer, ack: () => PlanAck): Promise<AnswerAck> {
  await wf.condition(() => !state.answering);
  state.answering = true;
  try {
    refuseIf(state.answerProblem(req.stepId));
    const step = state.step(req.stepId)!;
    const checked = await checkPlanAnswer.executeWithOptions(
      { summary: `check the answer to ${step.id}`.slice(0, 200) },
      [{ planId: state.planId, stepId: step.id, ask: askOf(step), value: req.value }],
    );
    if (!checked.ok) refuseIf(checked.message);
    // the plan may have been cancelled while the answer was checked
    refuseIf(state.answerProblem(req.stepId));
    const value = checked.ok ? checked.value : null;
    state.answers.set(step.id, { value, by: typeof req.by === 'string' && req.by ? req.by : null });
    return { ...ack(), stepId: step.id, answer: value };
  } finally {
    state.answering = false;
    state.touch();
  }
}

function refuseIf(problem: string | null): void {
  if (problem) throw failure('InvalidAnswer', problem);
}
