/**
 * Plans: an optional list of steps the model reports on with `(step-done id summary)`.
 * Strings get ids "1", "2", ... by position; `{id, description}` keeps its id.
 */
import { z } from 'zod';

export interface PlanStep {
  id: string;
  description: string;
}

export const PlanItem = z.union([
  z.string(),
  z.object({ id: z.union([z.string(), z.number()]), description: z.string() }),
]);
export type PlanItem = z.input<typeof PlanItem>;

/** Normalises a plan; throws a list of problems (`2: duplicate plan id "1"`) when invalid. */
export function normalizePlan(plan: unknown): PlanStep[] {
  const { steps, problems } = checkPlan(plan);
  if (problems.length) throw new PlanError(problems);
  return steps;
}

export class PlanError extends Error {
  override readonly name = 'PlanError';
  constructor(readonly problems: string[]) {
    super(`invalid plan:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Like {@link normalizePlan} but returns the problems (paths relative to the plan). */
export function checkPlan(plan: unknown): { steps: PlanStep[]; problems: string[] } {
  if (!Array.isArray(plan)) return { steps: [], problems: ['a plan must be an array of strings or {id, description}'] };
  const steps: PlanStep[] = [];
  const problems: string[] = [];
  const seen = new Map<string, number>();
  plan.forEach((item, i) => {
    const parsed = PlanItem.safeParse(item);
    if (!parsed.success) {
      problems.push(`${i}: invalid plan item, expected a string or {id, description}`);
      return;
    }
    const step =
      typeof parsed.data === 'string'
        ? { id: String(i + 1), description: parsed.data.trim() }
        : { id: String(parsed.data.id).trim(), description: parsed.data.description.trim() };
    if (!step.id) problems.push(`${i}: empty plan id`);
    if (!step.description) problems.push(`${i}: empty description`);
    const first = seen.get(step.id);
    if (first !== undefined) problems.push(`${i}: duplicate plan id "${step.id}" (also item ${first})`);
    else seen.set(step.id, i);
    steps.push(step);
  });
  return { steps, problems };
}
