import { describe, expect, it } from 'vitest';
import { fnFns } from '../../src/lisp/core/functions.ts';
import {
  allOf,
  anyOf,
  buildWhere,
  coreConstants,
  coreDocs,
  coreNames,
  noneOf,
  resolveCore,
  unknownNameHint,
  whereFn,
} from '../../src/lisp/core/index.ts';
import { mapFns } from '../../src/lisp/core/maps.ts';
import { mathFns } from '../../src/lisp/core/math.ts';
import { predicateFns } from '../../src/lisp/core/predicates.ts';
import { queryFns } from '../../src/lisp/core/query.ts';
import { regexFns } from '../../src/lisp/core/regex.ts';
import { seqFns } from '../../src/lisp/core/seq.ts';
import { stringCoreFns } from '../../src/lisp/core/strings.ts';
import { walkFns } from '../../src/lisp/core/walk.ts';
import { PtcError } from '../../src/lisp/errors.ts';
import { readData } from '../../src/lisp/reader/index.ts';
import { type Value, Builtin, kw, vec } from '../../src/lisp/values.ts';
import { FakeRuntime, ev, evError, pr } from './helpers/fake-runtime-b.ts';

const data = (src: string): Value => readData(src);

describe('query functions (reference extensions)', () => {
  const orders = '[{:id 1 :amount 10 :user {:name "a"}} {"id" 2 "amount" 30 :user {:name "b"}} {:id 3 :amount nil}]';
  it.each([
    [`(pluck :id ${orders})`, '[1 2 3]'],
    [`(pluck [:user :name] ${orders})`, '["a" "b" nil]'],
    ['(pluck "a" [{:a 1}])', '[1]'],
    ['(pluck :a nil)', '[]'],
    ['(pluck inc [1 2])', '[2 3]'],
    ['(sum [1 2 nil 3])', '6'],
    ['(sum [])', '0'],
    ['(sum nil)', '0'],
    ['(sum #{1 2})', '3'],
    [`(sum-by :amount ${orders})`, '40'],
    ['(sum-by [:a :b] [{:a {:b 2}} {:a {:b 3}}])', '5'],
    ['(avg [1 2 3 4])', '2.5'],
    ['(avg [])', 'nil'],
    ['(avg [nil 4])', '4'],
    [`(avg-by :amount ${orders})`, '20'],
    ['(avg-by :x [])', 'nil'],
    ['(min-by :p [{:p 3} {:p 1} {:p nil} {:p 1 :second true}])', '{:p 1}'],
    ['(max-by :p [{:p 3} {:p 9} {:p 9 :second true}])', '{:p 9}'],
    ['(max-by :name [{:name "ann"} {:name "bob"}])', '{:name "bob"}'],
    ['(min-by count ["abc" "a" "ab"])', '"a"'],
    ['(min-by :p {:p 2} {:p 1} {:p 3})', '{:p 1}'],
    ['(min-by :p [])', 'nil'],
    ['(extract #"id=(\\d+)" "x id=42 y")', '"42"'],
    ['(extract #"\\d+" "ab 12")', '"12"'],
    ['(extract #"(\\w+)@(\\w+)" "bob@host" 2)', '"host"'],
    ['(extract #"(\\w+)@(\\w+)" "bob@host" 0)', '"bob@host"'],
    ['(extract "v(\\\\d)" "v7")', '"7"'],
    ['(extract #"z(\\d)" "abc")', 'nil'],
    ['(extract #"(\\d)" nil)', 'nil'],
    ['(extract-int #"(\\d+) items" "found 12 items")', '12'],
    ['(extract-int #"total: (-?\\d+)" "total: -5")', '-5'],
    ['(extract-int #"(\\d+)" "none")', 'nil'],
    ['(extract-int #"(\\d+)" "none" 1 0)', '0'],
    ['(extract-int #"v=(\\S+)" "v=abc" 1 -1)', '-1'],
  ])('%s → %s', (src, expected) => {
    expect(pr(src)).toBe(expected);
  });

  it.each([
    ['(sum [1 "2"])', 'type_error', 'sum: expected numbers, got string'],
    ['(sum-by :a [{:a "x"}])', 'type_error', 'sum-by: expected numbers, got string'],
    ['(min-by :a [{:a 1} {:a "x"}])', 'type_error'],
  ])('%s is %s', (src, code, message?: string) => {
    const e = evError(src);
    expect(e.code).toBe(code);
    if (message) expect(e.message).toBe(message);
  });
});

describe('where (reference section 2.3)', () => {
  const test = (field: Value, op: string | null, value: Value, item: string): boolean =>
    buildWhere(field, op, value)(data(item));

  it('scenario 48: where coercions', () => {
    expect(test(kw('s'), '=', kw('a'), '{"s" "a"}')).toBe(true);
    expect(test(kw('a'), '=', true, '{:a "true"}')).toBe(false);
    expect(test(kw('t'), 'includes', kw('x'), '{:t ["x"]}')).toBe(true);
    expect(test(kw('missing'), '>', 0, '{:a 1}')).toBe(false);
  });

  it.each<[Value, string | null, Value, string, boolean]>([
    [kw('active'), null, null, '{:active true}', true],
    [kw('active'), null, null, '{:active false}', false],
    [kw('active'), null, null, '{}', false],
    [kw('status'), '=', 'active', '{:status :active}', true],
    [kw('status'), '=', kw('active'), '{:status "active"}', true],
    [kw('status'), '=', 'x', '{:status :y}', false],
    [kw('x'), '=', null, '{:x nil}', true],
    [kw('x'), '=', null, '{}', true],
    [kw('x'), '=', null, '{:x false}', false],
    [kw('x'), '=', 1, '{:x 1}', true],
    [kw('x'), 'not=', 1, '{:x 2}', true],
    [kw('x'), 'not=', kw('a'), '{:x "a"}', false],
    [kw('age'), '>', 18, '{:age 21}', true],
    [kw('age'), '>=', 21, '{:age 21}', true],
    [kw('age'), '<', 18, '{:age 21}', false],
    [kw('age'), '<=', 21, '{:age 21}', true],
    [kw('age'), '>', 18, '{:age "21"}', false],
    [kw('age'), '>', null, '{:age 21}', false],
    [kw('name'), '>', 'b', '{:name "c"}', true],
    [kw('name'), '<', kw('b'), '{:name "a"}', true],
    [vec([kw('user'), kw('age')]), '>', 18, '{:user {:age 30}}', true],
    [vec([kw('user'), 'age']), '>', 18, '{"user" {"age" 30}}', true],
    [vec([kw('tags'), 0]), '=', 'x', '{:tags ["x" "y"]}', true],
    [kw('s'), 'in', vec(['a', 'b']), '{:s :a}', true],
    [kw('s'), 'in', data('#{:a :b}'), '{:s "b"}', true],
    [kw('s'), 'in', vec(['a']), '{:s "c"}', false],
    [kw('s'), 'in', vec([null]), '{:s nil}', false],
    [kw('s'), 'in', 'abc', '{:s "a"}', false],
    [kw('tags'), 'includes', 'x', '{:tags #{"x"}}', true],
    [kw('name'), 'includes', 'li', '{:name "alice"}', true],
    [kw('name'), 'includes', kw('li'), '{:name "alice"}', false],
    [kw('name'), 'includes', 'z', '{:name nil}', false],
    ['status', '=', 'ok', '{:status "ok"}', true],
  ])('(where %o %s %o) on %s is %s', (field, op, value, item, expected) => {
    expect(test(field, op, value, item)).toBe(expected);
  });

  it('rejects unknown operators and bad fields', () => {
    const badOp = (() => {
      try {
        buildWhere(kw('a'), 'like', 1);
      } catch (e) {
        return e as PtcError;
      }
    })();
    expect(badOp?.code).toBe('invalid_where_operator');
    expect(() => buildWhere(5, '=', 1)).toThrow(/where field must be a keyword or a vector path, got 5/);
    expect(() => buildWhere(vec([]), '=', 1)).toThrow(PtcError);
  });

  it('makes function values that print as their source', () => {
    const f = whereFn(kw('age'), '>', 18);
    expect(f.toSource()).toBe('(where :age > 18)');
    expect(whereFn(kw('ok'), null, null).toSource()).toBe('(where :ok)');
    expect(new FakeRuntime().apply(f, [data('{:age 20}')])).toBe(true);
  });
});

describe('all-of / any-of / none-of', () => {
  const rt = new FakeRuntime();
  const isPos = ev('pos?') as Builtin;
  const isEven = ev('even?') as Builtin;
  const call = (f: Builtin, x: Value): Value => rt.apply(f, [x]);

  it('combine predicates', () => {
    expect(call(allOf([isPos, isEven]), 4)).toBe(true);
    expect(call(allOf([isPos, isEven]), 3)).toBe(false);
    expect(call(anyOf([isPos, isEven]), -2)).toBe(true);
    expect(call(anyOf([isPos, isEven]), -3)).toBe(false);
    expect(call(noneOf([isPos, isEven]), -3)).toBe(true);
    expect(call(noneOf([isPos, isEven]), 2)).toBe(false);
    expect(call(allOf([whereFn(kw('a'), '=', 1), kw('b') as unknown as Builtin]), data('{:a 1 :b true}'))).toBe(true);
  });

  it('with no predicates are true, false and true', () => {
    expect(call(allOf([]), 1)).toBe(true);
    expect(call(anyOf([]), 1)).toBe(false);
    expect(call(noneOf([]), 1)).toBe(true);
  });

  it('print as their real source', () => {
    expect(allOf([isPos, whereFn(kw('a'), '=', 1), kw('b') as unknown as Builtin]).toSource()).toBe(
      '(all-of pos? (where :a = 1) :b)',
    );
    expect(anyOf([noneOf([isEven])]).toSource()).toBe('(any-of (none-of even?))');
    expect(noneOf([]).toSource()).toBe('(none-of)');
  });
});

describe('core/index: namespaces, names, hints, docs', () => {
  it('resolves bare and qualified names to the right table', () => {
    expect(resolveCore(null, 'replace')).not.toBe(resolveCore('str', 'replace'));
    expect(resolveCore('clojure.string', 'replace')).toBe(resolveCore('str', 'replace'));
    expect(resolveCore('string', 'reverse')).not.toBe(resolveCore(null, 'reverse'));
    expect(resolveCore('str', 'map')).toBe(resolveCore(null, 'map'));
    expect(resolveCore('clojure.core', 'str')).toBe(resolveCore(null, 'str'));
    expect(resolveCore('core', 'inc')).toBe(resolveCore(null, 'inc'));
    expect(resolveCore('set', 'union')).toBeDefined();
    expect(resolveCore('clojure.set', 'subset?')).toBeDefined();
    expect(resolveCore(null, 'subset?')).toBeUndefined();
    expect(resolveCore('set', 'map')).toBeUndefined();
    expect(resolveCore('walk', 'postwalk')).toBeDefined();
    expect(resolveCore('Math', 'round')).not.toBe(resolveCore(null, 'round'));
    expect(resolveCore('Math', 'inc')).toBeUndefined();
    expect(resolveCore('regex', 're-find')).toBe(resolveCore(null, 're-find'));
    expect(resolveCore('nope', 'inc')).toBeUndefined();
    expect(resolveCore(null, 'constructor')).toBeUndefined();
    expect(resolveCore(null, '__proto__')).toBeUndefined();
    expect(resolveCore('__proto__', 'toString')).toBeUndefined();
    expect(resolveCore('constructor', 'name')).toBeUndefined();
    expect(unknownNameHint('constructor/x')).toBeUndefined();
  });

  it('merges tables without a name defined twice', () => {
    const tables = [seqFns, mapFns, fnFns, walkFns, mathFns, predicateFns, stringCoreFns, regexFns, queryFns];
    const seen = new Set<string>();
    const dups: string[] = [];
    for (const t of tables) {
      for (const k of Object.keys(t)) {
        if (seen.has(k)) dups.push(k);
        seen.add(k);
      }
    }
    expect(dups).toEqual([]);
    const names = coreNames();
    expect(names).toEqual([...names].sort());
    for (const n of ['str', 'format', 'where-not-a-fn', 'pluck', '<', 'nil?', 're-seq', 'union', 'map']) {
      expect(names.includes(n)).toBe(n !== 'where-not-a-fn');
    }
  });

  it('exposes constants as values', () => {
    expect(coreConstants['Math/PI']).toBe(Math.PI);
    expect(Number.isNaN(coreConstants['Double/NaN'])).toBe(true);
    expect(coreConstants['Double/NEGATIVE_INFINITY']).toBe(-Infinity);
  });

  it.each([
    ['uper-case', 'did you mean: upper-case'],
    ['get_in', 'did you mean: get-in'],
    ['starts-with', 'did you mean: starts-with?'],
    ['includes', 'did you mean: includes?'],
    ['mapp', 'did you mean: map'],
    ['str/upper-cse', 'did you mean: str/upper-case'],
    ['set/unoin', 'did you mean: set/union'],
    ['Math/sqr', 'did you mean: Math/sqrt'],
    ['len', 'use count'],
    ['rand-int', 'not available: programs must replay identically, so there is no randomness or clock'],
    ['swap!', 'there is no mutable state; carry values with let, loop/recur or reduce'],
    ['frobnicate', undefined],
    ['unknown-ns/x', undefined],
  ])('hint for %s: %s', (name, hint) => {
    expect(unknownNameHint(name)).toBe(hint);
  });

  it('documents every bare name once', () => {
    const docs = coreDocs();
    const bare = docs.filter((d) => !d.name.includes('/') || d.name === '/').map((d) => d.name);
    expect(new Set(bare).size).toBe(bare.length);
    expect([...bare].sort()).toEqual(coreNames());
    expect(docs.find((d) => d.name === 'str/reverse')?.area).toBe('strings');
    expect(docs.every((d) => d.doc.length > 0 && !d.doc.includes('\n'))).toBe(true);
  });
});
