/**
 * An evaluation case: a mission a model has not seen, with tools that record what they
 * did, the decisions a person gives when it waits, and a checker that decides whether the
 * mission was done right from the recorded effects and the returned value only, never
 * from the model's wording.
 */
import type { Agent } from '../src/navigator/index.ts';
import type { Json } from '../src/lisp/tools.ts';

/** What a tool did: one entry per call that changed something (or was read, for reads that must run once). */
export interface Effect {
  tool: string;
  args: Json;
  /** the idempotency key the tool received */
  key: string;
}

export interface Outcome {
  /** the mission's return value, or null when it failed */
  result: Json | null;
  /** the failure message when it failed */
  failure: string | null;
  effects: readonly Effect[];
  /** step-done summaries by plan step id */
  summaries: Readonly<Record<string, string>>;
  /** the reasons effects waited for a person, in the order they were decided */
  approvals?: ReadonlyArray<{ tool: string; args: Json; approved: boolean }>;
}

export type Verdict = { ok: true } | { ok: false; why: string };

/** One fresh run of a case: its own agent and effect log. */
export interface CaseRun {
  agent: Agent;
  input: Record<string, Json>;
  effects: Effect[];
  /** a seeded journal (a mission that must reset a task starts with one) */
  journal?: Array<[string, Json]>;
  /** the value a person writes when the mission waits for `key` */
  decide?: (key: string) => Json;
  /** a person's verdict on an effect waiting for approval: true approves, a string denies with that reason */
  approve?: (effect: { tool: string; args: Json }) => true | string;
  /**
   * A crash: once this holds of the effects so far, the mission is terminated (as a lost
   * worker fleet or an operator would) and resumed from its journal (`navigator resume`)
   */
  crashWhen?: (effects: readonly Effect[]) => boolean;
}

export interface EvalCase {
  name: string;
  /** what it exercises, one line */
  what: string;
  make(): CaseRun;
  check(outcome: Outcome): Verdict;
}

export const pass: Verdict = { ok: true };
export const fail = (why: string): Verdict => ({ ok: false, why });

/** Checks in order; the first failure is the verdict. */
export function all(...checks: Array<() => Verdict>): Verdict {
  for (const c of checks) {
    const v = c();
    if (!v.ok) return v;
  }
  return pass;
}

export const expectEqual = (what: string, got: unknown, want: unknown): Verdict =>
  JSON.stringify(got) === JSON.stringify(want)
    ? pass
    : fail(`${what}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);

/** The effects of one tool, in order. */
export const effectsOf = (o: Outcome, tool: string) => o.effects.filter((e) => e.tool === tool);

/** A recording helper for tool handlers: logs the call, returns `value`. */
export function recorder(effects: Effect[]) {
  return <T>(tool: string, args: unknown, key: string, value: T): T => {
    effects.push({ tool, args: args as Json, key });
    return value;
  };
}
