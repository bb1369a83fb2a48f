import { describe, expect, it } from 'vitest';
import { FakeRuntime, evError, pr } from './helpers/fake-runtime-b.ts';

/** [source, printed value]: Clojure's results for the same program. */
const clojureAgreement: Array<[string, string]> = [
  ['(re-find #"\\d+" "abc123def456")', '"123"'],
  ['(re-find #"\\d+" "abc")', 'nil'],
  ['(re-find #"(\\w+)@(\\w+)" "mail bob@example now")', '["bob@example" "bob" "example"]'],
  ['(re-find #"(a)|(b)" "b")', '["b" nil "b"]'],
  ['(re-find #"(a)?b" "b")', '["b" nil]'],
  ['(re-matches #"\\d+" "123")', '"123"'],
  ['(re-matches #"\\d+" "123a")', 'nil'],
  ['(re-matches #"(\\d+)-(\\d+)" "10-20")', '["10-20" "10" "20"]'],
  ['(re-seq #"\\d+" "a1b22c333")', '("1" "22" "333")'],
  ['(re-seq #"\\d+" "abc")', 'nil'],
  ['(re-seq #"(\\w)=(\\d)" "a=1 b=2")', '(["a=1" "a" "1"] ["b=2" "b" "2"])'],
  ['(re-seq #"x*" "ab")', '("" "" "")'],
  ['(re-seq #"." "a😀")', '("a" "😀")'],
  ['(re-find (re-pattern "\\\\d+") "x42")', '"42"'],
  ['(re-find #"(?i)abc" "xABCx")', '"ABC"'],
  ['(re-find #"^b" "a\\nb")', 'nil'],
  ['(re-find #"(?m)^b" "a\\nb")', '"b"'],
  ['(re-find #"\\p{L}+" "123café")', '"café"'],
  ['(regex? #"a")', 'true'],
  ['(regex? "a")', 'false'],
  ['(str #"a+b")', '"a+b"'],
];

describe('regex: Clojure agreement', () => {
  it.each(clojureAgreement)('%s → %s', (src, expected) => {
    expect(pr(src)).toBe(expected);
  });
});

describe('regex: extensions', () => {
  it.each([
    // a string where a pattern is expected is compiled as a regex
    ['(re-find "\\\\d+" "ab12")', '"12"'],
    ['(re-seq "[a-z]" "a1b")', '("a" "b")'],
    // re-pattern of a pattern is that pattern
    ['(re-find (re-pattern #"b+") "abbc")', '"bb"'],
    // re-split (reference): the pattern comes first
    ['(re-split #",\\s*" "a, b,c")', '["a" "b" "c"]'],
    ['(re-split #"," "a,b,c" 2)', '["a" "b,c"]'],
    ['(regex/re-find #"a" "cat")', '"a"'],
    // Java-only syntax that has an RE2 equivalent
    ['(re-find #"a\\Z" "ba")', '"a"'],
    ['(re-find #"a++" "caab")', '"aa"'],
  ])('%s → %s', (src, expected) => {
    expect(pr(src)).toBe(expected);
  });

  it('is #"..." and (re-pattern "...") alike (scenario 49)', () => {
    expect(pr('(re-seq #"\\d+" "a1b2")')).toBe(pr('(re-seq (re-pattern "\\\\d+") "a1b2")'));
  });
});

describe('regex: errors and limits', () => {
  it.each([
    ['(re-find #"a" nil)', 'type_error', 're-find: expected string, got nil'],
    ['(re-find 5 "a")', 'type_error', 're-find: expected regex, got number'],
    ['(re-pattern 5)', 'type_error', 're-pattern: expected string, got number'],
    ['(re-split #"," "a" "x")', 'type_error', 're-split: expected integer, got string'],
  ])('%s is %s', (src, code, message) => {
    const e = evError(src);
    expect(e.code).toBe(code);
    expect(e.message).toBe(message);
  });

  it('rejects lookaround with a hint instead of hanging', () => {
    const e = evError('(re-pattern "(?=a)b")');
    expect(e.code).toBe('regex_error');
    expect(e.hint).toMatch(/lookahead/);
  });

  it('rejects patterns over the length limit', () => {
    const long = 'a'.repeat(1001);
    expect(evError(`(re-pattern "${long}")`).code).toBe('limit_exceeded');
    const rt = Object.assign(new FakeRuntime(), { maxRegexLength: 2000 });
    expect(pr(`(re-matches (re-pattern "${long}") "${long}")`, rt)).toBe(`"${long}"`);
  });

  it('matches a classic catastrophic-backtracking pattern in linear time', () => {
    const input = `${'a'.repeat(5000)}!`;
    expect(pr(`(re-matches #"(a+)+$" "${input}")`)).toBe('nil');
  });

  it('charges fuel per match and bounds the number of matches', () => {
    const rt = new FakeRuntime();
    pr('(re-seq #"a" "aaaa")', rt);
    expect(rt.ticks).toBeGreaterThanOrEqual(4);
    expect(evError('(re-seq #"a" "aaaa")', new FakeRuntime({ maxCollectionSize: 3 })).code).toBe('limit_exceeded');
    expect(evError('(re-seq #"a" "aaaa")', new FakeRuntime({ fuel: 3 })).code).toBe('limit_exceeded');
  });
});
