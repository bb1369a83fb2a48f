/**
 * The persistent map (src/lisp/collections/ordered-map.ts) against a reference model:
 * a JS array of entries in insertion order, keys compared with the language's `=`
 * (NaN being one key, as before). Random assoc/dissoc sequences, persistent and in
 * `withMutations` batches, over keys chosen to hit the awkward cases: hash collisions
 * ("Aa" and "BB" hash alike), integers sharing trie fragments, values equal without
 * being identical (a vector and a list, sets and maps built in different orders).
 */
import fc from 'fast-check';
import { OrderedSet } from 'immutable';
import { describe, expect, it } from 'vitest';
import { hashKey } from '../../src/lisp/collections/key-hash.ts';
import { PMap, type Value, equals, kw, list, map, set, vec } from '../../src/lisp/values.ts';

type Entry = [Value, Value];

const sameKey = (a: Value, b: Value): boolean => equals(a, b) || (Number.isNaN(a) && Number.isNaN(b));

/** The reference model: insertion-ordered entries, linear search. */
class Model {
  constructor(readonly entries: Entry[] = []) {}
  set(k: Value, v: Value): Model {
    const i = this.entries.findIndex(([x]) => sameKey(x, k));
    const next = this.entries.slice();
    if (i >= 0) next[i] = [next[i]![0], v];
    else next.push([k, v]);
    return new Model(next);
  }
  delete(k: Value): Model {
    return new Model(this.entries.filter(([x]) => !sameKey(x, k)));
  }
}

// "Aa" and "BB" have the same string hash, so do all their concatenations
const colliding = ['Aa', 'BB', 'AaAa', 'AaBB', 'BBAa', 'BBBB'];
const keyPool: Value[] = [
  ...colliding,
  0,
  1,
  2,
  31,
  32,
  33,
  1024,
  1056,
  32768,
  -1,
  1.5,
  NaN,
  -0,
  'a',
  'b',
  '',
  kw('a'),
  kw('b'),
  kw('x/a'),
  null,
  true,
  false,
  vec([1, 2]),
  list([1, 2]),
  vec([vec([1]), 2]),
  set([1, 2]),
  set([2, 1]),
  map([
    [kw('a'), 1],
    [kw('b'), 2],
  ]),
  map([
    [kw('b'), 2],
    [kw('a'), 1],
  ]),
  ...Array.from({ length: 20 }, (_, i) => `k${i}`),
];

type Op = { kind: 'set'; k: number; v: number } | { kind: 'delete'; k: number } | { kind: 'batch'; ops: Op[] };

const simpleOp: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('set' as const),
      k: fc.nat(keyPool.length - 1),
      v: fc.integer({ min: 0, max: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), k: fc.nat(keyPool.length - 1) }) },
);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: simpleOp },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('batch' as const), ops: fc.array(simpleOp, { maxLength: 20 }) }),
  },
);

function applyOp(m: PMap, model: Model, o: Op): [PMap, Model] {
  if (o.kind === 'set') return [m.set(keyPool[o.k]!, o.v), model.set(keyPool[o.k]!, o.v)];
  if (o.kind === 'delete') return [m.delete(keyPool[o.k]!), model.delete(keyPool[o.k]!)];
  let mm = model;
  const out = m.withMutations((t) => {
    for (const inner of o.ops) [, mm] = applyOp(t, mm, inner);
  });
  return [out, mm];
}

/** The first difference between the map and the model, or null (plain checks: `expect` per lookup is slow). */
function difference(m: PMap, model: Model): string | null {
  if (m.size !== model.entries.length) return `size ${m.size}, model ${model.entries.length}`;
  const got = Array.from(m);
  if (got.length !== model.entries.length) return `${got.length} entries, model ${model.entries.length}`;
  for (let i = 0; i < got.length; i++) {
    const [k, v] = got[i]!;
    // the key object first stored stays (Clojure), even when an equal one replaces the value
    if (!Object.is(k, model.entries[i]![0]) || v !== model.entries[i]![1]) return `entry ${i}`;
  }
  for (const k of keyPool) {
    const entry = model.entries.find(([x]) => sameKey(x, k));
    if (m.has(k) !== (entry !== undefined)) return `has ${String(k)}`;
    if (m.get(k) !== (entry === undefined ? undefined : entry[1])) return `get ${String(k)}`;
  }
  return null;
}

function expectSame(m: PMap, model: Model): void {
  expect(difference(m, model)).toBe(null);
}

describe('PMap against an insertion-ordered model', () => {
  it('assoc / dissoc / batches give the model’s entries, order and lookups; old versions are unchanged', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 50 }), (ops) => {
        let m = PMap.EMPTY;
        let model = new Model();
        const history: [PMap, Model][] = [];
        for (const o of ops) {
          [m, model] = applyOp(m, model, o);
          expectSame(m, model);
          history.push([m, model]);
        }
        for (const [old, oldModel] of history) expectSame(old, oldModel);
      }),
      { numRuns: 120 },
    );
  });

  it('large maps: integer keys through several trie levels, with removals and re-additions', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.nat(3000)), { minLength: 100, maxLength: 1500 }), (ops) => {
        let m = PMap.EMPTY;
        const model = new Map<number, number>();
        ops.forEach(([add, k], i) => {
          if (add || !model.has(k)) {
            m = m.set(k, i);
            model.set(k, i);
          } else {
            m = m.delete(k);
            model.delete(k);
          }
        });
        expect(Array.from(m)).toEqual(Array.from(model));
        for (const k of model.keys()) expect(m.get(k)).toBe(model.get(k));
      }),
      { numRuns: 40 },
    );
  });
});

describe('PMap equality and hashing', () => {
  const entries = fc.uniqueArray(fc.tuple(fc.nat(keyPool.length - 1), fc.integer()), {
    selector: ([k]) => k,
    maxLength: 30,
  });

  it('maps with the same entries in any insertion order are equal and hash equal', () => {
    fc.assert(
      fc.property(entries, fc.infiniteStream(fc.nat()), (es, seeds) => {
        const pairs = dedupe(es.map(([k, v]) => [keyPool[k]!, v] as Entry));
        const shuffled = pairs.slice().sort(() => (seeds.next().value % 3) - 1);
        const a = map(pairs);
        const b = map(shuffled);
        expect(a.equals(b)).toBe(true);
        expect(equals(a, b)).toBe(true);
        expect(a.hashCode()).toBe(b.hashCode());
        expect(hashKey(a)).toBe(hashKey(b));
        // Immutable sets use hashCode/equals: the two are one member
        expect(OrderedSet<Value>([a, b]).size).toBe(1);
        // and either finds the other as a key
        expect(map([[a, 1]]).get(b)).toBe(1);
        if (pairs.length > 0) expect(a.equals(b.set(pairs[0]![0], 'other'))).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it('equal keys hash equal', () => {
    for (const a of keyPool) for (const b of keyPool) if (sameKey(a, b)) expect(hashKey(a)).toBe(hashKey(b));
    expect(hashKey('Aa')).toBe(hashKey('BB'));
  });
});

/** Drops later entries whose key equals an earlier one (the pool has equal keys). */
function dedupe(pairs: Entry[]): Entry[] {
  const out: Entry[] = [];
  for (const p of pairs) if (!out.some(([k]) => sameKey(k, p[0]))) out.push(p);
  return out;
}

describe('hashing shared structure', () => {
  it('a key built by doubling (2^40 paths, 40 distinct parts) hashes in linear time', () => {
    let v: Value = 1;
    for (let i = 0; i < 40; i++) v = vec([v, v]);
    const m = PMap.EMPTY.set(v, 1);
    expect(m.hashCode()).toBe(map([[v, 1]]).hashCode());
    expect(OrderedSet<Value>([m, map([[v, 1]])]).size).toBe(1);
  });
});
