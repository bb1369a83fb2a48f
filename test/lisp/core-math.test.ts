import { describe, expect, it } from 'vitest';
import { mathFns, quot, rem, mod } from '../../src/lisp/core/math.ts';
import { evError, pr } from './helpers/fake-runtime-b.ts';

/** [source, printed value] pairs whose values agree with Clojure (integral doubles print as longs). */
const clojureAgreement: Array<[string, string]> = [
  ['(+)', '0'],
  ['(+ 1 2 3)', '6'],
  ['(*)', '1'],
  ['(* 2 3 4)', '24'],
  ['(- 5)', '-5'],
  ['(- 10 1 2)', '7'],
  ['(- 0)', '0'],
  // one argument is a cast to Number in Clojure, so nil stays nil (ptc-0837, ptc-0841)
  ['(+ nil)', 'nil'],
  ['(* nil)', 'nil'],
  ['(filter + [0 1 2 nil])', '(0 1 2)'],
  ['(some + [nil nil 1 nil])', '1'],
  ['(/ 10 2)', '5'],
  ['(/ 1 4 2)', '0.125'],
  ['(/ 0.5)', '2'],
  ['(quot 7 2)', '3'],
  ['(quot -7 2)', '-3'],
  ['(quot 7.5 2)', '3'],
  ['(rem 7 2)', '1'],
  ['(rem -7 2)', '-1'],
  ['(rem 7 -2)', '1'],
  ['(rem -4 2)', '0'],
  ['(mod 7 2)', '1'],
  ['(mod -7 2)', '1'],
  ['(mod 7 -2)', '-1'],
  ['(mod -7 -2)', '-1'],
  ['(mod -4 2)', '0'],
  ['(mod 5.5 2)', '1.5'],
  ['(inc 1)', '2'],
  ['(dec 1)', '0'],
  ['(abs -3)', '3'],
  ['(max 1 5 3)', '5'],
  ['(min 4 2 8)', '2'],
  ['(max 7)', '7'],
  ['(int 3.9)', '3'],
  ['(int -3.9)', '-3'],
  ['(long 2.5)', '2'],
  ['(int \\a)', '97'],
  ['(double 3)', '3'],
  ['(= 1 1 1)', 'true'],
  ['(= 1 2)', 'false'],
  ['(= 1)', 'true'],
  ['(= [1 2] (quote (1 2)))', 'true'],
  ['(= {:a 1} {:a 1})', 'true'],
  ['(not= 1 2)', 'true'],
  ['(not= 1 1 1)', 'false'],
  ['(== 1 1 1)', 'true'],
  ['(< 1 2 3)', 'true'],
  ['(< 1 3 2)', 'false'],
  ['(<= 1 1 2)', 'true'],
  ['(> 3 2 1)', 'true'],
  ['(>= 3 3 1)', 'true'],
  ['(< 1)', 'true'],
  ['(< 1 ##NaN)', 'false'],
  ['(zero? 0)', 'true'],
  ['(pos? 1)', 'true'],
  ['(neg? -1)', 'true'],
  ['(even? 4)', 'true'],
  ['(odd? -3)', 'true'],
  ['(even? 0)', 'true'],
  ['(bit-and 12 10)', '8'],
  ['(bit-or 12 10)', '14'],
  ['(bit-xor 12 10)', '6'],
  ['(bit-not 0)', '-1'],
  ['(bit-shift-left 1 40)', '1099511627776'],
  ['(bit-shift-right -16 2)', '-4'],
  ['(bit-and 1 3 5)', '1'],
  ['(Math/abs -2)', '2'],
  ['(Math/round 2.5)', '3'],
  ['(Math/round -2.5)', '-2'],
  ['(Math/floor 2.7)', '2'],
  ['(Math/ceil 2.1)', '3'],
  ['(Math/pow 2 10)', '1024'],
  ['(Math/sqrt 16)', '4'],
  ['(Math/max 1 2)', '2'],
  ['(Math/floorMod -7 2)', '1'],
  ['(Math/floorDiv -7 2)', '-4'],
  ['(Integer/parseInt "42")', '42'],
  ['(Double/parseDouble "1.5")', '1.5'],
  ['(NaN? ##NaN)', 'true'],
  ['(infinite? ##-Inf)', 'true'],
  ['(* 1.5 2)', '3'],
  ['(+ 0.1 0.2)', '0.30000000000000004'],
];

describe('math: Clojure agreement', () => {
  it.each(clojureAgreement)('%s → %s', (src, expected) => {
    expect(pr(src)).toBe(expected);
  });
});

describe('math: our number rules', () => {
  it.each([
    ['(/ 10 4)', '2.5'],
    ['(/ 4)', '0.25'],
    ['(floor 2.7)', '2'],
    ['(ceil 2.1)', '3'],
    ['(round 2.5)', '3'],
    ['(round -2.5)', '-3'],
    ['(round 2.4)', '2'],
    ['(round 3.14159 2)', '3.14'],
    ['(round 1.005 2)', '1.01'],
    ['(trunc -2.7)', '-2'],
    ['(sqrt 2)', '1.4142135623730951'],
    ['(pow 2 0.5)', '1.4142135623730951'],
    ['(signum -3)', '-1'],
    ['(log10 1000)', '3'],
    ['(exp 0)', '1'],
    ['(sqrt -1)', '##NaN'],
    ['(max 1 ##NaN)', '##NaN'],
    ['(pos? nil)', 'false'],
    ['(neg? "a")', 'false'],
    ['(zero? nil)', 'false'],
    ['Math/PI', '3.141592653589793'],
    ['Double/POSITIVE_INFINITY', '##Inf'],
    ['Integer/MAX_VALUE', '2147483647'],
  ])('%s → %s', (src, expected) => {
    expect(pr(src)).toBe(expected);
  });

  it('never produces negative zero', () => {
    for (const v of [quot(-1, 2), rem(-4, 2), mod(-4, 2), mod(4, -2)]) expect(Object.is(v, -0)).toBe(false);
    expect(Object.is(mathFns['*']!.fn([-1, 0], null as never), -0)).toBe(false);
  });
});

describe('math: errors', () => {
  it.each([
    ['(/ 1 0)', 'arithmetic_error', '/: divide by zero'],
    ['(/ 0)', 'arithmetic_error', '/: divide by zero'],
    ['(/ 0 0)', 'arithmetic_error', '/: divide by zero'],
    ['(quot 1 0)', 'arithmetic_error', 'quot: divide by zero'],
    ['(rem 1 0)', 'arithmetic_error', 'rem: divide by zero'],
    ['(mod 1 0)', 'arithmetic_error', 'mod: divide by zero'],
    ['(+ 1 "2")', 'type_error', '+: expected number, got string'],
    ['(inc nil)', 'type_error', 'inc: expected number, got nil'],
    ['(< "a" "b")', 'type_error', '<: expected number, got string'],
    ['(> 5 nil)', 'type_error', '>: expected number, got nil'],
    ['(even? 1.5)', 'type_error', 'even?: expected integer, got number'],
    ['(int ##Inf)', 'arithmetic_error', 'int: cannot convert Infinity to an integer'],
    ['(bit-and 1.5 1)', 'type_error', 'bit-and: expected integer, got number'],
    ['(Integer/parseInt "4x")', 'type_error', 'Integer/parseInt: not a number: "4x"'],
  ])('%s is %s', (src, code, message) => {
    const e = evError(src);
    expect(e.code).toBe(code);
    expect(e.message).toBe(message);
  });

  it('points comparisons of non-numbers at compare', () => {
    expect(evError('(< :a :b)').hint).toMatch(/compare/);
  });
});
