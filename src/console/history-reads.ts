/**
 * What the console read of a workflow, kept for the history it was read from. Everything a
 * mission's pages show follows from its history: its state (status, journal, ledger,
 * progress...) is what that history leaves (a closed run's is read by replaying the
 * history in this process, src/history/reader.ts, which keeps it by run and length too),
 * and the pass view reads the history itself. Reading again is what makes those pages slow
 * for a long mission: the timeline and the pass view walk the whole history, and the pass
 * view runs every recorded program again (see test/console/pass-view-timing.ts).
 *
 * So a page first asks the server where the history stands (describe: its latest run and
 * that run's length, no worker involved) and takes each part it needs from what was read
 * at that point; a longer history or a new run reads again. A failed read is not kept.
 * Bounded: the last `max` workflows read.
 */
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { WorkerUnavailableError } from '../history/reader.ts';
import { type Fragment, html } from './html.ts';

/** One workflow's history at one point, and the parts read from it. */
export interface HistoryPoint {
  /** what describe said (status, search attributes, ...) */
  description: WorkflowExecutionDescription;
  /** the part named `name`, from what was read at this point, else loaded now */
  get<T>(name: string, load: () => Promise<T>): Promise<T>;
}

export class HistoryReads {
  private readonly entries = new Map<string, { history: string; parts: Map<string, Promise<unknown>> }>();

  constructor(
    private readonly client: Client,
    private readonly max = 16,
  ) {}

  async at(workflowId: string): Promise<HistoryPoint> {
    const description = await this.client.workflow.getHandle(workflowId).describe();
    const history = `${description.runId}:${description.historyLength}`;
    let entry = this.entries.get(workflowId);
    this.entries.delete(workflowId); // set again below: the Map's order is the order of use, oldest first
    if (entry?.history !== history) entry = { history, parts: new Map() };
    this.entries.set(workflowId, entry);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
    const parts = entry.parts;
    return {
      description,
      get<T>(name: string, load: () => Promise<T>): Promise<T> {
        const had = parts.get(name);
        if (had) return had as Promise<T>;
        const loading = load();
        parts.set(name, loading);
        loading.catch(() => parts.get(name) === loading && parts.delete(name));
        return loading;
      },
    };
  }
}

/**
 * A read of a running workflow that no worker answered in time (src/history/reader.ts): the
 * page says so in a banner and shows the rest from history; the live stream watching it
 * reads this instead of the error's text (which names how long ago the queue was polled),
 * so that the page is not reloaded until a worker answers again.
 */
export function unanswered(err: WorkerUnavailableError): { workerUnavailable: string; polling: boolean } {
  return { workerUnavailable: err.taskQueue, polling: err.polling };
}

/** `read`, or {@link unanswered} when no worker answers it (for the live streams). */
export function liveRead<T>(read: () => Promise<T>): () => Promise<T | ReturnType<typeof unanswered>> {
  return () =>
    read().catch((err: unknown) => (err instanceof WorkerUnavailableError ? unanswered(err) : Promise.reject(err)));
}

/** The banner over a page read from history because no worker answered. */
export function unansweredBanner(err: WorkerUnavailableError, at: number): Fragment {
  return html`<div class="problem" role="alert"><strong>No worker answered.</strong> ${err.message}. This page shows what the history holds${at ? ` (up to event ${at})` : ''}; approving or changing anything waits until a worker runs.</div>`;
}
