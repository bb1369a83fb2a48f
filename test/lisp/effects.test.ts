/** Effect suspension, resumption and idempotency keys. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { run } from '../../src/lisp/index.ts';
import type { EffectOptions, Journal } from '../../src/lisp/api.ts';
import type { Json, ToolContext, ToolDef } from '../../src/lisp/tools.ts';
import { prStr } from '../../src/lisp/printer/index.ts';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

function setup() {
  const inline: { args: unknown; ctx: ToolContext }[] = [];
  const tools: ToolDef[] = [
    {
      name: 'charge',
      description: 'charge a card',
      input: z.object({ order_id: z.number(), amount: z.number() }),
      sideEffect: 'external',
      handler: () => {
        throw new Error('effects never run inline');
      },
    },
    {
      name: 'lookup',
      description: 'read',
      input: z.object({ id: z.number() }),
      sideEffect: 'read_only',
      handler: async (args: { id: number }, ctx: ToolContext) => {
        inline.push({ args, ctx });
        return { id: args.id, amount: args.id * 10 };
      },
    },
  ];
  const effects = (results?: Map<string, Json>): EffectOptions => ({
    runId: 'run-1',
    isEffect: (t) => (t.sideEffect ?? 'external') === 'external',
    results,
  });
  return { tools, inline, effects };
}

const PROGRAM = `
(def orders [1 2])
(def charged
  (pmap (fn [id]
          (let [o (task (str "lookup_" id) (tool/lookup {:id id}))]
            (task (str "charge_" id) (tool/charge {:order-id id :amount (:amount o)}))))
        orders))
(task "summary" (count charged))`;

describe('effects', () => {
  it('an external call suspends; effects from pmap branches are returned together', async () => {
    const { tools, effects } = setup();
    const r = await run(PROGRAM, { tools, journal: new Map(), effects: effects() });
    expect(r.status).toBe('suspended');
    if (r.status !== 'suspended') return;
    expect(r.effects.map((e) => [e.tool, e.taskId, e.args])).toEqual([
      ['charge', 'charge_1', { order_id: 1, amount: 10 }],
      ['charge', 'charge_2', { order_id: 2, amount: 20 }],
    ]);
    for (const e of r.effects) {
      expect(e.id).toBe(e.idempotencyKey);
      expect(e.id).toBe(sha(`run-1\u0000task\u0000${e.taskId}`));
    }
    // the live journal carries the inline commits made so far
    expect([...r.journal!.keys()]).toEqual(['lookup_1', 'lookup_2']);
  });

  it('each effect carries the program line that asked for it; a very long line is cut around the call, marked', async () => {
    const { tools, effects } = setup();
    const r = await run(PROGRAM, { tools, journal: new Map(), effects: effects() });
    if (r.status !== 'suspended') throw new Error(r.status);
    expect(r.effects[0]!.call).toEqual({
      line: 6,
      text: '(task (str "charge_" id) (tool/charge {:order-id id :amount (:amount o)}))))',
    });
    const pad = `(def xs [${' 1'.repeat(200)}])`;
    const long = await run(`${pad} (task "c" (tool/charge {:order-id 7 :amount 1})) ${pad}`, {
      tools,
      journal: new Map(),
      effects: effects(),
    });
    if (long.status !== 'suspended') throw new Error(long.status);
    const text = long.effects[0]!.call!.text;
    expect(long.effects[0]!.call!.line).toBe(1);
    expect(text.length).toBeLessThanOrEqual(242);
    expect(text).toMatch(/^….*\(tool\/charge \{:order-id 7 :amount 1\}\).*…$/);
  });

  it('resuming with effect results reaches the same tasks and commits them', async () => {
    const { tools, effects, inline } = setup();
    const r1 = await run(PROGRAM, { tools, journal: new Map(), effects: effects() });
    if (r1.status !== 'suspended') throw new Error('expected suspension');
    const results = new Map<string, Json>(
      r1.effects.map((e) => [e.id, `tx_${(e.args as { order_id: number }).order_id}`]),
    );
    const r2 = await run(PROGRAM, { tools, journal: new Map(), effects: effects(results) });
    expect(r2.status).toBe('ok');
    expect(Object.fromEntries(r2.journal!)).toEqual({
      lookup_1: { id: 1, amount: 10 },
      lookup_2: { id: 2, amount: 20 },
      charge_1: 'tx_1',
      charge_2: 'tx_2',
      summary: 2,
    });
    // inline tools received the same task-derived keys both times
    expect(new Set(inline.map((c) => c.ctx.idempotencyKey))).toEqual(
      new Set([sha('run-1\u0000task\u0000lookup_1'), sha('run-1\u0000task\u0000lookup_2')]),
    );
  });

  it('resuming with the results committed to the journal gets hits and calls nothing', async () => {
    const { tools, effects, inline } = setup();
    const journal: Journal = new Map<string, Json>([
      ['lookup_1', { id: 1, amount: 10 }],
      ['lookup_2', { id: 2, amount: 20 }],
      ['charge_1', 'tx_1'],
      ['charge_2', 'tx_2'],
    ]);
    const r = await run(PROGRAM, { tools, journal, effects: effects() });
    expect(r.status === 'ok' && r.value).toBe(2);
    expect(inline).toEqual([]);
    expect(r.toolCalls).toEqual([]);
  });

  it('an external call outside tasks is keyed by tool and canonical args', async () => {
    const { tools, effects } = setup();
    const r = await run('(tool/charge {:amount 5 :order-id 9})', { tools, effects: effects() });
    if (r.status !== 'suspended') throw new Error('expected suspension');
    expect(r.effects[0]!.taskId).toBeNull();
    expect(r.effects[0]!.id).toBe(sha('run-1\u0000charge\u0000{"amount":5,"order_id":9}'));
    const done = await run('(tool/charge {:amount 5 :order-id 9})', {
      tools,
      effects: effects(new Map([[r.effects[0]!.id, { ok: true }]])),
    });
    expect(done.status === 'ok' && prStr(done.value)).toBe('{"ok" true}');
  });

  it('a second call in one task body gets #2', async () => {
    const { tools, effects } = setup();
    const src = '(task "t" [(tool/charge {:order-id 1 :amount 1}) (tool/charge {:order-id 1 :amount 2})])';
    const r1 = await run(src, { tools, journal: new Map(), effects: effects() });
    if (r1.status !== 'suspended') throw new Error('expected suspension');
    const k1 = r1.effects[0]!.id;
    expect(k1).toBe(sha('run-1\u0000task\u0000t'));
    const r2 = await run(src, { tools, journal: new Map(), effects: effects(new Map([[k1, 'a']])) });
    if (r2.status !== 'suspended') throw new Error('expected suspension');
    expect(r2.effects[0]!.id).toBe(`${k1}#2`);
    const r3 = await run(src, {
      tools,
      journal: new Map(),
      effects: effects(
        new Map([
          [k1, 'a'],
          [`${k1}#2`, 'b'],
        ]),
      ),
    });
    expect(r3.status === 'ok' && prStr(r3.value)).toBe('["a" "b"]');
    expect(Object.fromEntries(r3.journal!)).toEqual({ t: ['a', 'b'] });
  });

  it('without effects options every tool runs inline, with keys from the runId option', async () => {
    const calls: string[] = [];
    const tools: ToolDef[] = [
      {
        name: 'x',
        description: '',
        input: z.object({ n: z.number() }),
        handler: (a: { n: number }, ctx: ToolContext) => {
          calls.push(ctx.idempotencyKey);
          return a.n;
        },
      },
    ];
    await run('(tool/x {:n 1}) (task "k" (tool/x {:n 2}))', { tools, journal: new Map(), runId: 'abc' });
    expect(calls).toEqual([sha('abc\u0000x\u0000{"n":1}'), sha('abc\u0000task\u0000k')]);
  });

  it('an inline async handler is invoked exactly once per call even though the program is re-evaluated', async () => {
    let n = 0;
    const tools: ToolDef[] = [{ name: 'inc', description: '', input: z.object({}), handler: async () => ++n }];
    const r = await run('[(tool/inc) (tool/inc) (tool/inc)]', { tools });
    expect(r.status === 'ok' && prStr(r.value)).toBe('[1 2 3]');
    expect(n).toBe(3);
    expect(r.toolCalls.map((c) => c.result)).toEqual([1, 2, 3]);
  });

  it('a hit never evaluates its body: no tool call, no effect', async () => {
    const { tools, effects } = setup();
    const r = await run('(task "c" (tool/charge {:order-id 1 :amount 1}))', {
      tools,
      journal: new Map([['c', 'done']]),
      effects: effects(),
    });
    expect(r.status === 'ok' && r.value).toBe('done');
  });

  it('the deadline covers waiting for async tools and aborts their signal', async () => {
    let aborted = false;
    const tools: ToolDef[] = [
      {
        name: 'hang',
        description: '',
        input: z.object({}),
        handler: (_a: unknown, ctx: ToolContext) =>
          new Promise((res) => {
            ctx.signal.addEventListener('abort', () => {
              aborted = true;
              res(null);
            });
          }),
      },
    ];
    const r = await run('(task "a" 1) (tool/hang)', { tools, journal: new Map(), limits: { timeoutMs: 50 } });
    expect(r.status === 'error' && r.error.details?.limit).toBe('timeout');
    expect(Object.fromEntries(r.journal!)).toEqual({ a: 1 });
    expect(aborted).toBe(true);
  });
});

describe('effects that failed elsewhere', () => {
  const SOURCE = `(task "lookup_1" (tool/lookup {:id 1}))
(task "charge_1"
  (tool/charge {:order-id 1 :amount 10}))`;

  it('raise a located tool_error at the call; earlier commits stay', async () => {
    const { tools, effects } = setup();
    const first = await run(SOURCE, { tools, journal: new Map(), effects: effects() });
    expect(first.status).toBe('suspended');
    if (first.status !== 'suspended') return;
    const id = first.effects[0]!.id;
    const r = await run(SOURCE, {
      tools,
      journal: new Map(),
      effects: { ...effects(), errors: new Map([[id, 'card declined']]) },
    });
    expect(r.status).toBe('error');
    if (r.status !== 'error') return;
    expect(r.error.code).toBe('tool_error');
    expect(r.error.message).toBe('tool/charge failed: card declined');
    expect([r.error.line, r.error.column]).toEqual([3, 3]);
    expect([...r.journal!.keys()]).toEqual(['lookup_1']);
    expect(r.toolCalls.find((c) => c.tool === 'charge')).toMatchObject({ error: 'card declined', idempotencyKey: id });
  });

  it('can be caught by the program like any tool failure', async () => {
    const { tools, effects } = setup();
    const src = `(try (task "charge_1" (tool/charge {:order-id 1 :amount 10})) (catch Exception e (str "handled: " (ex-message e))))`;
    const first = await run(src, { tools, journal: new Map(), effects: effects() });
    if (first.status !== 'suspended') throw new Error('expected a suspension');
    const r = await run(src, {
      tools,
      journal: new Map(),
      effects: { ...effects(), errors: new Map([[first.effects[0]!.id, 'card declined']]) },
    });
    expect(r.status === 'ok' && r.value).toBe('handled: card declined');
  });
});
