/**
 * Task queues with long polling. Items are tickets, not tasks: the state in the engine
 * decides at hand-off whether a ticket is still valid (a task may have been moved to
 * another queue, timed out or closed since it was queued), so nothing here needs to be
 * kept in sync with the engine besides adding tickets.
 */
import type { CallContext } from './grpc.ts';

interface Waiter<T> {
  deliver(item: T | null): void;
  call: CallContext;
}

interface Queue<T> {
  items: T[];
  waiters: Waiter<T>[];
}

export class TaskQueues<T> {
  private readonly queues = new Map<string, Queue<T>>();

  private queue(name: string): Queue<T> {
    let q = this.queues.get(name);
    if (!q) this.queues.set(name, (q = { items: [], waiters: [] }));
    return q;
  }

  /** Hands the item to the oldest live poller, or keeps it until one arrives. */
  add(name: string, item: T): void {
    const q = this.queue(name);
    for (;;) {
      const waiter = q.waiters.shift();
      if (!waiter) break;
      // A poll whose call was cancelled must not receive the task: nobody would run it.
      if (waiter.call.cancelled()) continue;
      waiter.deliver(item);
      return;
    }
    q.items.push(item);
  }

  /** Next item, or null after `waitMs` or when the call is cancelled. */
  poll(name: string, call: CallContext, waitMs: number): Promise<T | null> {
    const q = this.queue(name);
    const ready = q.items.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve) => {
      let done = false;
      const finish = (item: T | null) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        q.waiters = q.waiters.filter((w) => w !== waiter);
        // Sticky queues are per worker process: forget them once idle and empty.
        if (q.items.length === 0 && q.waiters.length === 0) this.queues.delete(name);
        resolve(item);
      };
      const waiter: Waiter<T> = { deliver: finish, call };
      const timer = setTimeout(() => finish(null), Math.max(0, waitMs));
      q.waiters.push(waiter);
      call.onCancel(() => finish(null));
    });
  }

  /** Answers every waiting poll empty (server shutdown). */
  releaseAll(): void {
    for (const q of this.queues.values()) for (const w of q.waiters.splice(0)) w.deliver(null);
  }
}
