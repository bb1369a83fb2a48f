/**
 * The state of one plan workflow as a plain deterministic class: the plan and its
 * versions, progress events, the ledger, approvals and budgets. The workflow wires
 * Temporal messages and activities to these methods; the rules of the plan itself
 * (ready set, blocking, final status) come from src/plans.
 */
import { executionSummary, finalStatus } from '../../plans/scheduler.ts';
import type { PlanOptions, PlanOptionsInput, Step, StepResult } from '../../plans/schema.ts';
import { DEFAULT_HEARTBEAT_MS, DEFAULT_TOOL_MS } from '../../kernel/contract.ts';
import { DEFAULT_MAX_STEPS } from '../../plans/limits.ts';
import { ApprovalGate } from '../approval-gate.ts';
import type {
  CatalogDescription,
  ExecutionSummary,
  Json,
  PendingQuestion,
  Plan,
  PlanCarried,
  PlanInput,
  PlanLedgerEntry,
  PlanStatus,
  PlanStatusView,
  PlanVersion,
  ProgressEvent,
  ProgressView,
  StepApprovalRequest,
  StepProgressReport,
  StepStatus,
  StepVerdict,
} from './contract.ts';

/** The plan's input as the workflow reads it (checked by plan-guards.ts); options as given. */
export type ParsedPlanInput = Omit<PlanInput, 'carried'> & { carried?: PlanCarried };

const FINISHED: readonly PlanStatus[] = ['completed', 'completed_with_failures', 'failed', 'cancelled'];
const MAX_EVENTS = 5000;

export class PlanState {
  plan: Plan | null = null;
  versions: PlanVersion[] = [];
  events: ProgressEvent[] = [];
  ledger: PlanLedgerEntry[] = [];
  status: PlanStatus = 'planning';
  catalog: CatalogDescription = { tools: {}, agents: [] };
  readonly options: PlanOptions;
  startedAtMs: number;
  toolCalls = 0;
  recoveries = 0;
  tokens = 0;
  chain: string[];
  /** steps (and for-each items) waiting for a person's approval, and every verdict given */
  readonly approvals = new ApprovalGate<StepApprovalRequest>([], 'step');
  /** question steps waiting for an answer, and the answers accepted for them */
  readonly questions = new Map<string, PendingQuestion>();
  readonly answers = new Map<string, { value: Json; by: string | null }>();
  /** an answer is being checked (answers go one at a time) */
  answering = false;
  /** set by cancel; the plan stops scheduling and cancels running steps */
  cancelReason: string | null = null;
  /** set when a critical failure, a budget or a recovery ends the plan */
  abortReason: string | null = null;
  approved = false;
  /** a recovery activity is running (recoveries go one at a time) */
  recovering = false;
  /** an edit or regeneration is being applied (they go one at a time) */
  editing = false;
  /** an unexpected error inside a step's code: rethrown by the scheduling loop */
  fatal: unknown = null;
  error: string | null = null;
  summary: ExecutionSummary | null = null;
  rejectedSignals: Array<{ signal: string; reason: string }> = [];
  /** bumped on every change the scheduler may care about */
  tick = 0;

  constructor(
    readonly input: ParsedPlanInput,
    readonly planId: string,
    nowMs: number,
  ) {
    this.options = resolvePlanOptions(input.options, input.document?.options);
    const carried = input.carried;
    this.startedAtMs = carried?.startedAtMs ?? nowMs;
    this.chain = carried?.chain ?? [];
    if (carried) {
      Object.assign(this, {
        plan: carried.plan,
        versions: carried.versions,
        events: carried.events,
        ledger: carried.ledger,
        status: carried.status,
        catalog: carried.catalog,
        toolCalls: carried.toolCalls,
        recoveries: carried.recoveries,
        tokens: carried.tokens,
        approved: carried.status !== 'review',
      });
      this.approvals.records = carried.approvals ?? carried.approvalRecords ?? [];
    }
  }

  get taskId(): string {
    return this.input.taskId ?? this.planId;
  }

  get finished(): boolean {
    return FINISHED.includes(this.status);
  }

  touch(): void {
    this.tick++;
  }

  step(id: string): Step | undefined {
    return this.plan?.steps.find((s) => s.id === id);
  }

  /** Records a new version of the plan (created, edited, regenerated, recovered). */
  commit(plan: Plan, change: string, by: string | null, nowMs: number): void {
    this.plan = plan;
    this.versions.push({ version: plan.version, change, by, at: iso(nowMs), steps: plan.steps });
    this.touch();
  }

  /** Replaces one step (immutably) and records a progress event for a status change. */
  updateStep(id: string, patch: Partial<Step>, nowMs: number): Step {
    const plan = this.plan!;
    const at = plan.steps.findIndex((s) => s.id === id);
    const before = plan.steps[at]!;
    const after: Step = { ...before, ...patch };
    // a new list (a recovery keeps the old plan as its snapshot), copied without a callback per step
    const steps = plan.steps.slice();
    if (at >= 0) steps[at] = after;
    this.plan = { ...plan, steps };
    if (patch.status && patch.status !== before.status) {
      this.event(
        { stepId: id, status: patch.status, ...(after.result?.ok ? { result: after.result.value ?? null } : {}) },
        nowMs,
      );
    }
    this.touch();
    return after;
  }

  /** Marks steps the scheduler found blocked, with an event each. */
  replaceSteps(steps: Step[], nowMs: number): void {
    const old = new Map(this.plan!.steps.map((s) => [s.id, s.status]));
    this.plan = { ...this.plan!, steps };
    for (const s of steps) if (old.get(s.id) !== s.status) this.event({ stepId: s.id, status: s.status }, nowMs);
    this.touch();
  }

  finishStep(id: string, status: StepStatus, result: StepResult, nowMs: number, reason?: string): void {
    this.updateStep(id, { status, result, ...(reason ? { reason } : {}) }, nowMs);
  }

  stepProgress(report: StepProgressReport, nowMs: number): string | null {
    const step = this.step(report.stepId);
    if (!step) return `no step ${JSON.stringify(report.stepId)}`;
    if (step.status !== 'running') return `step ${report.stepId} is ${step.status}, not running`;
    const progress = typeof report.progress === 'number' ? Math.max(0, Math.min(100, report.progress)) : undefined;
    this.event(
      {
        stepId: step.id,
        status: 'running',
        ...(progress !== undefined ? { progress } : {}),
        ...(report.log ? { logs: [report.log] } : {}),
      },
      nowMs,
    );
    return null;
  }

  private event(e: Omit<ProgressEvent, 'planId' | 'at'>, nowMs: number): void {
    this.events.push({ planId: this.planId, ...e, at: iso(nowMs) });
    if (this.events.length > MAX_EVENTS) this.events.splice(0, this.events.length - MAX_EVENTS);
  }

  startLedger(step: Step, activity: string): PlanLedgerEntry {
    const entry: PlanLedgerEntry = {
      seq: this.ledger.length + 1,
      stepId: step.id,
      tool: step.tool ?? step.agent ?? '?',
      sideEffect: step.tool ? (this.catalog.tools[step.tool]?.sideEffect ?? 'external') : 'agent',
      idempotencyKey: '',
      status: 'running',
      attempts: 0,
      activity,
    };
    this.ledger.push(entry);
    return entry;
  }

  /** Why a verdict cannot be taken, or null. */
  verdictProblem(v: Pick<StepVerdict, 'stepId' | 'item' | 'role'>): string | null {
    const { stepId, item } = v;
    if (typeof stepId !== 'string' || stepId === '') return 'stepId: expected a non-empty string';
    if (item !== undefined && !(Number.isInteger(item) && item >= 0)) return 'item: expected a whole number >= 0';
    const step = this.step(stepId);
    if (!step) return `no step ${JSON.stringify(stepId)} in plan ${this.planId}`;
    const items = [...this.approvals.pending.values()]
      .filter((p) => p.stepId === stepId && p.item !== null)
      .map((p) => p.item);
    if (item === undefined && items.length)
      return `step ${stepId} waits for an approval of each item: name one (waiting: items ${items.join(', ')})`;
    if (item !== undefined && !items.length && this.approvals.pending.has(stepId))
      return `step ${stepId} waits for one approval of the whole step: name no item`;
    const key = approvalKey(stepId, item);
    if (!this.approvals.pending.has(key))
      return `${item === undefined ? `step ${stepId}` : `item ${item} of step ${stepId}`} is ${step.status}, not awaiting approval`;
    return this.approvals.problem({ key, role: typeof v.role === 'string' ? v.role : undefined });
  }

  /** The roles allowed to decide a step of `tool` (its approvers in the catalog), or undefined. */
  approversOf(tool: string | null | undefined): string[] | undefined {
    const approvers = tool ? this.catalog.tools[tool]?.approvers : undefined;
    return approvers?.length ? approvers : undefined;
  }

  /** Takes a verdict (after {@link verdictProblem} said null); a denial's reason is its note. */
  decide(v: StepVerdict, approved: boolean): void {
    const note = approved ? v.note : v.reason || 'no reason given';
    this.approvals.decide({
      key: approvalKey(v.stepId, v.item),
      approved,
      by: v.by,
      note,
      argsHash: v.argsHash,
      ...(typeof v.role === 'string' && v.role ? { role: v.role } : {}),
    });
    this.touch();
  }

  /** Why an answer for `stepId` cannot be taken, or null. */
  answerProblem(stepId: unknown): string | null {
    if (typeof stepId !== 'string' || stepId === '') return 'stepId: expected a non-empty string';
    const step = this.step(stepId);
    if (!step) return `no step ${JSON.stringify(stepId)} in plan ${this.planId}`;
    if (!step.ask)
      return `step ${stepId} is not a question (it runs ${step.tool ? `tool ${step.tool}` : `agent ${step.agent}`})`;
    if (this.answers.has(stepId)) return `step ${stepId} is already answered`;
    if (!this.questions.has(stepId)) return `step ${stepId} is ${step.status}, not awaiting an answer`;
    return null;
  }

  wallClockMs(nowMs: number): number {
    return nowMs - this.startedAtMs;
  }

  /** The budget that ran out, or null. */
  exhaustedBudget(nowMs: number): string | null {
    const b = this.options.budgets;
    if (b.wallClockMs !== undefined && this.wallClockMs(nowMs) >= b.wallClockMs)
      return `wall-clock budget of ${b.wallClockMs} ms used up`;
    if (b.toolCalls !== undefined && this.toolCalls >= b.toolCalls) return `tool-call budget of ${b.toolCalls} used up`;
    return null;
  }

  finalStatus(): PlanStatus {
    if (this.cancelReason !== null) return 'cancelled';
    return finalStatus(this.plan!, { aborted: this.abortReason !== null });
  }

  makeSummary(status: PlanStatus, nowMs: number): ExecutionSummary {
    this.summary = executionSummary(this.plan!, { startedAt: this.startedAtMs, now: nowMs, status });
    return this.summary;
  }

  statusView(runId: string, nowMs: number): PlanStatusView {
    const b = this.options.budgets;
    return {
      planId: this.planId,
      runId,
      agent: this.input.agent,
      status: this.status,
      version: this.plan?.version ?? 0,
      plan: this.plan,
      approvals: [...this.approvals.pending.values()],
      approvalRecords: this.approvals.records,
      // each tool's class, so a console that does not know the agent still asks "are you sure?" by class
      toolClasses: Object.fromEntries(
        Object.entries(this.catalog.tools).map(([name, t]) => [
          name,
          { sideEffect: t.sideEffect, destructive: t.destructive },
        ]),
      ),
      questions: [...this.questions.values()],
      summary:
        this.summary ??
        (this.plan
          ? executionSummary(this.plan, { startedAt: this.startedAtMs, now: nowMs, status: this.status })
          : null),
      error: this.error,
      budgets: {
        used: { wallClockMs: this.wallClockMs(nowMs), toolCalls: this.toolCalls, recoveries: this.recoveries },
        limits: {
          ...(b.wallClockMs ? { wallClockMs: b.wallClockMs } : {}),
          ...(b.toolCalls ? { toolCalls: b.toolCalls } : {}),
        },
      },
      rejectedSignals: this.rejectedSignals,
    };
  }

  progressView(): ProgressView {
    const counts = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<StepStatus, number>;
    for (const s of this.plan?.steps ?? []) counts[s.status]++;
    return { events: this.events, plan: this.plan, counts, status: this.status };
  }

  carry(runId: string): PlanCarried {
    return {
      plan: this.plan!,
      versions: this.versions,
      events: this.events,
      ledger: this.ledger,
      status: this.status,
      catalog: this.catalog,
      startedAtMs: this.startedAtMs,
      toolCalls: this.toolCalls,
      recoveries: this.recoveries,
      tokens: this.tokens,
      chain: [...this.chain, runId],
      ...(this.approvals.records.length ? { approvals: this.approvals.records } : {}),
      options: this.options,
    };
  }
}

const STATUSES: readonly StepStatus[] = [
  'pending',
  'blocked',
  'ready',
  'running',
  'awaiting_approval',
  'awaiting_answer',
  'completed',
  'failed',
  'skipped',
];

export const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * Plan options with their defaults, by hand (zod stays out of the workflow bundle):
 * the caller's options win over the document's, field by field.
 */
export function resolvePlanOptions(
  given: PlanOptionsInput | undefined,
  fromDocument: PlanOptionsInput | undefined,
): PlanOptions {
  const o = { ...fromDocument, ...given };
  return {
    onFailure: o.onFailure ?? 'ask',
    ...(o.approvalTimeoutMs !== undefined ? { approvalTimeoutMs: o.approvalTimeoutMs } : {}),
    onApprovalTimeout: o.onApprovalTimeout ?? 'deny',
    onDenial: o.onDenial ?? 'block',
    budgets: { ...fromDocument?.budgets, ...given?.budgets },
    maxRecoveries: o.maxRecoveries ?? 5,
    continueAsNewAfterEvents: o.continueAsNewAfterEvents ?? 2000,
    maxSteps: o.maxSteps ?? DEFAULT_MAX_STEPS,
    ...(o.statusSearchAttribute !== undefined ? { statusSearchAttribute: o.statusSearchAttribute } : {}),
    timeouts: {
      stepMs: DEFAULT_TOOL_MS,
      heartbeatMs: DEFAULT_HEARTBEAT_MS,
      modelMs: 5 * 60_000,
      ...fromDocument?.timeouts,
      ...given?.timeouts,
    },
  };
}

/** The key a verdict names: the step id, or `ID[N]` for item N of a for-each step. */
export const approvalKey = (stepId: string, item?: number | null): string =>
  item === undefined || item === null ? stepId : `${stepId}[${item}]`;
