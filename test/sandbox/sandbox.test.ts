/**
 * The sandbox runs programs like the interpreter does (same results, journal, namespace,
 * tool calls, effects), while the host's event loop stays free and a heap cap stops
 * memory bombs.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RunOptions, RunResult } from '../../src/lisp/api.ts';
import { run } from '../../src/lisp/index.ts';
import { prStr } from '../../src/lisp/printer/index.ts';
import type { ToolDef } from '../../src/lisp/tools.ts';
import { closeSandboxes, runSandboxed } from '../../src/sandbox/index.ts';

afterAll(() => closeSandboxes());

const calls: string[] = [];
const tools: ToolDef[] = [
  {
    name: 'add',
    description: 'adds',
    input: z.object({ a: z.number(), b_c: z.number().default(0) }),
    sideEffect: 'read_only',
    handler: async ({ a, b_c }: { a: number; b_c: number }) => (calls.push(`add ${a}`), { sum: a + b_c }),
  },
  {
    name: 'boom',
    description: 'fails',
    input: z.object({}),
    sideEffect: 'local',
    handler: () => {
      throw new Error('kaboom');
    },
  },
  {
    name: 'send',
    description: 'external',
    input: z.object({ to: z.string() }),
    sideEffect: 'external',
    handler: () => ({ sent: true }),
  },
];

/** What a result says, in comparable text. */
function summary(r: RunResult): unknown {
  const outcome =
    r.status === 'ok' || r.status === 'fail'
      ? prStr(r.value)
      : r.status === 'error'
        ? `${r.error.code}: ${r.error.message} @${r.error.span?.line}:${r.error.span?.col}`
        : JSON.stringify(r.effects);
  return {
    status: r.status,
    outcome,
    journal: r.journal ? [...r.journal] : null,
    namespace: [...r.namespace.keys()],
    prints: r.prints,
    tools: r.toolCalls.map((c) => [c.tool, c.args, c.result ?? c.error ?? null]),
    summaries: [...r.summaries],
  };
}

const programs = [
  '(+ 1 2)',
  '(defn f [x] (* x 2)) (def n 21) (f n)',
  '(tool/add {:a 1 :b-c 2})',
  '(tool/add {:a "x"})',
  '(task "t1" (tool/add {:a 5}))',
  '(task "t2" (tool/boom))',
  '(try (tool/boom) (catch Exception e (str "caught: " (ex-message e))))',
  '(println "hi" [1 {:a "b"}]) (fail {:why "no"})',
  '(step-done "s1" "first step") (return \'(1 2))',
  '(task "mail" (tool/send {:to "ann"}))',
  '(let [r (pmap #(tool/add {:a %}) [1 2 3])] (map :sum r))',
  '(/ 1 0)',
  '(unknown-fn 1)',
];

describe('the sandbox runs programs as the interpreter does', () => {
  it.each(programs)('%s', async (source) => {
    const opts = (): RunOptions => ({
      tools,
      journal: new Map([['done_before', 1]]),
      namespace: new Map(),
      effects: { runId: 'r1', isEffect: (t) => t.sideEffect === 'external', results: new Map(), errors: new Map() },
      runId: 'r1',
    });
    const inProcess = await run(source, opts());
    const sandboxed = await runSandboxed(source, opts());
    expect(summary(sandboxed)).toEqual(summary(inProcess));
  });

  it('carries namespaces with closures and effect results across', async () => {
    const first = await runSandboxed('(defn twice [x] (* 2 x)) (def data [1 2])', {});
    expect([...first.namespace.keys()]).toEqual(['twice', 'data']);
    const second = await runSandboxed('(map twice data)', { namespace: first.namespace });
    expect(second.status === 'ok' && prStr(second.value)).toBe('(2 4)');
    const suspended = await runSandboxed('(task "mail" (tool/send {:to "ann"}))', {
      tools,
      journal: new Map(),
      effects: { runId: 'r', isEffect: (t) => t.sideEffect === 'external' },
    });
    expect(suspended.status).toBe('suspended');
    const key = suspended.status === 'suspended' ? suspended.effects[0]!.id : '';
    const resumed = await runSandboxed('(task "mail" (tool/send {:to "ann"}))', {
      tools,
      journal: new Map(),
      effects: { runId: 'r', isEffect: (t) => t.sideEffect === 'external', results: new Map([[key, { sent: 'yes' }]]) },
    });
    expect(resumed.status === 'ok' && prStr(resumed.value)).toBe('{"sent" "yes"}');
    expect([...resumed.journal!]).toEqual([['mail', { sent: 'yes' }]]);
  });
});

describe('containment', () => {
  it('keeps the host event loop free while a program runs long', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const result = await runSandboxed('(loop [i 0] (recur (inc i)))', { limits: { fuel: 1e13, timeoutMs: 1000 } });
    clearInterval(timer);
    expect(result.status === 'error' && result.error.code).toBe('limit_exceeded');
    // in-process evaluation would block this thread for the whole second: no tick at all
    expect(ticks).toBeGreaterThan(10);
  });

  it('stops a memory bomb at the heap cap with limit_exceeded', { timeout: 60_000 }, async () => {
    const result = await runSandboxed(
      '(count (reduce (fn [acc i] (conj acc (vec (range 100000)))) [] (range 100000)))',
      { limits: { fuel: 1e13, timeoutMs: 60_000 } },
      { maxMemoryMb: 64 },
    );
    expect(result.status).toBe('error');
    expect(result.status === 'error' && [result.error.code, result.error.message]).toEqual([
      'limit_exceeded',
      'program used more than 64 MB of memory and was stopped',
    ]);
    // the pool goes on with a fresh thread
    const after = await runSandboxed('(+ 1 2)', {}, { maxMemoryMb: 64 });
    expect(after.status === 'ok' && after.value).toBe(3);
  });

  it('a program stopped from outside keeps the commits it made and the tool calls that ran', async () => {
    const seen: string[] = [];
    const result = await runSandboxed(
      '(task "first" (tool/add {:a 1})) (task "second" 2) (task-reset "second") (loop [i 0] (recur (inc i)))',
      { tools, journal: new Map(), limits: { fuel: 1e13, timeoutMs: 60_000 }, onJournal: (c) => seen.push(c.id) },
      { hardLimitMs: 1500 },
    );
    expect(result.status === 'error' && [result.error.code, result.error.message]).toEqual([
      'limit_exceeded',
      'program exceeded the 1500 ms time limit and was stopped',
    ]);
    expect([...result.journal!]).toEqual([['first', { sum: 1 }]]);
    expect(result.toolCalls.map((c) => [c.tool, c.result])).toEqual([['add', { sum: 1 }]]);
    expect(seen).toEqual(['first', 'second', 'second']);
  });

  it("a new thread's start does not count against its first program's time", { timeout: 120_000 }, async () => {
    // a heap size no other test uses: a new thread, which loads its modules (with tsx,
    // most of a second) before the program's 300 ms start
    const result = await runSandboxed('(+ 1 2)', {}, { maxMemoryMb: 96, hardLimitMs: 300 });
    expect(result.status === 'ok' && result.value).toBe(3);
  });

  it('runs many programs at once through a bounded number of threads', { timeout: 60_000 }, async () => {
    const results = await Promise.all(Array.from({ length: 24 }, (_, i) => runSandboxed(`(* ${i} 2)`, {})));
    expect(results.map((r) => (r.status === 'ok' ? r.value : r.status))).toEqual(
      Array.from({ length: 24 }, (_, i) => i * 2),
    );
  });
});
