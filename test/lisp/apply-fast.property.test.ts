/**
 * `Runtime.apply1/apply2` (core callbacks calling a closure through call1/call2, without
 * an argument array) behave exactly like `apply(f, [x])` / `apply(f, [x, y])`: random
 * callbacks (plain, destructuring, variadic, multi-arity, wrong arity, failing, non-closure
 * callables) through map/filter/reduce/sort/group-by/... give the same status, value or
 * error and the same fuel, under fuel limits that run out at any point.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/lisp/index.ts';
import { Evaluator } from '../../src/lisp/eval/index.ts';
import type { Value } from '../../src/lisp/values.ts';
import { outcomeOf } from './helpers/outcome.ts';

const ONE = [
  '(fn [x] (str x))',
  '#(count (str %))',
  '(fn [x] (if (number? x) (> x 1) x))',
  '(fn [[a b]] (str a b))',
  '(fn [x & more] (count (str x more)))',
  '(fn ([x] (str "one" x)) ([x y] (str x y)))',
  '(fn [] 1)',
  '(fn [x y] x)',
  '(fn [x] (/ 1 x))',
  '(fn [{:keys [a]}] a)',
  ':a',
  'str',
  '#{1 2}',
];
const TWO = [
  '(fn [a x] (str a x))',
  '#(if (number? %2) (+ (count (str %1)) %2) %1)',
  '(fn [a & xs] (count (str a xs)))',
  '(fn ([a] a) ([a x] (str x a)))',
  '(fn [a] a)',
  '(fn [a x] (/ x 0))',
  '(fn [a [x]] (str a x))',
  'str',
];
const COLLS = ['[1 2 3]', '[[1 2] [3 4]]', '[]', '(range 5)', '[{:a 1} {:a 2}]', '["b" "a"]'];

const program = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(
        'map',
        'filter',
        'remove',
        'sort-by',
        'group-by',
        'some',
        'every?',
        'take-while',
        'drop-while',
        'keep',
      ),
      fc.constantFrom(...ONE),
      fc.constantFrom(...COLLS),
    )
    .map(([hof, f, xs]) => `(vec (let [r (${hof} ${f} ${xs})] (if (coll? r) r [r])))`),
  fc
    .tuple(fc.constantFrom(...ONE), fc.constantFrom(...COLLS))
    .map(([f, xs]) => `(vec (take 3 (map ${f} (concat ${xs} (range)))))`),
  fc
    .tuple(
      fc.constantFrom(
        '(reduce F 0 XS)',
        '(reduce F XS)',
        '(vec (map-indexed F XS))',
        '(sort F XS)',
        '(vec (reductions F 0 XS))',
      ),
      fc.constantFrom(...TWO),
      fc.constantFrom(...COLLS),
    )
    .map(([shape, f, xs]) => shape.replace('F', f).replace('XS', xs)),
);

const fast = { apply1: Evaluator.prototype.apply1, apply2: Evaluator.prototype.apply2 };

/** `fastCalls` false: apply1/apply2 go through `apply` with an argument array (the reference). */
async function outcome(src: string, fuel: number, fastCalls: boolean) {
  Evaluator.prototype.apply1 = fastCalls
    ? fast.apply1
    : function (this: Evaluator, f: Value, x: Value) {
        return this.apply(f, [x]);
      };
  Evaluator.prototype.apply2 = fastCalls
    ? fast.apply2
    : function (this: Evaluator, f: Value, x: Value, y: Value) {
        return this.apply(f, [x, y]);
      };
  return outcomeOf(await run(src, { limits: { fuel, timeoutMs: 600_000 } }));
}

afterEach(() => {
  Evaluator.prototype.apply1 = fast.apply1;
  Evaluator.prototype.apply2 = fast.apply2;
});

describe('apply1/apply2 (closures called without an argument array)', () => {
  it('same value or error and fuel as apply with an array, at any fuel limit', async () => {
    await fc.assert(
      fc.asyncProperty(program, fc.double({ min: 0, max: 1, noNaN: true }), async (src, at) => {
        const used = (await outcome(src, 10_000_000, false)).fuel;
        for (const fuel of new Set([used - 1, used, used + 1, Math.max(1, Math.round(at * used))])) {
          if (fuel < 1) continue;
          expect(await outcome(src, fuel, true), `${src} with fuel ${fuel}`).toEqual(await outcome(src, fuel, false));
        }
      }),
      { numRuns: 200 },
    );
  }, 120_000);
});
