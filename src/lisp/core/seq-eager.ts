/**
 * Fast paths of the eager sequence functions over finite collections: `map` and
 * `filter`/`remove` of one collection, `reduce`, `reduce` with the core `conj` onto a
 * vector, keyword functions read without a call, and the comparators of the core `>` and
 * `<`. They give the same values and charge the same fuel, in the same order, as the
 * general paths (generators feeding `eagerList`, one `rt.apply` per item), which stay
 * for every other case; `test/lisp/seq-fast.property.test.ts` compares the two.
 *
 * What they save: a generator and an iterator result per item, the per-item copy of the
 * vector in `(reduce conj [] coll)`, and the calls of `>` in `(sort-by :k > coll)`.
 */
import {
  type Runtime,
  type Value,
  type Vector,
  Builtin,
  isKeyword,
  isMap,
  isPList,
  isReduced,
  isVector,
  truthy,
} from '../values.ts';
import type { PMap } from '../collections/ordered-map.ts';
import { getIn1 } from '../lookup.ts';
import { vectorOfArray } from '../vector-of-array.ts';
import { seqItems, tooManyItems } from './args.ts';
import { fastPaths } from './fast-paths.ts';

export { fastPaths };

/**
 * Calls `visit` on every item of `coll`, charging one unit of fuel per item before the
 * visit, as {@link seqItems} does; `visit` returns true to stop early. Vectors and
 * array-backed lists are walked by index, without an iterator.
 */
export function eachItem(fn: string, coll: Value, rt: Runtime, visit: (x: Value) => boolean | void): void {
  if (isPList(coll) && coll.array !== undefined) {
    const xs = coll.array;
    for (let i = 0; i < xs.length; i++) {
      rt.tick(1);
      if (visit(xs[i]!) === true) return;
    }
    return;
  }
  if (isVector(coll)) {
    const n = coll.size;
    for (let i = 0; i < n; i++) {
      rt.tick(1);
      if (visit(coll.get(i) as Value) === true) return;
    }
    return;
  }
  for (const x of seqItems(fn, coll, rt)) if (visit(x) === true) return;
}

/** Appends to a result being built, with {@link eagerList}'s size check. */
function pushBounded(fn: string, out: Value[], x: Value, rt: Runtime): void {
  out.push(x);
  if (out.length > rt.maxCollectionSize) {
    rt.checkSize(out.length);
    tooManyItems(fn, rt);
  }
}

/**
 * `(f x)` as a JS function: a keyword reads the field as the evaluator's call of a
 * keyword does (`(filter :active users)`, `(map :name users)`), without the call.
 */
export function callOne(f: Value, rt: Runtime): (x: Value) => Value {
  if (isKeyword(f)) return (x) => getIn1(x, f, null);
  return (x) => rt.apply1(f, x);
}

/** `(map f coll)` of one finite collection, as an array (the fuel of eagerList charged). */
export function mapArray(fn: string, f: Value, coll: Value, rt: Runtime): Value[] {
  const out: Value[] = [];
  const call = callOne(f, rt);
  eachItem(fn, coll, rt, (x) => pushBounded(fn, out, call(x), rt));
  rt.tick(out.length);
  return out;
}

/** `(filter pred coll)` (or `remove` when `keep` is false) as an array. */
export function filterArray(fn: string, pred: Value, coll: Value, rt: Runtime, keep: boolean): Value[] {
  const out: Value[] = [];
  const call = callOne(pred, rt);
  eachItem(fn, coll, rt, (x) => {
    if (truthy(call(x)) === keep) pushBounded(fn, out, x, rt);
  });
  rt.tick(out.length);
  return out;
}

/** The core function `name` itself (a user function of that name is a closure). */
export const isCore = (f: Value, name: string): boolean => f instanceof Builtin && f.name === name;

/**
 * `(reduce conj v ...)` with the core `conj`: only the reduce loop sees its accumulator,
 * so {@link conjEach} may build the vector in place.
 */
export const isCoreConj = (f: Value): boolean => isCore(f, 'conj');

/**
 * The comparator `(sort > coll)` makes from the core `>` or `<` when both items are
 * numbers: what calling it gives ((f a b) true: -1, else (f b a) true: 1, else 0),
 * without the two calls. Those functions charge no fuel; other items still go through
 * `general`, where they fail as before.
 */
export function numberComparator(
  cmp: Value,
  general: (a: Value, b: Value) => number,
): ((a: Value, b: Value) => number) | undefined {
  if (!fastPaths.on) return undefined;
  if (isCore(cmp, '>'))
    return (a, b) => (typeof a === 'number' && typeof b === 'number' ? (a > b ? -1 : b > a ? 1 : 0) : general(a, b));
  if (isCore(cmp, '<'))
    return (a, b) => (typeof a === 'number' && typeof b === 'number' ? (a < b ? -1 : b < a ? 1 : 0) : general(a, b));
  return undefined;
}

/**
 * `(reduce conj v coll)`: one transient vector instead of a copy per item. `conj`
 * charges no fuel and checks the size of each vector it makes, so this does too.
 */
export function conjEach(fn: string, v: Vector, coll: Value, rt: Runtime): Vector {
  const max = rt.maxCollectionSize;
  if (v.size === 0) {
    // from empty: an array, then one vector built from it (cheaper than a push per item)
    const xs: Value[] = [];
    eachItem(fn, coll, rt, (x) => {
      xs.push(x);
      if (xs.length > max) rt.checkSize(xs.length);
    });
    return vectorOfArray(xs);
  }
  const out = v.asMutable();
  eachItem(fn, coll, rt, (x) => {
    out.push(x);
    if (out.size > max) rt.checkSize(out.size);
  });
  return out.asImmutable();
}

/** `reduce` (init undefined: the first item is the start) over {@link eachItem}. */
export function reduceEach(fn: string, f: Value, init: Value | undefined, coll: Value, rt: Runtime): Value {
  if (init !== undefined && (isMap(init) || isVector(init)) && fastPaths.on && rt.updatesInPlace(f))
    return reduceInPlace(fn, f, init, coll, rt);
  const r = fold(fn, f, init, coll, rt);
  return r === NO_ITEMS ? rt.apply(f, []) : r;
}

const NO_ITEMS = Symbol('no items');

/** `(f acc x)` over the items from `start` (or from the first item), stopping at a `reduced`. */
function fold(fn: string, f: Value, start: Value | undefined, coll: Value, rt: Runtime): Value | typeof NO_ITEMS {
  if (isPList(coll) && coll.array !== undefined) return foldArray(f, start, coll.array, rt);
  let acc: Value | typeof NO_ITEMS = start === undefined ? NO_ITEMS : start;
  eachItem(fn, coll, rt, (x) => {
    if (acc === NO_ITEMS) {
      acc = x;
      return false;
    }
    const r = rt.apply2(f, acc, x);
    if (!isReduced(r)) {
      acc = r;
      return false;
    }
    acc = r.value;
    return true;
  });
  return acc;
}

/**
 * {@link fold} over an array-backed list (`range`, `map`, `filter` results) in one loop:
 * the same units and calls in the same order as {@link eachItem}'s walk, without a
 * visitor call per item.
 */
function foldArray(f: Value, start: Value | undefined, xs: readonly Value[], rt: Runtime): Value | typeof NO_ITEMS {
  let i = 0;
  let acc: Value;
  if (start !== undefined) acc = start;
  else {
    if (xs.length === 0) return NO_ITEMS;
    rt.tick(1);
    acc = xs[0]!;
    i = 1;
  }
  for (; i < xs.length; i++) {
    // now and then (once the fn has been called enough to be compiled) the runtime may
    // take the items from here at once, with the same units and calls (Runtime.foldNumbers)
    if ((i & 255) === 0 && i !== 0 && rt.foldNumbers !== undefined) {
      const took = rt.foldNumbers(f, acc, xs, i);
      if (took !== undefined) {
        acc = took[0];
        i = took[1];
        if (i >= xs.length) break;
      }
    }
    rt.tick(1);
    const r = rt.apply2(f, acc, xs[i]!);
    if (isReduced(r)) return r.value;
    acc = r;
  }
  return acc;
}

/**
 * `reduce` of a fn that only `assoc`s, `update`s, `conj`es ... its accumulator
 * (eval/closures/in-place-accumulator.ts): one transient map or vector updated in place instead of
 * a new one per item. The fn returns the transient itself (or a new collection), so
 * nothing but this loop ever holds it. It is frozen when the loop ends, normally or not;
 * the frozen value is what is returned (a frozen empty vector is another object).
 */
function reduceInPlace(fn: string, f: Value, init: PMap | Vector, coll: Value, rt: Runtime): Value {
  const transient: PMap | Vector = init.asMutable();
  let acc: Value;
  let frozen: Value;
  try {
    acc = fold(fn, f, transient, coll, rt) as Value;
  } finally {
    frozen = transient.asImmutable();
  }
  return acc === transient ? frozen : acc;
}
