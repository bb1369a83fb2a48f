/**
 * The phases of a plan workflow: make the plan, wait in review, execute. Execution runs
 * every ready step at once, each step on its own (approval, activity or child mission,
 * recovery); the scheduling loop only starts steps and notices when all have settled.
 * Deterministic: only workflow APIs, PlanState and the pure src/plans rules.
 */
import * as wf from '@temporalio/workflow';
import { failure, nonRetryable } from '../../kernel/failures.ts';
import { failureMessage, waitUntil } from '../lifecycle.ts';
import { needsEvaluation, paramValues, stepsReadBy } from '../../plans/expressions.ts';
import { askIsComputed, computedPart, resolveReferences } from '../../plans/references.ts';
import { blockSteps, isSettled, readySteps } from '../../plans/scheduler.ts';
import type { Plan, Step, StepResult } from '../../plans/schema.ts';
import type { ExecutionSummary, Json, PlanActivities, PlanOutcome, StepOutcome } from './contract.ts';
import { awaitAnswer } from './questions.ts';
import { type PlanState, approvalKey, iso } from './state.ts';
import type { GateOutcome } from '../approval-gate.ts';
import {
  type RunOutcome,
  callTool,
  retried,
  runAgentStep,
  runEachItem,
  runToolStep,
  toolDone,
  toolFailed,
  toolLedger,
} from './step-calls.ts';

type Activities = PlanActivities;

const { describePlanAgent } = wf.proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5, nonRetryableErrorTypes: nonRetryable('UnknownAgent') },
});

function modelActivities(state: PlanState) {
  return wf.proxyActivities<Activities>({
    startToCloseTimeout: state.options.timeouts.modelMs,
    // these activities heartbeat while the model thinks: a killed worker's call is retried
    // within seconds, not after the start-to-close timeout (15 minutes for the planner)
    heartbeatTimeout: state.options.timeouts.heartbeatMs,
    retry: { maximumAttempts: 3, nonRetryableErrorTypes: nonRetryable('UnknownAgent', 'InvalidPlan') },
  });
}

/** Makes the plan (planner or given document); a plan that stays invalid fails the workflow. */
export async function preparePlan(state: PlanState): Promise<void> {
  state.catalog = await describePlanAgent({ agent: state.input.agent });
  const { preparePlan: prepare } = modelActivities(state);
  const outcome = await prepare.executeWithOptions(
    {
      startToCloseTimeout: state.options.timeouts.modelMs * 3,
      summary: state.input.document ? 'check the given plan' : 'ask the planner',
    },
    [
      {
        agent: state.input.agent,
        planId: state.planId,
        taskId: state.taskId,
        createdAt: iso(Date.now()),
        ...(state.input.request !== undefined ? { request: state.input.request } : {}),
        ...(state.input.context !== undefined ? { context: state.input.context } : {}),
        ...(state.input.document
          ? {
              document: {
                steps: state.input.document.steps,
                params: state.input.document.params,
                estimatedDuration: state.input.document.estimatedDuration,
              },
            }
          : {}),
        ...(state.input.params ? { params: state.input.params } : {}),
        maxSteps: state.options.maxSteps,
      },
    ],
  );
  state.tokens += outcome.tokens;
  if (!outcome.ok) {
    state.error = outcome.message;
    throw failure('InvalidPlan', outcome.message, { details: [outcome.problems] });
  }
  state.commit(outcome.plan, outcome.change, null, Date.now());
}

/** Applies an edit or a regeneration through an activity (which validates with the tools' zod schemas). */
export async function applyPlanChange(
  state: PlanState,
  run: (a: wf.ActivityInterfaceFor<Activities>) => Promise<PlanOutcome>,
  by: string | null,
): Promise<void> {
  const outcome = await run(modelActivities(state));
  state.tokens += outcome.tokens;
  if (!outcome.ok) throw failure('InvalidPlanEdit', outcome.message, { details: [outcome.problems] });
  state.commit(outcome.plan, outcome.change, by, Date.now());
}

/**
 * Runs the plan until every step has settled. `whenIdle` runs whenever no step is in
 * flight (the workflow continues as new there when history is long).
 */
export async function execute(state: PlanState, whenIdle: () => Promise<void>): Promise<void> {
  const inFlight = new Map<string, Promise<void>>();
  const scope = new wf.CancellationScope();
  // asked once: a run that replays without the marker keeps the old way to its end
  const lean = wf.patched(LEAN_STEPS_PATCH);
  let seen = -1;
  for (;;) {
    if (state.cancelReason !== null && !scope.consideredCancelled) scope.cancel();
    const exhausted = state.exhaustedBudget(Date.now());
    if (exhausted && state.abortReason === null) state.abortReason = exhausted;
    settleBlocked(state);
    // A plan with nothing left to run ends here: continuing as new after its last step only
    // carried the whole plan into a run that does nothing (about 1 MB for 1000 steps, near
    // the server's 2 MB payload limit at 2000). Plans recorded before still do so on replay.
    if (inFlight.size === 0 && !(isSettled(state.plan!) && wf.patched('plan-settled-ends-without-continue-as-new')))
      await whenIdle();
    if (state.cancelReason === null && state.abortReason === null && lean) startReady(state, scope, inFlight);
    else if (state.cancelReason === null && state.abortReason === null) {
      for (const id of readySteps(state.plan!)) {
        if (inFlight.has(id)) continue; // retried by a recovery; its old run is just ending
        state.updateStep(id, { status: 'ready' }, Date.now());
        const done = scope
          .run(() => runStep(state, id))
          .catch((err) => stopped(state, id, err))
          .finally(() => {
            inFlight.delete(id);
            state.touch();
          });
        inFlight.set(id, done);
      }
    }
    if (inFlight.size === 0) {
      if (state.cancelReason !== null || state.abortReason !== null || readySteps(state.plan!).length === 0) break;
      continue;
    }
    setDetails(state);
    seen = state.tick;
    await wf.condition(() => state.tick !== seen);
    if (state.fatal) throw state.fatal;
  }
  settleBlocked(state);
  closeUnstarted(state);
}

/**
 * Marks plans whose steps start with fewer promises (workflow.patched): the SDK captures a
 * stack trace for every promise a workflow makes, and a step made 12 of its own (an async
 * wrapper per call, a scope, catch and finally). Histories from before start each step the
 * old way: the promise steps between an event and the next command decide the order of
 * commands when several steps move in one workflow task.
 */
const LEAN_STEPS_PATCH = 'plan-steps-lean-promises';

/**
 * Starts the ready steps, in one scope run for all of them (the scope cancels them with the
 * plan); each step's end takes it out of `inFlight` and wakes the scheduling loop.
 */
function startReady(state: PlanState, scope: wf.CancellationScope, inFlight: Map<string, Promise<void>>): void {
  const ready = readySteps(state.plan!).filter((id) => !inFlight.has(id)); // one retried by a recovery may still be ending
  if (ready.length === 0) return;
  void scope.run(async () => {
    for (const id of ready) {
      state.updateStep(id, { status: 'ready' }, Date.now());
      const ended = () => {
        inFlight.delete(id);
        state.touch();
      };
      const done = startStep(state, id).then(ended, (err: unknown) => {
        stopped(state, id, err);
        ended();
      });
      inFlight.set(id, done);
    }
  });
}

/**
 * A tool step without a condition, computed args, question or approval runs from here, its
 * activity scheduled at once; any other step takes the general way ({@link runStep}).
 */
function startStep(state: PlanState, id: string): Promise<void> {
  const step = state.step(id)!;
  if (!step.tool || step.ask || needsApproval(state, step) || needsEvaluation(step)) return runStep(state, id);
  try {
    const resolved = resolveArgs(state, step);
    const startedAt = Date.now();
    const current = state.updateStep(id, { status: 'running' }, startedAt);
    if (!resolved.ok)
      return Promise.resolve(
        endRun(state, id, current, { ok: false, error: resolved.message, attempts: 0, cause: null }, startedAt),
      );
    // what runToolStep does, with one promise of its own instead of two
    const entry = toolLedger(state, current);
    const end = (outcome: RunOutcome) => endRun(state, id, current, outcome, startedAt);
    let call: Promise<StepOutcome>;
    try {
      call = callTool(state, current, resolved.value, entry.activity);
    } catch (err) {
      return Promise.resolve(end(toolFailed(state, entry, err)));
    }
    return call.then(
      (out) => end(toolDone(state, entry, out)),
      (err: unknown) => end(toolFailed(state, entry, err)),
    );
  } catch (err) {
    return Promise.reject(err);
  }
}

/** A step's run has an outcome: completed, recovered, or failed (a critical failure stops the plan as the plan says). */
function endRun(
  state: PlanState,
  id: string,
  current: Step,
  outcome: RunOutcome,
  startedAt: number,
): void | Promise<void> {
  const result = stepResult(outcome, startedAt);
  if (outcome.ok) return state.finishStep(id, 'completed', result, Date.now());
  const stopped = wf.isCancellation(outcome.cause) || state.cancelReason !== null;
  if (!stopped && current.critical && state.options.onFailure === 'ask') {
    return recover(state, id, result).then((recovered) => {
      if (!recovered) failStep(state, id, current, result, outcome.error, stopped);
    });
  }
  failStep(state, id, current, result, outcome.error, stopped);
}

function failStep(
  state: PlanState,
  id: string,
  current: Step,
  result: StepResult,
  error: string,
  stopped: boolean,
): void {
  state.finishStep(id, 'failed', result, Date.now());
  if (!stopped && current.critical) abortOnCriticalFailure(state, id, error);
}

const stepResult = (outcome: RunOutcome, startedAt: number): StepResult => ({
  ok: outcome.ok,
  ...(outcome.ok ? { value: outcome.value } : { error: outcome.error }),
  attempts: outcome.attempts,
  ...retried(outcome.failedAttempts),
  duration: Date.now() - startedAt,
  timestamp: iso(Date.now()),
});

/**
 * A step whose scope was cancelled (plan cancelled) ends where it was: running steps
 * failed, waiting ones skipped. Any other error is a bug: it fails the workflow task
 * from the main loop, so a fixed worker can go on.
 */
function stopped(state: PlanState, id: string, err: unknown): void {
  if (!wf.isCancellation(err)) {
    state.fatal = err;
    return;
  }
  const status = state.step(id)?.status;
  const reason = `plan cancelled: ${state.cancelReason ?? 'cancelled'}`;
  state.questions.delete(id);
  if (status === 'running') state.finishStep(id, 'failed', failedResult(reason), Date.now());
  else if (status === 'awaiting_approval' || status === 'awaiting_answer' || status === 'ready')
    state.updateStep(id, { status: 'skipped', reason }, Date.now());
}

function settleBlocked(state: PlanState): void {
  const next = blockSteps(state.plan!);
  if (next !== state.plan) state.replaceSteps(next.steps, Date.now());
}

/** After a cancel or abort, steps that never started end skipped with the reason. */
function closeUnstarted(state: PlanState): void {
  const reason = state.cancelReason !== null ? `plan cancelled: ${state.cancelReason}` : state.abortReason;
  if (reason === null) return;
  for (const s of state.plan!.steps) {
    if (s.status === 'pending' || s.status === 'ready')
      state.updateStep(s.id, { status: 'skipped', reason }, Date.now());
  }
}

/** One step from ready to settled: condition and computed args, approval, run, recovery. */
async function runStep(state: PlanState, id: string): Promise<void> {
  const step = state.step(id)!;
  const prepared = await prepareArgs(state, step);
  if (prepared.kind === 'skip')
    return void state.updateStep(
      id,
      { status: 'skipped', skippedBy: 'condition', reason: 'condition false' },
      Date.now(),
    );
  // the step as it is now: a computed question recorded its text and schema in `resolved`
  if (step.ask && prepared.kind !== 'failed') return awaitAnswer(state, state.step(id)!, () => setDetails(state));
  if (step.compute !== undefined && prepared.kind === 'run') {
    // a compute step: its result is its expression's value, computed on the worker; no tool runs
    const now = Date.now();
    return state.finishStep(id, 'completed', stepResult({ ok: true, value: prepared.args, attempts: 0 }, now), now);
  }
  if (prepared.kind !== 'failed' && needsApproval(state, step)) {
    const verdict = await awaitApproval(state, step, prepared);
    if (verdict !== 'approved') return;
  }
  const startedAt = Date.now();
  state.updateStep(id, { status: 'running' }, startedAt);
  const current = state.step(id)!;
  const outcome: RunOutcome =
    prepared.kind === 'failed'
      ? { ok: false, error: prepared.error, attempts: 0, cause: null }
      : prepared.kind === 'each'
        ? await runEachItem(state, current, prepared.items)
        : await (current.tool
            ? runToolStep(state, current, prepared.args)
            : runAgentStep(state, current, prepared.args));
  const result = stepResult(outcome, startedAt);
  if (outcome.ok) return state.finishStep(id, 'completed', result, Date.now());
  const stopped = wf.isCancellation(outcome.cause) || state.cancelReason !== null;
  if (!stopped && current.critical && state.options.onFailure === 'ask' && (await recover(state, id, result))) return;
  failStep(state, id, current, result, outcome.error, stopped);
}

type Prepared =
  { kind: 'run'; args: Json } | { kind: 'each'; items: Json[] } | { kind: 'skip' } | { kind: 'failed'; error: string };

/** The step's args (an agent step's input, a computed question, a compute step's expression) with references and parameters resolved. */
function resolveArgs(state: PlanState, step: Step, params = paramValues(state.plan!.params)) {
  const { root, value } = computedPart(step);
  return resolveReferences(value, (ref) => resultOf(state, ref), root, params);
}

/**
 * The args as they will run (what a person approves): references and parameters
 * resolved here, then, when the step has a condition or `$expr` values, evaluated on the
 * worker (the activity's result keeps them in history; the step records them).
 */
async function prepareArgs(state: PlanState, step: Step): Promise<Prepared> {
  const { root } = computedPart(step);
  const params = paramValues(state.plan!.params);
  const resolved = resolveArgs(state, step, params);
  if (!resolved.ok) return { kind: 'failed', error: resolved.message };
  if (!needsEvaluation(step)) return { kind: 'run', args: resolved.value };
  const steps: Record<string, Json> = {};
  for (const ref of stepsReadBy(step)) {
    const r = resultOf(state, ref);
    if (r.found) steps[ref] = r.value;
  }
  const { evaluatePlanStep } = wf.proxyActivities<Activities>({
    startToCloseTimeout: '1 minute',
    retry: { maximumAttempts: 3, nonRetryableErrorTypes: nonRetryable('InvalidExpression') },
  });
  try {
    const out = await evaluatePlanStep.executeWithOptions({ summary: `evaluate ${step.id}`.slice(0, 200) }, [
      {
        planId: state.planId,
        stepId: step.id,
        ...(step.when !== undefined ? { when: step.when } : {}),
        ...(step.forEach !== undefined
          ? { forEach: step.forEach, ...(step.maxItems !== undefined ? { maxItems: step.maxItems } : {}) }
          : {}),
        args: resolved.value,
        root,
        steps,
        params,
      },
    ]);
    if (out.kind === 'skip') return { kind: 'skip' };
    const computed = out.kind === 'each' ? out.items : out.args;
    // a question records what it computed (its text and schema), as a step its args
    if (!step.ask || askIsComputed(step)) state.updateStep(step.id, { resolved: computed }, Date.now());
    return out.kind === 'each' ? { kind: 'each', items: out.items } : { kind: 'run', args: out.args };
  } catch (err) {
    if (wf.isCancellation(err)) throw err;
    return { kind: 'failed', error: failureMessage(err) };
  }
}

/**
 * Waits for approve-step / deny-step or the deadline: one approval for the step, or one
 * per item of a for-each step (all asked at once; the items run once every one is
 * approved, so a denial stops the step before any of its effects). A denial then means
 * what the plan's `onDenial` says: `block` (the step is skipped, its dependents blocked),
 * `ask` (the model revises the step from the reason, as in recovery, and it asks again)
 * or `abort` (the plan stops).
 */
async function awaitApproval(
  state: PlanState,
  step: Step,
  prepared: { kind: 'run'; args: Json } | { kind: 'each'; items: Json[] },
): Promise<'approved' | 'denied' | 'revised'> {
  const timeoutMs = state.options.approvalTimeoutMs ?? null;
  const approvers = state.approversOf(step.tool);
  const base = {
    stepId: step.id,
    description: step.description,
    tool: step.tool ?? step.agent ?? null,
    onTimeout: timeoutMs === null ? null : state.options.onApprovalTimeout,
    ...(approvers ? { approvers } : {}),
  };
  // histories from before per-item approvals asked once for the whole list of items
  const perItem = prepared.kind === 'each' && wf.patched(ITEM_APPROVALS_PATCH);
  const requests = perItem
    ? prepared.items.map((args, item) => ({ ...base, key: approvalKey(step.id, item), item, args }))
    : [{ ...base, key: step.id, item: null, args: prepared.kind === 'each' ? prepared.items : prepared.args }];
  state.updateStep(step.id, { status: 'awaiting_approval' }, Date.now());
  const stop = () => state.cancelReason !== null || state.abortReason !== null;
  const gate = state.approvals;
  for (const r of requests) gate.open(r, timeoutMs);
  setDetails(state);
  let outcomes: GateOutcome[];
  try {
    if (!perItem) {
      // awaited here, not through a helper: recorded histories have the step's next command
      // before the approval update's completion, and an extra promise step would swap them
      const r = requests[0]!;
      await waitUntil(gate.arrived(r.key, stop), timeoutMs, `approval deadline of step ${step.id}`);
      outcomes = [gate.settle(r, stop)];
    } else {
      outcomes = await Promise.all(
        requests.map((r) => gate.wait(r, timeoutMs, stop, `approval deadline of step ${r.key}`)),
      );
    }
  } finally {
    for (const r of requests) gate.pending.delete(r.key);
  }
  const which = (i: number) => (perItem ? ` (item ${i})` : '');
  const denied = outcomes.findIndex((o) => o.kind === 'denied');
  if (denied >= 0) {
    const reason = `${(outcomes[denied] as Extract<GateOutcome, { kind: 'denied' }>).message}${which(denied)}`;
    if (state.options.onDenial === 'ask' && !stop()) return askRevision(state, step, reason);
    if (state.options.onDenial === 'abort')
      state.abortReason ??= `step ${step.id} was ${reason}; the plan stops (onDenial: abort)`;
    return deny(state, step.id, reason);
  }
  const expired = outcomes.findIndex((o) => o.kind === 'expired');
  if (expired >= 0 && state.options.onApprovalTimeout === 'fail') {
    state.abortReason = `no approval for step ${step.id}${which(expired)} before its deadline`;
    state.finishStep(step.id, 'failed', failedResult(state.abortReason), Date.now());
    return 'denied';
  }
  if (expired >= 0) return deny(state, step.id, `denied: no approval before the deadline${which(expired)}`);
  if (outcomes.some((o) => o.kind === 'stopped'))
    return deny(
      state,
      step.id,
      state.cancelReason !== null ? `plan cancelled: ${state.cancelReason}` : `plan stopped: ${state.abortReason}`,
    );
  return 'approved';
}

/**
 * Whether a step waits for a person's approval: it says so, or its tool names the roles
 * that must approve it (a plan cannot run such a tool unapproved; histories from before
 * approvers have none in their catalog and run as they did).
 */
const needsApproval = (state: PlanState, step: Step): boolean =>
  step.requiresApproval ||
  (!!step.tool && !step.ask && step.compute === undefined && state.approversOf(step.tool) !== undefined);

/** Marks plans whose for-each steps ask one approval per item (workflow.patched). */
const ITEM_APPROVALS_PATCH = 'step-approval-per-item';

/** onDenial ask: the model revises the denied step from the reason (a recovery); else it is denied. */
async function askRevision(state: PlanState, step: Step, reason: string): Promise<'denied' | 'revised'> {
  const asked = {
    ok: false,
    error: `${reason}. A person denied this step; revise it so that it can be approved.`,
    attempts: 0,
    duration: 0,
    timestamp: iso(Date.now()),
  };
  if (await recover(state, step.id, asked)) return 'revised';
  return deny(state, step.id, reason);
}

function deny(state: PlanState, id: string, reason: string): 'denied' {
  state.updateStep(id, { status: 'skipped', skippedBy: 'denial', reason }, Date.now());
  return 'denied';
}

const failedResult = (error: string) => ({ ok: false, error, duration: 0, timestamp: iso(Date.now()), attempts: 0 });

function resultOf(state: PlanState, stepId: string): { found: true; value: Json } | { found: false } {
  const r = state.step(stepId)?.result;
  return r?.ok ? { found: true, value: (r.value ?? null) as Json } : { found: false };
}

function abortOnCriticalFailure(state: PlanState, id: string, error: string): void {
  const policy = state.options.onFailure;
  if (policy === 'continue') return;
  if (policy === 'abort') state.abortReason ??= `critical step ${id} failed: ${error}`;
  else state.abortReason ??= `critical step ${id} failed and could not be recovered: ${error}`;
}

/**
 * Asks the model what to do about a failed critical step (one recovery at a time). The
 * answer is validated like an edit and recorded as a new version. True when the plan
 * changed so that the step is no longer failed (retried, skipped, steps inserted).
 */
async function recover(state: PlanState, id: string, result: StepResult): Promise<boolean> {
  await wf.condition(() => !state.recovering);
  if (state.recoveries >= state.options.maxRecoveries || state.cancelReason !== null || state.abortReason !== null)
    return false;
  state.recovering = true;
  try {
    state.recoveries++;
    const snapshot = state.plan!;
    const asFailed = {
      ...snapshot,
      steps: snapshot.steps.map((s) => (s.id === id ? { ...s, status: 'failed' as const, result } : s)),
    };
    const { recoverStep } = modelActivities(state);
    const outcome = await recoverStep.executeWithOptions(
      { startToCloseTimeout: state.options.timeouts.modelMs * 3, summary: `recover ${id}` },
      [
        {
          agent: state.input.agent,
          plan: asFailed,
          stepId: id,
          error: result.error ?? 'failed',
          ...(state.input.request ? { request: state.input.request } : {}),
          maxSteps: state.options.maxSteps,
        },
      ],
    );
    state.tokens += outcome.tokens;
    if (outcome.kind === 'abort') {
      state.abortReason ??= `recovery of ${id} aborted the plan: ${outcome.reason}`;
      return false;
    }
    if (outcome.kind === 'invalid') return false;
    const merged = mergeRecovered(asFailed, state.plan!, outcome.plan, id);
    state.commit(merged, `recovery of ${id}: ${outcome.change}`, 'recovery', Date.now());
    return true;
  } finally {
    state.recovering = false;
    state.touch();
  }
}

/**
 * The recovered plan was computed from a snapshot; steps that the recovery left as they
 * were keep the state they reached meanwhile, steps it changed or added take its version.
 */
function mergeRecovered(snapshot: Plan, live: Plan, recovered: Plan, failedId: string): Plan {
  const before = new Map(snapshot.steps.map((s) => [s.id, JSON.stringify(s)]));
  const now = new Map(live.steps.map((s) => [s.id, s]));
  const steps = recovered.steps.map((s) => {
    const untouched = s.id !== failedId && before.get(s.id) === JSON.stringify(s);
    return untouched ? (now.get(s.id) ?? s) : s;
  });
  return { ...recovered, steps };
}
/** Shows the checklist in the Temporal UI. */
export function setDetails(state: PlanState): void {
  wf.setCurrentDetails(planDetails(state));
}

/** The checklist shown in the Temporal UI: status, what waits for a person, each step. */
export function planDetails(state: PlanState): string {
  const mark: Record<string, string> = {
    completed: 'x',
    failed: '!',
    skipped: '-',
    blocked: '#',
    running: '>',
    awaiting_approval: '?',
    awaiting_answer: '?',
    ready: ' ',
    pending: ' ',
  };
  const plan = state.plan;
  const lines = [`**${state.status}**${plan ? `, plan version ${plan.version}, ${plan.steps.length} steps` : ''}`];
  if (state.approvals.pending.size)
    lines.push(`Waiting for approval of ${[...state.approvals.pending.keys()].map((k) => `\`${k}\``).join(', ')}`);
  if (state.questions.size)
    lines.push(`Waiting for an answer to ${[...state.questions.keys()].map((k) => `\`${k}\``).join(', ')}`);
  if (plan) {
    lines.push('', '## Steps');
    for (const s of plan.steps) lines.push(`- [${mark[s.status] ?? ' '}] ${s.id}: ${s.description} (${s.status})`);
  }
  return lines.join('\n');
}

export type { ExecutionSummary };
