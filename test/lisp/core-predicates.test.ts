import { describe, expect, it } from 'vitest';
import { evError, pr } from './helpers/fake-runtime-b.ts';

/** [source, printed value]: Clojure's results for the same program. */
const clojureAgreement: Array<[string, string]> = [
  ['(nil? nil)', 'true'],
  ['(nil? false)', 'false'],
  ['(some? 0)', 'true'],
  ['(some? nil)', 'false'],
  ['(true? true)', 'true'],
  ['(true? 1)', 'false'],
  ['(false? false)', 'true'],
  ['(false? nil)', 'false'],
  ['(any? nil)', 'true'],
  ['(boolean? false)', 'true'],
  ['(boolean? nil)', 'false'],
  ['(number? 1)', 'true'],
  ['(number? ##NaN)', 'true'],
  ['(number? "1")', 'false'],
  ['(integer? 2)', 'true'],
  ['(integer? 2.5)', 'false'],
  ['(int? 7)', 'true'],
  ['(nat-int? 0)', 'true'],
  ['(pos-int? 0)', 'false'],
  ['(neg-int? -1)', 'true'],
  ['(float? 2.5)', 'true'],
  ['(double? 0.1)', 'true'],
  ['(double? 1)', 'false'],
  ['(string? "a")', 'true'],
  ['(string? :a)', 'false'],
  ['(keyword? :a)', 'true'],
  ['(keyword? "a")', 'false'],
  ['(char? \\a)', 'true'],
  ['(vector? [1])', 'true'],
  ['(vector? (quote (1)))', 'false'],
  ['(vector? {:a 1})', 'false'],
  ['(list? (quote (1 2)))', 'true'],
  ['(list? [1])', 'false'],
  ['(seq? (quote (1)))', 'true'],
  ['(seq? [1])', 'false'],
  ['(sequential? [1])', 'true'],
  ['(sequential? (quote (1)))', 'true'],
  ['(sequential? #{1})', 'false'],
  ['(sequential? "abc")', 'false'],
  ['(map? {})', 'true'],
  ['(map? [])', 'false'],
  ['(set? #{})', 'true'],
  ['(coll? [])', 'true'],
  ['(coll? {})', 'true'],
  ['(coll? #{})', 'true'],
  ['(coll? "abc")', 'false'],
  ['(coll? nil)', 'false'],
  ['(fn? inc)', 'true'],
  ['(fn? #(+ % 1))', 'true'],
  ['(fn? :a)', 'false'],
  ['(ifn? :a)', 'true'],
  ['(ifn? {})', 'true'],
  ['(ifn? [])', 'true'],
  ['(ifn? 1)', 'false'],
  ['(distinct? 1 2 3)', 'true'],
  ['(distinct? 1 2 1)', 'false'],
  ['(distinct? [1] (quote (1)))', 'false'],
  ['(distinct? :a)', 'true'],
  ['(not nil)', 'true'],
  ['(not 0)', 'false'],
  ['(not false)', 'true'],
  ['(boolean nil)', 'false'],
  ['(boolean "")', 'true'],
  ['(type nil)', 'nil'],
];

describe('predicates: Clojure agreement', () => {
  it.each(clojureAgreement)('%s → %s', (src, expected) => {
    expect(pr(src)).toBe(expected);
  });
});

describe('predicates: number and character model', () => {
  it.each([
    // numbers are doubles: an integral double is an integer
    ['(integer? 2.0)', 'true'],
    ['(double? 2.0)', 'false'],
    ['(float? ##Inf)', 'true'],
    // characters are 1-character strings
    ['(char? "a")', 'true'],
    ['(string? \\a)', 'true'],
    ['(char? "ab")', 'false'],
    // one code point, as `first` of a string gives (ptc-0946: an emoji was not a char)
    ['(char? (first "👍"))', 'true'],
    ['(char? "👍👍")', 'false'],
  ])('%s → %s', (src, expected) => {
    expect(pr(src)).toBe(expected);
  });
});

describe('predicates: type (reference)', () => {
  it.each([
    ['(type 1)', ':number'],
    ['(type "s")', ':string'],
    ['(type :k)', ':keyword'],
    ['(type true)', ':boolean'],
    ['(type [1])', ':vector'],
    ['(type (quote (1)))', ':list'],
    ['(type {})', ':map'],
    ['(type #{})', ':set'],
    ['(type inc)', ':function'],
    ['(type #"a")', ':regex'],
  ])('%s → %s', (src, expected) => {
    expect(pr(src)).toBe(expected);
  });
});

describe('predicates: arity', () => {
  it('distinct? needs an argument', () => {
    expect(evError('(distinct?)').code).toBe('arity_error');
  });
});
