/**
 * `auditPlan`: cross-checks a plan workflow against Temporal's own history.
 * 1. rebuilds every step's outcome from history events alone (the `runPlanStep`
 *    activities and the child missions of agent steps, across the continue-as-new chain;
 *    a forEach step's result is the list of its items' results, their count given by its
 *    `evaluatePlanStep` activity; a question step's answer from its accepted `answerStep`
 *    update) and compares it with the steps the workflow reports;
 * 2. checks that no step's side effect completed twice for one idempotency key;
 * 3. replays every run with the current workflow code, and audits each child mission.
 */
import type { Client } from '@temporalio/client';
import type { Json, Plan } from '../../plans/schema.ts';
import type {
  AnswerAck,
  CatalogDescription,
  EvaluateStepOutcome,
  EvaluateStepRequest,
  StepOutcome,
  StepRequest,
  StepVerdict,
} from '../../workflows/plan/contract.ts';
import { verdictRoleProblem } from '../../history/rebuild.ts';
import { planQuery } from '../../workflows/plan/messages.ts';
import {
  EventType,
  type HistoryEvent,
  type RunHistory,
  decodeAll,
  decodeFirst,
  eventId,
  fetchChain,
} from '../../history/fetch.ts';
import { type AuditOptions, type ChainAuditOptions, auditMission, replayChain } from '../mission/audit.ts';
import { workflowAnswer } from '../workflow-answer.ts';
import { type PlanValueLinks, checkPlanValues, formatPlanValues } from './values.ts';

/** What history says about one step: its last execution's outcome. */
export interface StepEvidence {
  stepId: string;
  outcome: 'completed' | 'failed' | 'running';
  value?: Json;
  error?: string;
  runId: string;
  eventId: number;
  /** `runPlanStep` activity or child workflow id */
  via: string;
}

export interface PlanAuditReport {
  ok: boolean;
  planId: string;
  runs: string[];
  steps: Array<{ stepId: string; status: string; history: StepEvidence | null; matches: boolean; difference?: string }>;
  duplicateEffects: Array<{ idempotencyKey: string; stepId: string; tool: string; completions: number }>;
  children: Array<{ workflowId: string; ok: boolean; problems: string[] }>;
  replay: { ok: boolean; errors: string[] };
  /** links between values in history (src/audit/plan/values.ts) */
  values: PlanValueLinks;
  problems: string[];
}

export async function auditPlan(client: Client, planId: string, opts: AuditOptions = {}): Promise<PlanAuditReport> {
  const chain = await fetchChain(client, planId);
  // a closed plan from its history replayed here (no worker, no query; that run's replay too); a running one from its worker, else its history
  const { answer: plan, replayed, replayer } = await workflowAnswer<Plan | null>(client, chain, planQuery.name, opts);
  const report = await auditPlanChain(chain, plan, {
    ...opts,
    ...(replayer ? { replayer } : {}),
    ...(replayed ? { replayed } : {}),
  });
  for (const workflowId of report.children.map((c) => c.workflowId)) {
    const child = await auditMission(client, workflowId, opts).catch((err: Error) => ({
      ok: false,
      problems: [err.message],
    }));
    const entry = report.children.find((c) => c.workflowId === workflowId)!;
    Object.assign(entry, { ok: child.ok, problems: child.problems });
    if (!child.ok) report.problems.push(`child mission ${workflowId} does not pass its audit`);
  }
  report.ok = report.ok && report.children.every((c) => c.ok);
  return report;
}

/**
 * The audit of a plan's chain of histories against the plan the workflow reports
 * (online), or without it (offline, `plan audit --history FILE`: steps are only rebuilt,
 * duplicates and replay still checked). Child missions are listed, audited online only.
 */
export async function auditPlanChain(
  chain: RunHistory[],
  plan: Plan | null,
  opts: ChainAuditOptions = {},
): Promise<PlanAuditReport> {
  const planId = chain[0]?.workflowId ?? '';
  const problems: string[] = [];
  let evidence: Rebuilt;
  try {
    evidence = rebuildSteps(chain, planId);
  } catch (err) {
    problems.push(`the history could not be read: ${(err as Error).message}`);
    evidence = { last: new Map(), effects: new Map(), children: [], problems: [] };
  }
  const steps: PlanAuditReport['steps'] = plan
    ? compareSteps(plan, evidence.last)
    : [...evidence.last.values()].map((h) => ({
        stepId: h.stepId,
        status: 'unknown (offline)',
        history: h,
        matches: true,
      }));
  problems.push(...evidence.problems, ...steps.filter((s) => !s.matches).map((s) => `${s.stepId}: ${s.difference}`));
  try {
    problems.push(...stepRoleProblems(chain));
  } catch (err) {
    problems.push(`the step verdicts' roles could not be checked: ${(err as Error).message}`);
  }
  const duplicateEffects = [...evidence.effects.values()].filter((e) => e.completions > 1);
  for (const d of duplicateEffects)
    problems.push(`${d.stepId}: side effect ${d.tool} completed ${d.completions} times for one idempotency key`);
  if (opts.requireClosed) {
    const last = chain.at(-1)?.history.events?.at(-1)?.eventType;
    if (!CLOSING_TYPES.has(last))
      problems.push(`the history ends without the plan workflow closing (cut short, or exported while it ran)`);
  }
  const replay = opts.skipReplay
    ? { ok: true, errors: [] }
    : await replayChain(chain, opts, 'navigator-plan-audit').catch((err: Error) => ({
        ok: false,
        errors: [err.message],
      }));
  const children = evidence.children.map((workflowId) => ({ workflowId, ok: true, problems: [] as string[] }));
  const values = await checkPlanValues(chain).catch((err: Error): PlanValueLinks => ({
    checked: 0,
    mismatches: [],
    approvalsWithoutHash: 0,
    error: err.message,
  }));
  if (values.error) problems.push(`the values of the history could not be checked: ${values.error}`);
  return {
    ok: problems.length === 0 && replay.ok && values.mismatches.length === 0,
    planId,
    runs: chain.map((r) => r.runId),
    steps,
    duplicateEffects,
    children,
    replay,
    values,
    problems,
  };
}

const CLOSING_TYPES = new Set<number | null | undefined>([
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
]);

interface Rebuilt {
  last: Map<string, StepEvidence>;
  effects: Map<string, { idempotencyKey: string; stepId: string; tool: string; completions: number }>;
  children: string[];
  problems: string[];
}

/** Every step's last outcome, from `runPlanStep` activities and child workflow events. */
export function rebuildSteps(chain: RunHistory[], planId: string): Rebuilt {
  const out: Rebuilt = { last: new Map(), effects: new Map(), children: [], problems: [] };
  for (const run of chain) {
    const activities = new Map<number, StepRequest>();
    const childSteps = new Map<number, { stepId: string; workflowId: string }>();
    const each: ForEachRuns = { evaluations: new Map(), computes: new Set(), steps: new Map(), updates: new Map() };
    for (const e of run.history.events ?? []) applyEvent(e, run.runId, planId, activities, childSteps, out, each);
  }
  return out;
}

/** forEach steps: evaluations by scheduled event id, and each step's items so far. */
interface ForEachRuns {
  evaluations: Map<number, string>;
  /** evaluations of compute steps, by their scheduled event id */
  computes: Set<number>;
  steps: Map<string, { results: Json[]; done: number }>;
  /** accepted updates' names by event id (answers are `answerStep` updates) */
  updates: Map<number, string>;
}

function applyEvent(
  e: HistoryEvent,
  runId: string,
  planId: string,
  activities: Map<number, StepRequest>,
  childSteps: Map<number, { stepId: string; workflowId: string }>,
  out: Rebuilt,
  each: ForEachRuns,
): void {
  const id = eventId(e);
  const record = (ev: Omit<StepEvidence, 'runId' | 'eventId'>) =>
    out.last.set(ev.stepId, { ...ev, runId, eventId: id });
  if (forEachEvent(e, each, record) || answerEvent(e, each.updates, record)) return;
  switch (e.eventType) {
    case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED: {
      const a = e.activityTaskScheduledEventAttributes!;
      if (a.activityType?.name !== 'runPlanStep') return;
      const req = decodeFirst<StepRequest>(a.input)!;
      activities.set(id, req);
      record({ stepId: req.stepId, outcome: 'running', via: a.activityId ?? '' });
      return;
    }
    case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED: {
      const a = e.activityTaskCompletedEventAttributes!;
      const req = activities.get(Number(a.scheduledEventId));
      if (!req) return;
      const result = decodeFirst<StepOutcome>(a.result)!;
      const items = req.item === undefined ? undefined : each.steps.get(req.stepId);
      if (items) {
        items.results[req.item!] = result.result;
        items.done++;
      }
      const done = !items || items.done === items.results.length;
      record({
        stepId: req.stepId,
        outcome: done ? 'completed' : 'running',
        value: items ? items.results : result.result,
        via: `runPlanStep event ${a.scheduledEventId}`,
      });
      const key = result.idempotencyKey;
      const effect = out.effects.get(key) ?? {
        idempotencyKey: key,
        stepId: req.stepId,
        tool: req.tool,
        completions: 0,
      };
      effect.completions++;
      out.effects.set(key, effect);
      return;
    }
    case EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED:
    case EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT:
    case EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED: {
      const a =
        e.activityTaskFailedEventAttributes ??
        e.activityTaskTimedOutEventAttributes ??
        e.activityTaskCanceledEventAttributes;
      const req = activities.get(Number(a?.scheduledEventId));
      if (!req) return;
      const failure = (a as { failure?: { message?: string | null } | null }).failure;
      record({
        stepId: req.stepId,
        outcome: 'failed',
        error: failure?.message ?? 'cancelled',
        via: `runPlanStep event ${a!.scheduledEventId}`,
      });
      return;
    }
    case EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED: {
      const workflowId = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? '';
      const stepId = stepOfChild(workflowId, planId);
      if (!stepId) return void out.problems.push(`child workflow ${workflowId} (event ${id}) belongs to no step`);
      childSteps.set(id, { stepId, workflowId });
      record({ stepId, outcome: 'running', via: workflowId });
      return;
    }
    case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED: {
      const a = e.childWorkflowExecutionCompletedEventAttributes!;
      const child = childSteps.get(Number(a.initiatedEventId));
      if (!child) return;
      record({
        stepId: child.stepId,
        outcome: 'completed',
        value: decodeFirst<Json>(a.result) ?? null,
        via: child.workflowId,
      });
      out.children.push(child.workflowId);
      return;
    }
    case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED:
    case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_CANCELED:
    case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TERMINATED:
    case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TIMED_OUT: {
      const a =
        e.childWorkflowExecutionFailedEventAttributes ??
        e.childWorkflowExecutionCanceledEventAttributes ??
        e.childWorkflowExecutionTerminatedEventAttributes ??
        e.childWorkflowExecutionTimedOutEventAttributes;
      const child = childSteps.get(Number(a?.initiatedEventId));
      if (!child) return;
      const failure = (a as { failure?: { message?: string | null } | null }).failure;
      record({
        stepId: child.stepId,
        outcome: 'failed',
        error: failure?.message ?? 'child mission did not complete',
        via: child.workflowId,
      });
      return;
    }
  }
}

/** The `evaluatePlanStep` of a forEach step: how many items its runs will have (none: completed with []). */
function forEachEvent(
  e: HistoryEvent,
  each: ForEachRuns,
  record: (ev: Omit<StepEvidence, 'runId' | 'eventId'>) => void,
): boolean {
  if (
    e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED &&
    e.activityTaskScheduledEventAttributes?.activityType?.name === 'evaluatePlanStep'
  ) {
    const req = decodeFirst<EvaluateStepRequest>(e.activityTaskScheduledEventAttributes.input)!;
    each.evaluations.set(eventId(e), req.stepId);
    if (req.root === 'compute') each.computes.add(eventId(e));
    return true;
  }
  if (e.eventType !== EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) return false;
  const a = e.activityTaskCompletedEventAttributes!;
  const stepId = each.evaluations.get(Number(a.scheduledEventId));
  if (stepId === undefined) return false;
  const outcome = decodeFirst<EvaluateStepOutcome>(a.result)!;
  // a compute step runs no tool: its evaluation is its execution, the value its result
  if (outcome.kind === 'args' && each.computes.has(Number(a.scheduledEventId)))
    record({ stepId, outcome: 'completed', value: outcome.args, via: `evaluatePlanStep event ${a.scheduledEventId}` });
  if (outcome.kind !== 'each') return true;
  each.steps.set(stepId, { results: outcome.items.map(() => null), done: 0 });
  if (outcome.items.length === 0)
    record({ stepId, outcome: 'completed', value: [], via: `evaluatePlanStep event ${a.scheduledEventId}` });
  return true;
}

/** An `answerStep` update that completed: the question step's answer as the workflow recorded it. */
function answerEvent(
  e: HistoryEvent,
  updates: Map<number, string>,
  record: (ev: Omit<StepEvidence, 'runId' | 'eventId'>) => void,
): boolean {
  if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED) {
    updates.set(eventId(e), e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ?? '');
    return true;
  }
  if (e.eventType !== EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED) return false;
  const a = e.workflowExecutionUpdateCompletedEventAttributes!;
  if (updates.get(Number(a.acceptedEventId)) !== 'answerStep' || !a.outcome?.success) return true;
  const ack = decodeFirst<AnswerAck>(a.outcome.success)!;
  record({
    stepId: ack.stepId,
    outcome: 'completed',
    value: ack.answer,
    via: `answerStep update event ${a.acceptedEventId}`,
  });
  return true;
}

/**
 * Step verdicts whose role is not among the approvers that applied: the step's tool's
 * approvers in the plan's catalog (its `describePlanAgent` result, or the catalog carried
 * into a later run), the step's tool from the latest plan history holds (an outcome of the
 * planning, edit or recovery activities, or the plan carried). Each names its event.
 */
export function stepRoleProblems(chain: RunHistory[]): string[] {
  const problems: string[] = [];
  let catalog: CatalogDescription | null = null;
  const toolOf = new Map<string, string | undefined>();
  const takePlan = (plan: Plan | undefined) => {
    if (!plan || !Array.isArray(plan.steps)) return;
    toolOf.clear();
    for (const s of plan.steps) toolOf.set(s.id, s.tool);
  };
  for (const run of chain) {
    const scheduled = new Map<number, string>();
    for (const e of run.history.events ?? []) {
      const id = eventId(e);
      if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED) {
        const carried = decodeFirst<{ carried?: { plan?: Plan; catalog?: CatalogDescription } }>(
          e.workflowExecutionStartedEventAttributes?.input,
        )?.carried;
        if (carried?.catalog) catalog = carried.catalog;
        takePlan(carried?.plan);
      } else if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
        scheduled.set(id, e.activityTaskScheduledEventAttributes?.activityType?.name ?? '');
      } else if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) {
        const a = e.activityTaskCompletedEventAttributes!;
        const type = scheduled.get(Number(a.scheduledEventId));
        const result = decodeFirst<Record<string, unknown>>(a.result);
        if (type === 'describePlanAgent') catalog = (result as unknown as CatalogDescription) ?? catalog;
        else if (result && (result.ok === true || result.kind === 'applied')) takePlan(result.plan as Plan | undefined);
      } else if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED) {
        const input = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
        if (input?.name !== 'approveStep' && input?.name !== 'denyStep') continue;
        const v = (decodeAll(input.args)[0] ?? {}) as StepVerdict;
        const tool = toolOf.get(v.stepId);
        const approvers = tool ? catalog?.tools[tool]?.approvers : undefined;
        const problem = verdictRoleProblem(
          approvers,
          v,
          `step ${v.stepId}${typeof v.item === 'number' ? ` item ${v.item}` : ''} (${tool})`,
        );
        if (problem) problems.push(`event ${id} (run ${run.runId}), ${input.name} update: ${problem}`);
      }
    }
  }
  return problems;
}

/** Child ids are `<planId>--<stepId>-<round>`. */
export function stepOfChild(workflowId: string, planId: string): string | null {
  const prefix = `${planId}--`;
  if (!workflowId.startsWith(prefix)) return null;
  const rest = workflowId.slice(prefix.length);
  const dash = rest.lastIndexOf('-');
  return dash > 0 ? rest.slice(0, dash) : null;
}

function compareSteps(plan: Plan | null, last: Map<string, StepEvidence>): PlanAuditReport['steps'] {
  const steps = plan?.steps ?? [];
  const out: PlanAuditReport['steps'] = steps.map((s) => {
    const h = last.get(s.id) ?? null;
    const difference = differenceOf(s.status, s.result, h);
    return {
      stepId: s.id,
      status: s.status,
      history: h,
      matches: difference === null,
      ...(difference ? { difference } : {}),
    };
  });
  const known = new Set(steps.map((s) => s.id));
  for (const [stepId, h] of last) {
    if (!known.has(stepId))
      out.push({
        stepId,
        status: 'unknown',
        history: h,
        matches: false,
        difference: `ran (event ${h.eventId}) but is not in the workflow's plan`,
      });
  }
  return out;
}

function differenceOf(status: string, result: Plan['steps'][number]['result'], h: StepEvidence | null): string | null {
  if (status === 'completed') {
    if (!h || h.outcome !== 'completed')
      return `the workflow says completed; history has ${h ? h.outcome : 'no execution'}`;
    const a = JSON.stringify(result?.value ?? null);
    const b = JSON.stringify(h.value ?? null);
    return a === b ? null : `the workflow's result ${a} differs from history's ${b} (event ${h.eventId})`;
  }
  if (h?.outcome === 'completed') return `history completed it (event ${h.eventId}) but the workflow says ${status}`;
  if (status === 'failed' && (result?.attempts ?? 0) > 0 && !h)
    return 'the workflow says failed after running it; history has no execution';
  return null;
}

/** The report as the CLI prints it. */
export function formatPlanAudit(r: PlanAuditReport): string {
  const lines = [`Audit of plan ${r.planId} (${r.runs.length} run(s))`];
  for (const s of r.steps) {
    const h = s.history ? `${s.history.outcome} (event ${s.history.eventId}, ${s.history.via})` : 'not run';
    lines.push(
      `  ${s.matches ? 'ok ' : 'BAD'} ${s.stepId}: ${s.status}; history: ${h}${s.difference ? ` — ${s.difference}` : ''}`,
    );
  }
  lines.push(
    `  side effects completed twice: ${r.duplicateEffects.length === 0 ? 'none' : r.duplicateEffects.map((d) => `${d.stepId} x${d.completions}`).join(', ')}`,
  );
  for (const c of r.children)
    lines.push(`  child mission ${c.workflowId}: ${c.ok ? 'audit passed' : `audit FAILED: ${c.problems.join('; ')}`}`);
  lines.push(`  replay: ${r.replay.ok ? 'deterministic' : r.replay.errors.join('; ')}`);
  lines.push(...formatPlanValues(r.values));
  for (const p of r.problems) lines.push(`  problem: ${p}`);
  lines.push(r.ok ? 'audit passed' : 'audit FAILED');
  return lines.join('\n');
}
