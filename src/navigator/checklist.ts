/**
 * A mission's checklist: an optional list of steps the model reports on with
 * `(step-done id summary)`. Strings get ids "1", "2", ... by position; `{id, description}`
 * keeps its id. (The reference implementation and the model-facing text call it the plan;
 * here "plan" names only the DAG of tool steps in src/plans.)
 */
import { z } from 'zod';

export interface ChecklistStep {
  id: string;
  description: string;
}

export const ChecklistEntry = z.union([
  z.string(),
  z.object({ id: z.union([z.string(), z.number()]), description: z.string() }),
]);
export type ChecklistEntry = z.input<typeof ChecklistEntry>;

/** Normalises a checklist; throws a list of problems (`2: duplicate checklist id "1"`) when invalid. */
export function normalizeChecklist(checklist: unknown): ChecklistStep[] {
  const { steps, problems } = checkChecklist(checklist);
  if (problems.length) throw new ChecklistError(problems);
  return steps;
}

export class ChecklistError extends Error {
  override readonly name = 'ChecklistError';
  constructor(readonly problems: string[]) {
    super(`invalid checklist:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Like {@link normalizeChecklist} but returns the problems (paths relative to the checklist). */
export function checkChecklist(checklist: unknown): { steps: ChecklistStep[]; problems: string[] } {
  if (!Array.isArray(checklist))
    return { steps: [], problems: ['a checklist must be an array of strings or {id, description}'] };
  const steps: ChecklistStep[] = [];
  const problems: string[] = [];
  const seen = new Map<string, number>();
  checklist.forEach((item, i) => {
    const parsed = ChecklistEntry.safeParse(item);
    if (!parsed.success) {
      problems.push(`${i}: invalid checklist item, expected a string or {id, description}`);
      return;
    }
    const step =
      typeof parsed.data === 'string'
        ? { id: String(i + 1), description: parsed.data.trim() }
        : { id: String(parsed.data.id).trim(), description: parsed.data.description.trim() };
    if (!step.id) problems.push(`${i}: empty checklist id`);
    if (!step.description) problems.push(`${i}: empty description`);
    const first = seen.get(step.id);
    if (first !== undefined) problems.push(`${i}: duplicate checklist id "${step.id}" (also item ${first})`);
    else seen.set(step.id, i);
    steps.push(step);
  });
  return { steps, problems };
}
