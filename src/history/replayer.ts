/**
 * One replay worker kept for many audits. `Worker.runReplayHistories` builds a native
 * replay worker and loads the workflow bundle each time it is called (0.4-0.6 s), then
 * replays each history it is given in 50-100 ms. A process that audits again and again
 * (the console, the evaluation suite, a test run) feeds its histories to one such worker
 * instead: they are replayed one at a time, in the order they were given, as
 * `runReplayHistories` does. The worker is closed after `idleMs` without work, so that
 * nothing keeps a process alive, and built again on the next replay.
 */
import type { HistoryAndWorkflowId } from '@temporalio/client';
import type { ReplayWorkerOptions } from '@temporalio/worker';
import { replayHistories } from '../history/replay-workers.ts';

/** The outcome of replaying one history: its run and, if the code could not reproduce it, why. */
export interface ReplayOutcome {
  workflowId: string;
  runId: string;
  error?: Error;
}

interface Job {
  history: HistoryAndWorkflowId;
  settle: (outcome: ReplayOutcome) => void;
  fail: (err: Error) => void;
}

/** A replay worker fed from a queue; it ends when the queue is closed. */
class Session {
  readonly ended: Promise<void>;
  private readonly queue: Job[] = [];
  /** jobs given to the worker, oldest first: results come back in this order */
  private readonly inFlight: Job[] = [];
  private wake: (() => void) | null = null;
  private closing = false;

  constructor(options: ReplayWorkerOptions) {
    this.ended = this.run(options);
  }

  get idle(): boolean {
    return this.queue.length === 0 && this.inFlight.length === 0;
  }

  get open(): boolean {
    return !this.closing;
  }

  add(job: Job): void {
    this.queue.push(job);
    this.wake?.();
  }

  close(): void {
    this.closing = true;
    this.wake?.();
  }

  private async *feed(): AsyncGenerator<HistoryAndWorkflowId> {
    for (;;) {
      const job = this.queue.shift();
      if (job) {
        this.inFlight.push(job);
        yield job.history;
        continue;
      }
      if (this.closing) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
  }

  private async run(options: ReplayWorkerOptions): Promise<void> {
    try {
      for await (const result of replayHistories(options, this.feed())) {
        this.inFlight.shift()?.settle({
          workflowId: result.workflowId,
          runId: result.runId,
          ...(result.error ? { error: result.error } : {}),
        });
      }
    } catch (err) {
      this.closing = true;
      for (const job of [...this.inFlight.splice(0), ...this.queue.splice(0)]) job.fail(err as Error);
      return;
    }
    // the worker stopped without an error: whatever it had not answered is answered by a new one
    this.closing = true;
    const left = [...this.inFlight.splice(0), ...this.queue.splice(0)];
    for (const job of left) job.fail(new Error('the replay worker stopped before it replayed this history'));
  }
}

export class HistoryReplayer {
  private session: Session | null = null;
  private idleTimer: NodeJS.Timeout | null = null;

  /** @param idleMs how long the worker is kept without work @default 2000 */
  constructor(
    private readonly options: ReplayWorkerOptions,
    private readonly idleMs = 2000,
  ) {}

  /** whether a replay worker is up (it stops after idleMs without work) */
  get running(): boolean {
    return this.session?.open ?? false;
  }

  /** Replays each history, one after another, and gives each its outcome (in the same order). */
  async replay(histories: readonly HistoryAndWorkflowId[]): Promise<ReplayOutcome[]> {
    this.stopIdleTimer();
    const session = this.current();
    try {
      return await Promise.all(
        histories.map(
          (history) => new Promise<ReplayOutcome>((settle, fail) => session.add({ history, settle, fail })),
        ),
      );
    } finally {
      this.startIdleTimer();
    }
  }

  /** Stops the replay worker now and waits for it; a later replay builds a new one. */
  async close(): Promise<void> {
    this.stopIdleTimer();
    const session = this.session;
    this.session = null;
    if (!session) return;
    session.close();
    await session.ended.then(
      () => undefined,
      () => undefined,
    );
  }

  private current(): Session {
    if (!this.session?.open) this.session = new Session(this.options);
    return this.session;
  }

  private startIdleTimer(): void {
    if (this.idleTimer || !this.session?.idle) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.session?.idle) void this.close();
    }, this.idleMs);
    // an idle replay worker must not keep a process alive on its own
    this.idleTimer.unref();
  }

  private stopIdleTimer(): void {
    if (!this.idleTimer) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }
}
