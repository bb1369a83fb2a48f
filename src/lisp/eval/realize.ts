/**
 * Lazy sequences inside a program's result, realised before the run ends. A result like
 * `{:xs (iterate inc 0)}` would otherwise come back "ok" and fail only later, wherever it
 * is printed or made JSON, far from the program; realised here, it fails in the run with
 * `limit_exceeded` and the usual message. The items they produce count against one budget
 * for the whole result (the collection-size limit), so many infinite sequences cost no
 * more than one. Shared structure is walked once (`[v v]` nested 40 deep is 40 vectors).
 */
import { type Value, isLazySeq, isMap, isPList, isSet, isVector } from '../values.ts';

/**
 * Realises every lazy seq nested in `v` (the caller realises `v` itself). Calls
 * `tooMany` once they have produced more than `max` items in all.
 */
export function realizeNested(v: Value, max: number, tooMany: () => never): void {
  const seen = new Set<object>();
  const stack: Value[] = [];
  let budget = max;
  const push = (x: Value): void => {
    if (x !== null && typeof x === 'object' && !seen.has(x)) {
      seen.add(x);
      stack.push(x);
    }
  };
  push(v);
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (isLazySeq(x)) {
      const items = x.realize(budget, tooMany);
      budget -= items.length;
      for (const y of items) push(y);
    } else if (isVector(x)) {
      for (const y of x) push(y);
    } else if (isPList(x)) {
      for (const y of x.array ?? x.items) push(y);
    } else if (isMap(x)) {
      x.forEach((val, key) => {
        push(key);
        push(val);
      });
    } else if (isSet(x)) {
      for (const y of x) push(y);
    }
  }
}
