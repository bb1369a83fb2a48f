/**
 * Shared by the sequence modules: building results (eager lists bounded by the size
 * limit, lazy seqs), bounded access to lazy seqs, and running a transducer.
 */
import { List } from 'immutable';
import { vectorOfArray, vectorToArray } from '../vector-of-array.ts';
import {
  type Runtime,
  type Value,
  type Vector,
  LazySeq,
  PList,
  isLazySeq,
  isMap,
  isPList,
  isSet,
  isVector,
} from '../values.ts';
import { argError, seqItems, tooManyItems } from './args.ts';
import { type CoreTable } from './registry.ts';
import { expectTransducer, runSteps } from './transducers.ts';

export const END: typeof LazySeq.END = LazySeq.END;

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
  return PList.fromArray(out);
}

/** Lazy when `lazy` (an input was lazy), otherwise an eager list. */
export function seqResult(fn: string, rt: Runtime, lazy: boolean, gen: () => Iterator<Value>): PList | LazySeq {
  if (lazy) return lazyFrom(gen());
  return eagerList(fn, rt, { [Symbol.iterator]: gen });
}

/** An eager vector of every item, bounded by the collection-size limit. */
export function eagerVector(fn: string, rt: Runtime, items: Iterable<Value>): Vector {
  const xs = eagerList(fn, rt, items).array;
  return xs === undefined ? List() : vectorOfArray(xs.slice());
}

/** All items as an array (lazy seqs realised, bounded). */
export function itemsArray(fn: string, v: Value, rt: Runtime): Value[] {
  if (isVector(v)) return vectorToArray(v);
  // a copy: callers may sort or reverse it in place
  if (isPList(v)) return v.array?.slice() ?? v.items.toArray();
  return Array.from(seqItems(fn, v, rt));
}

/** A list of the items of `xs`, which the caller must not change afterwards. */
export const listOf = (xs: Value[]): PList => PList.fromArray(xs);

/** Item `i` of a lazy seq with the walk bounded by the size limit. */
export function lazyNth(fn: string, s: LazySeq, i: number, rt: Runtime): Value | typeof END {
  if (i >= rt.maxCollectionSize) tooManyItems(fn, rt);
  rt.tick(1);
  return s.nth(i);
}

/** `(drop n s)` of a lazy seq without realising anything. */
export function dropLazy(fn: string, s: LazySeq, n: number, rt: Runtime): LazySeq {
  return new LazySeq((i) => lazyNth(fn, s, i + n, rt));
}

export function isEmptyColl(fn: string, v: Value): boolean {
  if (v === null) return true;
  if (isVector(v) || isMap(v) || isSet(v)) return v.size === 0;
  if (isPList(v)) return v.size === 0;
  if (isLazySeq(v)) return v.nth(0) === END;
  if (typeof v === 'string') return v.length === 0;
  throw argError(fn, 'collection', v);
}

export function countOf(fn: string, v: Value, rt: Runtime): number {
  if (v === null) return 0;
  if (typeof v === 'string') return v.length;
  if (isVector(v) || isMap(v) || isSet(v)) return v.size;
  if (isPList(v)) return v.size;
  if (isLazySeq(v)) return itemsArray(fn, v, rt).length;
  throw argError(fn, 'collection', v);
}

/** Lazy iff every collection is lazy (a finite input bounds the result). */
export const allLazy = (colls: Value[]): boolean => colls.length > 0 && colls.every(isLazySeq);
export const anyLazy = (colls: Value[]): boolean => colls.some(isLazySeq);

/** Splits `[f? ... coll]` style arguments where the optional middle ones are given. */
/** The next item of each iterator, in order, or null as soon as one of them has ended. */
export function nextOfEach(its: readonly Iterator<Value>[]): Value[] | null {
  const xs: Value[] = [];
  for (const it of its) {
    const r = it.next();
    if (r.done) return null;
    xs.push(r.value);
  }
  return xs;
}

export function lastArg(args: Value[]): Value {
  return args[args.length - 1]!;
}

/**
 * Every sequence function (with the transducer arities), for {@link transduced}. seq.ts
 * fills it once all the tables are built, so the area modules never import seq.ts (no
 * import cycle).
 */
export const stepFns: CoreTable = {};

/** `coll` through the transducer `xf`, by the sequence functions it names. */
export function transduced(fn: string, xf: Value, coll: Value, rt: Runtime): Value {
  return runSteps(expectTransducer(fn, xf), coll, (name, args) => stepFns[name]!.fn(args, rt));
}
