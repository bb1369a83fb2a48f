/**
 * Times as people read them: relative ("in 23 hours", "5 minutes ago") with the clock
 * time beside it. The server writes UTC; the page's script rewrites each `<time>` to the
 * reader's own time zone and keeps the relative part current.
 */
import { type Fragment, html } from './html.ts';
import { clock, duration, relative } from '../kernel/time.ts';

export { clock, duration, relative };

/** A time in a page: relative, with the clock time (made local in the browser). */
export function when(at: string | Date, now = Date.now()): Fragment {
  const d = typeof at === 'string' ? new Date(at) : at;
  if (Number.isNaN(d.getTime())) return html`${String(at)}`;
  return html`<time datetime="${d.toISOString()}">${relative(d, now)} (${clock(d)})</time>`;
}
