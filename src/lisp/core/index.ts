/**
 * The core library: every table merged into namespaces, name resolution, constants,
 * hints for unknown names and the docs listed in the prompt's language reference.
 *
 * | Written as                                   | Looked up in                         |
 * |----------------------------------------------|--------------------------------------|
 * | `name`, `clojure.core/name`, `core/name`     | core (every bare name)               |
 * | `str/x`, `string/x`, `clojure.string/x`      | `clojure.string`, then core          |
 * | `set/x`, `clojure.set/x`                     | `clojure.set`                        |
 * | `walk/x`, `clojure.walk/x`                   | `clojure.walk`                       |
 * | `regex/x`                                    | regex functions, then core           |
 * | `Math/x`, `Integer/x`, `Long/x`, `Double/x`  | the Java statics of that class       |
 * | `String/x`, `java.lang.String/x`             | `join`, `format`, `valueOf` (interop.ts) |
 *
 * `Math/PI`, `Double/NaN`, ... are values, not functions: see {@link coreConstants}.
 * In `clojure.string`, `replace` and `reverse` are the string versions; the bare
 * `reverse` is the sequence function and the bare `replace` dispatches (see strings.ts).
 * @module
 */
import { dateFns, localDateFns } from './dates.ts';
import { fnFns } from './functions.ts';
import { mapFns } from './maps.ts';
import { javaMathFns, mathConstants, mathFns } from './math.ts';
import { predicateFns } from './predicates.ts';
import { queryFns } from './query.ts';
import { regexFns } from './regex.ts';
import type { CoreFn, CoreTable } from './registry.ts';
import { seqFns } from './seq.ts';
import { BARE_SET_NAMES, setFns } from './sets.ts';
import { stringCoreFns, stringFns } from './strings.ts';
import { stringStaticFns } from './interop.ts';
import { walkFns } from './walk.ts';
import type { Value } from '../values.ts';

export { buildWhere, whereFn, whereTest, wherePath, allOf, anyOf, noneOf, WHERE_OPS, type WhereOp } from './query.ts';
export type { CoreFn, CoreTable } from './registry.ts';

const pick = (t: CoreTable, names: readonly string[]): CoreTable =>
  Object.fromEntries(names.filter((n) => Object.hasOwn(t, n)).map((n) => [n, t[n]!]));

/** Tables by area, in the order their bare names are merged (a later table wins). */
const AREAS: ReadonlyArray<readonly [area: string, table: CoreTable]> = [
  ['sequences', seqFns],
  ['maps', mapFns],
  ['sets', pick(setFns, BARE_SET_NAMES)],
  ['functions', fnFns],
  ['walk', walkFns],
  ['math', mathFns],
  ['predicates', predicateFns],
  ['strings', stringCoreFns],
  ['regex', regexFns],
  ['query', queryFns],
];

const core: CoreTable = Object.assign(Object.create(null) as CoreTable, ...AREAS.map(([, t]) => t));

/** Namespace → tables searched in order. */
const NAMESPACES: Record<string, readonly CoreTable[]> = {
  'clojure.core': [core],
  core: [core],
  'clojure.string': [stringFns, core],
  str: [stringFns, core],
  string: [stringFns, core],
  'clojure.set': [setFns],
  set: [setFns],
  'clojure.walk': [walkFns],
  walk: [walkFns],
  regex: [regexFns, core],
  date: [dateFns],
  LocalDate: [localDateFns],
  'java.time.LocalDate': [localDateFns],
  String: [stringStaticFns],
  'java.lang.String': [stringStaticFns],
  ...Object.fromEntries(Object.entries(javaMathFns).map(([ns, t]) => [ns, [t]])),
};

/** The core function `name` (in namespace `ns`, or bare when null), if there is one. */
export function resolveCore(ns: string | null, name: string): CoreFn | undefined {
  const tables = ns === null ? [core] : Object.hasOwn(NAMESPACES, ns) ? NAMESPACES[ns] : undefined;
  if (!tables) return undefined;
  for (const t of tables) if (Object.hasOwn(t, name)) return t[name];
  return undefined;
}

/** Namespaces {@link resolveCore} knows (constants' namespaces included). */
export function coreNamespaces(): string[] {
  const fromConstants = Object.keys(coreConstants).map((k) => k.slice(0, k.indexOf('/')));
  return [...new Set([...Object.keys(NAMESPACES), ...fromConstants])].sort();
}

/** Every bare core name, sorted. */
export function coreNames(): string[] {
  return Object.keys(core).sort();
}

/** Values resolved by qualified name, e.g. `Math/PI` → 3.14159..., `Double/NaN`. */
export const coreConstants: Readonly<Record<string, Value>> = mathConstants;

/** One line per documented function, for the prompt's language reference. */
export function coreDocs(): Array<{ area: string; name: string; doc: string }> {
  const out: Array<{ area: string; name: string; doc: string }> = [];
  const seen = new Set<string>();
  for (const [area, table] of AREAS) {
    for (const [name, f] of Object.entries(table)) {
      if (!f.doc || seen.has(name) || core[name] !== f) continue;
      seen.add(name);
      out.push({ area, name, doc: f.doc });
    }
  }
  for (const [prefix, area, table] of [
    ['str/', 'strings', stringFns],
    ['set/', 'sets', setFns],
    ['walk/', 'walk', walkFns],
    ['date/', 'dates', dateFns],
  ] as const) {
    for (const [name, f] of Object.entries(table)) {
      if (f.doc && core[name] !== f) out.push({ area, name: prefix + name, doc: f.doc });
    }
  }
  return out;
}

// ---------------------------------------------------------------- hints for unknown names

const NONDETERMINISTIC = 'not available: programs must replay identically, so there is no randomness or clock';
const NO_STATE = 'there is no mutable state; carry values with let, loop/recur or reduce';
const NO_IO = 'there is no I/O; call tools (tool/name {...}) for outside data';
const NO_CLOCK =
  "there is no clock: programs must replay identically; read today's date from data/... or a tool, then use the date/ functions";

/** Clojure (and other languages') names we do not have, with what to use instead. */
const MISSING: Record<string, string> = {
  rand: NONDETERMINISTIC,
  'rand-int': NONDETERMINISTIC,
  'rand-nth': NONDETERMINISTIC,
  shuffle: NONDETERMINISTIC,
  'random-uuid': NONDETERMINISTIC,
  'random-sample': NONDETERMINISTIC,
  now: NO_CLOCK,
  today: NO_CLOCK,
  'current-time': NO_CLOCK,
  currentTimeMillis: NO_CLOCK,
  'local-date': 'use date/parse: dates are ISO strings, "2024-03-15"',
  atom: NO_STATE,
  'swap!': NO_STATE,
  'reset!': NO_STATE,
  deref: NO_STATE,
  'volatile!': NO_STATE,
  'vswap!': NO_STATE,
  ref: NO_STATE,
  dosync: NO_STATE,
  slurp: NO_IO,
  spit: NO_IO,
  'read-line': NO_IO,
  eval: 'there is no eval',
  'read-string': 'there is no reader at run time; use parse-long, parse-double or a JSON tool',
  'load-string': 'there is no eval',
  future: 'use pmap or pcalls for parallel work',
  promise: 'use pmap or pcalls for parallel work',
  gensym: 'not available; quote a symbol (\'a) or make one with (symbol "a")',
  're-matcher': 'use re-find, re-seq or re-matches',
  're-groups': 're-find and re-matches return the groups: [match g1 g2 ...]',
  len: 'use count',
  length: 'use count',
  size: 'use count',
  lower: 'use lower-case',
  upper: 'use upper-case',
  toLowerCase: 'use lower-case',
  toUpperCase: 'use upper-case',
  strip: 'use trim',
  startswith: 'use starts-with?',
  endswith: 'use ends-with?',
  contains: 'use contains? for map keys and set members, includes? for substrings',
  append: 'use conj',
  push: 'use conj',
  foreach: 'use doseq or run!',
  each: 'use doseq or run!',
  average: 'use avg (or avg-by)',
  mean: 'use avg (or avg-by)',
  'to-string': 'use str',
  tostring: 'use str',
  toString: 'use str',
  parseInt: 'use parse-long',
  'parse-float': 'use parse-double',
  substring: 'use subs',
  substr: 'use subs',
  slice: 'use subvec for vectors, subs for strings',
  'flat-map': 'use mapcat',
  flatmap: 'use mapcat',
  fold: 'use reduce',
  head: 'use first',
  tail: 'use rest',
  uniq: 'use distinct',
  unique: 'use distinct',
  values: 'use vals',
  items: 'use seq (a map gives [k v] pairs)',
  'null?': 'use nil?',
  'str-join': 'use join (or str/join)',
};

/** Levenshtein distance of `a` and `b`, or `max + 1` as soon as it is past `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur.push(v);
      best = Math.min(best, v);
    }
    if (best > max) return max + 1;
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * A hint for a name that is not defined: a known replacement for a missing function,
 * the `-` spelling of an `_` name, a `?` form, or the nearest core name.
 * `name` may be qualified (`str/upper`). Undefined when nothing helps.
 */
export function unknownNameHint(name: string): string | undefined {
  const slash = name.indexOf('/');
  const ns = slash > 0 && slash < name.length - 1 ? name.slice(0, slash) : null;
  const bare = ns === null ? name : name.slice(slash + 1);
  if (ns !== null && !Object.hasOwn(NAMESPACES, ns)) return undefined;
  const has = (n: string): boolean => resolveCore(ns, n) !== undefined;
  const qualify = (n: string): string => (ns === null ? n : `${ns}/${n}`);

  if (Object.hasOwn(MISSING, bare)) return MISSING[bare];
  const candidates = [bare.replaceAll('_', '-'), `${bare}?`, bare.replace(/\?$/, ''), bare.toLowerCase()];
  for (const c of candidates) if (c !== bare && has(c)) return `did you mean: ${qualify(c)}`;

  const names = ns === null ? coreNames() : [...new Set(NAMESPACES[ns]!.flatMap((t) => Object.keys(t)))];
  const max = bare.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestD = max + 1;
  for (const n of names) {
    const d = editDistance(bare, n, max);
    if (d < bestD || (d === bestD && best !== undefined && n < best)) {
      best = n;
      bestD = d;
    }
  }
  return best === undefined ? undefined : `did you mean: ${qualify(best)}`;
}
