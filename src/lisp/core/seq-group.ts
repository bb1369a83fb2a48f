/**
 * Grouping and partitioning: frequencies, group-by, partition, interleave, flatten, zip, ...
 */
import { List } from 'immutable';
import {
  PMap,
  type Runtime,
  type Value,
  type Vector,
  Builtin,
  PList,
  equals,
  isLazySeq,
  isSequential,
} from '../values.ts';
import { expectCallable, expectCount, expectPositiveInt, seqItems } from './args.ts';
import { type CoreTable, VARIADIC, defn } from './registry.ts';
import { allLazy, eagerList, itemsArray, lastArg, listOf, nextOfEach, seqResult } from './seq-common.ts';
import { keyFnOf } from './seq-order.ts';
import { mapSeq } from './seq-transform.ts';

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
    const k = rt.apply1(f, x);
    if (group.length > 0 && !equals(k, key)) {
      yield listOf(group);
      group = [];
    }
    key = k;
    group.push(x);
  }
  if (group.length > 0) yield listOf(group);
}

function* interleaveSeq(fn: string, colls: Value[], rt: Runtime): Iterator<Value> {
  const its = colls.map((c) => seqItems(fn, c, rt)[Symbol.iterator]());
  if (its.length === 0) return;
  for (let xs = nextOfEach(its); xs !== null; xs = nextOfEach(its)) yield* xs;
}

function* flattenSeq(fn: string, v: Value, rt: Runtime): Generator<Value> {
  for (const x of seqItems(fn, v, rt)) {
    if (isSequential(x)) yield* flattenSeq(fn, x, rt);
    else yield x;
  }
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

/** `vector` as a function value, used by `zip`. */
const vectorFn = new Builtin('vector', (args) => List(args));

export const groupFns: CoreTable = {
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
      return seqResult('partition-all', rt, isLazySeq(c), () =>
        partitionSeq('partition-all', n, step, undefined, true, c, rt),
      );
    },
    '(partition-all n coll) groups of n; the last may be shorter',
  ),
  'partition-by': defn(
    [2, 2],
    ([f, c], rt) => (
      expectCallable('partition-by', f!),
      seqResult('partition-by', rt, isLazySeq(c!), () => partitionBySeq('partition-by', f!, c!, rt))
    ),
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
    ([c], rt) =>
      isSequential(c!)
        ? eagerList('flatten', rt, { [Symbol.iterator]: () => flattenSeq('flatten', c!, rt) })
        : PList.EMPTY,
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
      return eagerList('combinations', rt, {
        [Symbol.iterator]: () => combinationsSeq(xs, expectCount('combinations', n!)),
      });
    },
    '(combinations coll n) seq of all n-item vectors chosen from coll, in order',
  ),
};
