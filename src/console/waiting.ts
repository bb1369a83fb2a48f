/**
 * "Waiting for you" as a status: Temporal says RUNNING for a mission that waits for a
 * decision and for a plan in review or at a step that needs approval; the lists ask each
 * running one (a query each) and say what a person needs to know.
 */
import type { PlanStatusView } from '../workflows/plan/contract.ts';
import { type Fragment, html } from './html.ts';
import type { ConsoleContext } from './mission/pages.ts';

interface Row {
  workflowId: string;
  status: string;
}

export const WAITING_FOR_YOU = 'waiting for you';

/** A plan waits for a person in review, at a step to approve, or at a question. */
export const planWaits = (v: PlanStatusView | null): boolean =>
  !!v && (v.status === 'review' || v.approvals.length > 0 || (v.questions?.length ?? 0) > 0);

/** Each row's status for people: `waiting for you`, else Temporal's in lower case. */
export async function statusesOf(
  ctx: ConsoleContext,
  kind: 'missions' | 'plans',
  rows: readonly Row[],
): Promise<string[]> {
  return Promise.all(
    rows.map(async (w) => {
      if (w.status !== 'RUNNING') return w.status.toLowerCase().replace(/_/g, ' ');
      const waits =
        kind === 'missions'
          ? await ctx.navigator
              .mission(w.workflowId)
              .status()
              .then(
                (s) => !!s.pending || (s.effectApprovals?.length ?? 0) > 0,
                () => false,
              )
          : await ctx.navigator
              .plan(w.workflowId)
              .status()
              .then(planWaits, () => false);
      return waits ? WAITING_FOR_YOU : 'running';
    }),
  );
}

/** A status in a list or a card, marked when it waits for a person. */
export const statusBadge = (status: string): Fragment =>
  status === WAITING_FOR_YOU || status === 'waiting'
    ? html`<span class="status waiting">${WAITING_FOR_YOU}</span>`
    : html`<span class="status">${status}</span>`;
