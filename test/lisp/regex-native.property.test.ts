/**
 * The native regex path (V8's linear-time engine, src/lisp/regex-native.ts) against
 * re2js, checked with fast-check: for random patterns of the subset it accepts and random
 * strings (spaces RE2 and JS disagree on, newlines, line separators, accented letters),
 * every match, its position and its groups, and whole-string matching are the same.
 * Also which patterns it accepts, and that it stays linear (an answer, not a timing).
 */
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/lisp/index.ts';
import { prStr } from '../../src/lisp/printer/index.ts';
import { NativeMatcher, nativeInput, nativeRegex, toNativeSource } from '../../src/lisp/regex-native.ts';
import { compileRegex, translateJavaRegex } from '../../src/lisp/regex.ts';
import { allGroups, groupsOf } from '../../src/lisp/core/regex.ts';
import { vec } from '../../src/lisp/values.ts';
import { FakeRuntime } from './helpers/fake-runtime.ts';

const atom = fc.constantFrom(
  'a',
  'b',
  '1',
  ' ',
  '.',
  '\\d',
  '\\D',
  '\\w',
  '\\W',
  '\\s',
  '\\S',
  '\\b',
  '[ab]',
  '[^a ]',
  '[\\d\\s]',
  '[a-c1]',
  '\\.',
  '\\n',
  'é',
);
const quant = fc.constantFrom('', '', '', '*', '+', '?', '*?', '+?', '??', '{1,2}', '{2}', '{0,3}?');
const pattern: fc.Arbitrary<string> = fc.letrec<{ p: string }>((tie) => ({
  p: fc.oneof(
    { weight: 4, arbitrary: fc.tuple(atom, quant).map(([a, q]) => a + q) },
    { weight: 2, arbitrary: fc.tuple(tie('p'), tie('p')).map(([a, b]) => a + b) },
    { weight: 1, arbitrary: fc.tuple(tie('p'), tie('p')).map(([a, b]) => `${a}|${b}`) },
    { weight: 1, arbitrary: fc.tuple(tie('p'), quant).map(([a, q]) => `(${a})${q}`) },
    { weight: 1, arbitrary: fc.tuple(tie('p'), quant).map(([a, q]) => `(?:${a})${q}`) },
    { weight: 1, arbitrary: tie('p').map((a) => `^${a}`) },
    { weight: 1, arbitrary: tie('p').map((a) => `${a}$`) },
  ),
})).p;
const text = fc
  .array(fc.constantFrom('a', 'b', '1', ' ', '\n', '\t', '\u00a0', '\u2028', '\r', 'é', '_', '.', '\u000b'), {
    maxLength: 12,
  })
  .map((cs) => cs.join(''));

type Found = Array<{ start: number; end: number; groups: Array<string | null> }>;

function allOf(m: {
  find(): boolean;
  start(): number;
  end(): number;
  group(i: number): string | null;
  groupCount(): number;
}): Found {
  const out: Found = [];
  while (m.find()) {
    const groups: Array<string | null> = [];
    for (let i = 0; i <= m.groupCount(); i++) groups.push(m.group(i));
    out.push({ start: m.start(), end: m.end(), groups });
  }
  return out;
}

describe('the native regex path', () => {
  it('finds the same matches, positions and groups as re2js, and agrees on whole-string matches', () => {
    let native = 0;
    fc.assert(
      fc.property(pattern, text, (p, s) => {
        const re2 = RE2JS.compile(translateJavaRegex(p));
        const compiled = nativeRegex(p);
        if (!compiled || !nativeInput(s)) return;
        native++;
        const ours = new NativeMatcher(compiled, s, re2.groupCount());
        expect(allOf(ours), `${p} on ${JSON.stringify(s)}`).toEqual(allOf(re2.matcher(s)));
        expect(new NativeMatcher(compiled, s, re2.groupCount()).matches(), `${p} matches ${JSON.stringify(s)}`).toBe(
          re2.matcher(s).matches(),
        );
      }),
      { numRuns: 3000 },
    );
    // the subset is what random patterns mostly fall in: the property is not vacuous
    expect(native).toBeGreaterThan(2000);
  });

  it('re-seq on the native path gives what the re2js matcher loop gives, with the same fuel', () => {
    fc.assert(
      fc.property(pattern, text, (p, s) => {
        const rt = new FakeRuntime();
        const ours = prStr(vec(allGroups(compileRegex(p, 1000), s, rt)));
        const m = RE2JS.compile(translateJavaRegex(p)).matcher(s);
        const theirs = [];
        while (m.find()) theirs.push(groupsOf(m));
        expect(ours, `${p} on ${JSON.stringify(s)}`).toBe(prStr(vec(theirs)));
        expect(rt.ticks).toBe(1 + (s.length >> 8) + theirs.length);
      }),
      { numRuns: 2000 },
    );
  });

  it('re-seq over thousands of matches (fuel and size checked in chunks): the items, fuel and size limit of one check per match', () => {
    const s = 'a1 b22 '.repeat(1500) + 'a';
    for (const p of ['\\d', '[ab](\\d+)?', 'x*', '(b)|(\\d)']) {
      const m = RE2JS.compile(translateJavaRegex(p)).matcher(s);
      const theirs = [];
      while (m.find()) theirs.push(groupsOf(m));
      expect(theirs.length, p).toBeGreaterThan(2048);
      const rt = new FakeRuntime({ maxCollectionSize: theirs.length });
      expect(prStr(vec(allGroups(compileRegex(p, 1000), s, rt))), p).toBe(prStr(vec(theirs)));
      expect(rt.ticks, p).toBe(1 + (s.length >> 8) + theirs.length);
      // one fewer item allowed: limit_exceeded, as with a check per match
      const tight = new FakeRuntime({ maxCollectionSize: theirs.length - 1 });
      expect(() => allGroups(compileRegex(p, 1000), s, tight), p).toThrow(/exceeds/);
      // fuel for all but the last match: the run stops
      const short = new FakeRuntime({ fuel: 1 + (s.length >> 8) + theirs.length - 1 });
      expect(() => allGroups(compileRegex(p, 1000), s, short), p).toThrow(/fuel/);
    }
  });

  it.each([
    ['\\d+', '\\d+'],
    ['a.b', 'a[^\\n]b'],
    ['\\s\\S', '[\\t\\n\\f\\r ][^\\t\\n\\f\\r ]'],
    ['[\\s,]', '[\\t\\n\\f\\r ,]'],
    ['(?:a|b){2,5}?', '(?:a|b){2,5}?'],
    ['\\x41', '\\x41'],
  ])('translates %s to %s', (re2, js) => {
    expect(toNativeSource(re2)).toBe(js);
  });

  it.each([
    '(?i)abc',
    '(?P<n>a)',
    '\\pL',
    '\\Aa\\z',
    '[[:alpha:]]',
    '[^\\S]',
    'a{1001}',
    'x{,3}',
    '\\Qa.b\\E',
    '\\x{41}',
    'a]',
  ])('leaves %s to re2js', (re2) => {
    expect(toNativeSource(re2)).toBeUndefined();
  });

  it('leaves input with surrogates (astral characters) to re2js, with the same answers', async () => {
    expect(nativeInput('a😀b')).toBe(false);
    const r = await run('(re-seq #"." "a😀b")');
    expect(r.status === 'ok' && prStr(r.value)).toBe('("a" "😀" "b")');
  });

  it('stays linear: a pattern that backtracks exponentially elsewhere answers at once', async () => {
    const r = await run(`(re-find #"(a+)+$" (str (apply str (repeat 30000 "a")) "b"))`);
    expect(r.status === 'ok' && r.value).toBe(null);
  });

  it('stays linear on the native path: V8 hands a search that backtracks too much to its linear engine', async () => {
    const cases: Array<[string, string, string]> = [
      ['(?:a|a)+b', '(apply str (repeat 60 "a"))', 'nil'],
      ['(?:a+)+b', '(apply str (repeat 5000 "a"))', 'nil'],
      ['(?:a|aa)+c', '(str (apply str (repeat 3000 "a")) "c")', `"${'a'.repeat(3000)}c"`],
      ['(?:\\w|\\d)+x', '(apply str (repeat 50 "1"))', 'nil'],
    ];
    for (const [source, input, expected] of cases) {
      expect(nativeRegex(source)).not.toBeNull();
      const r = await run(`(re-find #"${source}" ${input})`);
      expect(r.status === 'ok' && prStr(r.value)).toBe(expected);
    }
  });

  it("leaves patterns with U+FFFF to re2js: V8's linear engine gets negated classes with it wrong", async () => {
    expect(toNativeSource('[^\uffff]')).toBeUndefined();
    const r = await run('(re-find #"[^\uffff]+" "ab\uffffc")');
    expect(r.status === 'ok' && prStr(r.value)).toBe('"ab"');
  });
});
