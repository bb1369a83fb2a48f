/**
 * The step limit of a plan (issue 38): how many steps its step list may have, and the
 * problem that says a plan has more. Free of zod, so the workflow uses the same default
 * and words (its update validator refuses an `add` at the limit before any activity).
 *
 * The limit counts the plan's step list. A for-each step counts once, but its items all
 * start at once, each its own activity, as ready steps do (1000 items made a 0.9 s workflow
 * task, 4000 one of 3.4 s): so its `maxItems` (default 100, checked at run time) may not be
 * above the limit either. Many for-each steps ready together are not bounded by it.
 */
import type { PlanProblem } from './schema.ts';

/**
 * Most steps a plan may have unless its options say otherwise (`maxSteps`). Measured on a
 * 2-core machine: a plan of 1000 independent steps makes them ready in one workflow task
 * (see bench/plan-limit.ts and the README); a 5000-step plan's took over Temporal's 5 s.
 */
export const DEFAULT_MAX_STEPS = 1000;

/** A for-each step whose `maxItems` is above the plan's step limit. */
export function tooManyItemsProblem(stepId: string, maxItems: number, limit: number): PlanProblem {
  return {
    code: 'too_many_steps',
    stepId,
    path: 'maxItems',
    message: `maxItems: ${maxItems} is more than the plan's limit of ${limit} steps (the items of a for-each step start at once, each its own activity, as ready steps do): lower maxItems, or raise the plan option maxSteps`,
  };
}

/** The plan-wide problem of a step list longer than `limit`. */
export function tooManyStepsProblem(count: number, limit: number): PlanProblem {
  return {
    code: 'too_many_steps',
    stepId: null,
    path: '',
    message:
      `the plan has ${count} steps, more than the limit of ${limit}: split it into smaller plans, or raise the limit with ` +
      `the plan option maxSteps ("options": {"maxSteps": ${count}} in the plan document, or in the options given at start)`,
  };
}
