/**
 * The pass in progress on a mission's page (issue 41): what it does, the program as the
 * model writes it, and each call the program makes itself as it starts and ends. Read from
 * the `runPass` activity's heartbeat details through Temporal (src/client/live-pass.ts), so
 * it works wherever the console runs; the page's script fills the section from a stream of
 * `pass` events (`/live/missions/ID/pass`) without reloading the page, and without a script
 * the section shows the pass as it was when the page was made.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { type LiveCall, type LivePass, livePass } from '../client/live-pass.ts';
import { type Fragment, html } from './html.ts';

/** What the section shows, as text: the page's script puts it in place as it is. */
export interface LivePassView {
  line: string;
  program: string;
  calls: string[];
}

const NONE = 'No pass is running now.';

export function livePassView(live: LivePass | null): LivePassView {
  if (!live) return { line: NONE, program: '', calls: [] };
  return { line: live.text, program: live.program ?? '', calls: (live.calls ?? []).map(callLine) };
}

/** One call of the pass's program, as it stands. */
export function callLine(c: LiveCall): string {
  const what = `turn ${c.turn}, call ${c.n}: tool ${c.tool}${c.taskId ? ` (task ${c.taskId})` : ''}`;
  if (c.status === 'running') return `${what}: running`;
  return c.status === 'done'
    ? `${what}: done in ${c.ms ?? 0} ms`
    : `${what}: failed in ${c.ms ?? 0} ms: ${c.error ?? ''}`;
}

/** The mission's pass now (none when it runs no pass, or its details cannot be read). */
export async function livePassNow(workflow: WorkflowHandle): Promise<LivePassView> {
  return livePassView(await livePass(workflow).catch(() => null));
}

/** The section of a running mission's page, filled live by the page's script. */
export function livePassSection(id: string, view: LivePassView): Fragment {
  return html`<section class="card live-pass" id="live-pass" aria-labelledby="live-pass-title" data-live-pass="/live/missions/${encodeURIComponent(id)}/pass">
    <h2 id="live-pass-title">The pass now</h2>
    <p class="live-line" aria-live="polite">${view.line}</p>
    <pre class="code live-program" ${view.program ? '' : 'hidden'}>${view.program}</pre>
    <ul class="live-calls">${view.calls.map((c) => html`<li>${c}</li>`)}</ul>
  </section>`;
}
