/**
 * Generating (range, repeat, iterate, cycle) and searching (some, every?, find).
 */
import { List } from 'immutable';
import { alternateKey } from '../lookup.ts';
import { type PMap, type Runtime, type Value, LazySeq, PList, isFn, isMap, isVector, truthy } from '../values.ts';
import { expectCallable, expectCount, expectNumber, seqItems } from './args.ts';
import { type CoreTable, defn } from './registry.ts';
import { END, itemsArray, lastArg, listOf } from './seq-common.ts';

// ---------------------------------------------------------------- generating

function rangeOf(args: Value[], rt: Runtime): PList | LazySeq {
  if (args.length === 0) return new LazySeq((i) => i);
  const [start, end, step] =
    args.length === 1
      ? [0, expectNumber('range', args[0]!), 1]
      : [
          expectNumber('range', args[0]!),
          expectNumber('range', args[1]!),
          args.length > 2 ? expectNumber('range', args[2]!) : 1,
        ];
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
  const out = integerRange(start, step, estimate, more) ?? [];
  if (out.length === 0) for (let x = start; more(x); x += step) out.push(x);
  rt.tick(out.length);
  return listOf(out);
}

/**
 * The items of an integer range whose every item is below 2^53 (exact), written into an
 * array made at its length (about three times faster than pushing 100,000 items), or
 * undefined for another range. The count is `estimate` corrected with `more`, the range's
 * own end test (`start + k * step` is exact here), so it is what the adding loop finds;
 * the items are made by the same adding.
 */
function integerRange(
  start: number,
  step: number,
  estimate: number,
  more: (x: number) => boolean,
): number[] | undefined {
  if (
    !Number.isInteger(start) ||
    !Number.isInteger(step) ||
    Math.abs(start) + (Math.max(0, estimate) + 1) * Math.abs(step) >= 2 ** 53
  )
    return undefined;
  let n = Math.max(0, estimate);
  while (n > 0 && !more(start + (n - 1) * step)) n--;
  while (more(start + n * step)) n++;
  const out = new Array<number>(n);
  let x = start;
  for (let i = 0; i < n; i++, x += step) out[i] = x;
  return out;
}

/** `n` copies of a value from `make(i)`: eager when small, lazy past the size limit. */
function repeatN(fn: string, n: number, make: (i: number) => Value, rt: Runtime): PList | LazySeq {
  if (n > rt.maxCollectionSize) return new LazySeq((i) => (i < n ? make(i) : END));
  const out: Value[] = [];
  for (let i = 0; i < n; i++) out.push(make(i));
  rt.tick(out.length);
  return listOf(out);
}

// ---------------------------------------------------------------- misc helpers

function someOf(fn: string, pred: Value, coll: Value, rt: Runtime): Value {
  expectCallable(fn, pred);
  for (const x of seqItems(fn, coll, rt)) {
    const r = rt.apply1(pred, x);
    if (truthy(r)) return r;
  }
  return null;
}

function everyOf(fn: string, pred: Value, coll: Value, rt: Runtime): boolean {
  expectCallable(fn, pred);
  for (const x of seqItems(fn, coll, rt)) if (!truthy(rt.apply1(pred, x))) return false;
  return true;
}

export const generateFns: CoreTable = {
  // ;; generating
  range: defn(
    [0, 3],
    (args, rt) => rangeOf(args, rt),
    '(range), (range end), (range start end), (range start end step)',
  ),
  repeat: defn(
    [1, 2],
    (args, rt) =>
      args.length === 1
        ? new LazySeq(() => args[0]!)
        : repeatN('repeat', expectCount('repeat', args[0]!), () => args[1]!, rt),
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
  'every?': defn(
    [2, 2],
    ([p, c], rt) => everyOf('every?', p!, c!, rt),
    '(every? pred coll) true if pred is truthy for all items',
  ),
  'not-every?': defn([2, 2], ([p, c], rt) => !everyOf('not-every?', p!, c!, rt), '(not-every? pred coll)'),
  'not-any?': defn(
    [2, 2],
    ([p, c], rt) => someOf('not-any?', p!, c!, rt) === null,
    '(not-any? pred coll) true if pred is falsy for all items',
  ),
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
