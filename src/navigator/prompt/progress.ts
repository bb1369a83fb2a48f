/**
 * The progress checklist: the plan with the steps the model reported through
 * `(step-done id summary)` ticked, and reported steps that are not in the plan listed
 * under "Out-of-Plan Steps". The journal never ticks a box; only summaries do.
 */
import type { PlanStep } from '../plan.ts';

export type Summaries = ReadonlyMap<string, string> | Readonly<Record<string, string>>;

const summaryMap = (s: Summaries | null | undefined): ReadonlyMap<string, string> =>
  !s ? new Map() : s instanceof Map ? s : new Map(Object.entries(s));

/** The `## Progress` section, or '' when there is no plan. */
export function renderProgress(plan: readonly PlanStep[], summaries?: Summaries | null): string {
  if (!plan.length) return '';
  const done = summaryMap(summaries);
  // the id in code quotes, exactly as (step-done "ID" ...) takes it (not `**check.**`)
  const lines = plan.map((s) =>
    done.has(s.id) ? `- [x] \`${s.id}\` ${s.description} — ${done.get(s.id)}` : `- [ ] \`${s.id}\` ${s.description}`,
  );
  const planned = new Set(plan.map((s) => s.id));
  const extra = [...done.keys()].filter((id) => !planned.has(id)).sort();
  let text =
    '## Progress\n' +
    'Batch independent steps into one program, and call (step-done "ID" "what you found") as each step finishes. A step that does not apply on your path is done too: (step-done "ID" "not needed: why").\n\n' +
    lines.join('\n');
  if (extra.length) text += `\n\n### Out-of-Plan Steps\n${extra.map((id) => `- [x] ${id}: ${done.get(id)}`).join('\n')}`;
  return text;
}
