/**
 * Printer tests: the printed forms are Clojure's (see docs/language-reader-printer.md
 * for the deliberate differences: integral numbers print without `.0`, lazy seqs and
 * functions print readably).
 */
import { describe, expect, it } from 'vitest';
import { PtcError } from '../../src/lisp/errors.ts';
import { formatNumber, printForm, printlnText, prStr, prStrLimited, strOf } from '../../src/lisp/printer/index.ts';
import { read } from '../../src/lisp/reader/index.ts';
import { compileRegex } from '../../src/lisp/regex.ts';
import { Builtin, LazySeq, PList, kw, list, map, set, vec, type Value } from '../../src/lisp/values.ts';

const range = (n = Infinity): LazySeq => new LazySeq((i) => (i < n ? i : LazySeq.END));

describe('formatNumber', () => {
  it.each<[number, string]>([
    [0, '0'],
    [-0, '0'],
    [5, '5'],
    [-12, '-12'],
    [10 / 2, '5'],
    [2.5, '2.5'],
    [0.1 + 0.2, '0.30000000000000004'],
    [-0.25, '-0.25'],
    [1 / 3, '0.3333333333333333'],
    [1e20, '100000000000000000000'],
    [1e21, '1.0E21'],
    [-1e21, '-1.0E21'],
    [1.5e300, '1.5E300'],
    [1e-7, '1.0E-7'],
    [1.5e-10, '1.5E-10'],
    [0.000001, '0.000001'],
    [Number.MAX_VALUE, '1.7976931348623157E308'],
    [Number.MIN_VALUE, '5.0E-324'],
    // eslint-disable-next-line no-loss-of-precision -- the literal rounding to 2^53 is what is printed
    [9007199254740993, '9007199254740992'],
    [Infinity, '##Inf'],
    [-Infinity, '##-Inf'],
    [NaN, '##NaN'],
  ])('%s → %s', (n, s) => {
    expect(formatNumber(n)).toBe(s);
  });
});

describe('prStr', () => {
  const fn = new Builtin('inc', () => null);
  const partial = new Builtin('partial', () => null, '(partial + 1)');
  it.each<[string, Value, string]>([
    ['nil', null, 'nil'],
    ['true', true, 'true'],
    ['false', false, 'false'],
    ['number', 42, '42'],
    ['string', 'hi', '"hi"'],
    ['escapes', 'a"b\\c\nd\te\rf\bg\fh', '"a\\"b\\\\c\\nd\\te\\rf\\bg\\fh"'],
    ['unicode raw', 'é☃😀\u0001', '"é☃😀\u0001"'],
    ['keyword', kw('status'), ':status'],
    ['ns keyword', kw('a/b'), ':a/b'],
    ['vector', vec([1, 'a', kw('k')]), '[1 "a" :k]'],
    ['empty vector', vec(), '[]'],
    ['list', list([1, 2]), '(1 2)'],
    ['empty list', PList.EMPTY, '()'],
    ['lazy seq', range(3), '(0 1 2)'],
    [
      'map',
      map([
        [kw('a'), 1],
        ['b', vec([2])],
      ]),
      '{:a 1, "b" [2]}',
    ],
    [
      'map keeps insertion order',
      map([
        [kw('z'), 1],
        [kw('a'), 2],
      ]),
      '{:z 1, :a 2}',
    ],
    ['empty map', map(), '{}'],
    ['set', set([1, kw('x')]), '#{1 :x}'],
    ['empty set', set(), '#{}'],
    ['nested', vec([map([[kw('a'), set([list([null])])]])]), '[{:a #{(nil)}}]'],
    ['regex', compileRegex('\\d+"x', 100), '#"\\d+"x"'],
    ['builtin', fn, 'inc'],
    ['partial', partial, '(partial + 1)'],
    ['specials', vec([Infinity, -Infinity, NaN]), '[##Inf ##-Inf ##NaN]'],
  ])('%s', (_name, v, s) => {
    expect(prStr(v)).toBe(s);
  });

  it('bounds lazy seqs with limit_exceeded collection_size', () => {
    try {
      prStr(range(), { maxItems: 1000 });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(PtcError);
      expect((e as PtcError).code).toBe('limit_exceeded');
      expect((e as PtcError).details).toEqual({ limit: 'collection_size' });
    }
  });

  it('refuses absurdly deep values cleanly', () => {
    let v: Value = vec();
    for (let i = 0; i < 5000; i++) v = vec([v]);
    expect(() => prStr(v)).toThrow(PtcError);
    // beyond the host stack a RangeError is turned into the same clean error
    expect(() => prStr(v, { maxDepth: 1_000_000 })).toThrow(/nested too deeply/);
    let w: Value = vec();
    for (let i = 0; i < 900; i++) w = vec([w]);
    expect(prStr(w)).toHaveLength(1802);
  });
});

describe('prStrLimited', () => {
  it('returns short values whole', () => {
    expect(prStrLimited(vec([1, 2]), 200)).toBe('[1 2]');
    expect(prStrLimited('x'.repeat(198), 200)).toBe(`"${'x'.repeat(198)}"`);
  });
  it('cuts at maxChars and appends the ellipsis', () => {
    expect(prStrLimited('x'.repeat(199), 200)).toBe(`"${'x'.repeat(199)}...`);
    expect(prStrLimited(vec([1, 2, 3]), 4, '…')).toBe('[1 2…');
  });
  it('stops early on infinite seqs', () => {
    const s = prStrLimited(range(), 200);
    expect(s).toHaveLength(203);
    expect(s.startsWith('(0 1 2 3')).toBe(true);
  });
});

describe('strOf and printlnText', () => {
  it.each<[Value, string]>([
    [null, ''],
    ['raw "s"', 'raw "s"'],
    [kw('user-id'), ':user-id'],
    [5, '5'],
    [0.1 + 0.2, '0.30000000000000004'],
    [Infinity, 'Infinity'],
    [-Infinity, '-Infinity'],
    [NaN, 'NaN'],
    [true, 'true'],
    [vec(['a', null]), '["a" nil]'],
    [map([[kw('a'), 'b']]), '{:a "b"}'],
    [compileRegex('\\d+', 100), '\\d+'],
  ])('str %s', (v, s) => {
    expect(strOf(v)).toBe(s);
  });

  it.each<[Value[], string]>([
    [[], ''],
    [['a', 'b'], 'a b'],
    [[null], 'nil'],
    [[vec(['a', kw('b')])], '[a :b]'],
    [[map([['k', 'v"q']])], '{k v"q}'],
    [[list(['h', 'e', 'l'])], '(h e l)'],
    [[1.5, kw('k'), 'x\ny'], '1.5 :k x\ny'],
  ])('println %j', (args, s) => {
    expect(printlnText(args)).toBe(s);
  });
});

describe('printForm', () => {
  it.each([
    '(fn [x] (+ x y))',
    '#(+ % 1)',
    '{:a 1, "b" [2 3]}',
    '#{1 :a}',
    '#"\\d+\\"x"',
    "#'inc",
    '(str/join ", " xs)',
    '[\\a \\newline \\space \\tab \\u0001 \\( \\\\]',
    '"a\\nb\\"c"',
    '[nil true false 1.5 ##Inf ##NaN -3 :k/v]',
    '(clojure.core// 1 2)',
  ])('%s', (src) => {
    expect(printForm(read(src)[0]!)).toBe(src);
  });

  it('normalises spacing and number spelling', () => {
    expect(printForm(read('( f  1.0  ,0x10 {:a 1 :b 2} )')[0]!)).toBe('(f 1 16 {:a 1, :b 2})');
  });
});
