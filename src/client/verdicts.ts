/**
 * What people did to a mission or plan, from its Temporal history: each accepted update
 * (a decision, a step approval or denial) with its argument and when it was accepted.
 * The console confirms "Approved by ana at 15:31" from this, not from the request it
 * sent: the history is what the workflow acted on.
 */
import type { Client } from '@temporalio/client';
import { decodeAll, fetchChain } from '../history/fetch.ts';
import { valueHash } from '../history/hash.ts';
import type { Json } from '../workflows/mission/contract.ts';

export interface AcceptedUpdate {
  /** the update's name: `decide`, `approveStep`, `denyStep`, ... */
  name: string;
  /** its argument as sent (with `by`, `note`, ...) */
  arg: Record<string, unknown>;
  /** when the workflow accepted it, ISO */
  at: string;
}

/** The accepted updates named `names` of a workflow (all its runs), oldest first. */
export async function acceptedUpdates(
  client: Client,
  workflowId: string,
  names: readonly string[],
): Promise<AcceptedUpdate[]> {
  const out: AcceptedUpdate[] = [];
  for (const run of await fetchChain(client, workflowId)) {
    for (const e of run.history.events ?? []) {
      const input = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
      if (!input?.name || !names.includes(input.name)) continue;
      const arg = decodeAll(input.args)[0];
      const ms = Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6);
      out.push({
        name: input.name,
        arg: arg && typeof arg === 'object' ? (arg as Record<string, unknown>) : {},
        at: new Date(ms).toISOString(),
      });
    }
  }
  return out;
}

/**
 * Why a verdict given on the args a person was shown (`shown`, their hash) is not for the
 * args now waiting, or null when it is (or nothing was shown). The same task can ask again
 * with other args once a verdict or deadline ended its wait, and a step can be retried with
 * new ones: a page or a command typed earlier must not decide on those.
 */
export function shownArgsProblem(what: string, shown: string | undefined, args: Json): string | null {
  if (shown === undefined || shown === valueHash(args)) return null;
  return `${what} now waits with other args than the ones shown (${JSON.stringify(args)}): look at them again before deciding`;
}
