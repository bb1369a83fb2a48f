/** Evaluator and analyzer, area by area. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { deserializeNamespace, run, serializeNamespace } from '../../src/lisp/index.ts';
import type { RunOptions } from '../../src/lisp/api.ts';
import { prStr } from '../../src/lisp/printer/index.ts';
import type { ToolDef } from '../../src/lisp/tools.ts';

async function value(src: string, opts: RunOptions = {}): Promise<string> {
  const r = await run(src, opts);
  if (r.status !== 'ok')
    throw new Error(`expected ok, got ${r.status}: ${r.status === 'error' ? r.error.toLine() : ''}`);
  return prStr(r.value);
}

async function error(src: string, opts: RunOptions = {}) {
  const r = await run(src, opts);
  if (r.status !== 'error') throw new Error(`expected an error, got ${r.status}`);
  expect(r.error.message).not.toMatch(/\bundefined\b|\[object Object\]/);
  return r.error;
}

const table = (rows: [string, string][]) => {
  for (const [src, want] of rows) it(src, async () => expect(await value(src)).toBe(want));
};

describe('basic forms', () => {
  table([
    ['(+ 1 2)', '3'],
    ['(do)', 'nil'],
    ['(do 1 2 3)', '3'],
    ['(if false 1)', 'nil'],
    ['(if-not false 1 2)', '1'],
    ['(when true 1 2)', '2'],
    ['(when-not true 1)', 'nil'],
    ['(let [x 1 y (inc x)] [x y])', '[1 2]'],
    ['(let [x 1] (let [x (inc x)] x))', '2'],
    ['(and)', 'true'],
    ['(and 1 nil 2)', 'nil'],
    ['(or)', 'nil'],
    ['(or nil false 3)', '3'],
    ['(cond false 1 nil 2 :else 3)', '3'],
    ['(cond false 1)', 'nil'],
    ['(if-let [x (first [5])] (* x 2) :none)', '10'],
    ['(if-let [x nil] 1 2)', '2'],
    ['(when-let [[a b] [1 2]] (+ a b))', '3'],
    ['(if-some [x false] [x] :none)', '[false]'],
    ['(when-some [x nil] x)', 'nil'],
    ['(case 2 1 :one (2 3) :two-three :other)', ':two-three'],
    ['(case :b :a 1 :b 2)', '2'],
    ['(case "x" "x" 1 2)', '1'],
    ['(case nil nil :nil :x)', ':nil'],
    ['(case [1 2] [1 2] :vec :no)', ':vec'],
    ['(case 9 1 :one :default)', ':default'],
    ['(condp = 2 1 :one 2 :two)', ':two'],
    ['(condp some [1 2] #{3} :>> inc #{2} :>> dec :none)', '1'],
    ['(comment anything at all)', 'nil'],
    ['{:a (+ 1 1) :b [1 (inc 1)]}', '{:a 2, :b [1 2]}'],
    ['#{1 (inc 1)}', '#{1 2}'],
    ['()', '()'],
  ]);
});

describe('functions and closures', () => {
  table([
    ['((fn [x] (* x x)) 4)', '16'],
    ['((fn sq [x] (* x x)) 5)', '25'],
    ['((fn fact [n] (if (< n 2) 1 (* n (fact (dec n))))) 5)', '120'],
    ['((fn ([x] x) ([x y] (+ x y))) 1 2)', '3'],
    ['((fn [a & more] [a more]) 1 2 3)', '[1 (2 3)]'],
    ['((fn [a & more] more) 1)', 'nil'],
    ['(#(+ %1 %2) 1 2)', '3'],
    ['(#(* % %) 3)', '9'],
    ['(#(apply + %&) 1 2 3)', '6'],
    ['(map #(vector % (inc %)) [1 2])', '([1 2] [2 3])'],
    ['(defn f "doc" [x] (* 2 x)) (f 4)', '8'],
    ['(defn f ([x] (f x 10)) ([x y] (+ x y))) [(f 1) (f 1 2)]', '[11 3]'],
    ['(defn f [& {:keys [a b]}] [a b]) (f :a 1 :b 2)', '[1 2]'],
    ['(def x 5) (defn g [y] (+ x y)) (g 1)', '6'],
    [
      '(defn my-even? [n] (if (zero? n) true (my-odd? (dec n)))) (defn my-odd? [n] (if (zero? n) false (my-even? (dec n)))) (my-even? 10)',
      'true',
    ],
    [
      '(letfn [(ev? [n] (if (= n 0) true (od? (dec n)))) (od? [n] (if (= n 0) false (ev? (dec n))))] (ev? 11))',
      'false',
    ],
    ['(let [adders (map (fn [n] (fn [x] (+ x n))) [1 2 3])] (map #(% 10) adders))', '(11 12 13)'],
    ['(def x 1) (defonce x 2) x', '1'],
    ['(defonce y 2) y', '2'],
    ['(def v 1)', "#'user/v"],
    ["(defn h [x] (inc x)) (#'h 1)", '2'],
    ['((comp inc inc) 1)', '3'],
  ]);

  it('a closure prints as re-readable source wrapped in its captured data', async () => {
    expect(await value('(let [y 1] (fn [x] (+ x y)))')).toBe('(let [y 1] (fn [x] (+ x y)))');
    expect(await value('(fn [x] x)')).toBe('(fn [x] x)');
    expect(await value('(let [m {:a [1 "s"]}] #(get m %))')).toBe('(let [m {:a [1 "s"]}] #(get m %))');
    expect(await value('(defn f [x] (* 2 x)) f')).toBe('(fn f [x] (* 2 x))');
  });

  it('arity errors name the function and the counts', async () => {
    expect((await error('((fn [x y] x) 1 2 3)')).message).toBe('fn expects 2 arguments, got 3');
    const e = await error('(defn f ([x] 1) ([x y] 2)) (f)');
    expect(e.code).toBe('arity_error');
    expect(e.message).toBe('f expects 1 or 2 arguments, got 0');
    expect((await error('(inc 1 2)')).code).toBe('arity_error');
  });
});

describe('destructuring', () => {
  table([
    ['(let [[a b] [1 2]] (+ a b))', '3'],
    ['(let [[a b c] [1]] [a b c])', '[1 nil nil]'],
    ['(let [[a & r :as all] [1 2 3]] [a r all])', '[1 (2 3) [1 2 3]]'],
    ['(let [[a [b c]] [1 [2 3]]] [a b c])', '[1 2 3]'],
    ['(let [[a b] "hi"] [a b])', '["h" "i"]'],
    ['(let [[a b] nil] [a b])', '[nil nil]'],
    ['(let [{:keys [a b] :or {b 9}} {:a 1}] [a b])', '[1 9]'],
    ['(let [{:keys [a] :or {a 9}} {:a nil}] a)', 'nil'],
    ['(let [{:keys [id]} {"id" 7}] id)', '7'],
    ['(let [{:strs [id]} {"id" 7}] id)', '7'],
    ['(let [{n :name [x] :xs :as m} {:name "a" :xs [5]}] [n x (count m)])', '["a" 5 2]'],
    ['(let [{{:keys [c]} :b} {:b {:c 3}}] c)', '3'],
    ['(map (fn [[k v]] (str k v)) {:a 1})', '(":a1")'],
    ['(loop [[x & more] [1 2 3] acc 0] (if x (recur more (+ acc x)) acc))', '6'],
    ['(for [{:keys [a]} [{:a 1} {:a 2}]] a)', '(1 2)'],
  ]);

  it('a non-map value for a map pattern is a destructure_error', async () => {
    expect((await error('(let [{:keys [a]} 5] a)')).code).toBe('destructure_error');
    expect((await error('(let [[a] {:a 1}] a)')).code).toBe('destructure_error');
  });
});

describe('loops and comprehensions', () => {
  table([
    ['(loop [i 0 acc 0] (if (< i 10) (recur (inc i) (+ acc i)) acc))', '45'],
    ['(defn f [n acc] (if (zero? n) acc (recur (dec n) (+ acc n)))) (f 100 0)', '5050'],
    ['((fn [& xs] (if (next xs) (recur (rest xs)) (first xs))) 1 2 3)', '3'],
    ['(for [x [1 2 3] y [:a :b] :when (odd? x)] [x y])', '([1 :a] [1 :b] [3 :a] [3 :b])'],
    ['(for [x (range 10) :while (< x 3)] x)', '(0 1 2)'],
    ['(for [x [1 2] :let [y (* x 10)] z [y (inc y)]] z)', '(10 11 20 21)'],
    ['(for [x [3 1 2] y [1 2 3] :while (< y x)] [x y])', '([3 1] [3 2] [2 1])'],
    ['(doseq [x [1 2]] (inc x))', 'nil'],
    ['(dotimes [i 3] i)', 'nil'],
    ['(count (for [x (range 2000)] x))', '2000'],
  ]);

  it('println inside loops prints every iteration', async () => {
    const r = await run('(doseq [x [1 2]] (println "x" x)) (dotimes [i 2] (println i))');
    expect(r.prints).toEqual(['x 1', 'x 2', '0', '1']);
  });
});

describe('threading', () => {
  table([
    ['(-> 1 inc (* 10))', '20'],
    ['(->> [1 2 3] (map inc) (reduce +))', '9'],
    ['(-> {:a 1} (assoc :b 2) (update :a inc))', '{:a 2, :b 2}'],
    ['(-> {:a {:b 5}} :a :b)', '5'],
    ['(some-> {:a {:b 1}} :a :b inc)', '2'],
    ['(some-> {:a nil} :a inc)', 'nil'],
    ['(some->> [1 2] (map inc) first)', '2'],
    ['(cond-> 1 true inc false (* 10) true (* 2))', '4'],
    ['(cond->> [1 2] true (map inc) false (map dec))', '(2 3)'],
    ['(as-> 1 x (+ x 1) (* x 3) [x])', '[6]'],
  ]);
});

describe('static checks', () => {
  it('undefined symbols are reported together, before anything runs', async () => {
    const e = await error('(println "hi") (foo bar)');
    expect(e.code).toBe('unbound_var');
    expect(e.message).toBe('Undefined variables: foo, bar');
    expect(e.phase).toBe('analyze');
    expect(e.line).toBe(1);
    expect(e.column).toBe(17);
  });
  it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__'])(
    '%s is no function of the language: unbound_var with line and column',
    async (name) => {
      const e = await error(`(let [x 1]\n  (${name} x))`);
      expect(e.code).toBe('unbound_var');
      expect(e.message).toBe(`Undefined variable: ${name}`);
      expect([e.line, e.column]).toEqual([2, 4]);
      expect((await error(`(str/${name} "a")`)).code).toBe('unbound_var');
    },
  );
  it('(or undefined default) is exempt; nested uses are not', async () => {
    expect(await value('(or counter 0)')).toBe('0');
    expect(await value('(or counter 0)', { namespace: new Map([['counter', 5]]) })).toBe('5');
    expect((await error('(or (inc x) 0)')).code).toBe('unbound_var');
  });
  it('recur must be in tail position', async () => {
    expect((await error('(loop [i 0] (inc (recur i)))')).message).toMatch(/tail position/);
    expect((await error('(recur 1)')).code).toBe('invalid_form');
    expect((await error('(loop [i 0] (recur))')).code).toBe('invalid_arity');
    expect((await error('(loop [i 0] (try (recur 1)))')).code).toBe('invalid_form');
  });
  it('special-form shapes', async () => {
    expect((await error('(if 1 2 3 4)')).code).toBe('invalid_arity');
    expect((await error('(let [x] x)')).code).toBe('invalid_form');
    expect((await error('(cond 1)')).code).toBe('invalid_cond_form');
    expect((await error('(fn x)')).code).toBe('invalid_form');
    expect((await error('(def)')).code).toBe('invalid_arity');
    expect((await error('(return)')).code).toBe('invalid_arity');
    expect((await error('(quote x y)')).code).toBe('invalid_form');
    expect((await error('(for [x 5] x)')).hint).toMatch(/range 5/);
    expect((await error('(map and [1])')).code).toBe('invalid_form');
  });
  it('placeholders only inside #()', async () => {
    expect((await error('(+ % 1)')).code).toBe('invalid_placeholder');
    expect((await error('#(+ % (#(inc %) 1))')).code).toMatch(/parse_error|invalid_form/);
  });
  it('def cannot shadow a builtin', async () => {
    expect((await error('(def map 1)')).code).toBe('cannot_shadow_builtin');
  });
  it('unknown namespaces and budget names', async () => {
    expect((await error('(foo/bar 1)')).code).toBe('unknown_namespace');
    expect((await error('(str/nope "a")')).code).toBe('unbound_var');
  });
  it('calling a literal is not_callable with a hint', async () => {
    const e = await error('(1 2 3)');
    expect(e.code).toBe('not_callable');
    expect(e.hint).toMatch(/\[1 2 3\]/);
  });
  it('where operators and forms', async () => {
    expect((await error('(where :a like 1)')).code).toBe('invalid_where_operator');
    expect((await error('(where :a =)')).code).toBe('invalid_where_form');
  });
});

describe('where and predicate combinators', () => {
  table([
    ['(filter (where :s = :a) [{:s "a"} {:s "b"}])', '({:s "a"})'],
    ['(filter (where :a = true) [{:a "true"}])', '()'],
    ['(filter (where :t includes :x) [{:t ["x"]}])', '({:t ["x"]})'],
    ['(filter (where :missing > 0) [{:a 1}])', '()'],
    ['(filter (where [:u :age] >= 18) [{:u {:age 20}} {:u {:age 3}}])', '({:u {:age 20}})'],
    ['(let [lim 5] (count (filter (where :n < lim) [{:n 1} {:n 9}])))', '1'],
    ['(filter (all-of (where :a) (where :b > 1)) [{:a true :b 2} {:a true :b 0}])', '({:a true, :b 2})'],
    ['(filter (any-of (where :a) (where :b)) [{:a 1} {:c 1}])', '({:a 1})'],
    ['(filter (none-of (where :a)) [{:a 1} {:c 1}])', '({:c 1})'],
  ]);
});

describe('errors and exceptions', () => {
  table([
    ['(try (/ 1 0) (catch Exception e (ex-message e)))', '"/: divide by zero"'],
    ['(try (throw (ex-info "boom" {:x 1})) (catch Exception e [(ex-message e) (ex-data e)]))', '["boom" {:x 1}]'],
    ['(try 1 (finally (println "f")))', '1'],
    ['(try (inc nil) (catch ArithmeticException e :arith) (catch Exception e :other))', ':other'],
  ]);
  it('errors carry line and column of the offending form', async () => {
    const e = await error('(let [x 1]\n  (+ x "a"))');
    expect(e.code).toBe('type_error');
    expect([e.line, e.column]).toEqual([2, 3]);
  });
  it('an uncaught throw is an uncaught_exception with the message, ex-message and ex-data in details', async () => {
    const e = await error('(do\n  (throw (ex-info "nope" {:id 7 :tags [:a]})))');
    expect(e.code).toBe('uncaught_exception');
    expect(e.message).toBe('uncaught exception: nope');
    expect([e.line, e.column]).toEqual([2, 3]);
    expect(e.details).toMatchObject({ message: 'nope', data: { id: 7, tags: ['a'] } });
    const s = await error('(throw "plain")');
    expect([s.code, s.details?.message, s.details?.data]).toEqual(['uncaught_exception', 'plain', {}]);
    // rethrown from a catch, still uncaught
    expect(
      (await error('(try (throw (ex-info "in" {:n 1})) (catch Exception e (throw (ex-info "out" (ex-data e)))))'))
        .details,
    ).toMatchObject({ message: 'out', data: { n: 1 } });
  });
  it('limit errors are never caught', async () => {
    const r = await run('(try (loop [] (recur)) (catch Exception e :caught))', { limits: { fuel: 1000 } });
    expect(r.status).toBe('error');
  });
  it('finally runs on return', async () => {
    const r = await run('(try (return 1) (finally (println "cleanup")))');
    expect(r.status).toBe('ok');
    expect(r.prints).toEqual(['cleanup']);
  });
});

describe('return, fail, data, history, budget', () => {
  it('return ends the program with a value', async () => {
    const r = await run('(do (return 5) (println "never"))');
    expect(r.status === 'ok' && r.returned && r.value).toBe(5);
    expect(r.prints).toEqual([]);
  });
  it('return inside a closure passed to map ends the whole program', async () => {
    const r = await run('(map (fn [x] (when (= x 2) (return :found))) [1 2 3])');
    expect(r.status === 'ok' && prStr(r.value)).toBe(':found');
  });
  it('fail ends the program with a failure value', async () => {
    const r = await run('(fail {:reason :bad :message "no"})');
    expect(r.status).toBe('fail');
    expect(r.status === 'fail' && prStr(r.value)).toBe('{:reason :bad, :message "no"}');
  });
  it('data/ reads the context flexibly; missing is nil', async () => {
    expect(await value('[data/user (:name data/user) data/missing]', { context: { user: { name: 'ann' } } })).toBe(
      '[{"name" "ann"} "ann" nil]',
    );
    expect((await error('data')).code).toBe('invalid_form');
  });
  it('*1 *2 *3 come from history', async () => {
    expect(await value('[*1 *2 *3]', { history: [1, 'b'] })).toBe('[1 "b" nil]');
  });
  it('budget/remaining reports fuel and tool calls', async () => {
    expect(await value('(:tool-calls (budget/remaining))', { limits: { maxToolCalls: 3 } })).toBe('3');
    expect(await value('(number? (:fuel budget/remaining))')).toBe('true');
  });
});

describe('tools', () => {
  const seen: unknown[] = [];
  const tools: ToolDef[] = [
    {
      name: 'search',
      description: 'search',
      input: z.object({ query: z.string(), max_results: z.number().optional() }),
      sideEffect: 'read_only',
      handler: async (args) => {
        seen.push(args);
        return { hits: [{ id: 1, title: `about ${args.query}` }], total: 1 };
      },
    },
    {
      name: 'boom',
      description: '',
      input: z.object({}),
      handler: () => {
        throw new Error('service down');
      },
    },
    { name: 'sync', description: '', input: z.object({ n: z.number() }), handler: ({ n }: { n: number }) => n * 2 },
  ];
  it('named args map or k v pairs; dashes become the schema spelling; results are maps with string keys', async () => {
    seen.length = 0;
    expect(await value('(-> (tool/search {:query "x" :max-results 3}) :hits first :title)', { tools })).toBe(
      '"about x"',
    );
    expect(await value('(:total (tool/search :query "y"))', { tools })).toBe('1');
    expect(seen).toEqual([{ query: 'x', max_results: 3 }, { query: 'y' }]);
  });
  it('invalid args list each zod issue with its path', async () => {
    const e = await error('(tool/search {:query 1 :max-results "a"})', { tools });
    expect(e.code).toBe('invalid_tool_args');
    expect(e.message).toMatch(/query: .*; max_results: /);
  });
  it('handler errors are tool_error with the message, catchable', async () => {
    const e = await error('(tool/boom)', { tools });
    expect(e.code).toBe('tool_error');
    expect(e.message).toBe('tool/boom failed: service down');
    expect(await value('(try (tool/boom) (catch Exception e :recovered))', { tools })).toBe(':recovered');
  });
  it('sync handlers and async handlers mix; calls run left to right', async () => {
    expect(await value('[(tool/sync {:n 2}) (:total (tool/search {:query "q"})) (tool/sync :n 5)]', { tools })).toBe(
      '[4 1 10]',
    );
  });
  it('a positional argument is invalid_tool_args with a hint', async () => {
    const e = await error('(tool/search "x")', { tools });
    expect(e.code).toBe('invalid_tool_args');
    expect(e.hint).toMatch(/\{:key value\}/);
  });
  it('unknown tools are a static error even when no tools are registered', async () => {
    expect((await error('(println "x") (tool/nope {})')).code).toBe('unknown_tool');
    expect((await error('(tool/nope {})', { tools })).message).toMatch(/Available tools: search, boom, sync/);
  });
  it('maxToolCalls', async () => {
    const e = await error('(dotimes [i 3] (tool/sync {:n i}))', { tools, limits: { maxToolCalls: 2 } });
    expect(e.code).toBe('tool_call_limit_exceeded');
    expect(e.message).toMatch(/tool_call_limit/);
  });
  it('tool/x as a value is a static error', async () => {
    expect((await error('(map tool/search [1])', { tools })).code).toBe('invalid_form');
  });
  it('records every call in order', async () => {
    const r = await run('(tool/sync {:n 1}) (tool/search {:query "a"}) (tool/sync {:n 2})', { tools });
    expect(r.toolCalls.map((c) => [c.tool, c.args])).toEqual([
      ['sync', { n: 1 }],
      ['search', { query: 'a' }],
      ['sync', { n: 2 }],
    ]);
  });
});

describe('pmap and pcalls', () => {
  it('run branches concurrently, results in input order', async () => {
    const tools: ToolDef[] = [
      {
        name: 'slow',
        description: '',
        input: z.object({ ms: z.number() }),
        handler: ({ ms }: { ms: number }) => new Promise((r) => setTimeout(() => r(ms), ms)),
      },
    ];
    const t = performance.now();
    expect(await value('(pmap #(tool/slow {:ms %}) [120 60 100])', { tools })).toBe('(120 60 100)');
    expect(performance.now() - t).toBeLessThan(300);
    expect(await value('(pcalls #(tool/slow {:ms 50}) (fn [] (tool/slow {:ms 40})))', { tools })).toBe('(50 40)');
  });
  it('works with plain functions', async () => {
    expect(await value('(pmap inc [1 2 3])')).toBe('(2 3 4)');
    expect((await error('(pcalls (fn [x] x))')).code).toBe('arity_error');
  });
});

describe('namespace', () => {
  it('defs are returned in the namespace and visible to later programs', async () => {
    const r1 = await run('(def total 10) (defn add [x] (+ x total))');
    expect(r1.status).toBe('ok');
    expect(await value('(add 5)', { namespace: r1.namespace })).toBe('15');
  });
  it('defs of a failing program are rolled back', async () => {
    const r = await run('(def a 1) (+ 1 "x")');
    expect(r.status).toBe('error');
    expect(r.namespace.has('a')).toBe(false);
  });
  it('serialize and deserialize: data as pr-str, functions as source', async () => {
    const r = await run(
      '(def cfg {:limit 3 :tags #{"a"}}) (def k (let [n 2] (fn [x] (* x n)))) (defn use-both [x] (k (+ x (:limit cfg))))',
    );
    const rec = serializeNamespace(r.namespace);
    expect(rec).toEqual({
      cfg: '{:limit 3, :tags #{"a"}}',
      k: '(let [n 2] (fn [x] (* x n)))',
      'use-both': '(fn use-both [x] (k (+ x (:limit cfg))))',
    });
    const ns = await deserializeNamespace(JSON.parse(JSON.stringify(rec)));
    expect(await value('(use-both 1)', { namespace: ns })).toBe('8');
  });
  it('a def built with all-of / any-of / none-of persists', async () => {
    const r = await run('(def ok? (all-of (where :a) (any-of (where :b > 1) #(= (:c %) 3)) (none-of :d)))');
    const rec = serializeNamespace(r.namespace);
    expect(rec['ok?']).toBe('(all-of (where :a) (any-of (where :b > 1) #(= (:c %) 3)) (none-of :d))');
    const ns = await deserializeNamespace(rec);
    expect(await value('(mapv ok? [{:a 1 :b 2} {:a 1 :c 3} {:a 1 :c 3 :d 1} {:b 2} {:a 1}])', { namespace: ns })).toBe(
      '[true true false false false]',
    );
  });
  it('deserializeNamespace knows the tools it is given: a saved function may call a tool', async () => {
    const tools: ToolDef[] = [
      { name: 'double', description: '', input: z.object({ n: z.number() }), handler: ({ n }: { n: number }) => n * 2 },
    ];
    const r = await run('(defn twice [n] (:x {:x (tool/double {:n n})}))', { tools });
    expect(r.status).toBe('ok');
    const rec = serializeNamespace(r.namespace);
    await expect(deserializeNamespace(rec)).rejects.toMatchObject({ code: 'unknown_tool' });
    const ns = await deserializeNamespace(rec, { tools });
    expect(await value('(twice 4)', { namespace: ns, tools })).toBe('8');
  });
  it('deserializeNamespace with onError leaves out failing entries and the entries that need them', async () => {
    const seen: string[] = [];
    const ns = await deserializeNamespace(
      { a: '1', bad: '(+ 1 "x")', f: '(fn [] bad)', g: '(fn [] (inc a))', h: '(fn [] (f))' },
      { onError: (name, e) => seen.push(`${name}: ${e.code}`) },
    );
    expect(seen).toEqual(['bad: type_error', 'f: unbound_var', 'h: unbound_var']);
    expect([...ns.keys()]).toEqual(['a', 'g']);
    expect(await value('(g)', { namespace: ns })).toBe('2');
    await expect(deserializeNamespace({ bad: '(+ 1 "x")' })).rejects.toThrow(/^namespace entry bad: /);
  });
});
