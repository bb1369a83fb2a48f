/**
 * A mission's progress for people: the agent's plan as a checklist, each step ticked with
 * what the model reported when it finished it (markdown, rendered safely). The progress
 * query is written for the model (it begins with instructions on batching and
 * `step-done`); people get the plan and the summaries instead (the items come from
 * src/navigator/prompt/progress.ts, which the CLI renders as text).
 */
import type { ChecklistItem } from '../../navigator/prompt/progress.ts';
import { type Fragment, html } from '../html.ts';
import { inlineMarkdown } from '../markdown.ts';

export { type ChecklistItem, checklistFromText, checklistOf } from '../../navigator/prompt/progress.ts';

export function checklist(items: readonly ChecklistItem[]): Fragment | string {
  if (!items.length) return '';
  const done = items.filter((i) => i.summary !== undefined).length;
  return html`<div class="card"><p>${done} of ${items.length} steps done</p>
    <ul class="checklist">
      ${items.map(
        (
          i,
        ) => html`<li class="${i.summary !== undefined ? 'done' : 'todo'}"><span aria-hidden="true">${i.summary !== undefined ? '☑' : '☐'}</span>
          <span class="visually-hidden">${i.summary !== undefined ? 'done:' : 'to do:'}</span>
          <strong>${inlineMarkdown(i.description)}</strong>${i.planned ? '' : html` <small>(not on the checklist)</small>`}
          ${i.summary ? html`<br /><span class="summary">${inlineMarkdown(i.summary)}</span>` : ''}</li>`,
      )}
    </ul></div>`;
}
