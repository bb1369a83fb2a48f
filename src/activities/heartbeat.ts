/** Heartbeating while an activity works, so a worker that dies mid-call is noticed quickly. */
import type { Context } from '@temporalio/activity';

/**
 * Heartbeats at once and every `everyMs` until `work` settles. `details()` (if given) is
 * sent with each heartbeat: what the activity is doing, for `describe` and `navigator watch`.
 */
export async function withHeartbeat<T>(
  ctx: Context,
  everyMs: number,
  work: () => Promise<T>,
  details?: () => unknown,
): Promise<T> {
  const beat = () => (details ? ctx.heartbeat(details()) : ctx.heartbeat());
  beat();
  const timer = setInterval(beat, everyMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
