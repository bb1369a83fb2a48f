/**
 * The program a pass ended with while it waited for a decision, kept on the worker so the
 * next pass can run it again before asking the model (issue 29: a decision mission took
 * a model call per pass). The model wrote that program with the decision's outcomes in
 * it; once the decision is in the journal, the same task returns it, tasks already done
 * return their recorded results, and the program goes on. Only when it does not end the
 * pass (an error, no return, a rejected return) does the model get a turn, with that
 * program and its result as the conversation so far.
 *
 * Per mission, bounded (oldest out); a pass on another worker, or after a restart, finds
 * nothing and asks the model as before.
 */
import type { Json } from '../lisp/tools.ts';
import { isWaiting } from './turn.ts';

/** What the memory reads of a finished pass. */
export interface FinishedPass {
  outcome: { status: string; value?: Json };
  trace: ReadonlyArray<{ program: string | null }>;
}

export const DEFAULT_WAITING_MISSIONS = 1000;

export class WaitingPrograms {
  private readonly programs = new Map<string, { pass: number; code: string }>();

  constructor(private readonly maxMissions = DEFAULT_WAITING_MISSIONS) {
    if (!Number.isInteger(maxMissions) || maxMissions < 1)
      throw new RangeError(`WaitingPrograms: maxMissions must be a positive integer, got ${maxMissions}`);
  }

  get size(): number {
    return this.programs.size;
  }

  /** After pass `pass` of `mission`: keeps its last program when it ended waiting, else forgets the mission. */
  remember(mission: string, pass: number, done: FinishedPass): void {
    this.programs.delete(mission);
    const value = done.outcome.value;
    if (done.outcome.status !== 'return' || value === undefined || !isWaiting(value)) return;
    const code = [...done.trace].reverse().find((t) => t.program !== null)?.program;
    if (!code) return;
    this.programs.set(mission, { pass, code });
    while (this.programs.size > this.maxMissions) this.programs.delete(this.programs.keys().next().value!);
  }

  /** The program to run first in pass `pass` of `mission`: the one pass `pass - 1` waited in. */
  replayFor(mission: string, pass: number): string | undefined {
    const kept = this.programs.get(mission);
    return kept && kept.pass === pass - 1 ? kept.code : undefined;
  }
}
