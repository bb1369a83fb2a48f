/**
 * DescribeTaskQueue's pollers: the workers polling a task queue. The real server lists
 * each worker with the time of its last poll request for five minutes after it; this
 * server knows more (whether a poll is waiting right now, whether the worker shut down),
 * so it lists only the workers that poll now or between two polls: one with a poll
 * waiting shows the current time, one between polls the time its last poll ended, for a
 * few seconds, and a worker that shut down (ShutdownWorker) or stopped polling is not
 * listed. A client that asks whether anyone will answer a query gets the exact answer.
 */
import type { Engine } from './engine.ts';
import { type Msg, timestamp } from './proto.ts';

/** A worker not polling for this long is not listed (a live worker polls again at once). */
const BETWEEN_POLLS_MS = 5000;

interface Seen {
  identity: string;
  workerInstanceKey: string;
  /** polls waiting now */
  waiting: number;
  /** when its last poll started, and when one last ended */
  lastStarted: number;
  lastEnded: number;
}

type QueueType = 'TASK_QUEUE_TYPE_WORKFLOW' | 'TASK_QUEUE_TYPE_ACTIVITY';

/** engine → `namespace|type|queue` → identity → what was seen */
const registry = new WeakMap<Engine, Map<string, Map<string, Seen>>>();

function queueOf(engine: Engine, namespace: string, type: QueueType, queue: string): Map<string, Seen> {
  let queues = registry.get(engine);
  if (!queues) registry.set(engine, (queues = new Map()));
  const key = `${namespace}|${type}|${queue}`;
  let seen = queues.get(key);
  if (!seen) queues.set(key, (seen = new Map()));
  return seen;
}

/** Runs a poll of `request` (PollWorkflowTaskQueue or PollActivityTaskQueue), counting its worker as polling meanwhile. */
export async function polling<T>(engine: Engine, type: QueueType, request: Msg, poll: () => Promise<T>): Promise<T> {
  const queue = String(request.taskQueue?.name ?? '');
  const identity = String(request.identity ?? '');
  const seen = queueOf(engine, String(request.namespace ?? ''), type, queue);
  const now = Date.now();
  const entry = seen.get(identity) ?? {
    identity,
    workerInstanceKey: String(request.workerInstanceKey ?? ''),
    waiting: 0,
    lastStarted: now,
    lastEnded: 0,
  };
  seen.set(identity, entry);
  entry.waiting++;
  entry.lastStarted = now;
  try {
    return await poll();
  } finally {
    entry.waiting--;
    entry.lastEnded = Date.now();
  }
}

/**
 * Whether a worker polled `queue` within `withinMs` (a poll waiting now counts): the real
 * server's matching service asks the same of a sticky queue before it hands a query to it
 * (StickyWorkerUnavailable when nobody polled it in the last 10 s).
 */
export function polledWithin(
  engine: Engine,
  namespace: string,
  type: QueueType,
  queue: string,
  withinMs: number,
): boolean {
  const now = Date.now();
  for (const entry of queueOf(engine, namespace, type, queue).values())
    if (entry.waiting > 0 || now - entry.lastEnded <= withinMs) return true;
  return false;
}

/** ShutdownWorker: the worker is no longer listed, on any queue. */
export function workerShutDown(
  engine: Engine,
  workerInstanceKey: string | undefined,
  identity: string | undefined,
): void {
  for (const seen of registry.get(engine)?.values() ?? []) {
    for (const [id, entry] of seen)
      if (
        (workerInstanceKey && entry.workerInstanceKey === workerInstanceKey) ||
        (!workerInstanceKey && identity && id === identity)
      )
        seen.delete(id);
  }
}

/** DescribeTaskQueue (the legacy mode: pollers of one task queue type). */
export function describeTaskQueue(engine: Engine, request: Msg): Msg {
  const type: QueueType =
    request.taskQueueType === 'TASK_QUEUE_TYPE_ACTIVITY' ? 'TASK_QUEUE_TYPE_ACTIVITY' : 'TASK_QUEUE_TYPE_WORKFLOW';
  const seen = queueOf(engine, String(request.namespace ?? ''), type, String(request.taskQueue?.name ?? ''));
  const now = Date.now();
  const pollers: Msg[] = [];
  for (const [id, entry] of seen) {
    if (entry.waiting === 0 && now - entry.lastEnded > BETWEEN_POLLS_MS) {
      seen.delete(id);
      continue;
    }
    pollers.push({
      identity: entry.identity,
      lastAccessTime: timestamp(entry.waiting > 0 ? now : entry.lastEnded),
      ratePerSecond: 100000,
    });
  }
  return { pollers };
}
