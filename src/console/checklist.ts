/**
 * A mission's progress for people: the agent's plan as a checklist, each step ticked with
 * what the model reported when it finished it (markdown, rendered safely). The progress
 * query is written for the model (it begins with instructions on batching and
 * `step-done`); people get the plan and the summaries instead.
 */
import type { PlanStep } from '../navigator/plan.ts';
import { type Fragment, html } from './html.ts';
import { inlineMarkdown } from './markdown.ts';

export interface ChecklistItem {
  id: string;
  description: string;
  /** what the model reported at `(step-done id ...)`; absent: not done yet */
  summary?: string;
  /** false for a step the model reported that is not in the plan */
  planned: boolean;
}

/** The checklist from the agent's plan and the mission's step summaries. */
export function checklistOf(plan: readonly PlanStep[], summaries: Readonly<Record<string, string>>): ChecklistItem[] {
  const planned = new Set(plan.map((s) => s.id));
  return [
    ...plan.map((s) => ({ id: s.id, description: s.description, summary: summaries[s.id], planned: true })),
    ...Object.keys(summaries)
      .filter((id) => !planned.has(id))
      .sort()
      .map((id) => ({ id, description: id, summary: summaries[id], planned: false })),
  ];
}

/**
 * The same checklist read back from the model-facing progress text, for an agent this
 * console does not know (its plan is only in the mission): `- [x] \`id\` description — summary`.
 */
export function checklistFromText(progress: string): ChecklistItem[] {
  const items: ChecklistItem[] = [];
  for (const line of progress.split('\n')) {
    const planned = /^- \[( |x)\] `([^`]+)` (.*?)(?: — (.*))?$/.exec(line);
    if (planned) {
      items.push({ id: planned[2]!, description: planned[3]!, ...(planned[1] === 'x' ? { summary: planned[4] ?? '' } : {}), planned: true });
      continue;
    }
    const extra = /^- \[x\] ([^:]+): (.*)$/.exec(line);
    if (extra) items.push({ id: extra[1]!, description: extra[1]!, summary: extra[2]!, planned: false });
  }
  return items;
}

export function checklist(items: readonly ChecklistItem[]): Fragment | string {
  if (!items.length) return '';
  const done = items.filter((i) => i.summary !== undefined).length;
  return html`<div class="card"><p>${done} of ${items.length} steps done</p>
    <ul class="checklist">
      ${items.map(
        (i) => html`<li class="${i.summary !== undefined ? 'done' : 'todo'}"><span aria-hidden="true">${i.summary !== undefined ? '☑' : '☐'}</span>
          <span class="visually-hidden">${i.summary !== undefined ? 'done:' : 'to do:'}</span>
          <strong>${inlineMarkdown(i.description)}</strong>${i.planned ? '' : html` <small>(not in the plan)</small>`}
          ${i.summary ? html`<br /><span class="summary">${inlineMarkdown(i.summary)}</span>` : ''}</li>`,
      )}
    </ul></div>`;
}
