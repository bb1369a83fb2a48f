/**
 * A core function's fixed-arity forms (`call1`, `call2`, `call3`, used by compiled call
 * sites with that many arguments) give what its `fn` gives for the same arguments: the
 * same value, the same error message, the same fuel. Checked over every tuple of a set
 * of sample values (each type the functions dispatch on, nil, wrong types), for every
 * core function that has them; and through the evaluator, for a few programs.
 */
import { describe, expect, it } from 'vitest';
import { coreNames, resolveCore } from '../../src/lisp/core/index.ts';
import type { CoreFn } from '../../src/lisp/core/registry.ts';
import { run } from '../../src/lisp/index.ts';
import { prStr } from '../../src/lisp/printer/index.ts';
import { readData } from '../../src/lisp/reader/index.ts';
import { type Value, Builtin, kw } from '../../src/lisp/values.ts';
import { FakeRuntime } from './helpers/fake-runtime-b.ts';

const inc = new Builtin('inc', ([x]) => (typeof x === 'number' ? x + 1 : null));

const samples: Value[] = [
  null,
  0,
  2,
  -1,
  1.5,
  'ab',
  kw('a'),
  ...['{:a 1 :b 2}', '{}', '[1 2 3]', '[]', '(1 2)', '#{1 :a}', '[[1 2] [3 4]]'].map((s) => readData(s)),
  inc,
  true,
];

function outcome(f: () => Value, rt: FakeRuntime): string {
  try {
    return `value ${prStr(f())} fuel ${rt.ticks}`;
  } catch (e) {
    return `error ${(e as Error).message} fuel ${rt.ticks}`;
  }
}

function* tuples(n: number): Generator<Value[]> {
  if (n === 0) {
    yield [];
    return;
  }
  for (const rest of tuples(n - 1)) for (const x of samples) yield [...rest, x];
}

const withFixed = coreNames()
  .map((name) => [name, resolveCore(null, name)] as const)
  .filter(
    (e): e is readonly [string, CoreFn] =>
      e[1] !== undefined && (e[1].call1 !== undefined || e[1].call2 !== undefined || e[1].call3 !== undefined),
  );

describe('fixed-arity forms of core functions', () => {
  it('exist for the functions call sites use most', () => {
    expect(withFixed.map(([n]) => n).sort()).toEqual(
      expect.arrayContaining([
        'assoc',
        'assoc-in',
        'conj',
        'contains?',
        'count',
        'dissoc',
        'empty?',
        'first',
        'get',
        'get-in',
        'keyword',
        'nil?',
        'nth',
        'str',
        'update',
        'update-in',
      ]),
    );
  });

  it.each(withFixed.map(([n, c]) => [n, c]))(
    '%s: the same value, error and fuel as fn, for every tuple of samples',
    (_name, core) => {
      const forms: Array<[number, (args: Value[], rt: FakeRuntime) => Value]> = [];
      if (core.call1) forms.push([1, (a, rt) => core.call1!(a[0]!, rt)]);
      if (core.call2) forms.push([2, (a, rt) => core.call2!(a[0]!, a[1]!, rt)]);
      if (core.call3) forms.push([3, (a, rt) => core.call3!(a[0]!, a[1]!, a[2]!, rt)]);
      let checked = 0;
      for (const [n, fixed] of forms) {
        for (const args of tuples(n)) {
          const a = new FakeRuntime();
          const b = new FakeRuntime();
          const general = outcome(() => core.fn(args.slice(), a), a);
          expect(
            outcome(() => fixed(args, b), b),
            `${_name} ${args.map((x) => prStr(x)).join(' ')}`,
          ).toBe(general);
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(0);
    },
  );

  it('compiled call sites give what the function value gives', async () => {
    const programs = [
      '[(get {:a 1} :a) (get {:a 1} :b 0) (get [1 2] 1) (get nil :a)]',
      '(reduce (fn [m i] (assoc m i (* 2 i))) {} (range 100))',
      '(reduce (fn [m i] (update m (mod i 3) (fnil inc 0))) {} (range 30))',
      '[(contains? {:a 1} :a) (contains? [1 2] 5) (count "abc") (first [4 5]) (nth [1 2 3] 2) (nth [1] 5 :none) (conj [1] 2) (conj #{1} 1)]',
      '[(get-in {:a {:b 1}} [:a :b]) (get-in {} [:x] 0) (assoc-in {} [:a :b] 1) (update-in {:a {:n 1}} [:a :n] inc) (dissoc {:a 1 :b 2} :a) (empty? []) (nil? nil) (keyword "k") (keyword "ns" "k") (str) (str 1) (str "a" nil 2.5) (str :k [1] {:a 1})]',
    ];
    for (const src of programs) {
      const direct = await run(src);
      // the same calls through a function value, ((identity get) m k): the general path
      const viaApply = await run(
        src.replace(
          /\((get-in|get|assoc-in|assoc|update-in|update|contains\?|count|first|nth|conj|dissoc|empty\?|nil\?|keyword|str) /g,
          '((identity $1) ',
        ),
      );
      expect(direct.status, src).toBe('ok');
      expect(viaApply.status, src).toBe('ok');
      if (direct.status === 'ok' && viaApply.status === 'ok') expect(prStr(direct.value)).toBe(prStr(viaApply.value));
    }
    for (const src of ['(assoc [1] 5 0)', '(get)', '(nth [1] 5)', '(contains? (list 1) 1)', '(update {} :a 5)']) {
      const r = await run(src);
      expect(r.status, src).toBe('error');
    }
  });
});
