/**
 * Shared argument checks for builtins. Every check raises a `type_error` that names the
 * function and what it expected: `inc: expected number, got string`. Builtins never
 * format these messages themselves.
 */
import { PtcError, limitExceeded } from '../errors.ts';
import { fastPaths } from './fast-paths.ts';
import {
  type FnValue,
  type PMap,
  type PSet,
  type Runtime,
  type Value,
  type Vector,
  isFn,
  LazySeq,
  isKeyword,
  isLazySeq,
  isMap,
  isPList,
  isSet,
  isVector,
  seqable,
  typeName,
} from '../values.ts';

export function argError(fn: string, expected: string, got: Value, hint?: string): PtcError {
  return new PtcError('type_error', `${fn}: expected ${expected}, got ${typeName(got)}`, undefined, hint);
}

export function expectNumber(fn: string, v: Value): number {
  if (typeof v === 'number') return v;
  throw argError(fn, 'number', v);
}

export function expectInteger(fn: string, v: Value): number {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  throw argError(fn, 'integer', v);
}

export function expectString(fn: string, v: Value): string {
  if (typeof v === 'string') return v;
  throw argError(fn, 'string', v);
}

export function expectMap(fn: string, v: Value): PMap {
  if (isMap(v)) return v;
  throw argError(fn, 'map', v);
}

export function expectSet(fn: string, v: Value): PSet {
  if (isSet(v)) return v;
  throw argError(fn, 'set', v);
}

export function expectVector(fn: string, v: Value): Vector {
  if (isVector(v)) return v;
  throw argError(fn, 'vector', v);
}

/** Anything callable: functions, keywords, maps and sets. */
export function expectCallable(fn: string, v: Value): FnValue | Value {
  if (isFn(v) || isKeyword(v) || isMap(v) || isSet(v)) return v;
  throw argError(fn, 'function', v);
}

/** An iterable over a seqable value (nil is empty). Lazy seqs stay lazy. */
export function expectSeqable(fn: string, v: Value): Iterable<Value> {
  const it = seqable(v);
  if (it) return it;
  throw argError(fn, 'collection', v);
}

/**
 * All items of a seqable value as an array. Lazy seqs are realised up to the
 * collection-size limit, past which this is a `limit_exceeded` error.
 */
export function toArray(fn: string, v: Value, rt: Runtime): Value[] {
  if (isLazySeq(v)) {
    return v.realize(rt.maxCollectionSize, () => {
      throw limitExceeded(
        'collection_size',
        `${fn}: sequence has more than ${rt.maxCollectionSize} items (is it infinite?)`,
      );
    });
  }
  return Array.from(expectSeqable(fn, v));
}

/** The `limit_exceeded` error for a sequence longer than the collection-size limit. */
export function tooManyItems(fn: string, rt: Runtime): never {
  throw limitExceeded(
    'collection_size',
    `${fn}: sequence has more than ${rt.maxCollectionSize} items (is it infinite?)`,
  );
}

/**
 * Items of a seqable value one by one (nil is empty). A lazy seq is walked on demand,
 * so consumers that stop early (`first`, `some`, `take-while`) never realise the rest;
 * walking past the collection-size limit is a `limit_exceeded` error. Charges one unit
 * of fuel per lazy item produced.
 */
export function seqItems(fn: string, v: Value, rt: Runtime): Iterable<Value> {
  if (fastPaths.on) {
    if (isVector(v)) return chargedIndexed(v.size, (i) => v.get(i) as Value, rt);
    const xs = isPList(v) ? v.array : undefined;
    if (xs !== undefined) return chargedIndexed(xs.length, (i) => xs[i]!, rt);
  }
  if (!isLazySeq(v)) return charged(expectSeqable(fn, v), rt);
  return {
    *[Symbol.iterator]() {
      for (let i = 0; ; i++) {
        if (i >= rt.maxCollectionSize) tooManyItems(fn, rt);
        rt.tick(1);
        const x = v.nth(i);
        if (x === LazySeq.END) return;
        yield x;
      }
    },
  };
}

/**
 * Items of an eager collection, one unit of fuel per item visited: a walk over a huge
 * (for example deeply shared) structure runs out of fuel instead of running for ever.
 */
function charged(items: Iterable<Value>, rt: Runtime): Iterable<Value> {
  return {
    [Symbol.iterator]() {
      const it = items[Symbol.iterator]();
      return {
        next() {
          const r = it.next();
          if (!r.done) rt.tick(1);
          return r;
        },
        [Symbol.iterator]() {
          return this;
        },
      };
    },
  };
}

/**
 * {@link charged} over items read by index (vectors, array-backed lists), without an
 * inner iterator: an Immutable `List` iterator costs several times a `get` per item.
 */
function chargedIndexed(n: number, at: (i: number) => Value, rt: Runtime): Iterable<Value> {
  return {
    [Symbol.iterator]() {
      let i = 0;
      return {
        next(): IteratorResult<Value> {
          if (i >= n) return { value: undefined, done: true };
          rt.tick(1);
          return { value: at(i++), done: false };
        },
        [Symbol.iterator]() {
          return this;
        },
      };
    },
  };
}

/** A non-negative integer count (`take`, `partition`): negatives mean 0, like Clojure. */
export function expectCount(fn: string, v: Value): number {
  if (typeof v === 'number' && !Number.isNaN(v)) return Math.max(0, v);
  throw argError(fn, 'number', v);
}

/** The `arithmetic_error` of a builtin: `quot: divide by zero`. */
export function arithmeticError(fn: string, message: string): PtcError {
  return new PtcError('arithmetic_error', `${fn}: ${message}`);
}

/** A positive integer size (`partition`, `take-nth`): `partition: expected positive integer, got 0`. */
export function expectPositiveInt(fn: string, v: Value): number {
  if (typeof v === 'number' && Number.isInteger(v) && v > 0) return v;
  throw new PtcError(
    'type_error',
    `${fn}: expected positive integer, got ${typeof v === 'number' ? String(v) : typeName(v)}`,
  );
}

/** Two values `compare` cannot order: `sort: cannot compare number with string`. */
export function incomparable(fn: string, a: Value, b: Value): PtcError {
  return new PtcError('type_error', `${fn}: cannot compare ${typeName(a)} with ${typeName(b)}`);
}

/** An index outside a collection: `nth: index 5 out of bounds for size 2`. */
export function indexOutOfBounds(fn: string, index: number, size: number, hint?: string): PtcError {
  return new PtcError('index_out_of_bounds', `${fn}: index ${index} out of bounds for size ${size}`, undefined, hint);
}

/** Key/value arguments that do not pair up: `assoc: expected key/value pairs, got 3 arguments after the map`. */
export function oddPairs(fn: string, count: number): PtcError {
  return new PtcError(
    'arity_error',
    `${fn}: expected key/value pairs, got ${count} argument${count === 1 ? '' : 's'} after the map`,
  );
}
