/**
 * What a start from the console's form could not check (the client's `startWarning`: no
 * worker announced the agents it serves, or none polls now), kept for the page the form
 * redirects to. The redirect carries only the new run's id, and putting the text in the
 * URL would let any link write words onto a page of this console; so the console keeps it,
 * and the run's page shows it once.
 */
import { type Fragment, html } from './html.ts';

/** How many notices are kept at most (a console started many runs nobody opened). */
const MAX = 64;

export class StartNotices {
  private readonly byRun = new Map<string, string>();

  /** Keeps `warning` for the page of workflow `id`. */
  add(id: string, warning: string | undefined): void {
    if (!warning) return;
    this.byRun.delete(id);
    this.byRun.set(id, warning);
    if (this.byRun.size > MAX) this.byRun.delete(this.byRun.keys().next().value!);
  }

  /** The notice for workflow `id`, once: a reload of the page no longer shows it. */
  take(id: string): string | undefined {
    const warning = this.byRun.get(id);
    this.byRun.delete(id);
    return warning;
  }
}

/** The notice over the page of a run started just now, when something could not be checked. */
export function startNotice(warning: string | undefined): Fragment | '' {
  return warning
    ? html`<div class="problem" role="status"><strong>Started, but not checked:</strong> ${warning}.</div>`
    : '';
}
