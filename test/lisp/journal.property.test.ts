/**
 * Journal idempotency: running a generated program twice, the second time with the
 * journal from the first run, calls no tool the second time and gives the same value.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { run } from '../../src/lisp/index.ts';
import { prStr } from '../../src/lisp/printer/index.ts';
import type { ToolDef } from '../../src/lisp/tools.ts';

function makeTools(counter: { n: number }): ToolDef[] {
  return [
    {
      name: 'fetch',
      description: '',
      input: z.object({ id: z.number() }),
      sideEffect: 'read_only',
      handler: async ({ id }: { id: number }) => {
        counter.n++;
        return { id, score: id * 3, tags: ['a', `t${id}`] };
      },
    },
    {
      name: 'send',
      description: '',
      input: z.object({ to: z.string() }),
      handler: ({ to }: { to: string }) => {
        counter.n++;
        return `sent:${to}`;
      },
    },
  ];
}

/** A task whose body calls a tool, wrapped in one of several contexts. */
const taskExpr = fc
  .record({
    id: fc.integer({ min: 0, max: 5 }),
    arg: fc.integer({ min: 0, max: 9 }),
    tool: fc.constantFrom('fetch', 'send'),
    wrap: fc.constantFrom('plain', 'let', 'fn', 'map', 'pmap', 'loop', 'for', 'nested', 'computed-id'),
  })
  .map(({ id, arg, tool, wrap }) => {
    const call = tool === 'fetch' ? `(:score (tool/fetch {:id ${arg}}))` : `(tool/send {:to "u${arg}"})`;
    const t = (body: string) => `(task "t${id}" ${body})`;
    switch (wrap) {
      case 'plain':
        return t(call);
      case 'let':
        return `(let [v ${t(call)}] [v v])`;
      case 'fn':
        return `((fn [] ${t(call)}))`;
      case 'map':
        return `(doall (map (fn [x] (task (str "m${id}_" x) ${call})) [1 2]))`;
      case 'pmap':
        return `(pmap (fn [x] (task (str "p${id}_" x) ${call})) [1 2 3])`;
      case 'loop':
        return `(loop [i 0 acc []] (if (< i 2) (recur (inc i) (conj acc (task (str "l${id}_" i) ${call}))) acc))`;
      case 'for':
        return `(doall (for [x [1 2]] (task (str "f${id}_" x) ${call})))`;
      case 'nested':
        return `(task "outer${id}" [${t(call)} ${call}])`;
      default:
        return `(task (str "c" ${id}) ${call})`;
    }
  });

describe('journal idempotency (property)', () => {
  it('a second run with the first run’s journal calls no tool and returns the same value', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(taskExpr, { minLength: 1, maxLength: 6 }), async (exprs) => {
        const src = `[${exprs.join('\n')}]`;
        const c1 = { n: 0 };
        const r1 = await run(src, { tools: makeTools(c1), journal: new Map() });
        expect(r1.status).toBe('ok');
        const c2 = { n: 0 };
        const r2 = await run(src, { tools: makeTools(c2), journal: r1.journal });
        expect(r2.status).toBe('ok');
        expect(c2.n).toBe(0);
        expect(r2.toolCalls).toEqual([]);
        if (r1.status === 'ok' && r2.status === 'ok') expect(prStr(r2.value)).toBe(prStr(r1.value));
        expect([...r2.journal!.entries()]).toEqual([...r1.journal!.entries()]);
      }),
      { numRuns: 150 },
    );
  });
});
