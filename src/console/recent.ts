/**
 * What was just decided through this console, for the inbox's "Decided recently": each
 * verdict once the workflow accepted it (who, what, when, the note, a link to the page
 * that shows it from history). The inbox lists what waits in running missions and plans;
 * a verdict often ends the wait, or the run, and the card leaves the lists at once, so
 * without this an approver has nothing to look back at. Kept in memory, the last
 * {@link KEPT}: the record of truth is each run's history (its page's "Approved by").
 */
import { type Fragment, html } from './html.ts';
import { when } from './time.ts';

export interface RecentVerdict {
  /** `Approved`, `Denied`, `Rejected`, `Decided "later"` */
  verdict: string;
  /** what was decided, in words ("Pays a vendor: vendor Acme GmbH, amount 2,100 EUR") */
  what: string;
  by: string;
  role?: string;
  note?: string;
  /** the page that shows it */
  href: string;
  /** where, in words ("mission pay-1") */
  where: string;
  at: string;
}

const KEPT = 20;

export class RecentVerdicts {
  private readonly list: RecentVerdict[] = [];

  add(v: Omit<RecentVerdict, 'at'>): void {
    this.list.unshift({ ...v, at: new Date().toISOString() });
    this.list.length = Math.min(this.list.length, KEPT);
  }

  /** Newest first. */
  all(): readonly RecentVerdict[] {
    return this.list;
  }
}

/** The inbox's section: "Approved by ana 2 minutes ago — fine · Pays a vendor (…) · mission pay-1". */
export function recentBox(recent: readonly RecentVerdict[]): Fragment {
  return html`<h2>Decided recently (${recent.length})</h2>
    ${
      recent.length === 0
        ? html`<p>Nothing decided from this console yet.</p>`
        : html`<ul class="recent">${recent.map(
            (r) =>
              html`<li><strong>${r.verdict} by ${r.by}${r.role ? ` as ${r.role}` : ''}</strong> ${when(r.at)}${r.note ? html` — “${r.note}”` : ''} · ${r.what} · <a href="${r.href}">${r.where}</a></li>`,
          )}</ul>`
    }`;
}
