/**
 * Vectors made directly from an array (src/lisp/vector-of-array.ts) are
 * indistinguishable from `List(array)`: checked with fast-check over arrays of every size
 * up to past one leaf, through the operations the core library uses.
 */
import fc from 'fast-check';
import { List, is } from 'immutable';
import { describe, expect, it } from 'vitest';
import { directVectors, vectorOfArray, vectorToArray } from '../../src/lisp/vector-of-array.ts';
import type { Value } from '../../src/lisp/values.ts';
import { prStr } from '../../src/lisp/printer/index.ts';

const item: fc.Arbitrary<Value> = fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), fc.constant(null), fc.boolean());

/** Arrays of every size up to past the second trie level (32 * 32 + a tail). */
const sized = fc
  .oneof(
    fc.integer({ min: 0, max: 70 }),
    fc.integer({ min: 1000, max: 1100 }),
    fc.constantFrom(32, 33, 64, 65, 1024, 1025, 1056, 1057),
  )
  .chain((n) => fc.array(item, { minLength: n, maxLength: n }));

describe('vectors made from an array', () => {
  it('are made directly with this version of Immutable', () => {
    expect(directVectors).toBe(true);
  });

  it('behave as List(array) under every operation the library uses', () => {
    fc.assert(
      fc.property(sized, item, fc.nat(), (items, x, i) => {
        const made = vectorOfArray(items.slice());
        const real = List(items);
        expect(is(made, real)).toBe(true);
        expect(made.hashCode()).toBe(real.hashCode());
        expect(made.size).toBe(real.size);
        expect(made.toArray()).toEqual(real.toArray());
        expect([...made]).toEqual([...real]);
        expect(prStr(made)).toBe(prStr(real));
        expect(is(made.push(x), real.push(x))).toBe(true);
        expect(made.push(x).toArray()).toEqual(real.push(x).toArray());
        const k = items.length === 0 ? 0 : i % items.length;
        expect(made.get(k)).toBe(real.get(k));
        expect(is(made.set(k, x), real.set(k, x))).toBe(true);
        expect(is(made.pop(), real.pop())).toBe(true);
        expect(is(made.slice(1, k + 1), real.slice(1, k + 1))).toBe(true);
        expect(is(made.concat(real), real.concat(made))).toBe(true);
        expect(
          is(
            made.withMutations((m) => m.push(x).set(0, x)),
            real.withMutations((m) => m.push(x).set(0, x)),
          ),
        ).toBe(true);
        // the made vector is persistent: the operations above left it as it was
        expect(made.toArray()).toEqual(items);
      }),
      { numRuns: 200 },
    );
  });

  it('list their items through vectorToArray as toArray does, after any operation', () => {
    fc.assert(
      fc.property(sized, item, fc.nat(), fc.nat(), (items, x, i, j) => {
        const made = vectorOfArray(items.slice());
        const k = items.length === 0 ? 0 : i % items.length;
        const variants = [
          made,
          List(items),
          made.push(x),
          made.pop(),
          made.set(k, x),
          made.slice(k),
          made.slice(0, k),
          made.shift(),
          made.unshift(x),
          made.setSize(j % 40),
          made.concat(made),
          made.withMutations((m) => m.push(x).pop().pop()),
        ];
        for (const v of variants) {
          const arr = vectorToArray(v);
          expect(arr).toEqual(v.toArray());
          // a copy: writing to it leaves the vector alone
          if (arr.length > 0) arr[0] = 'changed';
        }
        expect(made.toArray()).toEqual(items);
      }),
      { numRuns: 300 },
    );
  });
});
