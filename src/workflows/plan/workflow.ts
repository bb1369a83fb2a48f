/**
 * The `planExecution` workflow: make a plan (planner activity or a given document), wait
 * in review while updates edit it (each edit validated and kept as a version), then run
 * it: ready steps in parallel, approvals by update or signal, recovery by the model.
 * State lives in PlanState, the phases in plan-run.ts; this file wires messages.
 */
import { problemsText } from '../../kernel/contract.ts';
import * as wf from '@temporalio/workflow';
import { failure } from '../../kernel/failures.ts';
import { tooManyStepsProblem } from '../../plans/limits.ts';
import type { ExecutionSummary, PlanAck, PlanInput, PlanStatus, StepVerdict } from './contract.ts';
import * as m from './messages.ts';
import { acceptAnswer, validateAnswer } from './questions.ts';
import { applyPlanChange, execute, planDetails, preparePlan } from './run.ts';
import { failureMessage, historyIsLong, publishStatus, waitUntil } from '../lifecycle.ts';
import { checkPlanInput } from './guards.ts';
import { type ParsedPlanInput, PlanState } from './state.ts';

export async function planExecution(raw: PlanInput): Promise<ExecutionSummary> {
  const input = checkInput(raw);
  const state = new PlanState(input, wf.workflowInfo().workflowId, Date.now());
  setHandlers(state);
  if (!input.carried) {
    setStatus(state, 'planning');
    await preparePlan(state).catch((err: unknown) => planningFailed(state, err));
    if (input.approve) state.approved = true;
  }
  if (!state.approved) await review(state);
  if (state.cancelReason !== null) return finish(state);
  setStatus(state, 'running');
  await execute(state, () => continueAsNewIfLong(state));
  return finish(state);
}

/** Parks in `review` until approved or cancelled; edits arrive meanwhile as updates. */
async function review(state: PlanState): Promise<void> {
  setStatus(state, 'review');
  for (;;) {
    const settled = () => (state.approved && !state.editing) || state.cancelReason !== null;
    const budget = state.options.budgets.wallClockMs;
    const left = budget === undefined ? null : budget - state.wallClockMs(Date.now());
    const inTime = await waitUntil(() => settled() || historyIsLong(state.options.continueAsNewAfterEvents), left);
    if (!inTime) {
      state.abortReason = `wall-clock budget of ${budget} ms used up in review`;
      throw fail(state, state.abortReason);
    }
    if (settled()) return;
    await continueAsNewIfLong(state);
  }
}

function finish(state: PlanState): ExecutionSummary {
  const status = state.finalStatus();
  setStatus(state, status);
  const summary = state.makeSummary(status, Date.now());
  if (status === 'cancelled') {
    throw failure('PlanCancelled', `plan cancelled: ${state.cancelReason}`, { details: [summary] });
  }
  if (status === 'failed') throw fail(state, state.abortReason ?? criticalFailures(state), summary);
  return summary;
}

function criticalFailures(state: PlanState): string {
  const failed = state.plan!.steps.filter((s) => s.status === 'failed' && s.critical);
  return (
    failed.map((s) => `critical step ${s.id} failed: ${s.result?.error ?? 'no result'}`).join('; ') ||
    'a critical step failed'
  );
}

function fail(state: PlanState, message: string, summary?: ExecutionSummary): wf.ApplicationFailure {
  state.error = message;
  setStatus(state, 'failed');
  return failure('PlanFailed', `plan failed: ${message}`, { details: [summary ?? null] });
}

/**
 * A plan that could not be made (an agent its worker does not run, a plan that stays
 * invalid) says why and that it failed, in its status and on its page, not "planning"
 * forever. Plans recorded before this replay as they ran: their status is set without
 * publishing it (publishing adds a command).
 */
function planningFailed(state: PlanState, err: unknown): never {
  if (wf.isCancellation(err)) throw err;
  state.error ??= `planning failed: ${failureMessage(err)}`;
  if (wf.patched('planning-failure-status')) setStatus(state, 'failed');
  else state.status = 'failed';
  throw err;
}

function setStatus(state: PlanState, status: PlanStatus): void {
  const changed = state.status !== status;
  state.status = status;
  state.touch();
  publishStatus({ status, changed, details: planDetails(state), attribute: state.options.statusSearchAttribute });
}

/** Continues as new when history is long; only called when no step is in flight. */
async function continueAsNewIfLong(state: PlanState): Promise<void> {
  if (!historyIsLong(state.options.continueAsNewAfterEvents) || state.plan === null) return;
  await wf.condition(wf.allHandlersFinished);
  const info = wf.workflowInfo();
  await wf.continueAsNew<typeof planExecution>({
    ...state.input,
    document: undefined,
    carried: state.carry(info.runId),
  } as PlanInput);
}

// ---------------------------------------------------------------- messages

function setHandlers(state: PlanState): void {
  const ack = (): PlanAck => ({ version: state.plan?.version ?? 0, status: state.status });
  const inReview = () => {
    if (state.status !== 'review') throw new Error(`the plan is ${state.status}; it can be changed only in review`);
  };
  const notFinished = () => {
    if (state.finished) throw new Error(`the plan is ${state.status}`);
  };
  const byOf = (o: unknown): string | null => (isObj(o) && typeof o.by === 'string' ? o.by : null);
  /** edits go one at a time, each against the latest version */
  const exclusive = async <T>(fn: () => Promise<T>): Promise<T> => {
    await wf.condition(() => !state.editing);
    state.editing = true;
    try {
      return await fn();
    } finally {
      state.editing = false;
      state.touch();
    }
  };

  wf.setHandler(
    m.editPlanUpdate,
    (req) =>
      exclusive(async () => {
        inReview();
        const edit = req.edit;
        await applyPlanChange(
          state,
          (a) =>
            a.editPlan.executeWithOptions({ startToCloseTimeout: '1 minute', summary: `edit: ${kindOf(edit)}` }, [
              { agent: state.input.agent, plan: state.plan!, edit, maxSteps: state.options.maxSteps },
            ]),
          byOf(req),
        );
        return ack();
      }),
    { validator: (req) => (inReview(), checkEdit(state, isObj(req) ? req.edit : undefined)) },
  );

  wf.setHandler(
    m.regeneratePlanUpdate,
    (req) =>
      exclusive(async () => {
        inReview();
        await applyPlanChange(
          state,
          (a) =>
            a.regeneratePlan.executeWithOptions(
              { startToCloseTimeout: state.options.timeouts.modelMs * 3, summary: 'regenerate the plan' },
              [
                {
                  agent: state.input.agent,
                  plan: state.plan!,
                  feedback: req.feedback,
                  ...(state.input.request ? { request: state.input.request } : {}),
                  ...(state.input.context !== undefined ? { context: state.input.context } : {}),
                  maxSteps: state.options.maxSteps,
                },
              ],
            ),
          byOf(req),
        );
        return ack();
      }),
    {
      validator: (req) => {
        inReview();
        if (!isObj(req) || typeof req.feedback !== 'string' || req.feedback.trim() === '')
          throw new Error('feedback: expected a non-empty string');
      },
    },
  );

  const approvePlan = () => {
    state.approved = true;
    state.touch();
  };
  wf.setHandler(m.approvePlanUpdate, (_req) => (approvePlan(), ack()), { validator: (_req) => inReview() });
  wf.setHandler(m.approvePlanSignal, (_req) => {
    if (state.status !== 'review')
      state.rejectedSignals.push({ signal: 'approvePlan', reason: `the plan is ${state.status}` });
    else approvePlan();
  });

  const cancel = (req: unknown) => {
    state.cancelReason ??= isObj(req) && typeof req.reason === 'string' && req.reason ? req.reason : 'cancelled';
    state.touch();
  };
  wf.setHandler(m.cancelPlanUpdate, (req) => (cancel(req), ack()), { validator: (_req) => notFinished() });
  wf.setHandler(m.cancelPlanSignal, (req) => {
    if (state.finished) state.rejectedSignals.push({ signal: 'cancelPlan', reason: `the plan is ${state.status}` });
    else cancel(req);
  });

  const verdictProblem = (v: unknown) =>
    isObj(v)
      ? state.verdictProblem(v as Pick<StepVerdict, 'stepId' | 'item' | 'role'>)
      : 'expected {stepId, item?, by?, note?, reason?, role?}';
  const verdict = (v: StepVerdict, approved: boolean) => state.decide(v, approved);
  for (const [update, signal, approved, name] of [
    [m.approveStepUpdate, m.approveStepSignal, true, 'approveStep'],
    [m.denyStepUpdate, m.denyStepSignal, false, 'denyStep'],
  ] as const) {
    wf.setHandler(update, (v) => (verdict(v, approved), ack()), {
      validator: (v) => {
        const problem = verdictProblem(v);
        if (problem) throw new Error(problem);
      },
    });
    wf.setHandler(signal, (v) => {
      const problem = verdictProblem(v);
      if (problem) state.rejectedSignals.push({ signal: name, reason: problem });
      else verdict(v, approved);
    });
  }

  wf.setHandler(m.answerStepUpdate, (req) => acceptAnswer(state, req, ack), {
    validator: (req) => validateAnswer(state, req),
  });

  wf.setHandler(m.stepProgressSignal, (report) => {
    const problem = isObj(report) ? state.stepProgress(report, Date.now()) : 'expected {stepId, progress?, log?}';
    if (problem) state.rejectedSignals.push({ signal: 'stepProgress', reason: problem });
  });

  wf.setHandler(m.planQuery, () => state.plan);
  wf.setHandler(m.planStatusQuery, () => state.statusView(wf.workflowInfo().runId, Date.now()));
  wf.setHandler(m.versionsQuery, () => state.versions);
  wf.setHandler(m.planProgressQuery, () => state.progressView());
  wf.setHandler(m.planLedgerQuery, () => state.ledger);
}

const EDIT_KINDS = ['edit', 'skip', 'add', 'remove', 'reorder'];
const kindOf = (edit: unknown): string => (isObj(edit) && typeof edit.kind === 'string' ? edit.kind : '?');

/** The checks an update validator can make without the tools' schemas (the activity does the rest). */
function checkEdit(state: PlanState, edit: unknown): void {
  if (!isObj(edit) || !EDIT_KINDS.includes(kindOf(edit)))
    throw new Error(`an edit is {kind: ${EDIT_KINDS.join(' | ')}, ...}`);
  if (edit.kind === 'add' && state.plan && state.plan.steps.length >= state.options.maxSteps) {
    // refused before any activity: the plan is at its limit (the activity checks it too)
    const problem = tooManyStepsProblem(state.plan.steps.length + 1, state.options.maxSteps);
    throw failure('InvalidPlanEdit', `edit rejected: ${problem.message}`, { details: [[problem]] });
  }
  if (edit.kind === 'add' || edit.kind === 'reorder') return;
  if (typeof edit.stepId !== 'string') throw new Error('stepId: expected a string');
  if (!state.step(edit.stepId)) throw new Error(`no step ${JSON.stringify(edit.stepId)} in plan ${state.planId}`);
}

function checkInput(raw: unknown): ParsedPlanInput {
  const checked = checkPlanInput(raw);
  if (!checked.ok) throw failure('InvalidPlanInput', `invalid plan input: ${problemsText(checked.problems)}`);
  return checked.value;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
