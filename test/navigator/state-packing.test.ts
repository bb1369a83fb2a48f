/**
 * Packing a suspended pass's state: lossless on states from real passes (several turns,
 * an answer without code, an error, inline calls and effects), each program stored once,
 * the first message left to the host when it can rebuild it, and refused when it cannot.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Json } from '../../src/lisp/tools.ts';
import {
  type EffectResult,
  type PassStep,
  PassStateError,
  passOpening,
  resumePass,
  startPass,
} from '../../src/navigator/index.ts';
import type { PassState } from '../../src/navigator/pass-state.ts';
import { packState, unpackState } from '../../src/navigator/state-packing.ts';
import { listModel, testAgent, tool } from './pass-helpers.ts';

const lookup = tool(
  'lookup',
  ({ id }: { id: number }) => ({ id, amount: id * 10 }),
  'read_only',
  z.object({ id: z.number() }),
);
const charge = tool('charge', ({ id }: { id: number }) => `tx_${id}`, 'external', z.object({ id: z.number() }));
const agent = testAgent({ tools: [lookup, charge], limits: { maxTurns: 6 } });

const LONG_COMMENT = Array.from(
  { length: 40 },
  (_, i) => `;; line ${i}: a program as long as a model writes them (café ✓)`,
).join('\n');
const ANSWERS: Array<string | { raw: string }> = [
  { raw: 'Let me think about the orders first.' },
  `${LONG_COMMENT}\n(def a (tool/lookup {:id 1})) (task "charge_1" (tool/charge {:id 1})) (println "charged")`,
  '(+ 1 "x")',
  '(let [t2 (task "charge_2" (tool/charge {:id 2})) t3 (task "charge_3" (tool/charge {:id 3}))] (return {:a (:amount a) :t [t2 t3]}))',
];

async function results(step: Extract<PassStep, { kind: 'effects' }>): Promise<Record<string, EffectResult>> {
  const out: Record<string, EffectResult> = {};
  for (const e of step.effects) out[e.id] = { ok: `tx_${(e.args as { id: number }).id}` as Json };
  return out;
}

/** Every suspended state of the scenario, in order, and the final step. */
async function suspensions(): Promise<{ states: PassState[]; opening: string; final: PassStep }> {
  const model = listModel(ANSWERS);
  let step = await startPass({ agent, input: {}, journal: new Map(), runId: 'wf-pack', model, effects: 'suspend' });
  const opening = passOpening({ agent, input: {}, summaries: {} });
  const states: PassState[] = [];
  while (step.kind === 'effects') {
    states.push(JSON.parse(JSON.stringify(step.state)) as PassState);
    step = await resumePass({
      agent,
      state: step.state,
      journal: new Map(),
      effectResults: await results(step),
      model,
    });
  }
  return { states, opening, final: step };
}

const roundTrip = (st: PassState, opening?: string) =>
  unpackState(JSON.parse(JSON.stringify(packState(st, { opening }))), { opening });

describe('packing a suspended pass state', () => {
  it('gives every state back exactly, with and without the host opening', async () => {
    const { states, opening } = await suspensions();
    expect(states.length).toBeGreaterThanOrEqual(3);
    for (const st of states) {
      expect(roundTrip(st)).toEqual(st);
      expect(roundTrip(st, opening)).toEqual(st);
    }
  });

  it('stores each program once (a long one deflated) and leaves the opening out when the host can rebuild it', async () => {
    const { states, opening } = await suspensions();
    const st = states[0]!;
    const full = JSON.stringify(st);
    const packed = JSON.stringify(packState(st, { opening }));
    const occurrences = (s: string) => s.split('line 39: a program').length - 1;
    expect(occurrences(full)).toBeGreaterThanOrEqual(3);
    // stored once, and deflated as it is long
    expect(occurrences(packed)).toBe(0);
    expect(packState(st, { opening }).packing?.deflated).toEqual([1]);
    expect(packed).not.toContain(opening.slice(0, 200));
    expect(packed.length).toBeLessThan(full.length / 2);
  });

  it('a pass resumed from packed states ends exactly as one resumed from whole states', async () => {
    const { final } = await suspensions();
    const model = listModel(ANSWERS);
    const opening = passOpening({ agent, input: {}, summaries: {} });
    let step = await startPass({ agent, input: {}, journal: new Map(), runId: 'wf-pack', model, effects: 'suspend' });
    while (step.kind === 'effects') {
      const state = roundTrip(step.state, opening);
      step = await resumePass({ agent, state, journal: new Map(), effectResults: await results(step), model });
    }
    const strip = (s: PassStep) =>
      s.kind === 'done' ? { ...s, toolCalls: s.toolCalls.map(({ durationMs: _, ...c }) => c) } : s;
    expect(step.kind).toBe('done');
    expect(strip(step)).toEqual(strip(final));
  });

  it('refuses to unpack when the first message cannot be rebuilt as it was', async () => {
    const { states, opening } = await suspensions();
    const packed = JSON.parse(JSON.stringify(packState(states[0]!, { opening })));
    expect(() => unpackState(packed)).toThrow(PassStateError);
    expect(() => unpackState(packed, { opening: `${opening} (changed)` })).toThrow(/cannot be rebuilt/);
  });

  it('keeps what it cannot rebuild: a conversation edited by hand stays whole', async () => {
    const { states } = await suspensions();
    const st = {
      ...states[0]!,
      messages: [...states[0]!.messages, { role: 'user' as const, content: 'an extra note' }],
    };
    const packed = packState(st);
    expect(packed.messages).toEqual(st.messages);
    expect(roundTrip(st)).toEqual(st);
  });
});
