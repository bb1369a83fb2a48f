/**
 * The journal forms `task`, `step-done`, `task-reset`: the reference's behavioural
 * scenarios 1–23 and 45–49 (ptc-runner-behaviour.md §8), adapted to ptc-lisp.md.
 * Test names say "adapted" where we deliberately differ from the reference.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { run } from '../../src/lisp/index.ts';
import type { Journal } from '../../src/lisp/api.ts';
import { prStr } from '../../src/lisp/printer/index.ts';
import type { ToolDef } from '../../src/lisp/tools.ts';

const J = (entries: Record<string, unknown> = {}): Journal => new Map(Object.entries(entries)) as Journal;
const obj = (j: Journal | null) => (j === null ? null : Object.fromEntries(j));
const printed = (r: Awaited<ReturnType<typeof run>>) =>
  r.status === 'ok' || r.status === 'fail'
    ? prStr(r.value)
    : r.status === 'error'
      ? `error ${r.error.code}`
      : 'suspended';

describe('task, step-done, task-reset (scenarios 1–23)', () => {
  it('1: a task commits its value', async () => {
    const r = await run('(task "s1" (+ 1 2))', { journal: J() });
    expect(printed(r)).toBe('3');
    expect(obj(r.journal)).toEqual({ s1: 3 });
  });

  it('2 (adapted: unknown tools are checked statically, except in the body of a literal-id task that is a journal hit): a hit never runs its body', async () => {
    const r = await run('(task "cached" (tool/missing {}))', { journal: J({ cached: 42 }) });
    expect(printed(r)).toBe('42');
    expect(obj(r.journal)).toEqual({ cached: 42 });
    // the same body with the id not in the journal is rejected before anything runs
    const miss = await run('(task "other" (tool/missing {}))', { journal: J({ cached: 42 }) });
    expect(printed(miss)).toBe('error unknown_tool');
  });

  it('3: two tasks in a do', async () => {
    const r = await run('(do (task "a" 10) (task "b" 20))', { journal: J() });
    expect(printed(r)).toBe('20');
    expect(obj(r.journal)).toEqual({ a: 10, b: 20 });
  });

  it('4: existing entries are kept, new ones appended in commit order', async () => {
    const r = await run('(task "new" 99)', { journal: J({ old: 1 }) });
    expect([...r.journal!.keys()]).toEqual(['old', 'new']);
  });

  it('5: no journal: the body runs, nothing is recorded, a journal_inactive warning is returned', async () => {
    const r = await run('(task "s1" (+ 1 2))');
    expect(printed(r)).toBe('3');
    expect(r.journal).toBeNull();
    expect(r.warnings.map((w) => w.code)).toEqual(['journal_inactive']);
  });

  it('6: a body ending in fail commits nothing', async () => {
    const r = await run('(task "t" (fail "oops"))', { journal: J() });
    expect(r.status).toBe('fail');
    expect(printed(r)).toBe('"oops"');
    expect(obj(r.journal)).toEqual({});
  });

  it('7: code after a failing task does not run', async () => {
    const r = await run('(do (task "t" (fail "oops")) (println "after") (+ 1 2))', { journal: J() });
    expect(r.status).toBe('fail');
    expect(r.prints).toEqual([]);
    expect(obj(r.journal)).toEqual({});
  });

  it('8: earlier commits survive a fail', async () => {
    const r = await run('(do (task "a" 1) (fail "x"))', { journal: J() });
    expect(r.status).toBe('fail');
    expect(obj(r.journal)).toEqual({ a: 1 });
  });

  it('9: a def-bound id', async () => {
    const r = await run('(def my-id "test-1") (task my-id 42)', { journal: J() });
    expect(obj(r.journal)).toEqual({ 'test-1': 42 });
  });

  it('10: a computed id, miss and hit', async () => {
    const src = '(let [name "bob"] (task (str "prepare_" name) "fresh"))';
    expect(obj((await run(src, { journal: J() })).journal)).toEqual({ prepare_bob: 'fresh' });
    expect(printed(await run(src, { journal: J({ prepare_bob: 'cached' }) }))).toBe('"cached"');
  });

  it('11 (adapted: the message shows the string form): an unbound symbol id is a static error', async () => {
    const r = await run('(println "side effect") (task order_1 (+ 1 2))', { journal: J() });
    expect(r.status).toBe('error');
    if (r.status !== 'error') return;
    expect(r.error.code).toBe('unbound_var');
    expect(r.error.phase).toBe('analyze');
    expect(r.error.message).toContain('task ids are strings: (task "order_1" ...)');
    expect(r.prints).toEqual([]);
  });

  it('11b (adapted): nil, empty and non-string ids at run time are a type_error', async () => {
    for (const id of ['nil', '""', '42', ':kw']) {
      const r = await run(`(task ${id} 1)`, { journal: J() });
      expect(printed(r)).toBe('error type_error');
    }
  });

  it('12: task arity', async () => {
    for (const src of ['(task "id")', '(task "id" 1 2)']) {
      const r = await run(src, { journal: J() });
      expect(printed(r)).toBe('error invalid_arity');
      if (r.status === 'error') expect(r.error.message).toBe('expected (task "id" expr)');
    }
  });

  it('13: errors keep the journal (parse, analysis, type, size limit)', async () => {
    for (const src of ['(+ 1 "bad")', '(+ 1', '(if 1 2 3 4)', '(vec (range 100000))']) {
      const r = await run(src, { journal: J({ prev: 1 }), limits: { maxCollectionSize: 1000 } });
      expect(r.status).toBe('error');
      expect(obj(r.journal)).toEqual({ prev: 1 });
    }
    const arity = await run('(if 1 2 3 4)', { journal: J() });
    expect(printed(arity)).toBe('error invalid_arity');
  });

  it('13b (adapted: commits are durable on every error path)', async () => {
    const tools: ToolDef[] = [
      {
        name: 'boom',
        description: '',
        input: z.object({}),
        handler: () => {
          throw new Error('down');
        },
      },
    ];
    const cases: [string, string][] = [
      ['(task "a" 1) (+ 1 "x")', 'type_error'],
      ['(task "a" 1) (tool/boom)', 'tool_error'],
      ['(task "a" 1) (map (fn [x] (tool/boom)) [1])', 'tool_error'],
      ['(task "a" 1) (loop [] (recur))', 'limit_exceeded'],
      ['(task "a" 1) (pmap (fn [x] (/ x 0)) [1 2])', 'arithmetic_error'],
    ];
    for (const [src, code] of cases) {
      const r = await run(src, { journal: J(), tools, limits: { fuel: 10_000 } });
      expect(printed(r)).toBe(`error ${code}`);
      expect(obj(r.journal)).toEqual({ a: 1 });
    }
    const timeout = await run('(task "a" 1) (loop [] (recur))', {
      journal: J(),
      limits: { timeoutMs: 50, fuel: 1e12 },
    });
    expect(timeout.status === 'error' && timeout.error.details?.limit).toBe('timeout');
    expect(obj(timeout.journal)).toEqual({ a: 1 });
  });

  it('14: a second run with the journal calls no tool, even with no tools registered', async () => {
    let sent = 0;
    const tools: ToolDef[] = [
      {
        name: 'send_email',
        description: '',
        input: z.object({ to: z.string() }),
        handler: ({ to }: { to: string }) => {
          sent++;
          return `sent_to_${to}`;
        },
      },
    ];
    const r1 = await run('(task "email" (tool/send_email {:to "bob"}))', { journal: J(), tools });
    expect(printed(r1)).toBe('"sent_to_bob"');
    const r2 = await run(
      '(task "email" (tool/send_email {:to "bob"})) (str (task "email" (tool/send_email {:to "bob"})) "_done")',
      {
        journal: r1.journal,
      },
    );
    expect(printed(r2)).toBe('"sent_to_bob_done"');
    expect(sent).toBe(1);
  });

  it('15, 16: step-done returns the summary; the last one wins', async () => {
    const r = await run('[(step-done "gather" "Found 42 records") (step-done "a" "first") (step-done "a" "updated")]');
    expect(printed(r)).toBe('["Found 42 records" "first" "updated"]');
    expect(Object.fromEntries(r.summaries)).toEqual({ gather: 'Found 42 records', a: 'updated' });
  });

  it('17: numbers and computed ids are coerced to strings', async () => {
    const r = await run('(step-done 1 "done") (step-done (str "step-" 1) "x") (step-done :k 2)');
    expect(Object.fromEntries(r.summaries)).toEqual({ '1': 'done', 'step-1': 'x', k: '2' });
  });

  it('18: nil or collections are a type_error naming step-done and the argument', async () => {
    for (const [src, what] of [
      ['(step-done nil "x")', 'id'],
      ['(step-done "a" nil)', 'summary'],
      ['(step-done [1 2] "x")', 'id'],
    ]) {
      const r = await run(src!);
      expect(r.status).toBe('error');
      if (r.status === 'error') {
        expect(r.error.code).toBe('type_error');
        expect(r.error.message).toMatch(new RegExp(`step-done: ${what}`));
      }
    }
  });

  it('19 (adapted: one journal everywhere): step-done inside pmap is recorded', async () => {
    const r = await run('(pmap #(step-done % "ok") ["a" "b" "c"])');
    expect(Object.fromEntries(r.summaries)).toEqual({ a: 'ok', b: 'ok', c: 'ok' });
  });

  it('20: task-reset removes a key; missing key, no journal: no-op; nil id: type_error', async () => {
    const r = await run('(task-reset "a")', { journal: J({ a: 1, b: 2 }) });
    expect(printed(r)).toBe('nil');
    expect(obj(r.journal)).toEqual({ b: 2 });
    expect(obj((await run('(task-reset "zz")', { journal: J({ b: 2 }) })).journal)).toEqual({ b: 2 });
    const none = await run('(task-reset "a")');
    expect(printed(none)).toBe('nil');
    expect(none.journal).toBeNull();
    expect(printed(await run('(task-reset nil)', { journal: J() }))).toBe('error type_error');
  });

  it('21: reset then task re-runs the body', async () => {
    const r = await run('(do (task-reset "t") (task "t" "new"))', { journal: J({ t: 'old' }) });
    expect(printed(r)).toBe('"new"');
    expect(obj(r.journal)).toEqual({ t: 'new' });
  });

  it('22: nesting: inner commits first; an outer hit never creates the inner', async () => {
    const src = '(task "outer" (do (task "inner" 1) 2))';
    const r = await run(src, { journal: J() });
    expect([...r.journal!.entries()]).toEqual([
      ['inner', 1],
      ['outer', 2],
    ]);
    const hit = await run(src, { journal: J({ outer: 5 }) });
    expect(printed(hit)).toBe('5');
    expect(obj(hit.journal)).toEqual({ outer: 5 });
  });

  it('23 (adapted: tasks inside closures passed to map DO commit)', async () => {
    const r = await run('(doall (map (fn [x] (task (str "t" x) (* x 10))) [1 2]))', { journal: J() });
    expect(printed(r)).toBe('(10 20)');
    expect(obj(r.journal)).toEqual({ t1: 10, t2: 20 });
  });

  it('23b: tasks commit inside loop, for, doseq, reduce, pmap and pcalls, in order', async () => {
    const src = `
      (loop [i 0] (when (< i 2) (task (str "loop" i) i) (recur (inc i))))
      (doall (for [x [1]] (task "for" x)))
      (doseq [x [1]] (task "doseq" x))
      (reduce (fn [acc x] (task "reduce" (+ acc x))) 0 [1 2])
      (pmap #(task (str "pmap" %) %) [1 2])
      (pcalls #(task "pcalls" :done))`;
    const r = await run(src, { journal: J() });
    expect(r.status).toBe('ok');
    expect([...r.journal!.keys()]).toEqual(['loop0', 'loop1', 'for', 'doseq', 'reduce', 'pmap1', 'pmap2', 'pcalls']);
    // reduce's second step hits the first commit of "reduce"
    expect(r.journal!.get('reduce')).toBe(1);
  });

  it('task values are normalised through JSON before they are returned (miss = hit)', async () => {
    const src = '(task "t" {:a :kw :b #{1} :c (list 1 2)})';
    const miss = await run(src, { journal: J() });
    const hit = await run(src, { journal: miss.journal });
    expect(printed(miss)).toBe('{"a" "kw", "b" [1], "c" [1 2]}');
    expect(printed(hit)).toBe(printed(miss));
    expect(obj(miss.journal)).toEqual({ t: { a: 'kw', b: [1], c: [1, 2] } });
    const fn = await run('(task "f" inc)', { journal: J() });
    expect(printed(fn)).toBe('error type_error');
    expect(obj(fn.journal)).toEqual({});
  });

  it('the same id used twice in one program is a hit the second time', async () => {
    const r = await run('(task "x" (println "once")) (task "x" (println "twice"))', { journal: J() });
    expect(r.prints).toEqual(['once']);
  });

  it('return inside a task body commits nothing but keeps earlier commits', async () => {
    const r = await run('(task "a" 1) (task "b" (return 2))', { journal: J() });
    expect(printed(r)).toBe('2');
    expect(obj(r.journal)).toEqual({ a: 1 });
  });

  it('the input journal is never mutated', async () => {
    const j = J({ a: 1 });
    await run('(task-reset "a") (task "b" 2)', { journal: j });
    expect(obj(j)).toEqual({ a: 1 });
  });
});

describe('language semantics worth pinning (scenarios 45–49)', () => {
  it('45: (or undefined default); nested undefined is static; undefined after a tool call fails before the tool runs', async () => {
    expect(printed(await run('(or my-var 42)'))).toBe('42');
    expect(printed(await run('(or (inc undefined-var) 0)'))).toBe('error unbound_var');
    let calls = 0;
    const tools: ToolDef[] = [{ name: 't', description: '', input: z.object({}), handler: () => ++calls }];
    expect(printed(await run('(tool/t) (inc nope)', { tools }))).toBe('error unbound_var');
    expect(calls).toBe(0);
  });

  it('46 (adapted: println inside pmap is captured)', async () => {
    expect((await run('(loop [i 0] (when (< i 3) (println i) (recur (inc i))))')).prints).toEqual(['0', '1', '2']);
    const m = await run('(doall (map println [1 2 3]))');
    expect(printed(m)).toBe('(nil nil nil)');
    expect(m.prints).toEqual(['1', '2', '3']);
    expect((await run('(pmap println [1 2])')).prints).toEqual(['1', '2']);
  });

  it('47 (adapted: no float rounding; numbers print in shortest round-trip form)', async () => {
    expect(printed(await run('(/ 10 3)'))).toBe('3.3333333333333335');
    expect(printed(await run('[1.12345 2.67891]'))).toBe('[1.12345 2.67891]');
    expect(printed(await run('(/ 10 2)'))).toBe('5');
  });

  it('48: where coercion', async () => {
    expect(printed(await run('(count (filter (where :s = :a) [{"s" "a"}]))'))).toBe('1');
    expect(printed(await run('(count (filter (where :a = true) [{"a" "true"}]))'))).toBe('0');
    expect(printed(await run('(count (filter (where :t includes :x) [{:t ["x"]}]))'))).toBe('1');
    expect(printed(await run('((where :missing > 0) {:a 1})'))).toBe('false');
  });

  it('49: stray closers, regex literal = re-pattern, \\r is the letter r', async () => {
    expect(printed(await run('(+ 1 2)))'))).toBe('3');
    expect(printed(await run('[(re-find #"\\d+" "ab12") (re-find (re-pattern "\\\\d+") "ab12")]'))).toBe('["12" "12"]');
    expect(printed(await run('(str \\r)'))).toBe('"r"');
  });
});
