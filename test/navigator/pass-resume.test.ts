/**
 * The pass as a resumable step function: effect suspension and resumption, state that
 * survives JSON (a fresh process), and the equivalence of a resumed pass with an
 * uninterrupted one.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Json } from '../../src/lisp/tools.ts';
import {
  type EffectResult,
  type PassDone,
  PassStateError,
  type PassStep,
  resumePass,
  runNavigator,
  startPass,
} from '../../src/navigator/index.ts';
import { lastUserMessage, listModel, testAgent, tool } from './pass-helpers.ts';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

function shop() {
  const calls: string[] = [];
  const lookup = tool(
    'lookup',
    ({ id }: { id: number }) => (calls.push(`lookup ${id}`), { id, amount: id * 10 }),
    'read_only',
    z.object({ id: z.number() }),
  );
  const charge = tool(
    'charge',
    ({ order_id, amount }: { order_id: number; amount: number }) => (
      calls.push(`charge ${order_id}`),
      `tx_${order_id}_${amount}`
    ),
    'external',
    z.object({ order_id: z.number(), amount: z.number() }),
  );
  const notify = tool(
    'notify',
    ({ n }: { n: number }) => (calls.push(`notify ${n}`), { sent: n }),
    'local',
    z.object({ n: z.number() }),
  );
  const agent = testAgent({ tools: [lookup, charge, notify], plan: ['List', 'Charge'], limits: { maxTurns: 6 } });
  return { agent, calls };
}

const PROGRAMS = [
  '(def orders [1 2]) (defn amount-of [id] (:amount (tool/lookup {:id id}))) (def pending (list 1 2)) (println "start") (step-done "1" "listed")',
  '(def charged (mapv (fn [id] (task (str "charge_" id) (tool/charge {:order-id id :amount (amount-of id)}))) orders)) (task "notify" (tool/notify {:n (count charged)})) (println charged) (step-done "2" "charged")',
  '(+ 1 "x")',
  '(def refunds (pmap (fn [id] (task (str "refund_" id) (tool/charge {:order_id (* 10 id) :amount 1}))) orders)) (:reason data/fail)',
  '(return {:charged charged :refunds refunds :last *1 :amount (amount-of 1) :pending pending})',
];

/** Runs external effects like a host would: by calling the tool's handler. */
async function host(
  agent: ReturnType<typeof shop>['agent'],
  step: Extract<PassStep, { kind: 'effects' }>,
  fail?: (tool: string, args: Json) => string | null,
) {
  const results: Record<string, EffectResult> = {};
  for (const e of step.effects) {
    const message = fail?.(e.tool, e.args) ?? null;
    if (message) {
      results[e.id] = { error: message };
      continue;
    }
    const t = agent.tools.find((x) => x.name === e.tool)!;
    results[e.id] = {
      ok: (await t.handler(e.args, {
        idempotencyKey: e.idempotencyKey,
        taskId: e.taskId,
        signal: new AbortController().signal,
      })) as Json,
    };
  }
  return results;
}

const strip = (d: PassDone) => ({ ...d, toolCalls: d.toolCalls.map(({ durationMs: _d, ...c }) => c) });

describe('effects: suspension and resumption', () => {
  it('an external call in a task suspends with task id, validated args and the task-derived idempotency key', async () => {
    const { agent, calls } = shop();
    const step = await startPass({
      agent,
      input: {},
      journal: new Map(),
      runId: 'wf-1',
      model: listModel(PROGRAMS),
      effects: 'suspend',
    });
    expect(step.kind).toBe('effects');
    if (step.kind !== 'effects') return;
    // turn 1 ran entirely inline; turn 2 stops at the first charge
    expect(step.effects).toEqual([
      // the lookup is the first call inside task charge_1, the charge its second (#2)
      {
        id: `${sha('wf-1\u0000task\u0000charge_1')}#2`,
        taskId: 'charge_1',
        tool: 'charge',
        args: { order_id: 1, amount: 10 },
        idempotencyKey: `${sha('wf-1\u0000task\u0000charge_1')}#2`,
        call: { line: 1, text: PROGRAMS[1]!.trim() },
      },
    ]);
    expect(calls).toEqual(['lookup 1']);
    expect(step.state.pending?.code).toBe(PROGRAMS[1]);
    expect(step.toolCalls.map((c) => c.tool)).toEqual(['lookup']);
    expect(step.usage.llmRequests).toBe(2);
  });

  it('resume re-runs the same program (no LLM call) with the results, against host journal + the pass delta', async () => {
    const { agent, calls } = shop();
    const model = listModel(PROGRAMS);
    const hostJournal = new Map<string, Json>([['earlier', 1]]);
    let step = await startPass({ agent, input: {}, journal: hostJournal, runId: 'wf-1', model, effects: 'suspend' });
    const batches: string[][] = [];
    while (step.kind === 'effects') {
      batches.push(step.effects.map((e) => e.taskId!));
      const requestsBefore = model.requests.length;
      const results = await host(agent, step);
      // the host journal never contains this pass's commits
      step = await resumePass({ agent, state: step.state, journal: hostJournal, effectResults: results, model });
      if (step.kind === 'effects') expect(model.requests.length).toBe(requestsBefore + (batches.length === 2 ? 2 : 0));
    }
    expect(batches).toEqual([['charge_1'], ['charge_2'], ['refund_1', 'refund_2']]);
    expect(step.outcome).toEqual({
      status: 'return',
      value: {
        charged: ['tx_1_10', 'tx_2_20'],
        refunds: ['tx_10_1', 'tx_20_1'],
        last: 'type_error',
        amount: 10,
        pending: [1, 2],
      },
    });
    expect(step.journalDelta.map(([k]) => k)).toEqual(['charge_1', 'charge_2', 'notify', 'refund_1', 'refund_2']);
    expect(step.resets).toEqual([]);
    expect(step.summaries).toEqual({ '1': 'listed', '2': 'charged' });
    // each external effect ran once; answered effects and inline calls appear once each
    expect(calls.filter((c) => c.startsWith('charge'))).toEqual(['charge 1', 'charge 2', 'charge 10', 'charge 20']);
    expect(calls.filter((c) => c === 'notify 2')).toHaveLength(1);
    // reads ran once per program: re-evaluations after effects answered them from the pass
    // (the last turn is a new program, so its lookup runs anew)
    expect(calls.filter((c) => c.startsWith('lookup'))).toEqual(['lookup 1', 'lookup 2', 'lookup 1']);
    const charged = step.toolCalls.filter((c) => c.tool === 'charge').map((c) => c.taskId);
    expect(charged).toEqual(['charge_1', 'charge_2', 'refund_1', 'refund_2']);
    expect(step.trace.map((t) => t.suspensions)).toEqual([0, 2, 0, 1, 0]);
  });

  it('a failed effect ends the program with a tool_error the model sees; nothing is committed for it', async () => {
    const { agent } = shop();
    const model = listModel([
      '(task "charge_1" (tool/charge {:order_id 1 :amount 5}))',
      '(return (:message data/fail))',
    ]);
    let step = await startPass({ agent, input: {}, journal: new Map(), runId: 'wf-2', model, effects: 'suspend' });
    while (step.kind === 'effects') {
      const results = await host(agent, step, () => 'card declined');
      step = await resumePass({ agent, state: step.state, journal: new Map(), effectResults: results, model });
    }
    expect(lastUserMessage(model, 2)).toMatch(/^Error: tool_error: tool\/charge failed: card declined/);
    expect(step.outcome).toEqual({ status: 'return', value: 'tool/charge failed: card declined' });
    expect(step.journalDelta).toEqual([]);
    expect(step.toolCalls.map((c) => [c.tool, c.error])).toEqual([['charge', 'card declined']]);
  });

  it('a read whose answer changes on every call runs once per program: every evaluation sees the same data', async () => {
    let n = 0;
    const ticket = tool('ticket', () => ({ n: ++n }), 'read_only');
    const send = tool('send', ({ n: k }: { n: number }) => ({ sent: k }), 'external', z.object({ n: z.number() }));
    const agent = testAgent({ tools: [ticket, send] });
    // the branch depends on the read: a second answer would change the branch and the task
    const program =
      '(let [t (:n (tool/ticket {}))] (if (odd? t) (task "send_odd" (tool/send {:n t})) (task "send_even" (tool/send {:n t}))) (task "again" (tool/send {:n (* 10 t)})) (return t))';
    let step = await startPass({
      agent,
      input: {},
      journal: new Map(),
      runId: 'wf-t',
      model: listModel([program]),
      effects: 'suspend',
    });
    const effects: string[] = [];
    while (step.kind === 'effects') {
      effects.push(...step.effects.map((e) => `${e.taskId}:${JSON.stringify(e.args)}`));
      const results: Record<string, EffectResult> = Object.fromEntries(
        step.effects.map((e) => [e.id, { ok: { sent: (e.args as { n: number }).n } }]),
      );
      step = await resumePass({
        agent,
        state: step.state,
        journal: new Map(),
        effectResults: results,
        model: listModel([program]),
      });
    }
    expect(n).toBe(1);
    expect(effects).toEqual(['send_odd:{"n":1}', 'again:{"n":10}']);
    expect(step.outcome).toEqual({ status: 'return', value: 1 });
    expect(step.toolCalls.filter((c) => c.tool === 'ticket')).toHaveLength(1);
  });

  it('inline mode runs external tools inside the program: no suspension', async () => {
    const { agent, calls } = shop();
    const step = await startPass({
      agent,
      input: {},
      journal: new Map(),
      runId: 'wf-3',
      model: listModel(PROGRAMS),
      effects: 'inline',
    });
    expect(step.kind).toBe('done');
    expect(calls.filter((c) => c.startsWith('charge'))).toHaveLength(4);
  });

  it("resumePass rejects a state of another agent or without a pending program, and never changes the caller's state", async () => {
    const { agent } = shop();
    const step = await startPass({
      agent,
      input: {},
      journal: new Map(),
      runId: 'wf-4',
      model: listModel(PROGRAMS),
      effects: 'suspend',
    });
    if (step.kind !== 'effects') throw new Error('expected effects');
    const other = testAgent();
    const copy = JSON.stringify(step.state);
    await expect(
      resumePass({
        agent: { ...other, name: 'other' } as unknown as typeof agent,
        state: step.state,
        journal: new Map(),
        effectResults: {},
        model: listModel([]),
      }),
    ).rejects.toThrow(PassStateError);
    await expect(
      resumePass({
        agent,
        state: { ...step.state, pending: null },
        journal: new Map(),
        effectResults: {},
        model: listModel([]),
      }),
    ).rejects.toThrow(/no suspended program/);
    // resuming without the results suspends again at the same effect
    const again = await resumePass({
      agent,
      state: step.state,
      journal: new Map(),
      effectResults: {},
      model: listModel(PROGRAMS),
    });
    expect(again.kind === 'effects' && again.effects.map((e) => e.taskId)).toEqual(['charge_1']);
    expect(JSON.stringify(step.state)).toBe(copy);
  });
});

describe('a resumed pass in a fresh process behaves like an uninterrupted one', () => {
  it('JSON-serialised state and a fresh model at every step give the same outcome, journal delta, summaries, trace and tool calls', async () => {
    // uninterrupted: runNavigator drives the same step functions in one process
    const a = shop();
    const inProcess = await runNavigator(a.agent, {
      input: {},
      journal: [['earlier', 0]],
      model: listModel(PROGRAMS),
      runId: 'wf-eq',
      effects: 'suspend',
    });

    // "fresh process": every step gets the state through JSON and a new model instance
    const b = shop();
    const hostJournal: Array<[string, Json]> = [['earlier', 0]];
    let step = await startPass({
      agent: b.agent,
      input: {},
      journal: new Map(hostJournal),
      runId: 'wf-eq',
      model: listModel(PROGRAMS),
      effects: 'suspend',
    });
    let steps = 1;
    while (step.kind === 'effects') {
      const wire = JSON.stringify({ state: step.state, results: await host(b.agent, step) });
      const { state, results } = JSON.parse(wire);
      step = await resumePass({
        agent: b.agent,
        state,
        journal: new Map(hostJournal),
        effectResults: results,
        model: listModel(PROGRAMS),
      });
      steps++;
    }
    expect(steps).toBe(4);
    const done = strip(step);
    expect(inProcess.status).toBe('ok');
    expect(done.outcome).toEqual({ status: 'return', value: inProcess.value });
    expect(done.journalDelta).toEqual(inProcess.journalDelta);
    expect(done.resets).toEqual(inProcess.resets);
    expect(done.summaries).toEqual(inProcess.summaries);
    expect(done.trace).toEqual(inProcess.trace);
    expect(done.usage).toEqual(inProcess.usage);
    expect(done.warnings).toEqual(inProcess.warnings);
    expect(done.toolCalls).toEqual(inProcess.toolCalls.map(({ durationMs: _d, ...c }) => c));
    expect(b.calls).toEqual(a.calls);
    // and the same as running everything inline (apart from when the effects ran)
    const c = shop();
    const inline = await runNavigator(c.agent, {
      input: {},
      journal: [['earlier', 0]],
      model: listModel(PROGRAMS),
      runId: 'wf-eq',
    });
    expect(inline.value).toEqual(inProcess.value);
    expect(inline.journal).toEqual(inProcess.journal);
  });

  it('runNavigator(onSuspend) can swap the state for its JSON copy at each suspension', async () => {
    const { agent } = shop();
    let seen = 0;
    const s = await runNavigator(agent, {
      input: {},
      model: listModel(PROGRAMS),
      runId: 'wf-5',
      effects: 'suspend',
      onSuspend: (state) => (seen++, JSON.parse(JSON.stringify(state))),
    });
    expect(seen).toBe(3);
    expect(s.status).toBe('ok');
    expect(s.journal.map(([k]) => k)).toEqual(['charge_1', 'charge_2', 'notify', 'refund_1', 'refund_2']);
  });
});
