/**
 * Value links of a plan's history: every step's args follow from the plan and its
 * dependencies' recorded results.
 * - an `evaluatePlanStep` request carries the step's args resolved from the plan
 *   (`$ref`, `$param`) and its dependencies' recorded results; its answer is what its
 *   conditions and `$expr` values give when evaluated again (src/plans/expressions.ts);
 * - a `runPlanStep` (and an agent step's child mission) runs with those args: the
 *   evaluation's answer, or the resolved args when nothing is computed;
 * - an approval's args hash is the hash of the args that were waiting for it;
 * - the step results in the plan's final summary are the recorded ones.
 */
import { run } from '../../lisp/index.ts';
import { needsEvaluation, paramValues, resultsUsedBy } from '../../plans/expressions.ts';
import { computedPart, resolveReferences } from '../../plans/references.ts';
import type { Json, Plan, Step } from '../../plans/schema.ts';
import { ExpressionError, evaluateStep } from '../../plans/evaluate.ts';
import type {
  EvaluateStepOutcome,
  EvaluateStepRequest,
  ExecutionSummary,
  PlanOutcome,
  RecoveryOutcome,
  StepOutcome,
  StepRequest,
  StepVerdict,
} from '../../workflows/plan/contract.ts';
import { EventType, type HistoryEvent, type RunHistory, decodeAll, decodeFirst, eventId } from '../../history/fetch.ts';
import { valueHash } from '../../history/hash.ts';
import { stepOfChild } from './audit.ts';
import { type ValueMismatch, type ValueSide, mismatch, same } from '../mission/values.ts';

export interface PlanValueLinks {
  checked: number;
  mismatches: ValueMismatch[];
  /** approvals that carried no args hash (sent by an older client, or by signal without one) */
  approvalsWithoutHash: number;
  /** set when the history could not be walked */
  error?: string;
}

/** The value checks of a plan audit as text lines. */
export function formatPlanValues(v: PlanValueLinks): string[] {
  const unhashed = v.approvalsWithoutHash
    ? ` (${v.approvalsWithoutHash} approval(s) without an args hash: not recorded)`
    : '';
  return [
    `  value links: ${v.checked} checked, ${v.mismatches.length === 0 ? 'all agree' : `${v.mismatches.length} DIFFER`}${unhashed}`,
    ...v.mismatches.map((m) => `    ${m.message}`),
  ];
}

interface At {
  runId: string;
  eventId: number;
}

interface Recorded<T> extends At {
  value: T;
}

export async function checkPlanValues(chain: RunHistory[]): Promise<PlanValueLinks> {
  const w = new PlanWalker();
  for (const r of chain) {
    const started = r.history.events?.[0]?.workflowExecutionStartedEventAttributes;
    const carried = decodeFirst<{ carried?: { plan?: Plan } }>(started?.input)?.carried?.plan;
    if (carried) w.plan = { value: carried, runId: r.runId, eventId: 1 };
    w.scheduled.clear();
    for (const e of r.history.events ?? []) await w.apply(e, r.runId);
  }
  return { checked: w.checked, mismatches: w.mismatches, approvalsWithoutHash: w.approvalsWithoutHash };
}

class PlanWalker {
  checked = 0;
  approvalsWithoutHash = 0;
  mismatches: ValueMismatch[] = [];
  plan: Recorded<Plan> | null = null;
  scheduled = new Map<number, { type: string; input: unknown }>();
  private results = new Map<string, Recorded<Json>>();
  private evaluations = new Map<string, Recorded<EvaluateStepOutcome>>();
  private items = new Map<string, { results: Json[]; done: number }>();
  private children = new Map<number, string>();
  /** approval keys (step id, or `ID[N]` for an item) approved so far */
  private approved = new Set<string>();

  async apply(e: HistoryEvent, runId: string): Promise<void> {
    const at = { runId, eventId: eventId(e) };
    switch (e.eventType) {
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED: {
        const a = e.activityTaskScheduledEventAttributes!;
        const type = a.activityType?.name ?? '';
        const input = decodeFirst(a.input);
        this.scheduled.set(at.eventId, { type, input });
        if (type === 'evaluatePlanStep') this.checkEvaluationRequest(input as EvaluateStepRequest, at);
        if (type === 'runPlanStep') {
          const req = input as StepRequest;
          this.checkStepArgs(req.stepId, req.args, req.item, at, 'runPlanStep');
          this.checkApproved(req.stepId, req.item, at, 'runPlanStep');
        }
        return;
      }
      case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED: {
        const a = e.activityTaskCompletedEventAttributes!;
        const origin = this.scheduled.get(Number(a.scheduledEventId));
        if (origin) await this.onCompleted(origin, decodeFirst(a.result), at);
        return;
      }
      case EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED: {
        const a = e.startChildWorkflowExecutionInitiatedEventAttributes!;
        const stepId = this.plan ? stepOfChild(a.workflowId ?? '', this.plan.value.id) : null;
        if (!stepId) return;
        this.children.set(at.eventId, stepId);
        const input = decodeFirst<{ input?: Json }>(a.input)?.input ?? null;
        this.checkStepArgs(stepId, input, undefined, at, 'child mission');
        this.checkApproved(stepId, undefined, at, 'child mission');
        return;
      }
      case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED: {
        const a = e.childWorkflowExecutionCompletedEventAttributes!;
        const stepId = this.children.get(Number(a.initiatedEventId));
        if (stepId) this.results.set(stepId, { value: decodeFirst<Json>(a.result) ?? null, ...at });
        return;
      }
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED: {
        const input = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
        if (input?.name === 'approveStep') this.checkApproval(decodeAll(input.args)[0] as StepVerdict, at);
        return;
      }
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED: {
        // an accepted answer to a question step is its result (the answerStep update's AnswerAck)
        const ack = decodeFirst<{ stepId?: unknown; answer?: Json }>(
          e.workflowExecutionUpdateCompletedEventAttributes?.outcome?.success,
        );
        if (typeof ack?.stepId === 'string' && ack.answer !== undefined)
          this.results.set(ack.stepId, { value: ack.answer, ...at });
        return;
      }
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED: {
        const a = e.workflowExecutionSignaledEventAttributes!;
        if (a.signalName === 'approveStep') this.checkApproval(decodeFirst<StepVerdict>(a.input)!, at);
        return;
      }
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
        this.checkSummary(decodeFirst<ExecutionSummary>(e.workflowExecutionCompletedEventAttributes?.result), at);
        return;
    }
  }

  private async onCompleted(origin: { type: string; input: unknown }, result: unknown, at: At): Promise<void> {
    switch (origin.type) {
      case 'preparePlan':
      case 'editPlan':
      case 'regeneratePlan': {
        const o = result as PlanOutcome;
        if (o.ok) this.plan = { value: o.plan, ...at };
        return;
      }
      case 'recoverStep': {
        const o = result as RecoveryOutcome;
        if (o.kind === 'applied') this.plan = { value: o.plan, ...at };
        return;
      }
      case 'evaluatePlanStep': {
        const req = origin.input as EvaluateStepRequest;
        const outcome = result as EvaluateStepOutcome;
        this.evaluations.set(req.stepId, { value: outcome, ...at });
        if (outcome.kind === 'each') this.items.set(req.stepId, { results: outcome.items.map(() => null), done: 0 });
        if (outcome.kind === 'each' && outcome.items.length === 0) this.results.set(req.stepId, { value: [], ...at });
        // a compute step's result is its expression's value: no tool step follows
        if (outcome.kind === 'args' && req.root === 'compute')
          this.results.set(req.stepId, { value: outcome.args, ...at });
        await this.checkEvaluation(req, outcome, at);
        return;
      }
      case 'runPlanStep': {
        const req = origin.input as StepRequest;
        const value = (result as StepOutcome).result;
        const items = req.item === undefined ? undefined : this.items.get(req.stepId);
        if (!items) return void this.results.set(req.stepId, { value, ...at });
        items.results[req.item!] = value;
        if (++items.done === items.results.length) this.results.set(req.stepId, { value: items.results, ...at });
        return;
      }
    }
  }

  private step(stepId: string): Step | undefined {
    return this.plan?.value.steps.find((s) => s.id === stepId);
  }

  /** The step's args (or input) resolved from the plan and the recorded results, `$expr` values left in place. */
  private resolved(step: Step): { value: Json; from: At & { what: string } } | { error: string } {
    // a tool step's args, an agent step's input, a computed question, a compute step's expression
    const { root, value } = computedPart(step);
    const params = paramValues(this.plan!.value.params);
    const r = resolveReferences(
      value,
      (id) => {
        const got = this.results.get(id);
        return got ? { found: true, value: got.value } : { found: false };
      },
      root,
      params,
    );
    if (!r.ok) return { error: r.message };
    // the latest event the args come from: a dependency's result, else the plan's definition
    const deps = [...resultsUsedBy(step)]
      .map((id) => this.results.get(id))
      .filter((x): x is Recorded<Json> => x !== undefined);
    const last = deps.sort((a, b) => (a.runId === b.runId ? b.eventId - a.eventId : 0))[0];
    const from = last
      ? {
          runId: last.runId,
          eventId: last.eventId,
          what: `result of step ${[...resultsUsedBy(step)].find((id) => this.results.get(id) === last)}`,
        }
      : { runId: this.plan!.runId, eventId: this.plan!.eventId, what: `plan version ${this.plan!.value.version}` };
    return { value: r.value, from };
  }

  /** The args a step runs with (what its approver sees): the evaluation's answer, or the resolved args. */
  private expectedArgs(step: Step, item: number | undefined): { value: Json; from: At & { what: string } } | null {
    if (needsEvaluation(step)) {
      const ev = this.evaluations.get(step.id);
      if (!ev) return null;
      const o = ev.value;
      const what = `evaluation of ${step.id}`;
      if (o.kind === 'args') return { value: o.args, from: { runId: ev.runId, eventId: ev.eventId, what } };
      if (o.kind === 'each')
        return {
          value: item === undefined ? o.items : (o.items[item] ?? null),
          from: { runId: ev.runId, eventId: ev.eventId, what: `${what}, item ${item ?? 'all'}` },
        };
      return null;
    }
    const r = this.resolved(step);
    return 'error' in r ? null : r;
  }

  private checkStepArgs(stepId: string, args: Json, item: number | undefined, at: At, via: string): void {
    const step = this.step(stepId);
    if (!step) return;
    const expected = this.expectedArgs(step, item);
    if (!expected) return;
    this.checked++;
    if (same(args, expected.value)) return;
    this.push(
      'step-args',
      { ...at, what: `${via} of ${stepId}${item === undefined ? '' : ` item ${item}`} args`, value: args },
      { ...expected.from, value: expected.value },
    );
  }

  private checkEvaluationRequest(req: EvaluateStepRequest, at: At): void {
    const step = this.step(req.stepId);
    if (!step) return;
    const r = this.resolved(step);
    if (!('error' in r)) {
      this.checked++;
      if (!same(req.args, r.value))
        this.push(
          'step-args',
          { ...at, what: `evaluatePlanStep of ${req.stepId} args`, value: req.args },
          { ...r.from, value: r.value },
        );
    }
    for (const [id, value] of Object.entries(req.steps)) {
      const got = this.results.get(id);
      this.checked++;
      if (!got)
        this.push(
          'step-result',
          { ...at, what: `evaluatePlanStep of ${req.stepId} reads step/${id}`, value },
          { ...at, what: `no recorded result of ${id}`, value: null },
        );
      else if (!same(value, got.value))
        this.push(
          'step-result',
          { ...at, what: `evaluatePlanStep of ${req.stepId} reads step/${id}`, value },
          { runId: got.runId, eventId: got.eventId, what: `result of step ${id}`, value: got.value },
        );
    }
  }

  /** The evaluation's answer is what its expressions give when evaluated again. */
  private async checkEvaluation(req: EvaluateStepRequest, outcome: EvaluateStepOutcome, at: At): Promise<void> {
    const again = await evaluateStepAgain(req);
    this.checked++;
    if (same(again, outcome)) return;
    const request = this.scheduledAt(at, req);
    this.push(
      'step-evaluation',
      { ...at, what: `evaluation of ${req.stepId} answered`, value: outcome as unknown as Json },
      { ...request, what: `its request evaluated again gives`, value: again as Json },
    );
  }

  private scheduledAt(at: At, req: EvaluateStepRequest): At {
    for (const [id, s] of this.scheduled) if (s.input === req) return { runId: at.runId, eventId: id };
    return at;
  }

  /**
   * A step that requires approval runs only after one: of the step, or of its for-each
   * item (histories from before per-item approvals have one for the whole step).
   */
  private checkApproved(stepId: string, item: number | undefined, at: At, via: string): void {
    const step = this.step(stepId);
    if (!step?.requiresApproval) return;
    this.checked++;
    if (this.approved.has(stepId) || (item !== undefined && this.approved.has(`${stepId}[${item}]`))) return;
    const what = `${via} of ${stepId}${item === undefined ? '' : ` item ${item}`}`;
    this.push(
      'approval',
      { ...at, what: `${what} ran`, value: null },
      { ...at, what: `no approval of it earlier in history (the step requires approval)`, value: null },
    );
  }

  /** An approval's args hash is the hash of the args that waited for it. */
  private checkApproval(v: StepVerdict, at: At): void {
    if (!v || typeof v.stepId !== 'string') return;
    this.approved.add(typeof v.item === 'number' ? `${v.stepId}[${v.item}]` : v.stepId);
    if (v.argsHash === undefined) return void this.approvalsWithoutHash++;
    const step = this.step(v.stepId);
    const item = typeof v.item === 'number' ? v.item : undefined;
    const expected = step ? this.expectedArgs(step, item) : null;
    if (!expected) return;
    this.checked++;
    const hash = valueHash(expected.value);
    const what = `approval of ${v.stepId}${item === undefined ? '' : ` item ${item}`} (args hash)`;
    if (hash !== v.argsHash)
      this.push(
        'approval',
        { ...at, what, value: v.argsHash },
        {
          ...expected.from,
          what: `${expected.from.what}: args waiting for approval, hash ${hash}`,
          value: expected.value,
        },
      );
  }

  /** The step results in the plan's summary are the recorded ones. */
  private checkSummary(summary: ExecutionSummary | undefined, at: At): void {
    for (const s of summary?.steps ?? []) {
      const got = this.results.get(s.id);
      if (s.status !== 'completed' || !got) continue;
      this.checked++;
      const value = (s.result?.value ?? null) as Json;
      if (!same(value, got.value))
        this.push(
          'step-result',
          { ...at, what: `plan summary gives ${s.id}`, value },
          { runId: got.runId, eventId: got.eventId, what: `result of step ${s.id}`, value: got.value },
        );
    }
  }

  private push(check: string, a: ValueSide, b: ValueSide): void {
    this.mismatches.push(mismatch(check, a, b));
  }
}

/**
 * An `evaluatePlanStep` request evaluated again as the activity does (the same code,
 * src/plans/evaluate.ts, in process rather than in the sandbox); a failed expression gives
 * `{error}` with the activity's message.
 */
export async function evaluateStepAgain(req: EvaluateStepRequest): Promise<EvaluateStepOutcome | { error: string }> {
  try {
    return await evaluateStep(req, run);
  } catch (err) {
    if (err instanceof ExpressionError) return { error: err.message };
    throw err;
  }
}
