/**
 * From steps as written to a Plan: validated, then numbered, with approval resolved from
 * the tools' defaults where a step does not say.
 */
import { type ValidateOptions, validatePlan } from './validate.ts';
import {
  type Catalog,
  type Plan,
  type PlanParam,
  type PlanProblem,
  type Step,
  StepSpec,
  type StepSpecInput,
  defaultRequiresApproval,
} from './schema.ts';

export type Built = { ok: true; plan: Plan } | { ok: false; problems: PlanProblem[] };

export function buildPlan(
  input: {
    id: string;
    taskId: string;
    steps: readonly unknown[];
    params?: Record<string, PlanParam>;
    estimatedDuration?: number;
    createdAt: string;
  },
  catalog: Catalog,
  options: ValidateOptions = {},
): Built {
  const problems = validatePlan(input.steps, catalog, Object.keys(input.params ?? {}), options);
  if (problems.length) return { ok: false, problems };
  return {
    ok: true,
    plan: {
      id: input.id,
      taskId: input.taskId,
      version: 1,
      steps: input.steps.map((raw, order) => toStep(raw, order, catalog)),
      ...(input.params && Object.keys(input.params).length ? { params: input.params } : {}),
      ...(input.estimatedDuration !== undefined ? { estimatedDuration: input.estimatedDuration } : {}),
      createdAt: input.createdAt,
    },
  };
}

/** A valid spec as a pending step at position `order`. */
export function toStep(raw: unknown, order: number, catalog: Pick<Catalog, 'tools'>): Step {
  const spec = StepSpec.parse(raw);
  return {
    id: spec.id,
    order,
    description: spec.description,
    ...(spec.tool !== undefined ? { tool: spec.tool, args: spec.args ?? {} } : {}),
    ...(spec.agent !== undefined ? { agent: spec.agent, input: spec.input ?? {} } : {}),
    ...(spec.ask !== undefined ? { ask: spec.ask } : {}),
    ...(spec.compute !== undefined ? { compute: spec.compute } : {}),
    dependsOn: spec.dependsOn,
    critical: spec.critical,
    requiresApproval:
      spec.compute !== undefined ? false : (spec.requiresApproval ?? defaultRequiresApproval(spec, catalog)),
    ...(spec.retry ? { retry: spec.retry } : {}),
    ...(spec.when !== undefined ? { when: spec.when } : {}),
    ...(spec.forEach !== undefined ? { forEach: spec.forEach } : {}),
    ...(spec.maxItems !== undefined ? { maxItems: spec.maxItems } : {}),
    status: 'pending',
  };
}

/** The authored fields of a step (what a planner or a file would write). */
export function toSpec(step: Step): StepSpecInput {
  return {
    id: step.id,
    description: step.description,
    ...(step.tool !== undefined ? { tool: step.tool, args: step.args ?? {} } : {}),
    ...(step.agent !== undefined ? { agent: step.agent, input: step.input ?? {} } : {}),
    ...(step.ask !== undefined ? { ask: step.ask } : {}),
    ...(step.compute !== undefined ? { compute: step.compute } : {}),
    dependsOn: step.dependsOn,
    critical: step.critical,
    ...(step.ask === undefined && step.compute === undefined ? { requiresApproval: step.requiresApproval } : {}),
    ...(step.retry ? { retry: step.retry } : {}),
    ...(step.when !== undefined ? { when: step.when } : {}),
    ...(step.forEach !== undefined ? { forEach: step.forEach } : {}),
    ...(step.maxItems !== undefined ? { maxItems: step.maxItems } : {}),
  };
}
