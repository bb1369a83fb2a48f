/**
 * Bench-only agents for `npm run bench -- mission`, each driven by a scripted model with
 * one repeating answer (the same program every pass; the journal decides what it does).
 *
 * - `bench-one-pass`: returns at once; no tools, no effects.
 * - `bench-effects`:  N external `ping` effects in one step (pmap), then returns.
 * - `bench-stepper`:  step k commits `work_k` and waits for the decision `step_k`; with
 *                     `step_1..step_k` decided, the next pass commits `work_(k+1)` only.
 *                     Returns `{:steps n}` once `step_n` is decided.
 * - `bench-parked`:   waits for the contract decision `go_ahead` (approved / rejected).
 * - `bench-sequential`: a realistic 4 KB program that runs N external `ping` effects one
 *                     after the other (each its own suspension), then returns.
 * - `bench-approvals`: N `approved_ping` effects one after the other, each waiting for a
 *                     person's approval (approveEffect), then returns their sum.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { createScriptedModel } from '../../src/llm/index.ts';
import type { ChatModel } from '../../src/llm/model.ts';
import { defineAgent, defineDecision, defineTool, type Agent } from '../../src/navigator/index.ts';
import type { RegisteredAgent } from '../../src/activities/agents.ts';

const clojure = (program: string) => '```clojure\n' + program.trim() + '\n```';

/** A model that answers every call with `program`. */
export function repeatingModel(program: string): () => ChatModel {
  const script = [{ answer: clojure(program), repeat: true, usage: { inputTokens: 100, outputTokens: 20 } }];
  return () => createScriptedModel(script, { id: 'scripted:bench' });
}

export const onePassProgram = `(return {:ok true})`;

export const onePass = defineAgent({
  name: 'bench-one-pass',
  prompt: 'Return {:ok true}.',
  input: z.object({}),
  output: z.object({ ok: z.boolean() }),
  limits: { maxTurns: 2 },
});

/** Does nothing but count; `external`, so under Temporal each call is its own activity. */
export const ping = defineTool({
  name: 'ping',
  description: 'Answers a ping. External: each call is one effect.',
  input: z.object({ i: z.number().int() }),
  output: z.object({ pong: z.number() }),
  sideEffect: 'external',
  handler: ({ i }) => ({ pong: i }),
});

export const effectsProgram = `
(let [rs (pmap (fn [i] (task (str "ping_" i) (tool/ping {:i i}))) (range data/n))]
  (return {:count (count rs)}))`;

export const effects = defineAgent({
  name: 'bench-effects',
  prompt: 'Ping {{n}} times, each in its own task, then return the count.',
  input: z.object({ n: z.number().int().positive() }),
  output: z.object({ count: z.number() }),
  tools: [ping],
  limits: { maxTurns: 2 },
});

export const stepperProgram = `
(loop [k 1]
  (task (str "work_" k) {:k k})
  (let [key (str "step_" k)]
    (task key (return {:status :waiting :decision key}))
    (if (< k data/n) (recur (inc k)) (return {:steps k}))))`;

export const stepper = defineAgent({
  name: 'bench-stepper',
  prompt: 'Do {{n}} steps; after each, wait for its decision.',
  input: z.object({ n: z.number().int().positive() }),
  output: z.object({ steps: z.number() }),
  limits: { maxTurns: 2, fuel: 10_000_000 },
});

export const goAhead = defineDecision({
  name: 'go_ahead',
  description: 'Someone lets the mission finish.',
  key: () => 'go_ahead',
  values: z.enum(['approved', 'rejected']),
});

export const parkedProgram = `
(let [d (task "go_ahead" (return {:status :waiting :decision "go_ahead"}))]
  (return {:decision d}))`;

export const parked = defineAgent({
  name: 'bench-parked',
  prompt: 'Wait for go_ahead, then return it.',
  input: z.object({ id: z.number().int().optional() }),
  output: z.object({ decision: z.string() }),
  decisions: [goAhead],
  limits: { maxTurns: 2 },
});

/**
 * A realistic program of about 4 KB (helpers, validation, grouping, a report, then N
 * external pings one after the other, each its own suspension): what a model writes for
 * a real mission, so history sizes measured with it are not flattered by repetition.
 */
export const sequentialProgram = readFileSync(new URL('./sequential-program.clj', import.meta.url), 'utf8').trim();

export const sequential = defineAgent({
  name: 'bench-sequential',
  prompt: 'Ping {{n}} times, one after the other, each in its own task, then return the count.',
  input: z.object({ n: z.number().int().nonnegative() }),
  output: z.object({ count: z.number() }),
  tools: [ping],
  limits: { maxTurns: 2 },
});

/** External and guarded: each call waits for a person's approval, then runs as its own activity. */
export const approvedPing = defineTool({
  name: 'approved_ping',
  description: 'Answers a ping once someone approved it.',
  input: z.object({ i: z.number().int() }),
  output: z.object({ pong: z.number() }),
  sideEffect: 'external',
  requiresApproval: true,
  handler: ({ i }) => ({ pong: i }),
});

export const approvalsProgram = `
(loop [k 1 acc 0]
  (if (> k data/n)
    (return {:count acc})
    (let [r (task (str "approved_" k) (tool/approved_ping {:i k}))]
      (recur (inc k) (+ acc (:pong r))))))`;

/** `bench-approvals`: N approved pings one after the other (each an approval, an effect and a resumed pass). */
export const approvals = defineAgent({
  name: 'bench-approvals',
  prompt: 'Ping {{n}} times, one after the other, each approved by a person, then return the sum.',
  input: z.object({ n: z.number().int().positive() }),
  output: z.object({ count: z.number() }),
  tools: [approvedPing],
  limits: { maxTurns: 2 },
});

const entry = (agent: Agent, program: string): RegisteredAgent => ({ agent, model: repeatingModel(program) });

/** The bench agents with their models, ready for a worker's registry. */
export const benchAgents: RegisteredAgent[] = [
  entry(onePass as unknown as Agent, onePassProgram),
  entry(effects as unknown as Agent, effectsProgram),
  entry(stepper as unknown as Agent, stepperProgram),
  entry(parked as unknown as Agent, parkedProgram),
  entry(sequential as unknown as Agent, sequentialProgram),
  entry(approvals as unknown as Agent, approvalsProgram),
];
