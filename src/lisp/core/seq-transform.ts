/**
 * Transforming sequences: map, filter, keep, mapcat, reduce, reductions, apply.
 */
import { List } from 'immutable';
import {
  type Runtime,
  type Value,
  isKeyword,
  isLazySeq,
  isMap,
  isPList,
  isSet,
  isVector,
  truthy,
  Reduced,
  isReduced,
} from '../values.ts';
import { argError, expectCallable, seqItems } from './args.ts';
import { type CoreTable, VARIADIC, defn } from './registry.ts';
import { conjEach, fastPaths, filterArray, isCoreConj, mapArray, reduceEach } from './seq-eager.ts';
import { allLazy, anyLazy, eagerVector, itemsArray, lastArg, listOf, nextOfEach, seqResult } from './seq-common.ts';

// ---------------------------------------------------------------- transforming

const keywordMapHint =
  'a keyword over a single map reads its entries; use (:k m) to read one field, or (map :k items) over a list of maps';

export function mapSeq(fn: string, f: Value, colls: Value[], rt: Runtime): Iterator<Value> {
  expectCallable(fn, f);
  if (colls.length === 1 && isKeyword(f) && isMap(colls[0]!)) {
    throw argError(fn, 'a collection of maps', colls[0]!, keywordMapHint);
  }
  const its = colls.map((c) => seqItems(fn, c, rt)[Symbol.iterator]());
  return (function* () {
    if (its.length === 1) {
      const it = its[0]!;
      for (let r = it.next(); !r.done; r = it.next()) yield rt.apply1(f, r.value);
      return;
    }
    for (let xs = nextOfEach(its); xs !== null; xs = nextOfEach(its)) yield rt.apply(f, xs);
  })();
}

/** What filter and remove take: nil, a collection or a string. */
const isFilterable = (coll: Value): boolean =>
  coll === null ||
  isVector(coll) ||
  isPList(coll) ||
  isLazySeq(coll) ||
  isMap(coll) ||
  isSet(coll) ||
  typeof coll === 'string';

function filterSeq(fn: string, pred: Value, coll: Value, rt: Runtime, keep: boolean): Iterator<Value> {
  expectCallable(fn, pred);
  if (isFilterable(coll)) {
    const it = seqItems(fn, coll, rt);
    return (function* () {
      for (const x of it) if (truthy(rt.apply1(pred, x)) === keep) yield x;
    })();
  }
  throw argError(fn, 'collection', coll);
}

function* indexed(fn: string, f: Value, coll: Value, rt: Runtime, mode: 'map' | 'keep'): Iterator<Value> {
  let i = 0;
  for (const x of seqItems(fn, coll, rt)) {
    const y = rt.apply2(f, i++, x);
    if (mode === 'map' || y !== null) yield y;
  }
}

export function concatSeq(fn: string, colls: Value[], rt: Runtime): Iterator<Value> {
  const its = colls.map((c) => seqItems(fn, c, rt));
  return (function* () {
    for (const it of its) yield* it;
  })();
}

function* mapcatSeq(fn: string, f: Value, colls: Value[], rt: Runtime): Iterator<Value> {
  const inner = mapSeq(fn, f, colls, rt);
  for (let r = inner.next(); !r.done; r = inner.next()) yield* seqItems(fn, r.value, rt);
}

export function reduceOf(fn: string, f: Value, init: Value | undefined, coll: Value, rt: Runtime): Value {
  expectCallable(fn, f);
  if (fastPaths.on) {
    if (init !== undefined && isVector(init) && isCoreConj(f)) return conjEach(fn, init, coll, rt);
    return reduceEach(fn, f, init, coll, rt);
  }
  const it = seqItems(fn, coll, rt)[Symbol.iterator]();
  let acc: Value;
  if (init === undefined) {
    const first = it.next();
    if (first.done) return rt.apply(f, []);
    acc = first.value;
  } else acc = init;
  for (let r = it.next(); !r.done; r = it.next()) {
    acc = rt.apply2(f, acc, r.value);
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
    acc = rt.apply2(f, acc, r.value);
    if (isReduced(acc)) return yield acc.value;
    yield acc;
  }
}

/** One collection that is not lazy: the case {@link mapOne} and {@link filterOne} take. */
const eagerOne = (colls: Value[]): boolean => fastPaths.on && colls.length === 1 && !isLazySeq(colls[0]!);

/** `mapSeq` of one collection, eagerly, with its argument checks. */
function mapOne(fn: string, f: Value, coll: Value, rt: Runtime): Value[] {
  expectCallable(fn, f);
  if (isKeyword(f) && isMap(coll)) throw argError(fn, 'a collection of maps', coll, keywordMapHint);
  return mapArray(fn, f, coll, rt);
}

/** `filterSeq` eagerly, with its argument checks. */
function filterOne(fn: string, pred: Value, coll: Value, rt: Runtime, keep: boolean): Value[] {
  expectCallable(fn, pred);
  if (!isFilterable(coll)) throw argError(fn, 'collection', coll);
  return filterArray(fn, pred, coll, rt, keep);
}

export const transformFns: CoreTable = {
  // ;; transforming
  map: defn(
    [2, VARIADIC],
    ([f, ...cs], rt) =>
      eagerOne(cs)
        ? listOf(mapOne('map', f!, cs[0]!, rt))
        : seqResult('map', rt, allLazy(cs), () => mapSeq('map', f!, cs, rt)),
    '(map f coll & colls) seq of (f item); with several colls f takes one item of each, stopping at the shortest',
  ),
  mapv: defn(
    [2, VARIADIC],
    ([f, ...cs], rt) =>
      eagerOne(cs)
        ? List(mapOne('mapv', f!, cs[0]!, rt))
        : eagerVector('mapv', rt, { [Symbol.iterator]: () => mapSeq('mapv', f!, cs, rt) }),
    '(mapv f coll & colls) like map but returns a vector',
  ),
  'map-indexed': defn(
    [2, 2],
    ([f, c], rt) => (
      expectCallable('map-indexed', f!),
      seqResult('map-indexed', rt, isLazySeq(c!), () => indexed('map-indexed', f!, c!, rt, 'map'))
    ),
    '(map-indexed f coll) seq of (f index item)',
  ),
  mapcat: defn(
    [2, VARIADIC],
    ([f, ...cs], rt) => seqResult('mapcat', rt, anyLazy(cs), () => mapcatSeq('mapcat', f!, cs, rt)),
    '(mapcat f coll) concatenation of the collections (f item) returns',
  ),
  filter: defn(
    [2, 2],
    ([p, c], rt) =>
      eagerOne([c!])
        ? listOf(filterOne('filter', p!, c!, rt, true))
        : seqResult('filter', rt, isLazySeq(c!), () => filterSeq('filter', p!, c!, rt, true)),
    '(filter pred coll) items for which pred is truthy; pred may be a keyword or set',
  ),
  filterv: defn(
    [2, 2],
    ([p, c], rt) =>
      eagerOne([c!])
        ? List(filterOne('filterv', p!, c!, rt, true))
        : eagerVector('filterv', rt, { [Symbol.iterator]: () => filterSeq('filterv', p!, c!, rt, true) }),
    '(filterv pred coll) like filter but returns a vector',
  ),
  remove: defn(
    [2, 2],
    ([p, c], rt) =>
      eagerOne([c!])
        ? listOf(filterOne('remove', p!, c!, rt, false))
        : seqResult('remove', rt, isLazySeq(c!), () => filterSeq('remove', p!, c!, rt, false)),
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
    ([f, c], rt) => (
      expectCallable('keep-indexed', f!),
      seqResult('keep-indexed', rt, isLazySeq(c!), () => indexed('keep-indexed', f!, c!, rt, 'keep'))
    ),
    '(keep-indexed f coll) non-nil results of (f index item)',
  ),
  reduce: defn(
    [2, 3],
    (args, rt) =>
      args.length === 2
        ? reduceOf('reduce', args[0]!, undefined, args[1]!, rt)
        : reduceOf('reduce', args[0]!, args[1]!, args[2]!, rt),
    '(reduce f coll) or (reduce f init coll): (f acc item) over the items; maps give [k v] items',
  ),
  'reduce-kv': defn(
    [3, 3],
    ([f, init, c], rt) => {
      expectCallable('reduce-kv', f!);
      let acc: Value = init!;
      if (c === null) return acc;
      const entries: Iterable<[Value, Value]> = isMap(c)
        ? c
        : isVector(c)
          ? c.entries()
          : (() => {
              throw argError('reduce-kv', 'map or vector', c!);
            })();
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
};
