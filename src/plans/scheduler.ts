/**
 * The ready set and the end of a plan, as pure functions over a Plan. Zod-free and
 * deterministic: the workflow calls these on every scheduling round.
 *
 * A dependency is satisfied when it completed, or when a reviewer or a recovery skipped
 * it and the waiting step does not use its result. A step can never run when a
 * dependency failed, is blocked or was denied, or when it references a step that has no
 * result: it ends `blocked`.
 */
import { resultsUsedBy } from './expressions.ts';
import type { Plan, PlanStatus, Step, StepResult, StepStatus } from './schema.ts';

/**
 * The steps whose results a step reads (its references and expressions), parsed once per
 * step object: the workflow asks on every scheduling round, for every pending step, and
 * parsing them again was a tenth of a 1000-step plan's workflow time. A step changes by
 * being replaced (status updates spread a new object), so its entry is never stale.
 * Read-only: callers only look into the set.
 */
const refsOf = new WeakMap<Step, ReadonlySet<string>>();
function stepRefs(s: Step): ReadonlySet<string> {
  let refs = refsOf.get(s);
  if (!refs) refsOf.set(s, (refs = resultsUsedBy(s)));
  return refs;
}

function satisfied(dep: Step, refs: ReadonlySet<string>): boolean {
  if (dep.status === 'completed') return true;
  return dep.status === 'skipped' && dep.skippedBy !== 'denial' && !refs.has(dep.id);
}

/** Why a dependency means the step can never run, or null. */
function blocker(dep: Step, refs: ReadonlySet<string>): string | null {
  if (dep.status === 'failed') return `depends on ${dep.id}, which failed`;
  if (dep.status === 'blocked') return `depends on ${dep.id}, which is blocked`;
  if (dep.status === 'skipped' && dep.skippedBy === 'denial')
    return `depends on ${dep.id}, which was ${deniedWhy(dep.reason)}`;
  if (dep.status === 'skipped' && refs.has(dep.id)) return `uses the result of ${dep.id}, which was skipped`;
  return null;
}

/** A denial's reason usually says "denied by NAME: why" already. */
const deniedWhy = (reason: string | undefined): string =>
  !reason ? 'denied' : reason.startsWith('denied') ? reason : `denied (${reason})`;

/** Ids of pending steps whose dependencies are all satisfied, in plan order. */
export function readySteps(plan: Plan): string[] {
  const byId = new Map(plan.steps.map((s) => [s.id, s]));
  return plan.steps
    .filter((s) => s.status === 'pending')
    .filter((s) => {
      const refs = stepRefs(s);
      const deps = [...s.dependsOn, ...refs];
      return deps.every((d) => {
        const dep = byId.get(d);
        return dep !== undefined && satisfied(dep, refs);
      });
    })
    .map((s) => s.id);
}

/**
 * The plan with every pending step that can never run marked `blocked`, with the reason
 * (transitively). Returns the same object when nothing changed.
 */
export function blockSteps(plan: Plan): Plan {
  let steps = plan.steps;
  let any = false;
  for (let changed = true; changed; any ||= changed) {
    changed = false;
    const byId = new Map(steps.map((s) => [s.id, s]));
    steps = steps.map((s) => {
      if (s.status !== 'pending') return s;
      const refs = stepRefs(s);
      for (const d of new Set([...s.dependsOn, ...refs])) {
        const dep = byId.get(d);
        const reason = dep ? blocker(dep, refs) : `depends on ${d}, which is not in the plan`;
        if (reason) {
          changed = true;
          return { ...s, status: 'blocked' as const, reason };
        }
      }
      return s;
    });
  }
  return any ? { ...plan, steps } : plan;
}

/**
 * The steps after `stepId` (its dependents, transitively) that can no longer run, each
 * with why: approving `stepId` cannot reach them, because another of their dependencies
 * failed, was denied or is blocked. A reviewer is warned before approving such a step.
 */
export function blockedAfter(
  plan: { readonly steps: readonly Step[] },
  stepId: string,
): Array<{ id: string; reason: string }> {
  // each step's dependencies read once (references parse expressions), then the dependents of stepId
  const deps = plan.steps.map((s) => ({ id: s.id, on: [...s.dependsOn, ...stepRefs(s)] }));
  const after = new Set([stepId]);
  for (let grew = true; grew;) {
    grew = false;
    for (const s of deps) {
      if (after.has(s.id) || !s.on.some((d) => after.has(d))) continue;
      after.add(s.id);
      grew = true;
    }
  }
  return plan.steps
    .filter((s) => s.id !== stepId && after.has(s.id) && s.status === 'blocked')
    .map((s) => ({ id: s.id, reason: s.reason ?? 'blocked' }));
}

/** {@link blockedAfter} in words for the person about to approve `stepId`, or null when nothing after it is blocked. */
export function blockedAfterWarning(plan: { readonly steps: readonly Step[] }, stepId: string): string | null {
  const blocked = blockedAfter(plan, stepId);
  if (!blocked.length) return null;
  return `approving ${stepId} cannot complete what it leads to: ${blocked.map((b) => `${b.id} can no longer run (${b.reason})`).join('; ')}`;
}

const ACTIVE: ReadonlySet<StepStatus> = new Set([
  'pending',
  'ready',
  'running',
  'awaiting_approval',
  'awaiting_answer',
]);

/** No step can still change by itself. */
export function isSettled(plan: Plan): boolean {
  return plan.steps.every((s) => !ACTIVE.has(s.status));
}

/**
 * `failed` when aborted or a critical step failed; `completed_with_failures` when a
 * non-critical step failed or steps ended blocked; else `completed`.
 */
export function finalStatus(
  plan: Plan,
  opts: { aborted?: boolean } = {},
): Extract<PlanStatus, 'completed' | 'completed_with_failures' | 'failed'> {
  if (opts.aborted || plan.steps.some((s) => s.status === 'failed' && s.critical)) return 'failed';
  if (plan.steps.some((s) => s.status === 'failed' || s.status === 'blocked')) return 'completed_with_failures';
  return 'completed';
}

export interface StepSummary {
  id: string;
  status: StepStatus;
  result?: StepResult;
  attempts: number;
  duration: number;
  reason?: string;
}

export interface ExecutionSummary {
  planId: string;
  version: number;
  status: PlanStatus;
  counts: Record<StepStatus, number>;
  steps: StepSummary[];
  /** ms from the plan's start (review included) to now */
  totalDuration: number;
}

export const STEP_STATUS_LIST: readonly StepStatus[] = [
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

export function countByStatus(plan: Plan): Record<StepStatus, number> {
  const counts = Object.fromEntries(STEP_STATUS_LIST.map((s) => [s, 0])) as Record<StepStatus, number>;
  for (const s of plan.steps) counts[s.status]++;
  return counts;
}

export function executionSummary(
  plan: Plan,
  at: { startedAt: number; now: number; status: PlanStatus },
): ExecutionSummary {
  return {
    planId: plan.id,
    version: plan.version,
    status: at.status,
    counts: countByStatus(plan),
    steps: plan.steps.map((s) => ({
      id: s.id,
      status: s.status,
      ...(s.result ? { result: s.result } : {}),
      attempts: s.result?.attempts ?? 0,
      duration: s.result?.duration ?? 0,
      ...(s.reason ? { reason: s.reason } : {}),
    })),
    totalDuration: at.now - at.startedAt,
  };
}
