/**
 * A mission's pass view (`/missions/ID/passes`): for each pass, each program the model
 * wrote (escaped, lightly highlighted), the model's answer where history holds it, what
 * the program printed, its result or error and its tool calls; the effects the pass
 * requested with their outcomes and verdicts. Long text is folded, never cut: a
 * `<details>` holds all of it. Approval cards link here (`#decision-KEY`, `#effect-KEY`).
 */
import type { Hono } from 'hono';
import type { ApprovalRecord, Json, MissionOverview } from '../../workflows/mission/contract.ts';
import { type Fragment, html, page, pretty, raw, SHOWN_VALUE_CHARS, valueBlock } from '../html.ts';
import type { ConsoleContext } from './pages.ts';
import { unansweredBanner } from '../history-reads.ts';
import { orFromHistory } from '../../history/reader.ts';
import { escapeHtml } from '../markdown.ts';
import {
  type CallView,
  type EffectView,
  type PassView,
  type ProgramEnd,
  type ProgramView,
  missionPasses,
} from './passes.ts';

/** Where the pass view shows the program that asked for decision `key` / effect `key`. */
export const decisionLink = (missionId: string, key: string) =>
  `/missions/${encodeURIComponent(missionId)}/passes#decision-${encodeURIComponent(key)}`;
export const effectLink = (missionId: string, key: string) =>
  `/missions/${encodeURIComponent(missionId)}/passes#effect-${encodeURIComponent(key)}`;

export function passRoutes(app: Hono, ctx: ConsoleContext): void {
  app.get('/missions/:id/passes', async (c) => {
    const id = c.req.param('id');
    // reading the passes runs every recorded program again: once per point of the history (history-reads.ts)
    const at = await ctx.reads.at(id);
    // the status from the mission page's overview read (one replay of a closed run serves both pages)
    const mission = ctx.navigator.mission(id);
    const [views, overview] = await Promise.all([
      at.get('passes', () => missionPasses(ctx.navigator.client, id)),
      // a running mission no worker answers: its status as its history holds it (the page goes on without one)
      orFromHistory<(MissionOverview & { at?: number }) | null>(
        () => at.get('overview', () => mission.overview()),
        () => mission.overviewFromHistory().catch(() => null),
      ).catch(() => ({ value: null, unavailable: null })),
    ]);
    const status = overview.value?.status ?? null;
    const { unavailable } = overview;
    const readAt = overview.value?.at ?? 0;
    const body = html`${unavailable ? unansweredBanner(unavailable, readAt) : ''}<p><a href="/missions/${encodeURIComponent(id)}">back to the mission</a>${status ? html` · ${status.status}, ${views.length} pass${views.length === 1 ? '' : 'es'}` : ''}</p>
      ${views.length === 0 ? html`<p>No pass has run yet.</p>` : ''}
      ${views.map((p) => passSection(p, status?.approvals ?? []))}`;
    return c.html(page(`What the model did in ${id}`, body));
  });
}

function passSection(p: PassView, verdicts: readonly ApprovalRecord[]): Fragment {
  return html`<section class="card pass" id="pass-${p.pass}">
    <h2>Pass ${p.pass}</h2>
    <p>${passSummary(p)}</p>
    ${p.replay && p.replay.status !== 'ok' ? html`<p class="note">${replayNote(p.replay.status)}</p>` : ''}
    ${p.replay?.problems.length ? html`<div class="problem">Run again, this pass does not give what it recorded: <ul>${p.replay.problems.map((m) => html`<li>${m}</li>`)}</ul></div>` : ''}
    ${p.unrecorded ? html`<p class="note">This pass ran before pass results recorded their programs.</p>` : ''}
    ${p.programs.map((prog) => programArticle(p.pass, prog))}
    ${p.effects.length ? effectsTable(p.effects, verdicts) : ''}
  </section>`;
}

function passSummary(p: PassView): Fragment {
  const n = p.programs.length;
  const programs = `${n} program${n === 1 ? '' : 's'}`;
  const tokens = p.tokens !== undefined ? ` · ${p.tokens.toLocaleString('en-US')} model tokens` : '';
  if (p.state === 'open')
    return html`<span class="status">running</span> · ${programs} so far; it waits for the results of its effects`;
  const o = p.outcome!;
  if (o.kind === 'error')
    return html`<span class="status">ended in an error</span> · ${programs}${tokens}<br /><span class="error">${o.message}</span>`;
  return html`<span class="status">${o.kind === 'return' ? 'returned' : 'failed'}</span> · ${programs}${tokens}`;
}

function replayNote(status: NonNullable<PassView['replay']>['status']): string {
  if (status === 'limit')
    return 'A program stopped at a limit of the agent (fuel or time), which history does not hold: its prints are not known.';
  if (status === 'cut')
    return 'A program of this pass was left out of history for size: the prints of this pass are not known.';
  if (status === 'not recorded')
    return 'This pass ran before pass results recorded their programs: what it printed is not known.';
  return '';
}

function programArticle(pass: number, p: ProgramView): Fragment {
  // an answer that is the program in a fence and nothing else says nothing more than the program
  const answerOnlyCode =
    p.answer !== null &&
    p.code !== null &&
    p.answer
      .replace(p.code, '')
      .replace(/```[\w-]*\s*```/, '')
      .trim() === '';
  return html`<article class="program" id="pass-${pass}-turn-${p.turn}">
    <h3>Turn ${p.turn}</h3>
    ${p.asksDecision ? html`<p class="asks" id="decision-${p.asksDecision}">This program asked a person for the decision <code>${p.asksDecision}</code>.</p>` : ''}
    ${p.answer !== null && !answerOnlyCode ? html`<details class="answer"><summary>The model's whole answer (${count(p.answer)})</summary><pre class="text">${p.answer}</pre></details>` : ''}
    ${p.code === null ? html`<p class="note">The program was left out of history for size.</p>` : html`<p class="label">The program</p>${folded(highlight(p.code), p.code, 'code', 'The program')}`}
    ${printed(p.prints)}
    ${endOf(p.end)}
    ${p.calls?.length ? callsTable(p.calls) : ''}
  </article>`;
}

function printed(prints: string[] | null): Fragment | string {
  if (prints === null) return '';
  if (prints.length === 0) return html`<p class="label">Printed nothing.</p>`;
  const text = prints.join('\n');
  return html`<p class="label">Printed</p>${folded(text, text, 'text prints', 'Printed')}`;
}

function endOf(end: ProgramEnd): Fragment | string {
  switch (end.kind) {
    case 'error':
      return html`<div class="problem">Error: ${end.message}</div>`;
    case 'value':
      return html`<p class="label">Its value${end.recordedOnly && end.text.length >= 200 ? ' (as recorded: the first 200 characters)' : ''}</p>${folded(end.text, end.text, 'text', 'Its value')}`;
    case 'return':
      return html`<p class="label">It returned</p>${jsonBlock(end.value ?? null)}`;
    case 'fail':
      return html`<p class="label">It failed with</p>${jsonBlock(end.value ?? null)}`;
    case 'invalid_return':
      return html`<p class="label">It returned a value the agent's output schema refused</p>${end.value !== undefined ? jsonBlock(end.value) : ''}`;
    case 'waiting':
      return html`<p class="label">It waits for ${end.what}.</p>`;
    default:
      return '';
  }
}

/** A value, folded when long; a very long one (a stored result) by its start and size only, not whole inside the fold. */
const jsonBlock = (v: Json) => {
  const text = pretty(v);
  return text.length > SHOWN_VALUE_CHARS ? valueBlock(v) : folded(text, text, 'text', 'Value');
};

function callsTable(calls: readonly CallView[]): Fragment {
  return html`<p class="label">Tool calls</p><table class="calls"><tr><th>tool</th><th>class</th><th>task</th><th>args</th><th>result</th></tr>
    ${calls.map((c) => html`<tr><td><code>${c.tool}</code></td><td>${c.sideEffect}</td><td>${c.taskId ? html`<code>${c.taskId}</code>` : ''}</td><td>${jsonBlock(c.args)}</td><td>${c.error !== undefined ? html`<span class="error">${c.error}</span>` : c.result !== undefined ? jsonBlock(c.result) : 'no result yet'}</td></tr>`)}
  </table>`;
}

function effectsTable(effects: readonly EffectView[], verdicts: readonly ApprovalRecord[]): Fragment {
  return html`<h3>Effects this pass requested</h3>
    <table class="effects-requested"><tr><th>tool</th><th>task</th><th>asked by</th><th>args</th><th>outcome</th></tr>
    ${effects.map((e) => {
      const verdict = verdicts.filter((v) => v.key === e.key).at(-1);
      return html`<tr id="effect-${e.key}"><td><code>${e.tool}</code></td><td>${e.taskId ? html`<code>${e.taskId}</code>` : ''}</td><td>${e.turn !== undefined ? `turn ${e.turn}` : ''}</td><td>${jsonBlock(e.args)}</td>
        <td>${verdict ? html`<p>${verdict.outcome} by ${verdict.by ?? 'someone'}${verdict.role ? ` as ${verdict.role}` : ''}${verdict.note ? html`: “${verdict.note}”` : ''}</p>` : ''}${effectOutcome(e)}</td></tr>`;
    })}
  </table>`;
}

function effectOutcome(e: EffectView): Fragment | string {
  if (!e.outcome) return 'no outcome yet (waiting for approval, or running)';
  if ('error' in e.outcome) return html`<span class="error">${e.outcome.error}</span>`;
  return jsonBlock(e.outcome.ok);
}

/** Lines and characters, for a folded block's summary. */
function count(text: string): string {
  const lines = text.split('\n').length;
  return `${lines} line${lines === 1 ? '' : 's'}, ${text.length.toLocaleString('en-US')} characters`;
}

const FOLD_LINES = 15;
const FOLD_CHARS = 1500;

/**
 * A block of text: whole when short; when long, its first lines and a `<details>` whose
 * summary says how much there is and which holds all of it (nothing is cut).
 */
function folded(shown: Fragment | string, text: string, cls: 'code' | 'text' | 'text prints', what: string): Fragment {
  const lines = text.split('\n');
  if (lines.length <= FOLD_LINES && text.length <= FOLD_CHARS) return html`<pre class="${cls}">${shown}</pre>`;
  const head = lines.slice(0, 5).join('\n').slice(0, 500);
  return html`<pre class="${cls} preview">${head}…</pre>
    <details class="fold"><summary>${what}: all ${count(text)}</summary><pre class="${cls}">${shown}</pre></details>`;
}

/** PTC-Lisp source with comments, strings, keywords and `tool/` calls marked; every piece escaped. */
export function highlight(code: string): Fragment {
  // one character at a time between tokens, so a `tool/` name inside a run of plain text is found
  const token = /(;[^\n]*)|("(?:[^"\\]|\\.)*"?)|(:[\w.*+!?<>=/-]+)|(\b(?:tool|data)\/[\w.*+!?<>=-]+)|([\s\S])/g;
  let out = '';
  for (const m of code.matchAll(token)) {
    const [text, comment, string, keyword, ns] = m;
    const cls = comment ? 'c' : string ? 's' : keyword ? 'k' : ns ? 't' : null;
    out += cls ? `<span class="${cls}">${escapeHtml(text)}</span>` : escapeHtml(text);
  }
  return raw(out) as Fragment;
}
