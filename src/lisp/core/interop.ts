/**
 * Java interop as models write it from Clojure: `(.indexOf s "x")`, `(.toUpperCase s)`,
 * `(.split s ",")`. The common `java.lang.String` methods are aliases of the core
 * functions (the analyzer turns `(.method obj args...)` into a core call, so fuel and
 * errors are those of a normal call); `.indexOf`, `.lastIndexOf`, `.contains`,
 * `.isEmpty` and `.equals` also take a collection, as Clojure's collections are
 * `java.util` ones. Every other method is an error naming the core function to use
 * ({@link unsupportedMethod}).
 *
 * Java semantics where they differ from the core function: indices count UTF-16 code
 * units (as Java, Clojure and `subs` do); not found is -1, not nil; `.split`,
 * `.replaceAll`, `.replaceFirst` and `.matches` read a string as a regex; `.trim` strips
 * characters up to U+0020 (`.strip` is Clojure's `trim`).
 * @module
 */
import { type Runtime, type Value, equals, isRegex, isSequential, isSet } from '../values.ts';
import { argError, expectInteger, expectString, indexOutOfBounds, seqItems, toArray } from './args.ts';
import { regexFns } from './regex.ts';
import { mapFns } from './maps.ts';
import { type CoreFn, type CoreTable, defn } from './registry.ts';
import { isEmptyColl } from './seq-common.ts';
import { orderFns } from './seq-order.ts';
import { stringCoreFns, stringFns } from './strings.ts';

const RECEIVER_HINT = 'Java interop covers java.lang.String methods; (str x) turns a value into a string';

/** The receiver of a String method. */
function receiver(method: string, v: Value): string {
  if (typeof v === 'string') return v;
  throw argError(method, 'string', v, RECEIVER_HINT);
}

/** A String argument (a character is a 1-character string). */
const stringArg = (method: string, v: Value): string => expectString(method, v);

/** A core function by table and name, called with its usual arguments (and fuel). */
function core(table: CoreTable, name: string): (args: Value[], rt: Runtime) => Value {
  const f = table[name];
  if (f === undefined) throw new Error(`interop: no core function ${name}`); // a renamed core function
  return f.fn;
}

const upperCase = core(stringFns, 'upper-case');
const lowerCase = core(stringFns, 'lower-case');
const startsWith = core(stringFns, 'starts-with?');
const endsWith = core(stringFns, 'ends-with?');
const includes = core(stringFns, 'includes?');
const indexOf = core(stringFns, 'index-of');
const lastIndexOf = core(stringFns, 'last-index-of');
const trim = core(stringFns, 'trim');
const triml = core(stringFns, 'triml');
const trimr = core(stringFns, 'trimr');
const blank = core(stringFns, 'blank?');
const split = core(stringFns, 'split');
const replace = core(stringFns, 'replace');
const replaceFirst = core(stringFns, 'replace-first');
const subs = core(stringCoreFns, 'subs');
const str = core(stringCoreFns, 'str');
const join = core(stringFns, 'join');
const format = core(stringCoreFns, 'format');
const rePattern = core(regexFns, 're-pattern');
const reMatches = core(regexFns, 're-matches');
const compare = core(orderFns, 'compare');
const containsKey = core(mapFns, 'contains?');

/** -1 where the core function says nil (Java's "not found"). */
const javaIndex = (i: Value): Value => (i === null ? -1 : i);

/** `List.indexOf` / `lastIndexOf`: the index of an item `=` to x, or -1. */
function collIndexOf(
  method: string,
  coll: Value,
  x: Value,
  from: Value | undefined,
  last: boolean,
  rt: Runtime,
): number {
  if (from !== undefined) throw argError(method, 'string (a collection takes no start index)', coll);
  if (!last) {
    let i = 0;
    for (const item of seqItems(method, coll, rt)) {
      if (equals(item, x)) return i;
      i++;
    }
    return -1;
  }
  const items = toArray(method, coll, rt);
  rt.tick(items.length);
  for (let i = items.length - 1; i >= 0; i--) if (equals(items[i]!, x)) return i;
  return -1;
}

function stringIndexOf(method: string, args: Value[], rt: Runtime, last: boolean): Value {
  const [s, x, from] = args;
  if (isSequential(s!)) return collIndexOf(method, s!, x!, from, last, rt);
  const text = receiver(method, s!);
  const needle = stringArg(method, x!);
  const start = from === undefined ? [] : [expectInteger(method, from)];
  return javaIndex((last ? lastIndexOf : indexOf)([text, needle, ...start], rt));
}

/** A regex argument as Java reads it: a string is compiled as a pattern (a regex value works too). */
function pattern(method: string, v: Value, rt: Runtime): Value {
  if (typeof v !== 'string' && !isRegex(v)) throw argError(method, 'regex string', v);
  return rePattern([v], rt);
}

/** Java's `String.trim`: strips every character up to U+0020 at both ends. */
function javaTrim(s: string): string {
  let i = 0;
  let j = s.length;
  while (i < j && s.charCodeAt(i) <= 0x20) i++;
  while (j > i && s.charCodeAt(j - 1) <= 0x20) j--;
  return s.slice(i, j);
}

/** Java's `equalsIgnoreCase`: char by char, equal after upper-casing or after lower-casing. */
function equalsIgnoreCase(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  const fold = (c: string, f: (c: string) => string): string => {
    const d = f(c);
    return d.length === 1 ? d : c;
  };
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    const ux = fold(x, (c) => c.toUpperCase());
    const uy = fold(y, (c) => c.toUpperCase());
    if (ux === uy || fold(ux, (c) => c.toLowerCase()) === fold(uy, (c) => c.toLowerCase())) continue;
    return false;
  }
  return true;
}

/** A method on a string receiver only: `(.m s args...)`, arity counting the receiver. */
const onString = (
  method: string,
  arity: readonly [number, number],
  impl: (s: string, args: Value[], rt: Runtime) => Value,
  usage: string,
): CoreFn => defn(arity, (args, rt) => impl(receiver(method, args[0]!), args.slice(1), rt), usage);

/** The supported `java.lang.String` methods, by name without the dot. */
export const methodFns: CoreTable = {
  indexOf: defn(
    [2, 3],
    (args, rt) => stringIndexOf('.indexOf', args, rt, false),
    '(.indexOf s "x") or (.indexOf s "x" from): index or -1; also (.indexOf coll x)',
  ),
  lastIndexOf: defn(
    [2, 3],
    (args, rt) => stringIndexOf('.lastIndexOf', args, rt, true),
    '(.lastIndexOf s "x") or (.lastIndexOf s "x" from): index or -1; also (.lastIndexOf coll x)',
  ),
  contains: defn(
    [2, 2],
    ([s, x], rt) => {
      if (isSet(s!)) return containsKey([s!, x!], rt);
      if (isSequential(s!)) return collIndexOf('.contains', s!, x!, undefined, false, rt) >= 0;
      return includes([receiver('.contains', s!), stringArg('.contains', x!)], rt);
    },
    '(.contains s "x"): substring test, like includes?',
  ),
  isEmpty: defn(
    [1, 1],
    ([s]) => {
      if (s === null) throw argError('.isEmpty', 'string or collection', s, RECEIVER_HINT);
      return isEmptyColl('.isEmpty', s!);
    },
    '(.isEmpty s): like empty?',
  ),
  equals: defn(
    [2, 2],
    ([a, b]) => {
      if (a === null) throw argError('.equals', 'non-nil value', a, 'use (= a b), which also takes nil');
      return equals(a!, b!);
    },
    '(.equals a b): like =',
  ),
  equalsIgnoreCase: onString(
    '.equalsIgnoreCase',
    [2, 2],
    (s, [x]) => x !== null && equalsIgnoreCase(s, stringArg('.equalsIgnoreCase', x!)),
    '(.equalsIgnoreCase s "X"): equal ignoring case',
  ),
  toUpperCase: onString('.toUpperCase', [1, 1], (s, _, rt) => upperCase([s], rt), '(.toUpperCase s): like upper-case'),
  toLowerCase: onString('.toLowerCase', [1, 1], (s, _, rt) => lowerCase([s], rt), '(.toLowerCase s): like lower-case'),
  startsWith: onString(
    '.startsWith',
    [2, 2],
    (s, [p], rt) => startsWith([s, stringArg('.startsWith', p!)], rt),
    '(.startsWith s "x"): like starts-with?',
  ),
  endsWith: onString(
    '.endsWith',
    [2, 2],
    (s, [p], rt) => endsWith([s, stringArg('.endsWith', p!)], rt),
    '(.endsWith s "x"): like ends-with?',
  ),
  trim: onString('.trim', [1, 1], (s) => javaTrim(s), '(.trim s): strips spaces and control characters at both ends'),
  strip: onString('.strip', [1, 1], (s, _, rt) => trim([s], rt), '(.strip s): like trim'),
  stripLeading: onString('.stripLeading', [1, 1], (s, _, rt) => triml([s], rt), '(.stripLeading s): like triml'),
  stripTrailing: onString('.stripTrailing', [1, 1], (s, _, rt) => trimr([s], rt), '(.stripTrailing s): like trimr'),
  isBlank: onString('.isBlank', [1, 1], (s, _, rt) => blank([s], rt), '(.isBlank s): like blank?'),
  length: onString('.length', [1, 1], (s) => s.length, '(.length s): like count'),
  substring: onString(
    '.substring',
    [2, 3],
    (s, [from, to], rt) =>
      subs([s, expectInteger('.substring', from!), ...(to === undefined ? [] : [expectInteger('.substring', to)])], rt),
    '(.substring s from) or (.substring s from to): like subs',
  ),
  charAt: onString(
    '.charAt',
    [2, 2],
    (s, [i]) => {
      const n = expectInteger('.charAt', i!);
      if (n < 0 || n >= s.length) throw indexOutOfBounds('.charAt', n, s.length, 'use (get s i) to get nil instead');
      return s[n]!;
    },
    '(.charAt s i): the character at i, like nth',
  ),
  replace: onString(
    '.replace',
    [3, 3],
    (s, [a, b], rt) => replace([s, stringArg('.replace', a!), stringArg('.replace', b!)], rt),
    '(.replace s "a" "b"): every literal "a", like replace',
  ),
  replaceAll: onString(
    '.replaceAll',
    [3, 3],
    (s, [re, b], rt) => replace([s, pattern('.replaceAll', re!, rt), stringArg('.replaceAll', b!)], rt),
    '(.replaceAll s "\\\\s+" " "): the string is a regex, $1 a group; like replace',
  ),
  replaceFirst: onString(
    '.replaceFirst',
    [3, 3],
    (s, [re, b], rt) => replaceFirst([s, pattern('.replaceFirst', re!, rt), stringArg('.replaceFirst', b!)], rt),
    '(.replaceFirst s "\\\\d" "#"): like replace-first with a regex',
  ),
  split: onString(
    '.split',
    [2, 3],
    (s, [re, limit], rt) =>
      split([s, pattern('.split', re!, rt), ...(limit === undefined ? [] : [expectInteger('.split', limit)])], rt),
    '(.split s ",") or (.split s "\\\\s+" limit): the string is a regex; a vector, like split',
  ),
  concat: onString(
    '.concat',
    [2, 2],
    (s, [x], rt) => str([s, stringArg('.concat', x!)], rt),
    '(.concat s "x"): like str',
  ),
  matches: onString(
    '.matches',
    [2, 2],
    (s, [re], rt) => reMatches([pattern('.matches', re!, rt), s], rt) !== null,
    '(.matches s "\\\\d+"): the whole string matches the regex; like re-matches',
  ),
  compareTo: onString(
    '.compareTo',
    [2, 2],
    (s, [x], rt) => compare([s, stringArg('.compareTo', x!)], rt),
    '(.compareTo s "x"): like compare',
  ),
};

/** `String/join`, `String/format`, `String/valueOf`: the static methods models write, as the core functions. */
export const stringStaticFns: CoreTable = {
  join: defn(
    [2, 2],
    (args, rt) => join([stringArg('String/join', args[0]!), args[1]!], rt),
    '(String/join ", " xs): like join',
  ),
  format: defn([1, Infinity], (args, rt) => format(args, rt), '(String/format "%d items" n): like format'),
  valueOf: defn(
    [1, 1],
    ([x], rt) => {
      if (x === null) throw argError('String/valueOf', 'non-nil value', x, 'use (str x), which gives "" for nil');
      return str([x!], rt);
    },
    '(String/valueOf x): like str',
  ),
};

/** The supported method `name` (without the dot), if it is one. */
export function resolveMethod(name: string): CoreFn | undefined {
  return Object.hasOwn(methodFns, name) ? methodFns[name] : undefined;
}

/**
 * Other Java methods models write, with the core functions that do the job: names
 * separated by `,` or ` or `, each maybe followed by a note in parentheses, or an
 * expression in parentheses (test/lisp/interop.test.ts checks every name exists).
 */
export const METHOD_ALTERNATIVES: Readonly<Record<string, string>> = {
  format: 'format',
  toString: 'str',
  valueOf: 'str',
  size: 'count',
  count: 'count',
  get: 'get or nth',
  getOrDefault: '(get m k default)',
  containsKey: 'contains?',
  containsValue: '(some #{v} (vals m))',
  keySet: 'keys',
  values: 'vals',
  entrySet: 'seq (a map gives [k v] pairs)',
  put: 'assoc',
  add: 'conj',
  remove: 'dissoc (maps) or disj (sets)',
  join: 'join or str/join',
  repeat: '(apply str (repeat n s))',
  chars: 'seq (a string gives its characters)',
  toCharArray: 'vec (a string gives its characters)',
  lines: 'split-lines',
  reverse: 'str/reverse',
  getName: 'name',
  name: 'name',
  getMessage: 'ex-message',
  getTime: 'date/epoch-millis',
  intValue: 'long or int',
  longValue: 'long',
  doubleValue: 'double',
  abs: 'abs',
  compareToIgnoreCase: '(compare (lower-case a) (lower-case b))',
  codePointAt: '(int (nth s i))',
  toList: 'vec',
  stream: 'map, filter, reduce',
};

/** The error for `(.name ...)` when `name` is not a supported method. */
export function unsupportedMethod(name: string): { message: string; hint: string } {
  const instead = Object.hasOwn(METHOD_ALTERNATIVES, name) ? METHOD_ALTERNATIVES[name] : undefined;
  const methods = Object.keys(methodFns)
    .map((m) => `.${m}`)
    .join(' ');
  if (instead !== undefined) {
    return {
      message: `Java method .${name} is not supported: use ${instead}`,
      hint: `Java interop covers String methods only: ${methods}`,
    };
  }
  return {
    message: `Unknown method .${name}: Java interop covers String methods only`,
    hint: `String methods: ${methods}; otherwise use the core functions`,
  };
}

/** A hint for `.name` used as a value (not called). */
export function methodValueHint(name: string): string | undefined {
  if (!name.startsWith('.') || name.length < 2) return undefined;
  const m = name.slice(1);
  if (resolveMethod(m)) return `a Java method is called, not passed: (${name} s ...), or #(${name} %) as a function`;
  return unsupportedMethod(m).message;
}
