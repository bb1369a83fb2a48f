/**
 * Ordering: compare, sort, sort-by, distinct, dedupe, min-key, max-key.
 */
import { getIn1 } from '../lookup.ts';
import {
  PSet,
  type Runtime,
  type Value,
  Keyword,
  Sym,
  equals,
  isFn,
  isKeyword,
  isLazySeq,
  isMap,
  isSequential,
  isSet,
  isVector,
  kw,
  seqable,
  truthy,
} from '../values.ts';
import { argError, expectCallable, expectNumber, incomparable, seqItems } from './args.ts';
import { type CoreTable, VARIADIC, defn } from './registry.ts';
import { callOne, fastPaths, numberComparator } from './seq-eager.ts';
import { END, itemsArray, lastArg, listOf, seqResult } from './seq-common.ts';

// ---------------------------------------------------------------- ordering

/** Java's `String.compareTo`: difference of the first differing UTF-16 unit, else of lengths. */
function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a.charCodeAt(i) - b.charCodeAt(i);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/**
 * Clojure `compare`: nil first; numbers, strings, keywords and booleans among
 * themselves; vectors (and lists) by length first, then item by item. Strings and
 * keywords give Java's `compareTo` value (e.g. `(compare "a" "c")` is -2), like Clojure.
 */
export function compareValues(a: Value, b: Value, fn = 'compare'): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a ? 1 : -1;
  if ((a instanceof Keyword && b instanceof Keyword) || (a instanceof Sym && b instanceof Sym)) {
    if (a.ns !== b.ns) {
      if (a.ns === null) return -1;
      if (b.ns === null) return 1;
      const c = compareStrings(a.ns, b.ns);
      if (c !== 0) return c;
    }
    return compareStrings(a.name, b.name);
  }
  if (isSequential(a) && isSequential(b) && !isLazySeq(a) && !isLazySeq(b)) {
    const xs = isVector(a) ? a : a.items;
    const ys = isVector(b) ? b : b.items;
    if (xs.size !== ys.size) return xs.size < ys.size ? -1 : 1;
    for (let i = 0; i < xs.size; i++) {
      const c = compareValues(xs.get(i) as Value, ys.get(i) as Value, fn);
      if (c !== 0) return c;
    }
    return 0;
  }
  throw incomparable(fn, a, b);
}

const ASC = kw('asc');
const DESC = kw('desc');

/** A JS comparator from `:asc`, `:desc`, a `compare`-style fn or a boolean predicate like `>`. */
function comparatorOf(fn: string, cmp: Value | undefined, rt: Runtime): (a: Value, b: Value) => number {
  if (cmp === undefined || cmp === ASC) return (a, b) => compareValues(a, b, fn);
  if (cmp === DESC) return (a, b) => compareValues(b, a, fn);
  if (!isFn(cmp) && !isMap(cmp) && !isSet(cmp)) throw argError(fn, 'comparator function, :asc or :desc', cmp);
  const general = (a: Value, b: Value): number => {
    const r = rt.apply2(cmp, a, b);
    if (typeof r === 'number') return Math.sign(Math.trunc(r));
    if (typeof r === 'boolean' || r === null) {
      if (r === true) return -1;
      return truthy(rt.apply2(cmp, b, a)) ? 1 : 0;
    }
    throw argError(fn, 'comparator returning a number or boolean', r);
  };
  return numberComparator(cmp, general) ?? general;
}

/** Charges n·log2(n) fuel for a sort of n items. */
const tickSort = (rt: Runtime, n: number): void => rt.tick(n > 1 ? Math.ceil(n * Math.log2(n)) : 1);

const sortHint =
  'the collection comes last: (sort-by keyfn coll) or (sort-by keyfn comparator coll), e.g. (sort-by :age > users)';

/**
 * A key function for the reference's key arguments (`sort-by`, `group-by`,
 * `distinct-by`): a string reads that field (flexibly), a vector is a path, anything
 * else is called.
 */
export function keyFnOf(fn: string, f: Value, rt: Runtime): (x: Value) => Value {
  if (typeof f === 'string') return (x) => getIn1(x, f);
  if (isVector(f)) return (x) => getPath(x, f.toArray());
  expectCallable(fn, f);
  return fastPaths.on ? callOne(f, rt) : (x) => rt.apply(f, [x]);
}

const NOT_FOUND = Symbol('not-found') as unknown as Value;

/** Clojure `get-in`: `notFound` when a level is missing (a present nil is nil). */
export function getPath(coll: Value, path: Iterable<Value>, notFound: Value = null): Value {
  let cur = coll;
  for (const k of path) {
    cur = getIn1(cur, k, NOT_FOUND);
    if (cur === NOT_FOUND) return notFound;
  }
  return cur;
}

function* distinctSeq(fn: string, key: (x: Value) => Value, coll: Value, rt: Runtime): Iterator<Value> {
  // compared with = (PSet): (distinct [[1 2] '(1 2)]) keeps one
  const seen = PSet.EMPTY.asMutable();
  for (const x of seqItems(fn, coll, rt)) {
    const k = key(x);
    if (seen.has(k)) continue;
    seen.add(k);
    yield x;
  }
}

function extremeKey(fn: string, args: Value[], rt: Runtime, better: (a: number, b: number) => boolean): Value {
  const [f, ...xs] = args;
  expectCallable(fn, f!);
  let best = xs[0]!;
  let bestKey = expectNumber(fn, rt.apply(f!, [best]));
  for (let i = 1; i < xs.length; i++) {
    const k = expectNumber(fn, rt.apply(f!, [xs[i]!]));
    // ties go to the later argument, as in Clojure
    if (!better(bestKey, k)) {
      best = xs[i]!;
      bestKey = k;
    }
  }
  return best;
}

export const orderFns: CoreTable = {
  // ;; ordering
  sort: defn(
    [1, 2],
    (args, rt) => {
      const c = lastArg(args);
      const cmp = comparatorOf('sort', args.length === 2 ? args[0] : undefined, rt);
      const xs = itemsArray('sort', c, rt);
      tickSort(rt, xs.length);
      return listOf(xs.sort(cmp));
    },
    '(sort coll) or (sort comparator coll): sorted seq; comparator may be :asc, :desc, > or a compare fn',
  ),
  'sort-by': defn(
    [2, 3],
    (args, rt) => {
      const c = lastArg(args);
      if (seqable(c) === undefined) {
        const swapped = args.slice(0, -1).some((a) => a !== null && seqable(a) !== undefined && !isVector(a));
        throw argError(
          'sort-by',
          'collection as the last argument',
          c,
          swapped || isFn(c) || isKeyword(c) ? sortHint : undefined,
        );
      }
      const key = keyFnOf('sort-by', args[0]!, rt);
      const cmp = comparatorOf('sort-by', args.length === 3 ? args[1] : undefined, rt);
      const xs = itemsArray('sort-by', c, rt).map((x) => ({ x, k: key(x) }));
      tickSort(rt, xs.length);
      xs.sort((a, b) => cmp(a.k, b.k));
      return listOf(xs.map((e) => e.x));
    },
    '(sort-by keyfn coll) or (sort-by keyfn comparator coll); keyfn may be a keyword, field name or path vector',
  ),
  compare: defn(
    [2, 2],
    ([a, b]) => compareValues(a!, b!),
    '(compare a b) negative, 0 or positive; orders numbers, strings, keywords, vectors',
  ),
  distinct: defn(
    [1, 1],
    ([c], rt) => seqResult('distinct', rt, isLazySeq(c!), () => distinctSeq('distinct', (x) => x, c!, rt)),
    '(distinct coll) items without duplicates, first occurrence kept',
  ),
  'distinct-by': defn(
    [2, 2],
    ([f, c], rt) => {
      const key = keyFnOf('distinct-by', f!, rt);
      return seqResult('distinct-by', rt, isLazySeq(c!), () => distinctSeq('distinct-by', key, c!, rt));
    },
    '(distinct-by keyfn coll) first item for each distinct key',
  ),
  dedupe: defn(
    [1, 1],
    ([c], rt) =>
      seqResult('dedupe', rt, isLazySeq(c!), function* () {
        let prev: Value | typeof END = END;
        for (const x of seqItems('dedupe', c!, rt)) {
          if (prev === END || !equals(prev, x)) yield x;
          prev = x;
        }
      }),
    '(dedupe coll) drops consecutive duplicates',
  ),
  'min-key': defn(
    [2, VARIADIC],
    (args, rt) => extremeKey('min-key', args, rt, (a, b) => a < b),
    '(min-key f x & xs) the x with the smallest (f x)',
  ),
  'max-key': defn(
    [2, VARIADIC],
    (args, rt) => extremeKey('max-key', args, rt, (a, b) => a > b),
    '(max-key f x & xs) the x with the largest (f x)',
  ),
};
