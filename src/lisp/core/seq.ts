/**
 * Sequence functions: access, slicing, transforming, ordering, building and generating
 * sequences. Clojure semantics throughout (see docs/language.md for the few deliberate
 * differences).
 *
 * Result types follow Clojure: functions that return a seq in Clojure (`map`, `filter`,
 * `rest`, `take`, `sort`, ...) return a {@link PList} (printed `(..)`); `mapv`, `filterv`,
 * `vec`, `into []`, `subvec` return vectors. When an input is a {@link LazySeq}
 * (`(range)`, `iterate`, `repeat`, `cycle`), the transforming functions return lazy seqs
 * so `(take 5 (map inc (range)))` works; consumers that stop early never realise more.
 * Realising more than the collection-size limit is a `limit_exceeded` error.
 */
import { List, OrderedSet, Set as ISet } from 'immutable';
import { PtcError, typeError } from '../errors.ts';
import { alternateKey, getIn1 } from '../lookup.ts';
import {
  PMap,
  type Runtime,
  type Value,
  type Vector,
  Builtin,
  Keyword,
  Sym,
  LazySeq,
  PList,
  equals,
  isFn,
  isKeyword,
  isLazySeq,
  isMap,
  isPList,
  isSequential,
  isSet,
  isVector,
  kw,
  seqable,
  truthy,
  Reduced,
  isReduced,
} from '../values.ts';
import {
  argError,
  expectCallable,
  expectCount,
  expectInteger,
  expectNumber,
  expectPositiveInt,
  expectSeqable,
  expectVector,
  incomparable,
  indexOutOfBounds,
  seqItems,
  tooManyItems,
} from './args.ts';
import { type CoreTable, VARIADIC, defn } from './registry.ts';
import { composeTransducers, expectTransducer, runSteps, withTransducerArities } from './transducers.ts';

const END: typeof LazySeq.END = LazySeq.END;

// ---------------------------------------------------------------- building results

/** A lazy seq fed by an iterator; the iterator is advanced only on demand. */
export function lazyFrom(it: Iterator<Value>): LazySeq {
  return new LazySeq(() => {
    const r = it.next();
    return r.done ? END : r.value;
  });
}

/** An eager list of every item, bounded by the collection-size limit. */
export function eagerList(fn: string, rt: Runtime, items: Iterable<Value>): PList {
  const out: Value[] = [];
  for (const x of items) {
    out.push(x);
    if (out.length > rt.maxCollectionSize) {
      rt.checkSize(out.length);
      tooManyItems(fn, rt);
    }
  }
  rt.tick(out.length);
  return out.length === 0 ? PList.EMPTY : new PList(List(out));
}

/** Lazy when `lazy` (an input was lazy), otherwise an eager list. */
function seqResult(fn: string, rt: Runtime, lazy: boolean, gen: () => Iterator<Value>): PList | LazySeq {
  if (lazy) return lazyFrom(gen());
  return eagerList(fn, rt, { [Symbol.iterator]: gen });
}

/** An eager vector of every item, bounded by the collection-size limit. */
export function eagerVector(fn: string, rt: Runtime, items: Iterable<Value>): Vector {
  return eagerList(fn, rt, items).items;
}

/** All items as an array (lazy seqs realised, bounded). */
export function itemsArray(fn: string, v: Value, rt: Runtime): Value[] {
  if (isVector(v)) return v.toArray();
  if (isPList(v)) return v.items.toArray();
  return Array.from(seqItems(fn, v, rt));
}

const listOf = (xs: Value[]): PList => (xs.length === 0 ? PList.EMPTY : new PList(List(xs)));

/** Item `i` of a lazy seq with the walk bounded by the size limit. */
function lazyNth(fn: string, s: LazySeq, i: number, rt: Runtime): Value | typeof END {
  if (i >= rt.maxCollectionSize) tooManyItems(fn, rt);
  rt.tick(1);
  return s.nth(i);
}

/** `(drop n s)` of a lazy seq without realising anything. */
function dropLazy(fn: string, s: LazySeq, n: number, rt: Runtime): LazySeq {
  return new LazySeq((i) => lazyNth(fn, s, i + n, rt));
}

function isEmptyColl(fn: string, v: Value): boolean {
  if (v === null) return true;
  if (isVector(v) || isMap(v) || isSet(v)) return v.size === 0;
  if (isPList(v)) return v.size === 0;
  if (isLazySeq(v)) return v.nth(0) === END;
  if (typeof v === 'string') return v.length === 0;
  throw argError(fn, 'collection', v);
}

// ---------------------------------------------------------------- access

function firstOf(fn: string, v: Value, rt: Runtime): Value {
  if (v === null) return null;
  if (isVector(v)) return v.size > 0 ? (v.get(0) as Value) : null;
  if (isPList(v)) return v.size > 0 ? (v.items.get(0) as Value) : null;
  if (isLazySeq(v)) {
    const x = v.nth(0);
    return x === END ? null : x;
  }
  for (const x of seqItems(fn, v, rt)) return x;
  return null;
}

/** `rest`: never nil. */
function restOf(fn: string, v: Value, rt: Runtime): PList | LazySeq {
  if (isVector(v)) return v.size <= 1 ? PList.EMPTY : new PList(v.rest());
  if (isPList(v)) return v.size <= 1 ? PList.EMPTY : new PList(v.items.rest());
  if (isLazySeq(v)) return dropLazy(fn, v, 1, rt);
  return listOf(itemsArray(fn, v, rt).slice(1));
}

/** `seq`: nil when empty, otherwise a seq over the items. */
function seqOf(fn: string, v: Value, rt: Runtime): PList | LazySeq | null {
  if (isEmptyColl(fn, v)) return null;
  if (isPList(v) || isLazySeq(v)) return v;
  if (isVector(v)) return new PList(v);
  return listOf(itemsArray(fn, v, rt));
}

const nextOf = (fn: string, v: Value, rt: Runtime): Value => seqOf(fn, restOf(fn, v, rt), rt);

function nthOf(fn: string, coll: Value, index: Value, rt: Runtime, notFound?: Value): Value {
  const i = Math.trunc(expectNumber(fn, index));
  const missing = (size: number): Value => {
    if (notFound !== undefined) return notFound;
    throw indexOutOfBounds(fn, i, size, 'use (get coll i) or (nth coll i default) to get nil or a default instead');
  };
  if (coll === null) return notFound ?? null;
  if (isVector(coll) || isPList(coll)) {
    const items = isVector(coll) ? coll : coll.items;
    return i >= 0 && i < items.size ? (items.get(i) as Value) : missing(items.size);
  }
  if (typeof coll === 'string') return i >= 0 && i < coll.length ? coll[i]! : missing(coll.length);
  if (isLazySeq(coll)) {
    if (i < 0) return missing(0);
    const x = lazyNth(fn, coll, i, rt);
    return x === END ? missing(i) : x;
  }
  throw argError(fn, 'vector, list or string', coll);
}

function lastOf(fn: string, v: Value, rt: Runtime): Value {
  if (isVector(v)) return v.size > 0 ? (v.last() as Value) : null;
  if (isPList(v)) return v.size > 0 ? (v.items.last() as Value) : null;
  let last: Value = null;
  for (const x of seqItems(fn, v, rt)) last = x;
  return last;
}

function countOf(fn: string, v: Value, rt: Runtime): number {
  if (v === null) return 0;
  if (typeof v === 'string') return v.length;
  if (isVector(v) || isMap(v) || isSet(v)) return v.size;
  if (isPList(v)) return v.size;
  if (isLazySeq(v)) return itemsArray(fn, v, rt).length;
  throw argError(fn, 'collection', v);
}

// ---------------------------------------------------------------- slicing

function takeOf(fn: string, nv: Value, coll: Value, rt: Runtime): PList | LazySeq {
  const n = expectCount(fn, nv);
  if (isLazySeq(coll)) {
    if (n > rt.maxCollectionSize) return new LazySeq((i) => (i < n ? lazyNth(fn, coll, i, rt) : END));
    const out: Value[] = [];
    for (let i = 0; i < n; i++) {
      const x = lazyNth(fn, coll, i, rt);
      if (x === END) break;
      out.push(x);
    }
    return listOf(out);
  }
  if (isVector(coll)) return new PList(coll.take(n));
  if (isPList(coll)) return new PList(coll.items.take(n));
  return listOf(itemsArray(fn, coll, rt).slice(0, n));
}

function dropOf(fn: string, nv: Value, coll: Value, rt: Runtime): PList | LazySeq {
  const n = expectCount(fn, nv);
  if (isLazySeq(coll)) return n === 0 ? coll : dropLazy(fn, coll, n, rt);
  if (isVector(coll)) return new PList(coll.skip(n).toList());
  if (isPList(coll)) return new PList(coll.items.skip(n).toList());
  return listOf(itemsArray(fn, coll, rt).slice(n));
}

function takeWhile(fn: string, pred: Value, coll: Value, rt: Runtime): PList | LazySeq {
  expectCallable(fn, pred);
  const it = seqItems(fn, coll, rt);
  return seqResult(fn, rt, isLazySeq(coll), function* () {
    for (const x of it) {
      if (!truthy(rt.apply(pred, [x]))) return;
      yield x;
    }
  });
}

function dropWhile(fn: string, pred: Value, coll: Value, rt: Runtime): PList | LazySeq {
  expectCallable(fn, pred);
  const it = seqItems(fn, coll, rt);
  return seqResult(fn, rt, isLazySeq(coll), function* () {
    let dropping = true;
    for (const x of it) {
      if (dropping && truthy(rt.apply(pred, [x]))) continue;
      dropping = false;
      yield x;
    }
  });
}

// ---------------------------------------------------------------- transforming

const keywordMapHint =
  'a keyword over a single map reads its entries; use (:k m) to read one field, or (map :k items) over a list of maps';

function mapSeq(fn: string, f: Value, colls: Value[], rt: Runtime): Iterator<Value> {
  expectCallable(fn, f);
  if (colls.length === 1 && isKeyword(f) && isMap(colls[0]!)) {
    throw argError(fn, 'a collection of maps', colls[0]!, keywordMapHint);
  }
  const its = colls.map((c) => seqItems(fn, c, rt)[Symbol.iterator]());
  return (function* () {
    if (its.length === 1) {
      const it = its[0]!;
      for (let r = it.next(); !r.done; r = it.next()) yield rt.apply(f, [r.value]);
      return;
    }
    for (;;) {
      const xs: Value[] = [];
      for (const it of its) {
        const r = it.next();
        if (r.done) return;
        xs.push(r.value);
      }
      yield rt.apply(f, xs);
    }
  })();
}

/** Lazy iff every collection is lazy (a finite input bounds the result). */
const allLazy = (colls: Value[]): boolean => colls.length > 0 && colls.every(isLazySeq);
const anyLazy = (colls: Value[]): boolean => colls.some(isLazySeq);

function filterSeq(fn: string, pred: Value, coll: Value, rt: Runtime, keep: boolean): Iterator<Value> {
  expectCallable(fn, pred);
  if (coll === null || isVector(coll) || isPList(coll) || isLazySeq(coll) || isMap(coll) || isSet(coll) || typeof coll === 'string') {
    const it = seqItems(fn, coll, rt);
    return (function* () {
      for (const x of it) if (truthy(rt.apply(pred, [x])) === keep) yield x;
    })();
  }
  throw argError(fn, 'collection', coll);
}

function* indexed(fn: string, f: Value, coll: Value, rt: Runtime, mode: 'map' | 'keep'): Iterator<Value> {
  let i = 0;
  for (const x of seqItems(fn, coll, rt)) {
    const y = rt.apply(f, [i++, x]);
    if (mode === 'map' || y !== null) yield y;
  }
}

function concatSeq(fn: string, colls: Value[], rt: Runtime): Iterator<Value> {
  const its = colls.map((c) => seqItems(fn, c, rt));
  return (function* () {
    for (const it of its) yield* it;
  })();
}

function* mapcatSeq(fn: string, f: Value, colls: Value[], rt: Runtime): Iterator<Value> {
  const inner = mapSeq(fn, f, colls, rt);
  for (let r = inner.next(); !r.done; r = inner.next()) yield* seqItems(fn, r.value, rt);
}

function reduceOf(fn: string, f: Value, init: Value | undefined, coll: Value, rt: Runtime): Value {
  expectCallable(fn, f);
  const it = seqItems(fn, coll, rt)[Symbol.iterator]();
  let acc: Value;
  if (init === undefined) {
    const first = it.next();
    if (first.done) return rt.apply(f, []);
    acc = first.value;
  } else acc = init;
  for (let r = it.next(); !r.done; r = it.next()) {
    acc = rt.apply(f, [acc, r.value]);
    if (isReduced(acc)) return acc.value;
  }
  return acc;
}

function* reductionsSeq(fn: string, f: Value, init: Value | undefined, coll: Value, rt: Runtime): Iterator<Value> {
  const it = seqItems(fn, coll, rt)[Symbol.iterator]();
  let acc: Value;
  if (init === undefined) {
    const first = it.next();
    if (first.done) {
      yield rt.apply(f, []);
      return;
    }
    acc = first.value;
  } else acc = init;
  yield acc;
  for (let r = it.next(); !r.done; r = it.next()) {
    acc = rt.apply(f, [acc, r.value]);
    if (isReduced(acc)) return yield acc.value;
    yield acc;
  }
}

// ---------------------------------------------------------------- building

/** `(cons x s)` onto a lazy seq, lazily. */
function consLazy(x: Value, s: LazySeq): LazySeq {
  return new LazySeq((i) => (i === 0 ? x : s.nth(i - 1)));
}

const pairHint = 'a map takes [key value] vectors or maps: (conj m [:k v]) or (into {} [[:k v]])';

/** Adds one entry to a mutable map: a `[k v]` vector, a map (merged) or nil. */
function conjMapEntry(fn: string, m: PMap, x: Value): void {
  if (x === null) return;
  if (isMap(x)) {
    for (const [k, v] of x) m.set(k, v);
    return;
  }
  if (isVector(x) && x.size === 2) {
    m.set(x.get(0) as Value, x.get(1) as Value);
    return;
  }
  throw argError(fn, '[key value] pair', x, pairHint);
}

/** `conj` of many items: vectors append, lists and seqs prepend, maps take pairs, sets add. */
export function conjAll(fn: string, coll: Value, xs: Iterable<Value>, rt: Runtime): Value {
  let out: Value;
  if (coll === null) {
    const items: Value[] = [];
    for (const x of xs) items.push(x);
    out = listOf(items.reverse());
  } else if (isVector(coll)) {
    // one item (the (reduce conj [] ...) case): a plain push is cheaper than a transient
    out = Array.isArray(xs) && xs.length === 1
      ? coll.push(xs[0] as Value)
      : coll.withMutations((v) => {
          for (const x of xs) v.push(x);
        });
  } else if (isPList(coll)) {
    out = new PList(
      coll.items.withMutations((v) => {
        for (const x of xs) v.unshift(x);
      }),
    );
  } else if (isMap(coll)) {
    out = coll.withMutations((m) => {
      for (const x of xs) conjMapEntry(fn, m, x);
    });
  } else if (isSet(coll)) {
    out = coll.withMutations((s) => {
      for (const x of xs) s.add(x);
    });
  } else if (isLazySeq(coll)) {
    let s: LazySeq = coll;
    for (const x of xs) s = consLazy(x, s);
    return s;
  } else {
    throw argError(fn, 'collection', coll);
  }
  const size = countOf(fn, out, rt);
  rt.checkSize(size);
  return out;
}

/** `(vec coll)` */
export function toVector(fn: string, v: Value, rt: Runtime): Vector {
  if (isVector(v)) return v;
  if (isPList(v)) return v.items;
  return eagerVector(fn, rt, seqItems(fn, v, rt));
}

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
  return (a, b) => {
    const r = rt.apply(cmp, [a, b]);
    if (typeof r === 'number') return Math.sign(Math.trunc(r));
    if (typeof r === 'boolean' || r === null) {
      if (r === true) return -1;
      return truthy(rt.apply(cmp, [b, a])) ? 1 : 0;
    }
    throw argError(fn, 'comparator returning a number or boolean', r);
  };
}

/** Charges n·log2(n) fuel for a sort of n items. */
const tickSort = (rt: Runtime, n: number): void => rt.tick(n > 1 ? Math.ceil(n * Math.log2(n)) : 1);

const sortHint = 'the collection comes last: (sort-by keyfn coll) or (sort-by keyfn comparator coll), e.g. (sort-by :age > users)';

/**
 * A key function for the reference's key arguments (`sort-by`, `group-by`,
 * `distinct-by`): a string reads that field (flexibly), a vector is a path, anything
 * else is called.
 */
export function keyFnOf(fn: string, f: Value, rt: Runtime): (x: Value) => Value {
  if (typeof f === 'string') return (x) => getIn1(x, f);
  if (isVector(f)) return (x) => getPath(x, f.toArray());
  expectCallable(fn, f);
  return (x) => rt.apply(f, [x]);
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

// ---------------------------------------------------------------- grouping and partitioning

function* partitionSeq(
  fn: string,
  n: number,
  step: number,
  pad: Value | undefined,
  all: boolean,
  coll: Value,
  rt: Runtime,
): Iterator<Value> {
  const it = seqItems(fn, coll, rt)[Symbol.iterator]();
  let buf: Value[] = [];
  let done = false;
  for (;;) {
    while (!done && buf.length < n) {
      const r = it.next();
      if (r.done) done = true;
      else buf.push(r.value);
    }
    if (buf.length === 0) return;
    if (buf.length < n && !all) {
      if (pad !== undefined) yield listOf(buf.concat(itemsArray(fn, pad, rt).slice(0, n - buf.length)));
      return;
    }
    yield listOf(buf.slice(0, n));
    if (step <= buf.length) buf = buf.slice(step);
    else {
      for (let skip = step - buf.length; skip > 0 && !done; skip--) if (it.next().done) done = true;
      buf = [];
    }
  }
}

function* partitionBySeq(fn: string, f: Value, coll: Value, rt: Runtime): Iterator<Value> {
  let group: Value[] = [];
  let key: Value = null;
  for (const x of seqItems(fn, coll, rt)) {
    const k = rt.apply(f, [x]);
    if (group.length > 0 && !equals(k, key)) {
      yield listOf(group);
      group = [];
    }
    key = k;
    group.push(x);
  }
  if (group.length > 0) yield listOf(group);
}

function* distinctSeq(fn: string, key: (x: Value) => Value, coll: Value, rt: Runtime): Iterator<Value> {
  const seen = ISet<Value>().asMutable();
  for (const x of seqItems(fn, coll, rt)) {
    const k = key(x);
    if (seen.has(k)) continue;
    seen.add(k);
    yield x;
  }
}

function* interleaveSeq(fn: string, colls: Value[], rt: Runtime): Iterator<Value> {
  const its = colls.map((c) => seqItems(fn, c, rt)[Symbol.iterator]());
  if (its.length === 0) return;
  for (;;) {
    const xs: Value[] = [];
    for (const it of its) {
      const r = it.next();
      if (r.done) return;
      xs.push(r.value);
    }
    yield* xs;
  }
}

function* flattenSeq(fn: string, v: Value, rt: Runtime): Generator<Value> {
  for (const x of seqItems(fn, v, rt)) {
    if (isSequential(x)) yield* flattenSeq(fn, x, rt);
    else yield x;
  }
}

// ---------------------------------------------------------------- generating

function rangeOf(args: Value[], rt: Runtime): PList | LazySeq {
  if (args.length === 0) return new LazySeq((i) => i);
  const [start, end, step] =
    args.length === 1
      ? [0, expectNumber('range', args[0]!), 1]
      : [expectNumber('range', args[0]!), expectNumber('range', args[1]!), args.length > 2 ? expectNumber('range', args[2]!) : 1];
  if (step === 0) return start === end ? PList.EMPTY : new LazySeq(() => start);
  const more = (x: number): boolean => (step > 0 ? x < end : x > end);
  const estimate = Math.ceil((end - start) / step);
  if (!(estimate <= rt.maxCollectionSize)) {
    let x = start;
    return new LazySeq(() => {
      if (!more(x)) return END;
      const y = x;
      x += step;
      return y;
    });
  }
  const out: number[] = [];
  for (let x = start; more(x); x += step) out.push(x);
  rt.tick(out.length);
  return listOf(out);
}

/** `n` copies of a value from `make(i)`: eager when small, lazy past the size limit. */
function repeatN(fn: string, n: number, make: (i: number) => Value, rt: Runtime): PList | LazySeq {
  if (n > rt.maxCollectionSize) return new LazySeq((i) => (i < n ? make(i) : END));
  const out: Value[] = [];
  for (let i = 0; i < n; i++) out.push(make(i));
  rt.tick(out.length);
  return listOf(out);
}

function* combinationsSeq(items: Value[], k: number): Generator<Value> {
  const idx = Array.from({ length: k }, (_, i) => i);
  if (k > items.length) return;
  for (;;) {
    yield List(idx.map((i) => items[i]!));
    let j = k - 1;
    while (j >= 0 && idx[j] === items.length - k + j) j--;
    if (j < 0) return;
    idx[j]!++;
    for (let m = j + 1; m < k; m++) idx[m] = idx[m - 1]! + 1;
  }
}

// ---------------------------------------------------------------- misc helpers

function someOf(fn: string, pred: Value, coll: Value, rt: Runtime): Value {
  expectCallable(fn, pred);
  for (const x of seqItems(fn, coll, rt)) {
    const r = rt.apply(pred, [x]);
    if (truthy(r)) return r;
  }
  return null;
}

function everyOf(fn: string, pred: Value, coll: Value, rt: Runtime): boolean {
  expectCallable(fn, pred);
  for (const x of seqItems(fn, coll, rt)) if (!truthy(rt.apply(pred, [x]))) return false;
  return true;
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

/** `vector` as a function value, used by `zip`. */
const vectorFn = new Builtin('vector', (args) => List(args));

/** Splits `[f? ... coll]` style arguments where the optional middle ones are given. */
function lastArg(args: Value[]): Value {
  return args[args.length - 1]!;
}

// ---------------------------------------------------------------- the table

const sequenceFns: CoreTable = {
  // ;; access
  first: defn([1, 1], ([c], rt) => firstOf('first', c!, rt), 'first item, or nil'),
  second: defn([1, 1], ([c], rt) => firstOf('second', nextOf('second', c!, rt), rt), 'second item, or nil'),
  last: defn([1, 1], ([c], rt) => lastOf('last', c!, rt), 'last item, or nil'),
  ffirst: defn([1, 1], ([c], rt) => firstOf('ffirst', firstOf('ffirst', c!, rt), rt), '(first (first coll))'),
  fnext: defn([1, 1], ([c], rt) => firstOf('fnext', nextOf('fnext', c!, rt), rt), '(first (next coll))'),
  nfirst: defn([1, 1], ([c], rt) => nextOf('nfirst', firstOf('nfirst', c!, rt), rt), '(next (first coll))'),
  nnext: defn([1, 1], ([c], rt) => nextOf('nnext', nextOf('nnext', c!, rt), rt), '(next (next coll))'),
  rest: defn([1, 1], ([c], rt) => restOf('rest', c!, rt), 'items after the first; () when none'),
  next: defn([1, 1], ([c], rt) => nextOf('next', c!, rt), 'items after the first; nil when none'),
  nth: defn(
    [2, 3],
    ([c, i, d], rt) => nthOf('nth', c!, i!, rt, d),
    '(nth coll i) item at index i (error when out of range); (nth coll i default)',
  ),
  nthrest: defn(
    [2, 2],
    ([c, n], rt) => (expectCount('nthrest', n!) === 0 ? c! : dropOf('nthrest', n!, c!, rt)),
    '(nthrest coll n) coll without its first n items',
  ),
  nthnext: defn(
    [2, 2],
    ([c, n], rt) => seqOf('nthnext', dropOf('nthnext', n!, c!, rt), rt),
    '(nthnext coll n) like nthrest but nil when empty',
  ),
  butlast: defn(
    [1, 1],
    ([c], rt) => {
      const xs = itemsArray('butlast', c!, rt);
      return xs.length <= 1 ? null : listOf(xs.slice(0, -1));
    },
    'all but the last item; nil when that is empty',
  ),
  count: defn([1, 1], ([c], rt) => countOf('count', c!, rt), 'number of items (nil is 0; strings count characters)'),
  'empty?': defn([1, 1], ([c]) => isEmptyColl('empty?', c!), 'true if the collection has no items (nil is empty)'),
  'not-empty': defn([1, 1], ([c]) => (isEmptyColl('not-empty', c!) ? null : c!), 'the collection, or nil when empty'),
  seq: defn([1, 1], ([c], rt) => seqOf('seq', c!, rt), 'a seq of the items, or nil when empty'),
  peek: defn(
    [1, 1],
    ([c]) => {
      if (c === null) return null;
      if (isVector(c)) return c.size > 0 ? (c.last() as Value) : null;
      if (isPList(c)) return c.size > 0 ? (c.items.first() as Value) : null;
      throw argError('peek', 'vector or list', c!);
    },
    'last of a vector, first of a list',
  ),
  pop: defn(
    [1, 1],
    ([c]) => {
      if (c === null) return null;
      if ((isVector(c) || isPList(c)) && c.size === 0) throw typeError(`pop: can't pop an empty ${isVector(c) ? 'vector' : 'list'}`);
      if (isVector(c)) return c.pop();
      if (isPList(c)) return new PList(c.items.rest());
      throw argError('pop', 'vector or list', c!);
    },
    'vector without its last item, list without its first',
  ),
  subvec: defn(
    [2, 3],
    ([v, s, e]) => {
      const vv = expectVector('subvec', v!);
      const start = expectInteger('subvec', s!);
      const end = e === undefined ? vv.size : expectInteger('subvec', e);
      if (start < 0 || start > vv.size) throw indexOutOfBounds('subvec', start, vv.size);
      if (end < start || end > vv.size) throw indexOutOfBounds('subvec', end, vv.size);
      return vv.slice(start, end);
    },
    '(subvec v start end?) vector of items from start (inclusive) to end (exclusive)',
  ),

  // ;; slicing
  take: defn([2, 2], ([n, c], rt) => takeOf('take', n!, c!, rt), '(take n coll) first n items'),
  drop: defn([2, 2], ([n, c], rt) => dropOf('drop', n!, c!, rt), '(drop n coll) all but the first n items'),
  'take-last': defn(
    [2, 2],
    ([n, c], rt) => {
      const k = expectCount('take-last', n!);
      const xs = itemsArray('take-last', c!, rt);
      return k === 0 || xs.length === 0 ? null : listOf(xs.slice(Math.max(0, xs.length - k)));
    },
    '(take-last n coll) last n items; nil when none',
  ),
  'drop-last': defn(
    [1, 2],
    (args, rt) => {
      const [n, c] = args.length === 1 ? [1, args[0]!] : [expectCount('drop-last', args[0]!), args[1]!];
      if (isLazySeq(c)) return new LazySeq((i) => (lazyNth('drop-last', c, i + n, rt) === END ? END : c.nth(i)));
      const xs = itemsArray('drop-last', c, rt);
      return listOf(xs.slice(0, Math.max(0, xs.length - n)));
    },
    '(drop-last coll) or (drop-last n coll): all but the last n (default 1) items',
  ),
  'take-while': defn([2, 2], ([p, c], rt) => takeWhile('take-while', p!, c!, rt), '(take-while pred coll) items while pred is truthy'),
  'drop-while': defn([2, 2], ([p, c], rt) => dropWhile('drop-while', p!, c!, rt), '(drop-while pred coll) items from the first where pred is falsy'),
  'take-nth': defn(
    [2, 2],
    ([n, c], rt) => {
      const k = expectPositiveInt('take-nth', n!);
      const it = seqItems('take-nth', c!, rt);
      return seqResult('take-nth', rt, isLazySeq(c!), function* () {
        let i = 0;
        for (const x of it) if (i++ % k === 0) yield x;
      });
    },
    '(take-nth n coll) every nth item, starting with the first',
  ),
  'split-at': defn(
    [2, 2],
    ([n, c], rt) => List<Value>([takeOf('split-at', n!, c!, rt), dropOf('split-at', n!, c!, rt)]),
    '(split-at n coll) [(take n coll) (drop n coll)]',
  ),
  'split-with': defn(
    [2, 2],
    ([p, c], rt) => List<Value>([takeWhile('split-with', p!, c!, rt), dropWhile('split-with', p!, c!, rt)]),
    '(split-with pred coll) [(take-while pred coll) (drop-while pred coll)]',
  ),

  // ;; transforming
  map: defn(
    [2, VARIADIC],
    ([f, ...cs], rt) => seqResult('map', rt, allLazy(cs), () => mapSeq('map', f!, cs, rt)),
    '(map f coll & colls) seq of (f item); with several colls f takes one item of each, stopping at the shortest',
  ),
  mapv: defn(
    [2, VARIADIC],
    ([f, ...cs], rt) => eagerVector('mapv', rt, { [Symbol.iterator]: () => mapSeq('mapv', f!, cs, rt) }),
    '(mapv f coll & colls) like map but returns a vector',
  ),
  'map-indexed': defn(
    [2, 2],
    ([f, c], rt) => (expectCallable('map-indexed', f!), seqResult('map-indexed', rt, isLazySeq(c!), () => indexed('map-indexed', f!, c!, rt, 'map'))),
    '(map-indexed f coll) seq of (f index item)',
  ),
  mapcat: defn(
    [2, VARIADIC],
    ([f, ...cs], rt) => seqResult('mapcat', rt, anyLazy(cs), () => mapcatSeq('mapcat', f!, cs, rt)),
    '(mapcat f coll) concatenation of the collections (f item) returns',
  ),
  filter: defn(
    [2, 2],
    ([p, c], rt) => seqResult('filter', rt, isLazySeq(c!), () => filterSeq('filter', p!, c!, rt, true)),
    '(filter pred coll) items for which pred is truthy; pred may be a keyword or set',
  ),
  filterv: defn(
    [2, 2],
    ([p, c], rt) => eagerVector('filterv', rt, { [Symbol.iterator]: () => filterSeq('filterv', p!, c!, rt, true) }),
    '(filterv pred coll) like filter but returns a vector',
  ),
  remove: defn(
    [2, 2],
    ([p, c], rt) => seqResult('remove', rt, isLazySeq(c!), () => filterSeq('remove', p!, c!, rt, false)),
    '(remove pred coll) items for which pred is falsy',
  ),
  keep: defn(
    [2, 2],
    ([f, c], rt) =>
      seqResult('keep', rt, isLazySeq(c!), function* () {
        const it = mapSeq('keep', f!, [c!], rt);
        for (let r = it.next(); !r.done; r = it.next()) if (r.value !== null) yield r.value;
      }),
    '(keep f coll) non-nil results of (f item)',
  ),
  'keep-indexed': defn(
    [2, 2],
    ([f, c], rt) => (expectCallable('keep-indexed', f!), seqResult('keep-indexed', rt, isLazySeq(c!), () => indexed('keep-indexed', f!, c!, rt, 'keep'))),
    '(keep-indexed f coll) non-nil results of (f index item)',
  ),
  reduce: defn(
    [2, 3],
    (args, rt) =>
      args.length === 2 ? reduceOf('reduce', args[0]!, undefined, args[1]!, rt) : reduceOf('reduce', args[0]!, args[1]!, args[2]!, rt),
    '(reduce f coll) or (reduce f init coll): (f acc item) over the items; maps give [k v] items',
  ),
  'reduce-kv': defn(
    [3, 3],
    ([f, init, c], rt) => {
      expectCallable('reduce-kv', f!);
      let acc: Value = init!;
      if (c === null) return acc;
      const entries: Iterable<[Value, Value]> = isMap(c) ? c : isVector(c) ? c.entries() : (() => { throw argError('reduce-kv', 'map or vector', c!); })();
      for (const [k, v] of entries) {
        rt.tick(1);
        acc = rt.apply(f!, [acc, k, v]);
        if (isReduced(acc)) return acc.value;
      }
      return acc;
    },
    '(reduce-kv f init m) (f acc k v) over the entries of a map (or index/item of a vector)',
  ),
  reduced: defn([1, 1], ([x]) => new Reduced(x!), '(reduced x) inside the fn of reduce: stop now with x'),
  'reduced?': defn([1, 1], ([x]) => isReduced(x!), '(reduced? x) true for a value made by reduced'),
  unreduced: defn([1, 1], ([x]) => (isReduced(x!) ? x.value : x!), '(unreduced x) the value inside a reduced, else x'),
  reductions: defn(
    [2, 3],
    (args, rt) => {
      const [f, init, c] = args.length === 2 ? [args[0]!, undefined, args[1]!] : [args[0]!, args[1]!, args[2]!];
      expectCallable('reductions', f);
      return seqResult('reductions', rt, isLazySeq(c), () => reductionsSeq('reductions', f, init, c, rt));
    },
    '(reductions f coll) or (reductions f init coll): seq of the intermediate values of reduce',
  ),
  apply: defn(
    [2, VARIADIC],
    (args, rt) => {
      const f = expectCallable('apply', args[0]!);
      const spread = itemsArray('apply', lastArg(args), rt);
      return rt.apply(f, [...args.slice(1, -1), ...spread]);
    },
    '(apply f x ... coll) calls f with the items of coll as extra arguments',
  ),

  // ;; building
  concat: defn([0, VARIADIC], (cs, rt) => seqResult('concat', rt, anyLazy(cs), () => concatSeq('concat', cs, rt)), '(concat & colls) one seq of all the items'),
  cons: defn(
    [2, 2],
    ([x, c], rt) => {
      if (isLazySeq(c!)) return consLazy(x!, c);
      if (isPList(c!)) return new PList(c.items.unshift(x!));
      if (isVector(c!)) return new PList(c.unshift(x!));
      return listOf([x!, ...itemsArray('cons', c!, rt)]);
    },
    '(cons x coll) seq with x in front',
  ),
  conj: defn(
    [0, VARIADIC],
    (args, rt) => (args.length === 0 ? List() : conjAll('conj', args[0]!, args.slice(1), rt)),
    '(conj coll x & xs) adds items: at the end of a vector, the front of a list, [k v] to a map, to a set',
  ),
  into: defn(
    [2, 3],
    (args, rt) => {
      const from = args.length === 3 ? transduced('into', args[1]!, args[2]!, rt) : args[1]!;
      return conjAll('into', args[0]!, seqItems('into', from, rt), rt);
    },
    '(into to from) conj every item of from into to: (into {} pairs), (into [] coll), (into #{} coll); (into to xform from) through a transducer',
  ),
  transduce: defn(
    [3, 4],
    (args, rt) => {
      const f = args[1]!;
      const init = args.length === 4 ? args[2]! : rt.apply(f, []);
      // the completing call (f result), as in Clojure: + and conj return their argument
      return rt.apply(f, [reduceOf('transduce', f, init, transduced('transduce', args[0]!, lastArg(args), rt), rt)]);
    },
    '(transduce xform f init coll) reduce with f over coll through the transducer, then (f result)',
  ),
  sequence: defn(
    [1, 2],
    (args, rt) => {
      const coll = args.length === 2 ? transduced('sequence', args[0]!, args[1]!, rt) : args[0]!;
      return seqOf('sequence', coll, rt) ?? PList.EMPTY;
    },
    '(sequence coll) the items as a seq, () when empty; (sequence xform coll) through a transducer',
  ),
  eduction: defn(
    [2, VARIADIC],
    (args, rt) => transduced('eduction', composeTransducers(args.slice(0, -1)) ?? args[0]!, lastArg(args), rt),
    '(eduction xform & xforms coll) the items of coll through the transducers',
  ),
  vec: defn([1, 1], ([c], rt) => toVector('vec', c!, rt), '(vec coll) vector of the items'),
  vector: defn([0, VARIADIC], (args) => List(args), '(vector & xs) vector of the arguments'),
  list: defn([0, VARIADIC], (args) => listOf(args), '(list & xs) list of the arguments'),
  'list*': defn(
    [1, VARIADIC],
    (args, rt) => listOf([...args.slice(0, -1), ...itemsArray('list*', lastArg(args), rt)]),
    '(list* x ... coll) list of the xs followed by the items of coll',
  ),
  empty: defn(
    [1, 1],
    ([c]) => {
      if (isVector(c!)) return List();
      if (isMap(c!)) return PMap.EMPTY;
      if (isSet(c!)) return OrderedSet();
      if (isPList(c!) || isLazySeq(c!)) return PList.EMPTY;
      return null;
    },
    '(empty coll) an empty collection of the same kind',
  ),
  reverse: defn([1, 1], ([c], rt) => listOf(itemsArray('reverse', c!, rt).reverse()), '(reverse coll) seq of the items in reverse order'),
  doall: defn(
    [1, 2],
    (args, rt) => {
      const c = lastArg(args);
      if (isLazySeq(c)) itemsArray('doall', c, rt);
      return c;
    },
    '(doall coll) realises a lazy seq and returns it',
  ),
  dorun: defn(
    [1, 2],
    (args, rt) => {
      const c = lastArg(args);
      if (isLazySeq(c)) itemsArray('dorun', c, rt);
      return null;
    },
    '(dorun coll) realises a lazy seq for its side effects; returns nil',
  ),
  'run!': defn(
    [2, 2],
    ([f, c], rt) => {
      expectCallable('run!', f!);
      for (const x of seqItems('run!', c!, rt)) rt.apply(f!, [x]);
      return null;
    },
    '(run! f coll) calls f on each item for side effects; returns nil',
  ),

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
        throw argError('sort-by', 'collection as the last argument', c, swapped || isFn(c) || isKeyword(c) ? sortHint : undefined);
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
  compare: defn([2, 2], ([a, b]) => compareValues(a!, b!), '(compare a b) negative, 0 or positive; orders numbers, strings, keywords, vectors'),
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
  'min-key': defn([2, VARIADIC], (args, rt) => extremeKey('min-key', args, rt, (a, b) => a < b), '(min-key f x & xs) the x with the smallest (f x)'),
  'max-key': defn([2, VARIADIC], (args, rt) => extremeKey('max-key', args, rt, (a, b) => a > b), '(max-key f x & xs) the x with the largest (f x)'),

  // ;; grouping
  frequencies: defn(
    [1, 1],
    ([c], rt) => {
      const out = PMap.EMPTY.withMutations((m) => {
        for (const x of seqItems('frequencies', c!, rt)) m.set(x, ((m.get(x) as number | undefined) ?? 0) + 1);
      });
      rt.tick(out.size);
      return out;
    },
    '(frequencies coll) map of item to number of occurrences',
  ),
  'group-by': defn(
    [2, 2],
    ([f, c], rt) => {
      const key = keyFnOf('group-by', f!, rt);
      const out = PMap.EMPTY.withMutations((m) => {
        for (const x of seqItems('group-by', c!, rt)) {
          const k = key(x);
          m.set(k, ((m.get(k) as Vector | undefined) ?? List<Value>()).push(x));
        }
      });
      rt.tick(out.size);
      return out;
    },
    '(group-by keyfn coll) map of key to vector of the items with that key',
  ),
  partition: defn(
    [2, 4],
    (args, rt) => {
      const n = expectPositiveInt('partition', args[0]!);
      const step = args.length >= 3 ? expectPositiveInt('partition', args[1]!) : n;
      const pad = args.length === 4 ? args[2]! : undefined;
      const c = lastArg(args);
      return seqResult('partition', rt, isLazySeq(c), () => partitionSeq('partition', n, step, pad, false, c, rt));
    },
    '(partition n coll), (partition n step coll), (partition n step pad coll): groups of n; incomplete groups dropped unless padded',
  ),
  'partition-all': defn(
    [2, 3],
    (args, rt) => {
      const n = expectPositiveInt('partition-all', args[0]!);
      const step = args.length === 3 ? expectPositiveInt('partition-all', args[1]!) : n;
      const c = lastArg(args);
      return seqResult('partition-all', rt, isLazySeq(c), () => partitionSeq('partition-all', n, step, undefined, true, c, rt));
    },
    '(partition-all n coll) groups of n; the last may be shorter',
  ),
  'partition-by': defn(
    [2, 2],
    ([f, c], rt) => (expectCallable('partition-by', f!), seqResult('partition-by', rt, isLazySeq(c!), () => partitionBySeq('partition-by', f!, c!, rt))),
    '(partition-by f coll) splits coll each time (f item) changes',
  ),
  interleave: defn(
    [0, VARIADIC],
    (cs, rt) => seqResult('interleave', rt, allLazy(cs), () => interleaveSeq('interleave', cs, rt)),
    '(interleave c1 c2 & cs) first of each, then second of each, ... to the shortest',
  ),
  interpose: defn(
    [2, 2],
    ([sep, c], rt) =>
      seqResult('interpose', rt, isLazySeq(c!), function* () {
        let first = true;
        for (const x of seqItems('interpose', c!, rt)) {
          if (!first) yield sep!;
          first = false;
          yield x;
        }
      }),
    '(interpose sep coll) items with sep between them',
  ),
  flatten: defn(
    [1, 1],
    ([c], rt) => (isSequential(c!) ? eagerList('flatten', rt, { [Symbol.iterator]: () => flattenSeq('flatten', c!, rt) }) : PList.EMPTY),
    '(flatten coll) all non-sequential items of nested vectors/lists as one seq',
  ),
  zip: defn(
    [1, VARIADIC],
    (cs, rt) => seqResult('zip', rt, allLazy(cs), () => mapSeq('zip', vectorFn, cs, rt)),
    '(zip c1 c2 & cs) seq of vectors [a b] pairing items, to the shortest',
  ),
  combinations: defn(
    [2, 2],
    ([c, n], rt) => {
      const xs = itemsArray('combinations', c!, rt);
      return eagerList('combinations', rt, { [Symbol.iterator]: () => combinationsSeq(xs, expectCount('combinations', n!)) });
    },
    '(combinations coll n) seq of all n-item vectors chosen from coll, in order',
  ),

  // ;; generating
  range: defn([0, 3], (args, rt) => rangeOf(args, rt), '(range), (range end), (range start end), (range start end step)'),
  repeat: defn(
    [1, 2],
    (args, rt) =>
      args.length === 1 ? new LazySeq(() => args[0]!) : repeatN('repeat', expectCount('repeat', args[0]!), () => args[1]!, rt),
    '(repeat x) infinite, or (repeat n x): x repeated',
  ),
  repeatedly: defn(
    [1, 2],
    (args, rt) => {
      const f = expectCallable('repeatedly', lastArg(args));
      if (args.length === 1) return new LazySeq(() => rt.apply(f, []));
      return repeatN('repeatedly', expectCount('repeatedly', args[0]!), () => rt.apply(f, []), rt);
    },
    '(repeatedly n f) n results of calling f; (repeatedly f) infinite',
  ),
  iterate: defn(
    [2, 2],
    ([f, x], rt) => {
      expectCallable('iterate', f!);
      let cur: Value = x!;
      return new LazySeq((i) => (i === 0 ? cur : (cur = rt.apply(f!, [cur]))));
    },
    '(iterate f x) infinite seq x, (f x), (f (f x)), ...',
  ),
  cycle: defn(
    [1, 1],
    ([c], rt) => {
      const xs = itemsArray('cycle', c!, rt);
      return xs.length === 0 ? PList.EMPTY : new LazySeq((i) => xs[i % xs.length]!);
    },
    '(cycle coll) infinite repetition of the items',
  ),

  // ;; searching
  some: defn([2, 2], ([p, c], rt) => someOf('some', p!, c!, rt), '(some pred coll) first truthy (pred item), or nil'),
  'every?': defn([2, 2], ([p, c], rt) => everyOf('every?', p!, c!, rt), '(every? pred coll) true if pred is truthy for all items'),
  'not-every?': defn([2, 2], ([p, c], rt) => !everyOf('not-every?', p!, c!, rt), '(not-every? pred coll)'),
  'not-any?': defn([2, 2], ([p, c], rt) => someOf('not-any?', p!, c!, rt) === null, '(not-any? pred coll) true if pred is falsy for all items'),
  find: defn(
    [2, 2],
    ([a, b], rt) => {
      // Clojure's (find map key) / (find vector index): the entry [k v], or nil
      if (isMap(a!) && !isFn(b!)) return mapEntry(a, b!);
      if (isVector(a!) && typeof b === 'number') {
        return Number.isInteger(b) && b >= 0 && b < a.size ? List<Value>([b, a.get(b) as Value]) : null;
      }
      // the reference's (find pred coll): first matching item
      expectCallable('find', a!);
      for (const x of seqItems('find', b!, rt)) if (truthy(rt.apply(a!, [x]))) return x;
      return null;
    },
    '(find m k) the entry [k v] of a map, or nil; (find pred coll) the first item matching pred',
  ),
};

/** Clojure `find` on a map: `[k v]` with the key as stored (flexible lookup), or nil. */
export function mapEntry(m: PMap, k: Value): Value {
  if (m.has(k)) return List<Value>([k, m.get(k) as Value]);
  const alt = alternateKey(k);
  return alt !== undefined && m.has(alt) ? List<Value>([alt, m.get(alt) as Value]) : null;
}

/** Every sequence function, with the transducer arities (see transducers.ts). */
export const seqFns: CoreTable = withTransducerArities(sequenceFns);


/** `coll` through the transducer `xf`, by the sequence functions it names. */
function transduced(fn: string, xf: Value, coll: Value, rt: Runtime): Value {
  return runSteps(expectTransducer(fn, xf), coll, (name, args) => seqFns[name]!.fn(args, rt));
}
