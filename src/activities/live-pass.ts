/**
 * The live pass a `runPass` activity heartbeats (src/kernel/live-pass.ts): the line of what
 * it does, the program as the model writes it, and each inline tool call as it starts and
 * ends. A change of phase or turn is sent at once; the rest (tokens, calls) at most every
 * `everyMs`, the latest state winning, and the SDK throttles again (the worker's
 * maxHeartbeatThrottleInterval): a model streaming a hundred tokens a second costs a few
 * heartbeats a second, not a hundred.
 */
import type { Context } from '@temporalio/activity';
import { LIVE_CALLS, LIVE_PROGRAM_CHARS, type LiveCall, type LivePass } from '../kernel/live-pass.ts';
import type { AnyAgent, PassProgress } from '../navigator/index.ts';

export class LivePassReporter {
  private live: LivePass;
  private lastBeat = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private calls: LiveCall[] = [];
  private count = 0;
  /** the answer of a turn as it streamed */
  private streamed: { turn: number; text: string } | undefined;

  constructor(
    private readonly ctx: Pick<Context, 'heartbeat'>,
    private readonly pass: number,
    private readonly everyMs = 250,
  ) {
    this.live = { pass, phase: 'starting', text: `pass ${pass}: starting` };
  }

  /** The details to heartbeat now (also for the activity's periodic heartbeat). */
  current(): LivePass {
    return this.live;
  }

  progress(p: PassProgress): void {
    const changed = p.phase !== this.live.phase || p.turn !== this.live.turn;
    // the program stays shown while it runs; a new turn's answer starts empty
    if (p.phase === 'model' && p.text !== undefined) this.streamed = { turn: p.turn, text: p.text };
    // while it runs: the whole answer as it streamed (what was shown grows to its end), else the program alone
    const text = p.phase === 'model' ? p.text : this.streamed?.turn === p.turn ? this.streamed.text : p.program;
    const program =
      text !== undefined
        ? text.slice(-LIVE_PROGRAM_CHARS)
        : changed && p.phase === 'model'
          ? undefined
          : this.live.program;
    this.live = {
      ...lineOf(this.pass, p),
      ...(program !== undefined ? { program } : {}),
      ...(this.calls.length ? { calls: this.calls } : {}),
    };
    if (changed) this.beat();
    else this.soon();
  }

  /** A call the program makes itself starts: its number, for {@link callEnded}. */
  callStarted(tool: string, taskId: string | null | undefined): number {
    const n = ++this.count;
    this.calls = [
      ...this.calls,
      { n, turn: this.live.turn ?? 0, tool, ...(taskId ? { taskId } : {}), status: 'running' as const },
    ].slice(-LIVE_CALLS);
    this.update();
    return n;
  }

  callEnded(n: number, ms: number, error?: string): void {
    this.calls = this.calls.map((c) =>
      c.n === n
        ? {
            ...c,
            status: error === undefined ? 'done' : 'failed',
            ms,
            ...(error !== undefined ? { error: error.slice(0, 300) } : {}),
          }
        : c,
    );
    this.update();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private update(): void {
    this.live = { ...this.live, calls: this.calls };
    this.soon();
  }

  private beat(): void {
    this.stop();
    this.lastBeat = Date.now();
    this.ctx.heartbeat(this.live);
  }

  /** Heartbeats the latest state once `everyMs` has passed since the last one. */
  private soon(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => this.beat(), Math.max(0, this.everyMs - (Date.now() - this.lastBeat)));
  }
}

/** The line of what a pass does, as data and words. */
function lineOf(pass: number, p: PassProgress): LivePass {
  if (p.phase === 'program')
    return { pass, phase: p.phase, turn: p.turn, text: `pass ${pass}, turn ${p.turn}: running the program` };
  const tokens = p.outputTokens ? `, ${p.outputTokens} tokens` : '';
  return {
    pass,
    phase: p.phase,
    turn: p.turn,
    ...(p.outputTokens ? { outputTokens: p.outputTokens } : {}),
    text: `pass ${pass}, turn ${p.turn}: model answering${tokens}`,
  };
}

/** The agent with each tool's handler reporting its calls to `live` (the calls the program makes inside the pass). */
export function watchedAgent<A extends AnyAgent>(agent: A, live: LivePassReporter): A {
  const tools = agent.tools.map((tool) => ({
    ...tool,
    handler: async (args: never, ctx: { idempotencyKey: string; taskId?: string | null }) => {
      const n = live.callStarted(tool.name, ctx.taskId);
      const started = Date.now();
      try {
        const result = await tool.handler(args, ctx as never);
        live.callEnded(n, Date.now() - started);
        return result;
      } catch (err) {
        live.callEnded(n, Date.now() - started, err instanceof Error ? err.message : String(err));
        throw err;
      }
    },
  }));
  return { ...agent, tools };
}
