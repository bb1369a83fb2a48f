/**
 * Regex functions: `re-pattern re-find re-matches re-seq re-split`. Matching runs on
 * re2js (linear time, see `lisp/regex.ts`). Results are Clojure's: the matched string
 * when the pattern has no groups, else a vector `[match g1 g2 ...]` with nil for groups
 * that did not take part. A string is accepted wherever a pattern is expected and is
 * compiled as a regex (Clojure requires a pattern there).
 *
 * Positions are UTF-16 code units, as in Java.
 */
import { type Matcher, MatcherInput } from 're2js';
import { compileRegex, re2Of } from '../regex.ts';
import { NativeMatcher, nativeInput, nativeRegex } from '../regex-native.ts';
import { type Regex, type Runtime, type Value, PList, isRegex } from '../values.ts';
import { vectorOfArray } from '../vector-of-array.ts';
import { argError, expectInteger, expectString } from './args.ts';
import { type CoreTable, defn } from './registry.ts';

/** Pattern length limit when the runtime does not say (the `maxRegexLength` default). */
export const DEFAULT_MAX_REGEX_LENGTH = 1000;

/** The regex length limit of the running program, when its runtime exposes one. */
export function maxRegexLength(rt: Runtime): number {
  const n = (rt as Runtime & { maxRegexLength?: number }).maxRegexLength;
  return typeof n === 'number' ? n : DEFAULT_MAX_REGEX_LENGTH;
}

/** A regex argument: a regex value, or a string compiled as one. */
export function expectRegex(fn: string, v: Value, rt: Runtime): Regex {
  if (isRegex(v)) return v;
  if (typeof v === 'string') return compileRegex(v, maxRegexLength(rt));
  throw argError(fn, 'regex', v);
}

/** Charges fuel for scanning `s`: one unit per 256 characters, at least one. */
export function chargeScan(rt: Runtime, s: string): void {
  rt.tick(1 + (s.length >> 8));
}

/**
 * A fresh matcher of `r` over `s`: V8's linear-time engine when that gives re2js's
 * answers (see regex-native.ts), else re2js.
 */
export function matcherOf(r: Regex, s: string): Matcher {
  const native = nativeInput(s) ? nativeRegex(r.source) : null;
  return native ? (new NativeMatcher(native, s, re2Of(r).groupCount()) as unknown as Matcher) : re2Of(r).matcher(s);
}

/** Clojure `re-groups` of the current match: a string, or `[match g1 ...]`. */
export function groupsOf(m: Matcher): Value {
  const n = m.groupCount();
  if (n === 0) return m.group(0) ?? '';
  const out: Value[] = [];
  for (let i = 0; i <= n; i++) out.push(m.group(i));
  return vectorOfArray(out);
}

/**
 * Every match of `r` in `s`, as Java's `Matcher.find` loop finds them (an empty match
 * advances by one). Charges one unit of fuel per match and checks the size limit.
 */
export function* eachMatch(r: Regex, s: string, rt: Runtime): Generator<Matcher> {
  chargeScan(rt, s);
  const m = matcherOf(r, s);
  let count = 0;
  while (m.find()) {
    rt.tick(1);
    rt.checkSize(++count);
    yield m;
  }
}

/**
 * `groupsOf` of every match {@link eachMatch} finds, with the same fuel and size checks.
 * For patterns with groups (and no lookbehind), each match and its groups are found in
 * one pass of the engine (`RE2.matchWithGroup`) instead of `Matcher.find` plus a second
 * pass for the groups; the next search starts where `Matcher.find` would.
 */
export function allGroups(r: Regex, s: string, rt: Runtime): Value[] {
  const pattern = re2Of(r);
  const ng = pattern.groupCount();
  const engine = pattern.re2();
  const native = nativeInput(s) ? nativeRegex(r.source) : null;
  if (native) return nativeGroups(native.find, s, ng, rt);
  if (ng === 0 || engine.createLookbehindState() !== null) return Array.from(eachMatch(r, s, rt), groupsOf);
  chargeScan(rt, s);
  const input = MatcherInput.utf16(s);
  const len = s.length;
  const out: Value[] = [];
  let start = 0;
  let count = 0;
  for (;;) {
    const [found, g] = engine.matchWithGroup(input, start, len, UNANCHORED, ng + 1) as [boolean, number[] | null];
    if (!found || g === null) break;
    rt.tick(1);
    rt.checkSize(++count);
    const items: Value[] = new Array(ng + 1);
    for (let i = 0; i <= ng; i++) {
      const a = g[2 * i]!;
      const b = g[2 * i + 1]!;
      items[i] = a < 0 && b < 0 ? null : s.substring(a, b);
    }
    out.push(vectorOfArray(items));
    start = g[1]!;
    // an empty match: step over one character (a surrogate pair counts as one), as Matcher.find
    if (g[0] === start) start += start >= len ? 1 : charWidth(s, start, len);
  }
  return out;
}

const UNANCHORED = 0;

/** Matches found between two fuel and size checks on the native path. */
const CHECK_EVERY = 1024;

/**
 * {@link allGroups} on the native path: the loop of {@link eachMatch} and
 * {@link groupsOf} over a native regex (`g` flag) without a matcher object per search.
 * The loop does as little as it can per match, because it runs in V8's baseline tier
 * until the optimising compiler has caught up with it, several runs in: the regex moves
 * `lastIndex` on, a match's items are one `slice` of the exec result, and fuel and the
 * size limit are checked every {@link CHECK_EVERY} matches and once at the end. The fuel
 * charged and the limits are those of one unit and one size check per match: a limit
 * is hit a little later in the loop, never with a different outcome.
 */
function nativeGroups(re: RegExp, s: string, ng: number, rt: Runtime): Value[] {
  chargeScan(rt, s);
  const out: Value[] = [];
  re.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    // an empty match steps over one character (the input has no surrogates), as Matcher.find
    if (m[0].length === 0) re.lastIndex++;
    out.push(ng === 0 ? m[0] : matchGroups(m));
    if (out.length % CHECK_EVERY === 0) {
      rt.tick(CHECK_EVERY);
      rt.checkSize(out.length);
    }
  }
  rt.tick(out.length % CHECK_EVERY);
  rt.checkSize(out.length);
  return out;
}

/** `[match g1 g2 ...]`, with nil for a group that took no part (JS gives undefined). */
function matchGroups(m: RegExpExecArray): Value {
  const items: (Value | undefined)[] = m.slice();
  return vectorOfArray(items.includes(undefined) ? items.map((x) => x ?? null) : (items as Value[]));
}

function charWidth(s: string, pos: number, len: number): number {
  const c1 = s.charCodeAt(pos);
  if (c1 < 0xd800 || c1 > 0xdbff || pos + 1 >= len) return 1;
  const c2 = s.charCodeAt(pos + 1);
  return c2 >= 0xdc00 && c2 <= 0xdfff ? 2 : 1;
}

/**
 * Java's `Pattern.split(input, limit)`: `limit` > 0 gives at most that many pieces,
 * 0 drops trailing empty strings (Clojure's default), < 0 keeps them. A zero-width
 * match at the very start never makes a leading empty piece.
 */
export function splitWith(matches: Iterable<{ start: number; end: number }>, s: string, limit: number): string[] {
  const pieces: string[] = [];
  let index = 0;
  for (const { start, end } of matches) {
    if (limit <= 0 || pieces.length < limit - 1) {
      if (index === 0 && start === 0 && end === 0) continue;
      pieces.push(s.slice(index, start));
      index = end;
    } else {
      break;
    }
  }
  if (index === 0) return [s];
  pieces.push(s.slice(index));
  if (limit === 0) while (pieces.length > 0 && pieces[pieces.length - 1] === '') pieces.pop();
  return pieces;
}

/** Positions of every match of a regex, for {@link splitWith}. */
export function* regexPositions(r: Regex, s: string, rt: Runtime): Generator<{ start: number; end: number }> {
  for (const m of eachMatch(r, s, rt)) yield { start: m.start(), end: m.end() };
}

function reSplit(fn: string, re: Value, s: Value, limit: Value | undefined, rt: Runtime): Value {
  const r = expectRegex(fn, re, rt);
  const text = expectString(fn, s);
  const n = limit === undefined || limit === null ? 0 : expectInteger(fn, limit);
  return vectorOfArray(splitWith(regexPositions(r, text, rt), text, n));
}

export const regexFns: CoreTable = {
  're-pattern': defn(
    [1, 1],
    ([p], rt) => (isRegex(p!) ? p! : compileRegex(expectString('re-pattern', p!), maxRegexLength(rt))),
    '(re-pattern "\\\\d+") is #"\\d+"',
  ),
  're-find': defn(
    [2, 2],
    ([re, s], rt) => {
      const text = expectString('re-find', s!);
      const m = matcherOf(expectRegex('re-find', re!, rt), text);
      chargeScan(rt, text);
      return m.find() ? groupsOf(m) : null;
    },
    'first match: a string, or [match g1 g2 ...] when the pattern has groups; nil if none',
  ),
  're-matches': defn(
    [2, 2],
    ([re, s], rt) => {
      const text = expectString('re-matches', s!);
      const m = matcherOf(expectRegex('re-matches', re!, rt), text);
      chargeScan(rt, text);
      return m.matches() ? groupsOf(m) : null;
    },
    'like re-find, but the whole string must match',
  ),
  're-seq': defn(
    [2, 2],
    ([re, s], rt) => {
      const text = expectString('re-seq', s!);
      const out = allGroups(expectRegex('re-seq', re!, rt), text, rt);
      return out.length === 0 ? null : PList.fromArray(out);
    },
    'all matches as a list (nil if none): (re-seq #"\\d+" "a1b22") is ("1" "22")',
  ),
  're-split': defn(
    [2, 3],
    ([re, s, limit], rt) => reSplit('re-split', re!, s!, limit, rt),
    '(re-split #",\\s*" s): like clojure.string/split with the pattern first',
  ),
};
