/**
 * Sequence access and slicing: first, rest, nth, count, take, drop, ...
 */
import { List } from 'immutable';
import { typeError } from '../errors.ts';
import { type Runtime, type Value, LazySeq, PList, isLazySeq, isPList, isVector, truthy } from '../values.ts';
import {
  argError,
  expectCallable,
  expectCount,
  expectInteger,
  expectNumber,
  expectPositiveInt,
  expectVector,
  indexOutOfBounds,
  seqItems,
} from './args.ts';
import { type CoreTable, defn, fixedArity } from './registry.ts';
import { fastPaths } from './fast-paths.ts';
import { END, countOf, dropLazy, isEmptyColl, itemsArray, lazyNth, listOf, seqResult } from './seq-common.ts';

// ---------------------------------------------------------------- access

function firstOf(fn: string, v: Value, rt: Runtime): Value {
  if (v === null) return null;
  if (isVector(v)) return v.size > 0 ? (v.get(0) as Value) : null;
  if (isPList(v)) return v.size > 0 ? v.get(0)! : null;
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
export function seqOf(fn: string, v: Value, rt: Runtime): PList | LazySeq | null {
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
    return i >= 0 && i < coll.size ? (coll.get(i) as Value) : missing(coll.size);
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
  if (isPList(v)) return v.size > 0 ? v.get(v.size - 1)! : null;
  let last: Value = null;
  for (const x of seqItems(fn, v, rt)) last = x;
  return last;
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
  // an array-backed list: a copy of the slice costs less than building the List
  if (isPList(coll))
    return coll.array !== undefined && fastPaths.on ? listOf(coll.array.slice(0, n)) : new PList(coll.items.take(n));
  return listOf(itemsArray(fn, coll, rt).slice(0, n));
}

function dropOf(fn: string, nv: Value, coll: Value, rt: Runtime): PList | LazySeq {
  const n = expectCount(fn, nv);
  if (isLazySeq(coll)) return n === 0 ? coll : dropLazy(fn, coll, n, rt);
  if (isVector(coll)) return new PList(coll.skip(n).toList());
  if (isPList(coll))
    return coll.array !== undefined && fastPaths.on
      ? listOf(coll.array.slice(n))
      : new PList(coll.items.skip(n).toList());
  return listOf(itemsArray(fn, coll, rt).slice(n));
}

function takeWhile(fn: string, pred: Value, coll: Value, rt: Runtime): PList | LazySeq {
  expectCallable(fn, pred);
  const it = seqItems(fn, coll, rt);
  return seqResult(fn, rt, isLazySeq(coll), function* () {
    for (const x of it) {
      if (!truthy(rt.apply1(pred, x))) return;
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
      if (dropping && truthy(rt.apply1(pred, x))) continue;
      dropping = false;
      yield x;
    }
  });
}

export const accessFns: CoreTable = {
  // ;; access
  first: fixedArity([1, 1], { call1: (c, rt) => firstOf('first', c, rt) }, 'first item, or nil'),
  second: defn([1, 1], ([c], rt) => firstOf('second', nextOf('second', c!, rt), rt), 'second item, or nil'),
  last: defn([1, 1], ([c], rt) => lastOf('last', c!, rt), 'last item, or nil'),
  ffirst: defn([1, 1], ([c], rt) => firstOf('ffirst', firstOf('ffirst', c!, rt), rt), '(first (first coll))'),
  fnext: defn([1, 1], ([c], rt) => firstOf('fnext', nextOf('fnext', c!, rt), rt), '(first (next coll))'),
  nfirst: defn([1, 1], ([c], rt) => nextOf('nfirst', firstOf('nfirst', c!, rt), rt), '(next (first coll))'),
  nnext: defn([1, 1], ([c], rt) => nextOf('nnext', nextOf('nnext', c!, rt), rt), '(next (next coll))'),
  rest: defn([1, 1], ([c], rt) => restOf('rest', c!, rt), 'items after the first; () when none'),
  next: defn([1, 1], ([c], rt) => nextOf('next', c!, rt), 'items after the first; nil when none'),
  nth: fixedArity(
    [2, 3],
    { call2: (c, i, rt) => nthOf('nth', c, i, rt), call3: (c, i, d, rt) => nthOf('nth', c, i, rt, d) },
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
  count: fixedArity(
    [1, 1],
    { call1: (c, rt) => countOf('count', c, rt) },
    'number of items (nil is 0; strings count characters)',
  ),
  'empty?': fixedArity(
    [1, 1],
    { call1: (c) => isEmptyColl('empty?', c) },
    'true if the collection has no items (nil is empty)',
  ),
  'not-empty': defn([1, 1], ([c]) => (isEmptyColl('not-empty', c!) ? null : c!), 'the collection, or nil when empty'),
  seq: defn([1, 1], ([c], rt) => seqOf('seq', c!, rt), 'a seq of the items, or nil when empty'),
  peek: defn(
    [1, 1],
    ([c]) => {
      if (c === null) return null;
      if (isVector(c)) return c.size > 0 ? (c.last() as Value) : null;
      if (isPList(c)) return c.size > 0 ? c.get(0)! : null;
      throw argError('peek', 'vector or list', c!);
    },
    'last of a vector, first of a list',
  ),
  pop: defn(
    [1, 1],
    ([c]) => {
      if (c === null) return null;
      if ((isVector(c) || isPList(c)) && c.size === 0)
        throw typeError(`pop: can't pop an empty ${isVector(c) ? 'vector' : 'list'}`);
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
  'take-while': defn(
    [2, 2],
    ([p, c], rt) => takeWhile('take-while', p!, c!, rt),
    '(take-while pred coll) items while pred is truthy',
  ),
  'drop-while': defn(
    [2, 2],
    ([p, c], rt) => dropWhile('drop-while', p!, c!, rt),
    '(drop-while pred coll) items from the first where pred is falsy',
  ),
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
};
