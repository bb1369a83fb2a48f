/** Heartbeating while an activity works, so a worker that dies mid-call is noticed quickly. */
import type { Context } from '@temporalio/activity';

export async function withHeartbeat<T>(ctx: Context, everyMs: number, work: () => Promise<T>): Promise<T> {
  ctx.heartbeat();
  const timer = setInterval(() => ctx.heartbeat(), everyMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
