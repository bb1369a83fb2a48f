/**
 * A pass of several turns, its namespace carried from turn to turn, gives the same
 * result, messages and kept namespace with programs run in the sandbox (as the pass
 * activity runs them, the thread keeping what it read per mission) as with `run`
 * in-process, suspended on effects and resumed or not; two missions interleaved on the
 * same threads see only their own defs.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { run } from '../../src/lisp/index.ts';
import type { Json } from '../../src/lisp/tools.ts';
import type { EffectResult } from '../../src/navigator/index.ts';
import { type Evaluate, type PassStep, resumePass, startPass } from '../../src/navigator/pass.ts';
import { closeSandboxes, runSandboxed, sandboxStats } from '../../src/sandbox/index.ts';
import { listModel, testAgent, tool } from '../navigator/pass-helpers.ts';

afterAll(() => closeSandboxes());

const TURNS = [
  '(def threshold 40) (def users [{:name "ann" :age 50} {:name "bo" :age 20}]) (defn senior? [u] (>= (:age u) threshold)) (count users)',
  '(def seniors (filter senior? users)) (def score (tool/score {:n (count seniors)})) (:points score)',
  '(def threshold 10) (mapv :name (filter senior? users))',
  '(def by-name (partial str "name: ")) (by-name (:name (first seniors)))',
  '(return {:seniors (mapv :name seniors) :all (count (filter senior? users)) :points (:points score)})',
];

const agent = testAgent({
  tools: [tool('score', ({ n }: { n: number }) => ({ points: n * 10 }), 'read_only', z.object({ n: z.number() }))],
  limits: { maxTurns: 6 },
});

async function pass(evaluate: Evaluate, runId: string, turns = TURNS): Promise<{ step: PassStep; messages: string[] }> {
  const model = listModel(turns);
  const step = await startPass({ agent, input: {}, journal: new Map(), runId, model, effects: 'suspend', evaluate });
  return { step, messages: model.requests.map((r) => r.messages[r.messages.length - 1]!.content) };
}

function comparable(r: { step: PassStep; messages: string[] }): unknown {
  if (r.step.kind !== 'done') return r.step.kind;
  const { outcome, trace, toolCalls, warnings } = r.step;
  return {
    outcome,
    results: trace.map((t) => t.result),
    calls: toolCalls.map((c) => [c.tool, c.args, c.result]),
    warnings,
    messages: r.messages,
  };
}

const sandboxed: Evaluate = (source, opts) => runSandboxed(source, opts);

describe('a pass with its programs in the sandbox', () => {
  it(
    'gives what the pass gives in-process, the thread taking the entries it read for earlier turns',
    { timeout: 120_000 },
    async () => {
      const inProcess = await pass(run, 'wf-pass-1');
      const before = sandboxStats();
      const inThread = await pass(sandboxed, 'wf-pass-1');
      expect(comparable(inThread)).toEqual(comparable(inProcess));
      expect(inProcess.step.kind === 'done' && inProcess.step.outcome).toEqual({
        status: 'return',
        value: { seniors: ['ann'], all: 2, points: 10 },
      });
      const after = sandboxStats();
      expect(after.programs - before.programs).toBe(TURNS.length);
      // turn 2 reads the 3 defs of turn 1; turn 3 takes them (seniors and score are new and
      // named by none); turn 4 reads threshold (changed) and senior? (names it) again and
      // takes users, seniors, score; turn 5 takes all 5 (by-name is named by none)
      expect(after.entriesReused - before.entriesReused).toBe(0 + 0 + 3 + 3 + 5);
    },
  );

  it('two missions interleaved on the same threads see only their own definitions', { timeout: 120_000 }, async () => {
    const other = [
      '(def threshold 99) (def users [{:name "zed" :age 100}]) (defn senior? [u] true) 1',
      '(return {:seniors (mapv :name (filter senior? users))})',
    ];
    const [a, b] = await Promise.all([pass(sandboxed, 'wf-pass-a'), pass(sandboxed, 'wf-pass-b', other)]);
    const [a0, b0] = await Promise.all([pass(run, 'wf-pass-a'), pass(run, 'wf-pass-b', other)]);
    expect(comparable(a)).toEqual(comparable(a0));
    expect(comparable(b)).toEqual(comparable(b0));
    expect(b.step.kind === 'done' && b.step.outcome).toEqual({ status: 'return', value: { seniors: ['zed'] } });
  });

  it(
    'suspends on effects and resumes as in-process, the namespace carried through the state',
    { timeout: 120_000 },
    async () => {
      const shop = (log: string[]) =>
        testAgent({
          tools: [
            tool(
              'lookup',
              ({ id }: { id: number }) => (log.push(`lookup ${id}`), { amount: id * 10 }),
              'read_only',
              z.object({ id: z.number() }),
            ),
            tool(
              'charge',
              ({ order_id, amount }: { order_id: number; amount: number }) => (
                log.push(`charge ${order_id}`),
                `tx_${order_id}_${amount}`
              ),
              'external',
              z.object({ order_id: z.number(), amount: z.number() }),
            ),
          ],
          limits: { maxTurns: 5 },
        });
      const programs = [
        '(def orders [1 2]) (defn amount-of [id] (:amount (tool/lookup {:id id}))) (count orders)',
        '(def charged (mapv (fn [id] (task (str "charge_" id) (tool/charge {:order-id id :amount (amount-of id)}))) orders)) (count charged)',
        '(return {:charged charged :amount (amount-of 2) :orders orders})',
      ];
      const mission = async (evaluate: Evaluate, log: string[]) => {
        const agent = shop(log);
        const model = listModel(programs);
        let step = await startPass({
          agent,
          input: {},
          journal: new Map(),
          runId: 'wf-shop',
          model,
          effects: 'suspend',
          evaluate,
        });
        while (step.kind === 'effects') {
          const results: Record<string, EffectResult> = {};
          for (const e of step.effects) {
            const t = agent.tools.find((x) => x.name === e.tool)!;
            results[e.id] = {
              ok: (await t.handler(e.args, {
                idempotencyKey: e.idempotencyKey,
                taskId: e.taskId,
                signal: new AbortController().signal,
              })) as Json,
            };
          }
          // the state goes through JSON, as it does through Temporal's history
          step = await resumePass({
            agent,
            state: JSON.parse(JSON.stringify(step.state)),
            journal: new Map(),
            effectResults: results,
            model,
            evaluate,
          });
        }
        return step;
      };
      const inProcessLog: string[] = [];
      const sandboxedLog: string[] = [];
      const a = await mission(run, inProcessLog);
      const b = await mission(sandboxed, sandboxedLog);
      expect(b.kind === 'done' && b.outcome).toEqual({
        status: 'return',
        value: { charged: ['tx_1_10', 'tx_2_20'], amount: 20, orders: [1, 2] },
      });
      expect(b.kind === 'done' && [b.outcome, b.journalDelta, b.trace.map((t) => [t.result, t.suspensions])]).toEqual(
        a.kind === 'done' && [a.outcome, a.journalDelta, a.trace.map((t) => [t.result, t.suspensions])],
      );
      expect(b.kind === 'done' && b.trace.map((t) => t.suspensions)).toEqual([0, 2, 0]);
      expect(sandboxedLog).toEqual(inProcessLog);
    },
  );
});
