/**
 * Changes to a plan: review edits (edit, skip, add, remove, reorder) and recovery actions
 * (retry, skip, insert, abort). Each applier returns a new plan one version up and a
 * one-line description of the change, or the problems; it never mutates its input, and
 * the whole plan is validated again before a change is accepted.
 */
import { z } from 'zod';
import { toStep } from './build.ts';
import { resultsUsedBy } from './expressions.ts';
import { DEFAULT_MAX_STEPS } from './limits.ts';
import { type Catalog, JsonValue, type Plan, type PlanProblem, type Step, StepId } from './schema.ts';
import { type ValidateOptions, validatePlan } from './validate.ts';

const Args = z.record(z.string(), JsonValue);

export const PlanEdit = z.discriminatedUnion('kind', [
  z
    .strictObject({
      kind: z.literal('edit'),
      stepId: z.string(),
      args: Args.optional(),
      description: z.string().optional(),
      dependsOn: z.array(z.string()).optional(),
    })
    .refine((e) => e.args !== undefined || e.description !== undefined || e.dependsOn !== undefined, {
      message: 'an edit changes args, description or dependsOn',
    }),
  z.strictObject({ kind: z.literal('skip'), stepId: z.string(), reason: z.string().optional() }),
  z.strictObject({ kind: z.literal('add'), step: z.unknown() }),
  z.strictObject({ kind: z.literal('remove'), stepId: z.string() }),
  z.strictObject({ kind: z.literal('reorder'), order: z.array(z.string()) }),
]);
export type PlanEdit = z.infer<typeof PlanEdit>;

export const RecoveryAction = z.discriminatedUnion('action', [
  z.strictObject({
    action: z.literal('retry'),
    args: Args.optional(),
    /** a compute step's new expression (its error is in the expression: a plain retry fails the same way) */
    compute: z.string().min(1, 'an empty expression').optional(),
  }),
  z.strictObject({ action: z.literal('skip'), reason: z.string().optional() }),
  z.strictObject({
    action: z.literal('insert'),
    steps: z.array(z.unknown()).min(1, 'insert at least one step'),
    before: StepId,
  }),
  z.strictObject({ action: z.literal('abort'), reason: z.string().min(1) }),
]);
export type RecoveryAction = z.infer<typeof RecoveryAction>;

export type Applied = { ok: true; plan: Plan; change: string } | { ok: false; problems: PlanProblem[] };

const problem = (code: PlanProblem['code'], stepId: string | null, message: string, path = ''): Applied => ({
  ok: false,
  problems: [{ code, stepId, path, message }],
});

/** The new plan (version + 1), validated as a whole; steps renumbered in array order. */
function commit(plan: Plan, steps: Step[], change: string, catalog: Catalog, limits: ValidateOptions): Applied {
  const problems = validatePlan(steps, catalog, paramNames(plan), limits);
  if (problems.length) return { ok: false, problems };
  return {
    ok: true,
    plan: { ...plan, version: plan.version + 1, steps: steps.map((s, order) => ({ ...s, order })) },
    change,
  };
}

const paramNames = (plan: Plan): string[] => Object.keys(plan.params ?? {});

/**
 * The step limit a change of `plan` must keep: the plan's own, or its length if it is
 * already longer (a plan recorded before the limit): a change may not make it longer still.
 */
const limitsFor = (plan: Plan, limits: ValidateOptions): ValidateOptions => ({
  ...limits,
  maxSteps: Math.max(limits.maxSteps ?? DEFAULT_MAX_STEPS, plan.steps.length),
});

function editable(plan: Plan, stepId: string): Step | Applied {
  const step = plan.steps.find((s) => s.id === stepId);
  if (!step) return problem('unknown_step', stepId, `no step ${stepId} in the plan`);
  if (step.status !== 'pending')
    return problem('not_editable', stepId, `step ${stepId} is ${step.status}; only pending steps can change`);
  return step;
}

const isApplied = (v: Step | Applied): v is Applied => 'ok' in v;

/** Who depends on or uses the result of `stepId`. */
function dependentsOf(plan: Plan, stepId: string): string[] {
  return plan.steps
    .filter((s) => s.id !== stepId && (s.dependsOn.includes(stepId) || resultsUsedBy(s).has(stepId)))
    .map((s) => s.id);
}

/** `given`: the plan's limits (its maxSteps option); an edit that would make the plan longer than them is refused. */
export function applyEdit(plan: Plan, edit: PlanEdit, catalog: Catalog, given: ValidateOptions = {}): Applied {
  const limits = limitsFor(plan, given);
  switch (edit.kind) {
    case 'edit': {
      const step = editable(plan, edit.stepId);
      if (isApplied(step)) return step;
      const changed: Step = {
        ...step,
        ...(edit.args !== undefined ? (step.agent !== undefined ? { input: edit.args } : { args: edit.args }) : {}),
        ...(edit.description !== undefined ? { description: edit.description } : {}),
        ...(edit.dependsOn !== undefined ? { dependsOn: edit.dependsOn } : {}),
      };
      const what = [
        edit.args !== undefined ? 'args' : '',
        edit.description !== undefined ? 'description' : '',
        edit.dependsOn !== undefined ? 'dependencies' : '',
      ]
        .filter(Boolean)
        .join(' and ');
      return commit(
        plan,
        plan.steps.map((s) => (s.id === step.id ? changed : s)),
        `edited ${what} of step ${step.id}`,
        catalog,
        limits,
      );
    }
    case 'skip': {
      const step = editable(plan, edit.stepId);
      if (isApplied(step)) return step;
      const reason = edit.reason ? `skipped by the reviewer: ${edit.reason}` : 'skipped by the reviewer';
      const skipped: Step = { ...step, status: 'skipped', skippedBy: 'reviewer', reason };
      return commit(
        plan,
        plan.steps.map((s) => (s.id === step.id ? skipped : s)),
        `skipped step ${step.id}`,
        catalog,
        limits,
      );
    }
    case 'add': {
      const problems = validatePlan([...plan.steps, edit.step], catalog, paramNames(plan), limits);
      if (problems.length) return { ok: false, problems };
      const step = toStep(edit.step, plan.steps.length, catalog);
      return commit(plan, [...plan.steps, step], `added step ${step.id}`, catalog, limits);
    }
    case 'remove': {
      const step = editable(plan, edit.stepId);
      if (isApplied(step)) return step;
      const dependents = dependentsOf(plan, step.id);
      if (dependents.length)
        return problem(
          'has_dependents',
          step.id,
          `step ${step.id} cannot be removed: ${dependents.join(', ')} depend${dependents.length === 1 ? 's' : ''} on it`,
        );
      return commit(
        plan,
        plan.steps.filter((s) => s.id !== step.id),
        `removed step ${step.id}`,
        catalog,
        limits,
      );
    }
    case 'reorder':
      return reorder(plan, edit.order, catalog, limits);
  }
}

function reorder(plan: Plan, order: string[], catalog: Catalog, limits: ValidateOptions): Applied {
  const ids = plan.steps.map((s) => s.id);
  const missing = ids.filter((id) => !order.includes(id));
  const extra = order.filter((id) => !ids.includes(id));
  if (missing.length || extra.length || order.length !== ids.length) {
    const parts = [
      missing.length ? `missing ${missing.join(', ')}` : '',
      extra.length ? `unknown ${extra.join(', ')}` : '',
      order.length !== new Set(order).size ? 'repeated ids' : '',
    ].filter(Boolean);
    return problem(
      'invalid_order',
      null,
      `the new order must list every step exactly once (${parts.join('; ') || 'wrong length'})`,
      'order',
    );
  }
  const position = new Map(order.map((id, i) => [id, i]));
  for (const s of plan.steps) {
    const early = s.dependsOn.find((d) => (position.get(d) ?? -1) > position.get(s.id)!);
    if (early)
      return problem('invalid_order', s.id, `step ${s.id} would come before ${early}, which it depends on`, 'order');
  }
  const byId = new Map(plan.steps.map((s) => [s.id, s]));
  return commit(
    plan,
    order.map((id) => byId.get(id)!),
    `reordered steps: ${order.join(', ')}`,
    catalog,
    limits,
  );
}

/**
 * A recovery action for a failed step: retry (back to pending, with new args, or a compute
 * step's new expression, if given),
 * skip, insert steps before a pending step (which then depends on them), or abort.
 */
export function applyRecovery(
  plan: Plan,
  failedId: string,
  action: RecoveryAction,
  catalog: Catalog,
  given: ValidateOptions = {},
): Applied | { ok: true; abort: string } {
  const limits = limitsFor(plan, given);
  const failed = plan.steps.find((s) => s.id === failedId);
  if (!failed) return problem('unknown_step', failedId, `no step ${failedId} in the plan`);
  if (failed.status !== 'failed')
    return problem('not_editable', failedId, `step ${failedId} is ${failed.status}, not failed`);
  const again = (s: Step): Step => {
    const { result: _result, reason: _reason, resolved: _resolved, ...rest } = s;
    return { ...rest, status: 'pending' };
  };
  switch (action.action) {
    case 'abort':
      return { ok: true, abort: action.reason };
    case 'retry': {
      if (action.compute !== undefined && failed.compute === undefined)
        return problem(
          'invalid_edit',
          failedId,
          `step ${failedId} is not a compute step: retry it with args`,
          'compute',
        );
      const retried = again(
        action.compute !== undefined
          ? { ...failed, compute: action.compute }
          : action.args
            ? failed.agent !== undefined
              ? { ...failed, input: action.args }
              : { ...failed, args: action.args }
            : failed,
      );
      const change =
        action.compute !== undefined
          ? ` with the expression ${action.compute}`
          : action.args
            ? ` with args ${JSON.stringify(action.args)}`
            : '';
      return commit(
        plan,
        plan.steps.map((s) => (s.id === failedId ? retried : s)),
        `retry ${failedId}${change}`,
        catalog,
        limits,
      );
    }
    case 'skip': {
      const reason = action.reason ? `skipped by recovery: ${action.reason}` : 'skipped by recovery';
      const skipped: Step = { ...failed, status: 'skipped', skippedBy: 'recovery', reason };
      return commit(
        plan,
        plan.steps.map((s) => (s.id === failedId ? skipped : s)),
        `skip ${failedId}`,
        catalog,
        limits,
      );
    }
    case 'insert':
      return insert(plan, failedId, action, catalog, again, limits);
  }
}

function insert(
  plan: Plan,
  failedId: string,
  action: Extract<RecoveryAction, { action: 'insert' }>,
  catalog: Catalog,
  again: (s: Step) => Step,
  limits: ValidateOptions,
): Applied {
  const before = plan.steps.find((s) => s.id === action.before);
  if (!before) return problem('unknown_step', action.before, `no step ${action.before} to insert before`, 'before');
  if (before.id !== failedId && before.status !== 'pending')
    return problem('not_editable', before.id, `cannot insert before ${before.id}: it is ${before.status}`, 'before');
  const problems = validatePlan([...plan.steps, ...action.steps], catalog, paramNames(plan), limits);
  if (problems.length) return { ok: false, problems };
  const added = action.steps.map((raw, i) => toStep(raw, i, catalog));
  const target = before.id === failedId ? again(before) : before;
  const waiting: Step = { ...target, dependsOn: [...new Set([...target.dependsOn, ...added.map((s) => s.id)])] };
  const at = plan.steps.indexOf(before);
  const steps = [...plan.steps.slice(0, at), ...added, waiting, ...plan.steps.slice(at + 1)];
  return commit(plan, steps, `insert ${added.map((s) => s.id).join(', ')} before ${before.id}`, catalog, limits);
}
