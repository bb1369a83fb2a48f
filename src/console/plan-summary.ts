/**
 * A running or finished plan for people: its Summary as a table (each step's status in
 * words, attempts, how long it took, its outcome) instead of the summary's JSON, and step
 * args and results as labelled values (a file's text as text), not escaped JSON.
 */
import type { ExecutionSummary } from '../plans/scheduler.ts';
import type { Json, Step } from '../plans/schema.ts';
import type { NavigatorTool } from '../navigator/tool.ts';
import { type Fragment, SHOWN_VALUE_CHARS, html, valueBlock } from './html.ts';
import { valuesList } from './explain.ts';
import { duration } from './time.ts';
import { planStatusWords, stepStatusWords } from './words.ts';

/** The plan's Summary: a line of counts and the total time, then one row per step. */
export function summaryTable(summary: ExecutionSummary, steps: readonly Step[]): Fragment {
  // what is done first, what waits for a person next, what has not started last
  const order: Step['status'][] = [
    'completed',
    'failed',
    'skipped',
    'blocked',
    'awaiting_approval',
    'awaiting_answer',
    'running',
    'ready',
    'pending',
  ];
  const counts = order
    .filter((s) => (summary.counts[s] ?? 0) > 0)
    .map((s) => `${summary.counts[s]} ${stepStatusWords(s)}`);
  const described = new Map(steps.map((s) => [s.id, s.description]));
  return html`<div class="card summary"><p><strong>${planStatusWords(summary.status)}</strong> · version ${summary.version} · ${counts.join(' · ')} · ${duration(summary.totalDuration)} since it started</p>
    <table><tr><th>step</th><th>status</th><th>attempts</th><th>took</th><th>outcome</th></tr>
      ${summary.steps.map(
        (
          s,
        ) => html`<tr><td data-label="step"><a href="#step-${s.id}"><code>${s.id}</code></a> ${described.get(s.id) ?? ''}</td><td data-label="status">${stepStatusWords(s.status)}${s.reason ? html`<br /><small>${s.reason}</small>` : ''}</td>
          <td data-label="attempts">${s.attempts || ''}</td><td data-label="took">${s.duration ? duration(s.duration) : ''}</td>
          <td data-label="outcome">${s.result?.error !== undefined ? html`<span class="error">${s.result.error}</span>` : s.result ? shortValue(s.result.value ?? null) : ''}</td></tr>`,
      )}
    </table></div>`;
}

/** A value on one line in a table cell: a map's fields, a list's length, a long text's start. */
function shortValue(v: Json): string {
  if (v === null) return 'done';
  if (typeof v === 'string') return v.length > 80 ? `${v.slice(0, 80)}…` : v;
  if (typeof v !== 'object') return String(v);
  if (Array.isArray(v)) return `${v.length} item${v.length === 1 ? '' : 's'}`;
  return Object.entries(v)
    .map(
      ([k, x]) =>
        `${k}: ${x !== null && typeof x === 'object' ? (Array.isArray(x) ? `${x.length} items` : '…') : typeof x === 'string' && (x.length > 40 || x.includes('\n')) ? `${x.split('\n').length} lines` : String(x)}`,
    )
    .join(', ');
}

/** A step's args or result as labelled values; a value too large for the page as its start and a download link. */
export function valueView(value: Json, tool?: NavigatorTool, download?: string): Fragment {
  if (download && (JSON.stringify(value) ?? '').length > SHOWN_VALUE_CHARS) return valueBlock(value, download);
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0)
    return html`<span class="note">none</span>`;
  return valuesList(tool?.input, value);
}
