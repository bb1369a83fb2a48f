/**
 * Hostile programs: values built by doubling (tiny in memory through structural sharing,
 * astronomically large when walked) pushed through collection functions, printing and
 * JSON; huge strings; sorts and regexes over huge inputs; deep nesting; memory bombs.
 * Each must end with `limit_exceeded` (fuel, size, output or depth) instead of running
 * on: core functions charge fuel for the items they visit and the characters they print.
 */
import { describe, expect, it } from 'vitest';
import { run } from '../../src/lisp/index.ts';
import { toJson } from '../../src/lisp/json.ts';
import { prStr } from '../../src/lisp/printer/index.ts';

const DOUBLED = '(reduce (fn [acc _] [acc acc]) [] (range 40))';
const DEEP = '(reduce (fn [acc _] [acc]) [] (range 200000))';

const programs: Array<[string, string]> = [
  ['flatten of a doubled value', `(count (flatten ${DOUBLED}))`],
  ['tree-seq of a doubled value', `(count (tree-seq vector? seq ${DOUBLED}))`],
  ['postwalk of a doubled value', `(count (clojure.walk/postwalk identity ${DOUBLED}))`],
  ['into over flatten', `(count (into [] (flatten (reduce (fn [acc _] [acc acc]) [1] (range 40)))))`],
  ['mapcat over a doubled value', `(count (mapcat identity (flatten ${DOUBLED})))`],
  ['pr-str of a doubled value', `(count (pr-str ${DOUBLED}))`],
  ['str of a doubled value', `(count (str ${DOUBLED}))`],
  ['println of a doubled value', `(println ${DOUBLED})`],
  ['str doubling a string', '(count (reduce (fn [s _] (str s s)) "x" (range 40)))'],
  ['format doubling a string', '(count (reduce (fn [s _] (format "%s%s" s s)) "x" (range 40)))'],
  ['join of huge strings', '(count (clojure.string/join "," (repeat 100000 (apply str (repeat 100000 "x")))))'],
  ['sort of a huge input', '(count (sort (range 1000000)))'],
  ['regex over a huge string', '(count (re-seq #"a+b" (apply str (repeat 1000000 "a"))))'],
  ['printing a deeply nested value', `(count (pr-str ${DEEP}))`],
  ['comparing deeply nested values', `(= ${DEEP} ${DEEP})`],
  ['a memory bomb of vectors', '(count (reduce (fn [acc i] (conj acc (vec (range 1000)))) [] (range 100000)))'],
  ['an infinite lazy seq', '(count (range))'],
  ['a loop without end', '(loop [i 0] (recur (inc i)))'],
];

describe('hostile programs end with limit_exceeded', () => {
  it.each(programs)('%s', { timeout: 60_000 }, async (_name, source) => {
    const result = await run(source, { limits: { timeoutMs: 3000 } });
    expect(result.status).toBe('error');
    if (result.status !== 'error') return;
    expect(result.error.code).toBe('limit_exceeded');
  });

  it('a doubled value returned from a program cannot be printed or sent as JSON for ever', async () => {
    const result = await run(DOUBLED);
    expect(result.status).toBe('ok');
    if (result.status !== 'ok') return;
    expect(() => prStr(result.value)).toThrow(/printed value has more than 8000000 characters/);
    expect(() => toJson(result.value)).toThrow(/more than 4000000 items in all as JSON/);
  });

  it('charging fuel for visited items keeps ordinary programs cheap', async () => {
    const result = await run('(count (flatten [[1 2] [3 [4 5]] 6]))');
    expect(result).toMatchObject({ status: 'ok', value: 6 });
    expect(result.fuelUsed).toBeLessThan(200);
  });
});
