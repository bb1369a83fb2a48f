/**
 * Every replay worker of this process is built and closed through here.
 *
 * Why: the SDK's native runtime shuts itself down when its last native worker closes, and
 * `Worker.runReplayHistories` takes the runtime before it bundles and builds (seconds). So a
 * replay worker closing (an idle read replayer, an audit's) while another one is being
 * built leaves the second with a runtime that is gone, and it fails with "failed to
 * downcast any to ... Runtime": a client that read a run and then audited it saw
 * `audit().ok === false` about one run in two. Building and closing therefore take turns
 * in the process: a replay worker is built only while none closes, and closes only while
 * none is built. Replaying itself runs side by side.
 */
import type { HistoryAndWorkflowId } from '@temporalio/client';
import type { ReplayResult, ReplayWorkerOptions } from '@temporalio/worker';

let tail: Promise<void> = Promise.resolve();

/** Waits for the turn; the function it gives back ends the turn (calling it again does nothing). */
function takeTurn(): Promise<() => void> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const ready = tail.then(() => release);
  tail = tail.then(() => held);
  return ready;
}

/** `Worker.runReplayHistories`, taking turns with the process's other replay workers to build and to close. */
export async function* replayHistories(
  options: ReplayWorkerOptions,
  histories: AsyncIterable<HistoryAndWorkflowId> | Iterable<HistoryAndWorkflowId>,
): AsyncGenerator<ReplayResult> {
  const { Worker } = await import('@temporalio/worker');
  let endTurn = await takeTurn();
  // the SDK asks for the first history once its worker is built: that ends the building turn
  async function* feed(): AsyncGenerator<HistoryAndWorkflowId> {
    endTurn();
    for await (const history of histories) yield history;
    // no history left: the worker closes now, so no other is built until it has
    endTurn = await takeTurn();
  }
  try {
    yield* Worker.runReplayHistories(options, feed());
  } finally {
    endTurn();
  }
}
