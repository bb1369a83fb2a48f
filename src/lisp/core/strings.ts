/**
 * Strings, printing and parsing.
 *
 * Two tables:
 * - {@link stringFns}: the `clojure.string` namespace (`str/`, `string/`,
 *   `clojure.string/`), where `replace` and `reverse` are the string versions;
 * - {@link stringCoreFns}: bare names. `str`, `format`, `subs`, `name`, `keyword`,
 *   printing and parsing, plus every `clojure.string` function under its bare name (as
 *   the reference allows: `(join ", " xs)`), except `reverse`, which stays the sequence
 *   function, and `replace`, which dispatches on its arguments: `(replace s match r)` is
 *   the string replace, `(replace smap coll)` Clojure's collection substitution.
 *
 * Characters are 1-character strings; indices count UTF-16 code units, as in Java.
 * Every string a function builds is bounded by the collection-size limit.
 */
import { type PrintOptions, prStr, printlnText, strNumber, strOf } from '../printer/index.ts';
import { PtcError } from '../errors.ts';
import { getIn1, mapHas } from '../lookup.ts';
import {
  type Regex,
  type Runtime,
  type Value,
  Keyword,
  Sym,
  sym,
  isMap,
  isRegex,
  isVector,
  kw,
  list,
} from '../values.ts';
import { vectorOfArray } from '../vector-of-array.ts';
import { argError, expectInteger, expectString, seqItems } from './args.ts';
import { DOUBLE_TEXT } from './math.ts';
import { chargeScan, eachMatch, groupsOf, matcherOf, regexPositions, splitWith } from './regex.ts';
import { type CoreTable, VARIADIC, defn, fixedArity } from './registry.ts';
import { concat } from './concat.ts';
import { format } from './format.ts';
import type { Matcher } from 're2js';

// ---------------------------------------------------------------- helpers

/**
 * `(str a b ...)`: built with `+`, which V8 does without copying (and faster than `join`
 * for the few parts `str` usually gets); the size limit is checked as the text grows.
 */
function strConcat(args: Value[], rt: Runtime): string {
  let out = '';
  for (const a of args) out = strAppend(out, a, rt);
  return out;
}

/** `out` followed by the text of `a`, within the size limit. */
function strAppend(out: string, a: Value, rt: Runtime): string {
  const s = out + (typeof a === 'string' ? a : typeof a === 'number' ? strNumber(a) : strIn(a, rt));
  if (s.length > rt.maxCollectionSize) rt.checkSize(s.length);
  return s;
}

/** Java's `Character.isWhitespace`, which Clojure's `trim` and `blank?` use. */
function isWhitespace(c: string): boolean {
  const code = c.charCodeAt(0);
  if ((code >= 9 && code <= 13) || (code >= 0x1c && code <= 0x20)) return true;
  if (code < 0x80 || code === 0xa0 || code === 0x2007 || code === 0x202f) return false;
  return /[\p{Zs}\u2028\u2029]/u.test(c);
}

function trimLeft(s: string): string {
  let i = 0;
  while (i < s.length && isWhitespace(s[i]!)) i++;
  return s.slice(i);
}

function trimRight(s: string): string {
  let j = s.length;
  while (j > 0 && isWhitespace(s[j - 1]!)) j--;
  return s.slice(0, j);
}

/** A string argument; a keyword or number is turned into text as `.toString` would. */
function textOf(fn: string, v: Value): string {
  if (typeof v === 'string') return v;
  if (v === null) throw argError(fn, 'string', v);
  return strOf(v);
}

const indexOrNil = (i: number): Value => (i < 0 ? null : i);

// ---------------------------------------------------------------- split / replace

/** Match positions of a literal separator (an empty one matches between characters). */
function* literalPositions(s: string, sep: string, rt: Runtime): Generator<{ start: number; end: number }> {
  chargeScan(rt, s);
  if (sep === '') {
    let i = 0;
    for (const ch of s) {
      yield { start: i, end: i };
      i += ch.length;
    }
    yield { start: i, end: i };
    return;
  }
  for (let i = s.indexOf(sep); i >= 0; i = s.indexOf(sep, i + sep.length)) yield { start: i, end: i + sep.length };
}

function split(fn: string, s: Value, sep: Value, limit: Value | undefined, rt: Runtime): Value {
  const text = expectString(fn, s);
  const n = limit === undefined || limit === null ? 0 : expectInteger(fn, limit);
  const positions = isRegex(sep)
    ? regexPositions(sep, text, rt)
    : typeof sep === 'string'
      ? literalPositions(text, sep, rt)
      : (() => {
          throw argError(fn, 'regex or string separator', sep);
        })();
  const pieces = splitWith(positions, text, n);
  rt.checkSize(pieces.length);
  return vectorOfArray(pieces);
}

function replacementError(message: string): PtcError {
  return new PtcError(
    'regex_error',
    `replace: ${message}`,
    undefined,
    'in a regex replacement $1 is group 1 and \\$ is a literal $; (re-quote-replacement s) escapes a whole string',
  );
}

/**
 * Expands a Java replacement string (`Matcher.appendReplacement`): `$n` is group n
 * (further digits are taken while they name a group), `${name}` a named group, `\x`
 * the character x. An unmatched group inserts nothing.
 */
function expandReplacement(repl: string, m: Matcher, named: Record<string, number>): string {
  let out = '';
  const groups = m.groupCount();
  for (let i = 0; i < repl.length; i++) {
    const c = repl[i]!;
    if (c === '\\') {
      if (++i >= repl.length) throw replacementError('character to be escaped is missing');
      out += repl[i];
    } else if (c === '$') {
      if (++i >= repl.length) throw replacementError('illegal group reference: group index is missing');
      let group: number;
      if (repl[i] === '{') {
        const close = repl.indexOf('}', i);
        const name = close < 0 ? '' : repl.slice(i + 1, close);
        if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name)) throw replacementError('named capturing group is missing a name');
        if (named[name] === undefined) throw replacementError(`no group with name {${name}}`);
        group = named[name];
        i = close;
      } else {
        const d = repl.charCodeAt(i) - 48;
        if (d < 0 || d > 9) throw replacementError('illegal group reference');
        group = d;
        if (group > groups) throw replacementError(`no group ${group}`);
        while (i + 1 < repl.length) {
          const next = repl.charCodeAt(i + 1) - 48;
          if (next < 0 || next > 9 || group * 10 + next > groups) break;
          group = group * 10 + next;
          i++;
        }
      }
      out += m.group(group) ?? '';
    } else out += c;
  }
  return out;
}

type Replacement = (m: Matcher) => string;

function regexReplacement(r: Regex, repl: Value, rt: Runtime): Replacement {
  if (typeof repl === 'string') {
    const named = (r.compiled as { namedGroups(): Record<string, number> }).namedGroups();
    return (m) => expandReplacement(repl, m, named);
  }
  return (m) => strOf(rt.apply1(repl, groupsOf(m)));
}

function replaceRegex(s: string, r: Regex, replace: Replacement, firstOnly: boolean, rt: Runtime): string {
  const parts: string[] = [];
  let last = 0;
  for (const m of firstOnly ? firstMatch(r, s, rt) : eachMatch(r, s, rt)) {
    parts.push(s.slice(last, m.start()), replace(m));
    last = m.end();
  }
  parts.push(s.slice(last));
  return concat(parts, rt);
}

function* firstMatch(r: Regex, s: string, rt: Runtime): Generator<Matcher> {
  chargeScan(rt, s);
  const m = matcherOf(r, s);
  if (m.find()) yield m;
}

function replaceLiteral(s: string, match: string, repl: Value, firstOnly: boolean, rt: Runtime): string {
  const replaceWith = (found: string): string => (typeof repl === 'string' ? repl : strOf(rt.apply1(repl, found)));
  const parts: string[] = [];
  let last = 0;
  for (const { start, end } of literalPositions(s, match, rt)) {
    rt.tick(1);
    parts.push(s.slice(last, start), replaceWith(s.slice(start, end)));
    last = end;
    if (firstOnly) break;
  }
  parts.push(s.slice(last));
  return concat(parts, rt);
}

/** `clojure.string/replace` and `replace-first`. */
function replaceString(fn: string, s: Value, match: Value, repl: Value, firstOnly: boolean, rt: Runtime): string {
  const text = expectString(fn, s);
  if (typeof repl !== 'string' && !isCallable(repl)) throw argError(fn, 'string or function replacement', repl);
  if (typeof match === 'string') return replaceLiteral(text, match, repl, firstOnly, rt);
  if (isRegex(match)) return replaceRegex(text, match, regexReplacement(match, repl, rt), firstOnly, rt);
  throw argError(fn, 'string or regex to match', match);
}

const isCallable = (v: Value): boolean => v !== null && typeof v === 'object' && !isRegex(v);

/**
 * Clojure's core `replace`: `(replace {1 :a} [1 2])` is `[:a 2]`; a vector `smap`
 * maps indices. Keys are read flexibly. A vector `coll` gives a vector, else a list.
 */
function replaceInColl(smap: Value, coll: Value, rt: Runtime): Value {
  if (!isMap(smap) && !isVector(smap)) throw argError('replace', 'map', smap);
  const has = (x: Value): boolean =>
    isMap(smap) ? mapHas(smap, x) : typeof x === 'number' && Number.isInteger(x) && x >= 0 && x < smap.size;
  const out: Value[] = [];
  for (const x of seqItems('replace', coll, rt)) out.push(has(x) ? getIn1(smap, x) : x);
  rt.tick(out.length);
  return isVector(coll) ? vectorOfArray(out) : list(out);
}

// ---------------------------------------------------------------- parsing

const LONG_TEXT = /^[+-]?\d+$/;

function parseLong(s: Value): Value {
  return typeof s === 'string' && LONG_TEXT.test(s) ? Number(s) : null;
}

function parseDouble(s: Value): Value {
  if (typeof s !== 'string' || !DOUBLE_TEXT.test(s)) return null;
  return Number(s.trim().replace(/[fFdD]$/, ''));
}

// ---------------------------------------------------------------- printing

/**
 * Output is line based: each `println`, `print`, `prn` or `pr` call adds one line to the
 * program's output (`rt.print`), so `(print "a") (print "b")` gives two lines, not "ab".
 * A trailing newline in `print`'s text is dropped; other newlines stay inside the line.
 */
function emit(rt: Runtime, text: string): null {
  rt.print(text);
  return null;
}

const prText = (args: Value[], rt: Runtime): string => args.map((a) => prStr(a, charging(rt))).join(' ');

/** Printing inside a program spends its fuel, so a huge value cannot print for ever. */
const charging = (rt: Runtime): PrintOptions => ({ charge: (units) => rt.tick(units) });

/** `str` of one value; only collections print, so only they get a fuel-charging printer. */
const strIn = (v: Value, rt: Runtime): string =>
  typeof v === 'object' && v !== null ? strOf(v, charging(rt)) : strOf(v);

/** `(keyword x)`: a keyword from a keyword, symbol or string; nil otherwise. */
function keywordOf(x: Value): Value {
  if (x instanceof Keyword) return x;
  if (x instanceof Sym) return kw(x.fullName);
  return typeof x === 'string' ? kw(x) : null;
}

/** `(keyword ns name)`. */
function keywordIn(nsv: Value, name: Value): Value {
  const ns = nsv === null ? null : expectString('keyword', nsv);
  const nm = expectString('keyword', name);
  return kw(ns === null ? nm : `${ns}/${nm}`);
}

// ---------------------------------------------------------------- the tables

/** `clojure.string`: reached as `str/x`, `string/x` or `clojure.string/x`. */
export const stringFns: CoreTable = {
  join: defn(
    [1, 2],
    (args, rt) => {
      const [sep, coll] = args.length === 1 ? ['', args[0]!] : [args[0]!, args[1]!];
      const parts: string[] = [];
      for (const x of seqItems('join', coll, rt))
        parts.push(typeof x === 'string' ? x : typeof x === 'number' ? strNumber(x) : strIn(x, rt));
      rt.tick(parts.length);
      return concat(parts, rt, strOf(sep));
    },
    '(join ", " [1 2 3]) is "1, 2, 3"; (join xs) joins with nothing',
  ),
  split: defn(
    [2, 3],
    ([s, sep, limit], rt) => split('split', s!, sep!, limit, rt),
    '(split "a,b,,c" #",") is ["a" "b" "" "c"]; a string separator is literal; trailing empty pieces are dropped',
  ),
  'split-lines': defn(
    [1, 1],
    ([s], rt) => vectorOfArray(splitWith(literalLines(expectString('split-lines', s!), rt), s as string, 0)),
    'splits on \\n or \\r\\n, dropping trailing empty lines',
  ),
  trim: defn([1, 1], ([s]) => trimRight(trimLeft(expectString('trim', s!))), 'removes whitespace at both ends'),
  triml: defn([1, 1], ([s]) => trimLeft(expectString('triml', s!)), 'removes leading whitespace'),
  trimr: defn([1, 1], ([s]) => trimRight(expectString('trimr', s!)), 'removes trailing whitespace'),
  'trim-newline': defn(
    [1, 1],
    ([s]) => expectString('trim-newline', s!).replace(/[\r\n]+$/, ''),
    'removes trailing \\n and \\r',
  ),
  'blank?': defn(
    [1, 1],
    ([s]) => s === null || [...expectString('blank?', s!)].every(isWhitespace),
    'nil, empty or only whitespace',
  ),
  'upper-case': defn([1, 1], ([s]) => textOf('upper-case', s!).toUpperCase(), '"abc" → "ABC"'),
  'lower-case': defn([1, 1], ([s]) => textOf('lower-case', s!).toLowerCase(), '"ABC" → "abc"'),
  capitalize: defn(
    [1, 1],
    ([s]) => {
      const t = textOf('capitalize', s!);
      return t.slice(0, 1).toUpperCase() + t.slice(1).toLowerCase();
    },
    'first character upper case, the rest lower case',
  ),
  'starts-with?': defn(
    [2, 2],
    ([s, p]) => expectString('starts-with?', s!).startsWith(expectString('starts-with?', p!)),
    '(starts-with? s prefix)',
  ),
  'ends-with?': defn(
    [2, 2],
    ([s, p]) => expectString('ends-with?', s!).endsWith(expectString('ends-with?', p!)),
    '(ends-with? s suffix)',
  ),
  'includes?': defn(
    [2, 2],
    ([s, p]) => expectString('includes?', s!).includes(expectString('includes?', p!)),
    '(includes? s substring)',
  ),
  'index-of': defn(
    [2, 3],
    ([s, v, from]) =>
      indexOrNil(
        expectString('index-of', s!).indexOf(
          expectString('index-of', v!),
          from === undefined ? 0 : Math.max(0, expectInteger('index-of', from)),
        ),
      ),
    'index of the first occurrence, or nil: (index-of "abcb" "b") is 1',
  ),
  'last-index-of': defn(
    [2, 3],
    ([s, v, from]) => {
      const text = expectString('last-index-of', s!);
      const needle = expectString('last-index-of', v!);
      if (from === undefined) return indexOrNil(text.lastIndexOf(needle));
      const f = expectInteger('last-index-of', from);
      return f < 0 ? null : indexOrNil(text.lastIndexOf(needle, f));
    },
    'index of the last occurrence, or nil',
  ),
  replace: defn(
    [3, 3],
    ([s, match, repl], rt) => replaceString('replace', s!, match!, repl!, false, rt),
    '(replace s "a" "b") every literal "a"; (replace s #"(\\d+)" "<$1>") with group refs; the replacement may be a fn of the match',
  ),
  'replace-first': defn(
    [3, 3],
    ([s, match, repl], rt) => replaceString('replace-first', s!, match!, repl!, true, rt),
    'like replace, first occurrence only',
  ),
  reverse: defn(
    [1, 1],
    ([s]) => Array.from(expectString('reverse', s!)).reverse().join(''),
    '(str/reverse "abc") is "cba"',
  ),
  escape: defn(
    [2, 2],
    ([s, cmap], rt) => {
      const parts: string[] = [];
      for (const c of expectString('escape', s!)) {
        const r = rt.apply(cmap!, [c]);
        parts.push(r === null ? c : strOf(r));
      }
      return concat(parts, rt);
    },
    '(escape "a<b" {\\< "&lt;"}): replaces each character found in the map',
  ),
  're-quote-replacement': defn(
    [1, 1],
    ([s]) => expectString('re-quote-replacement', s!).replace(/[\\$]/g, (c) => `\\${c}`),
    'escapes \\ and $ so a string is used literally as a regex replacement',
  ),
};

function literalLines(s: string, rt: Runtime): Generator<{ start: number; end: number }> {
  return (function* () {
    chargeScan(rt, s);
    for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) {
      yield { start: i > 0 && s[i - 1] === '\r' ? i - 1 : i, end: i + 1 };
    }
  })();
}

/** Bare names: core string functions plus the `clojure.string` ones (see module doc). */
export const stringCoreFns: CoreTable = {
  // ;; building strings
  str: {
    ...defn([0, VARIADIC], (args, rt) => strConcat(args, rt), '(str "a" 1 :k nil [1]) is "a1:k[1]"; nil adds nothing'),
    call1: (a, rt) => strAppend('', a, rt),
    call2: (a, b, rt) => strAppend(strAppend('', a, rt), b, rt),
    call3: (a, b, c, rt) => strAppend(strAppend(strAppend('', a, rt), b, rt), c, rt),
  },
  format: defn(
    [1, VARIADIC],
    ([fmt, ...args], rt) => format(expectString('format', fmt!), args, rt),
    'Java-style: (format "%s has %d items, %.2f%%" name n pct); also %5d %-8s %x %e %,d %n',
  ),
  subs: defn(
    [2, 3],
    ([s, start, end]) => {
      const text = expectString('subs', s!);
      const from = Math.min(Math.max(0, expectInteger('subs', start!)), text.length);
      const to = end === undefined ? text.length : Math.min(Math.max(from, expectInteger('subs', end)), text.length);
      return text.slice(from, to);
    },
    '(subs "hello" 1 3) is "el"; indices are clamped to the string',
  ),
  name: defn(
    [1, 1],
    ([x]) => {
      if (x instanceof Keyword || x instanceof Sym) return x.name;
      if (typeof x === 'string') return x;
      throw argError('name', 'keyword, symbol or string', x!);
    },
    '(name :user/id) is "id"; a string is returned as is',
  ),
  namespace: defn(
    [1, 1],
    ([x]) => {
      if (x instanceof Keyword || x instanceof Sym) return x.ns;
      throw argError('namespace', 'keyword or symbol', x!);
    },
    '(namespace :user/id) is "user"; nil without a namespace',
  ),
  keyword: fixedArity(
    [1, 2],
    { call1: keywordOf, call2: keywordIn },
    '(keyword "a") is :a; (keyword "ns" "a") is :ns/a',
  ),
  symbol: defn(
    [1, 2],
    (args) => {
      if (args.length === 2) {
        const ns = args[0] === null ? null : expectString('symbol', args[0]!);
        const nm = expectString('symbol', args[1]!);
        return sym(ns === null ? nm : `${ns}/${nm}`);
      }
      const [x] = args;
      if (x instanceof Sym) return x;
      if (x instanceof Keyword) return sym(x.fullName);
      return sym(expectString('symbol', x!));
    },
    '(symbol "a") is the symbol a, as data (the same as \'a)',
  ),
  char: defn(
    [1, 1],
    ([x]) => {
      if (typeof x === 'string' && x.length === 1) return x;
      const n = expectInteger('char', x!);
      if (n < 0 || n > 0xffff) throw argError('char', 'character code 0-65535', x!);
      return String.fromCharCode(n);
    },
    '(char 97) is \\a',
  ),
  upcase: stringFns['upper-case']!,
  downcase: stringFns['lower-case']!,

  // ;; printing
  'pr-str': defn(
    [0, VARIADIC],
    (args, rt) => concat([prText(args, rt)], rt),
    'readable form: (pr-str "a" [:b]) is "\\"a\\" [:b]"',
  ),
  'prn-str': defn([0, VARIADIC], (args, rt) => `${prText(args, rt)}\n`, 'pr-str plus a newline'),
  'print-str': defn(
    [0, VARIADIC],
    (args, rt) => printlnText(args, charging(rt)),
    'what print would output, as a string',
  ),
  'println-str': defn([0, VARIADIC], (args, rt) => `${printlnText(args, charging(rt))}\n`, 'print-str plus a newline'),
  println: defn(
    [0, VARIADIC],
    (args, rt) => emit(rt, printlnText(args, charging(rt))),
    'prints the arguments separated by spaces as one output line; returns nil',
  ),
  print: defn(
    [0, VARIADIC],
    (args, rt) => emit(rt, printlnText(args, charging(rt)).replace(/\r?\n$/, '')),
    'like println (each call is one output line)',
  ),
  prn: defn(
    [0, VARIADIC],
    (args, rt) => emit(rt, prText(args, rt)),
    'prints readable forms (strings quoted) as one line',
  ),
  pr: defn([0, VARIADIC], (args, rt) => emit(rt, prText(args, rt)), 'like prn'),

  // ;; parsing
  'parse-long': defn([1, 1], ([s]) => parseLong(s!), '"42" → 42; nil when the whole string is not an integer'),
  'parse-int': defn([1, 1], ([s]) => parseLong(s!), 'same as parse-long'),
  'parse-double': defn([1, 1], ([s]) => parseDouble(s!), '"1.5" → 1.5, "1e3" → 1000; nil when not a number'),
  'parse-boolean': defn(
    [1, 1],
    ([s]) => (s === 'true' ? true : s === 'false' ? false : null),
    '"true" → true, "false" → false, else nil',
  ),

  // ;; clojure.string under bare names
  ...Object.fromEntries(Object.entries(stringFns).filter(([k]) => k !== 'reverse' && k !== 'replace')),
  replace: defn(
    [2, 3],
    (args, rt) => {
      if (args.length === 2) return replaceInColl(args[0]!, args[1]!, rt);
      return replaceString('replace', args[0]!, args[1]!, args[2]!, false, rt);
    },
    '(replace s match replacement) replaces in a string; (replace {1 :a} [1 2]) substitutes items: [:a 2]',
  ),
};
