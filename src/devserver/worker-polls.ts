/**
 * Poll completion on worker shutdown (the namespace capability
 * workerPollCompleteOnShutdown), as the real server does it: a worker that calls
 * ShutdownWorker with its WorkerInstanceKey gets its waiting polls answered empty, and any
 * later poll carrying that key is answered empty at once. The SDK then lets its polls
 * finish instead of dropping the calls, so no task is handed to a call nobody reads.
 */
import type { Engine } from './engine.ts';
import { invalidArgument } from './errors.ts';
import type { CallContext } from './grpc.ts';
import type { Msg } from './proto.ts';

/**
 * The build id stamp the real server writes on the task started events: from the poll's
 * WorkerVersionCapabilities, which the SDK sends instead of a binaryChecksum because the
 * server advertises buildIdBasedVersioning.
 */
export function versionStamp(capabilities: Msg | undefined): Msg | undefined {
  return capabilities?.buildId
    ? { buildId: capabilities.buildId, useVersioning: capabilities.useVersioning }
    : undefined;
}

/** A poll sent this long after its worker shut down does not happen: the key can go. */
const FORGET_AFTER_MS = 10 * 60_000;

interface WorkerPolls {
  /** WorkerInstanceKey → when that worker shut down. */
  gone: Map<string, number>;
  /** WorkerInstanceKey → how to end each of its waiting polls. */
  waiting: Map<string, Set<() => void>>;
}

const registry = new WeakMap<Engine, WorkerPolls>();

function pollsOf(engine: Engine): WorkerPolls {
  let polls = registry.get(engine);
  if (!polls) registry.set(engine, (polls = { gone: new Map(), waiting: new Map() }));
  return polls;
}

/**
 * The poll's call as the task queues see it: it also counts as cancelled once its worker
 * has shut down, so the poll answers empty and a ticket handed over meanwhile goes back
 * on the queue (see Engine.pollTask).
 */
function endableCall(call: CallContext, ended: boolean): { call: CallContext; end(): void } {
  const callbacks: Array<() => void> = [];
  // Both the shutdown and the client's own cancellation may end the poll.
  const once = (callback: () => void) => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      callback();
    };
  };
  return {
    call: {
      deadline: call.deadline,
      cancelled: () => ended || call.cancelled(),
      onCancel(callback) {
        if (ended) return callback();
        const wrapped = once(callback);
        callbacks.push(wrapped);
        call.onCancel(wrapped);
      },
    },
    end() {
      ended = true;
      for (const callback of callbacks.splice(0)) callback();
    },
  };
}

/**
 * Runs a task poll that ends empty when the polling worker shuts down. A poll without a
 * gRPC deadline is refused, in the real server's words: it would wait forever (the SDK's
 * workers always set one).
 */
export async function trackPoll(
  engine: Engine,
  request: Msg,
  call: CallContext,
  poll: (call: CallContext) => Promise<Msg>,
): Promise<Msg> {
  if (call.deadline === undefined) throw invalidArgument('Context timeout is not set.');
  const key: string = request.workerInstanceKey ?? '';
  if (!key) return poll(call);
  const polls = pollsOf(engine);
  const tracked = endableCall(call, polls.gone.has(key));
  const waiting = polls.waiting.get(key) ?? new Set();
  polls.waiting.set(key, waiting);
  waiting.add(tracked.end);
  try {
    return await poll(tracked.call);
  } finally {
    waiting.delete(tracked.end);
    if (waiting.size === 0 && polls.waiting.get(key) === waiting) polls.waiting.delete(key);
  }
}

/** ShutdownWorker: answers the worker's waiting polls and refuses its later ones. */
export function completePolls(engine: Engine, workerInstanceKey: string | undefined): void {
  if (!workerInstanceKey) return;
  const polls = pollsOf(engine);
  const now = Date.now();
  for (const [key, at] of polls.gone) {
    if (now - at < FORGET_AFTER_MS) break; // insertion order is shutdown order
    polls.gone.delete(key);
  }
  polls.gone.delete(workerInstanceKey);
  polls.gone.set(workerInstanceKey, now);
  for (const end of polls.waiting.get(workerInstanceKey) ?? []) end();
}
