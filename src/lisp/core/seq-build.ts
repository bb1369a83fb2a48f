/**
 * Building collections: conj, into, cons, vec, list, concat, transduce, ...
 */
import { List } from 'immutable';
import {
  PMap,
  PSet,
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
import { argError, expectCallable, seqItems } from './args.ts';
import { type CoreTable, VARIADIC, defn } from './registry.ts';
import { composeTransducers } from './transducers.ts';
import { seqOf } from './seq-access.ts';
import { anyLazy, countOf, eagerVector, itemsArray, lastArg, listOf, seqResult, transduced } from './seq-common.ts';
import { concatSeq, reduceOf } from './seq-transform.ts';

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
    out =
      Array.isArray(xs) && xs.length === 1
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

export const buildFns: CoreTable = {
  // ;; building
  concat: defn(
    [0, VARIADIC],
    (cs, rt) => seqResult('concat', rt, anyLazy(cs), () => concatSeq('concat', cs, rt)),
    '(concat & colls) one seq of all the items',
  ),
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
  conj: {
    ...defn(
      [0, VARIADIC],
      (args, rt) => (args.length === 0 ? List() : conjAll('conj', args[0]!, args.slice(1), rt)),
      '(conj coll x & xs) adds items: at the end of a vector, the front of a list, [k v] to a map, to a set',
    ),
    call1: (c, rt) => conjAll('conj', c, [], rt),
    call2: (c, x, rt) => conjAll('conj', c, [x], rt),
  },
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
  // a copy: the caller may hold on to its argument array
  list: defn([0, VARIADIC], (args) => listOf(args.slice()), '(list & xs) list of the arguments'),
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
      if (isSet(c!)) return PSet.EMPTY;
      if (isPList(c!) || isLazySeq(c!)) return PList.EMPTY;
      return null;
    },
    '(empty coll) an empty collection of the same kind',
  ),
  reverse: defn(
    [1, 1],
    ([c], rt) => listOf(itemsArray('reverse', c!, rt).reverse()),
    '(reverse coll) seq of the items in reverse order',
  ),
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
};
