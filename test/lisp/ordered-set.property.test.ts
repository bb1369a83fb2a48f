/**
 * The persistent set (src/lisp/collections/ordered-set.ts) against a reference model: a
 * JS array of members in insertion order, compared with the language's `=` (NaN one
 * member). Random add/delete sequences, persistent and in `withMutations` batches, over
 * members chosen to hit the awkward cases: hash collisions, integers sharing trie
 * fragments, values equal without being identical (a vector and a list, sets and maps
 * built in different orders). Then the set operations of the language on such members.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashKey } from '../../src/lisp/collections/key-hash.ts';
import { run } from '../../src/lisp/index.ts';
import { prStr } from '../../src/lisp/printer/index.ts';
import { PSet, type Value, equals, kw, list, map, set, vec } from '../../src/lisp/values.ts';

const same = (a: Value, b: Value): boolean => equals(a, b) || (Number.isNaN(a) && Number.isNaN(b));

const pool: Value[] = [
  'Aa',
  'BB',
  'AaAa',
  'AaBB',
  'BBAa', // "Aa" and "BB" hash alike
  0,
  1,
  2,
  31,
  32,
  33,
  1024,
  1056,
  -1,
  1.5,
  NaN,
  'a',
  '',
  kw('a'),
  kw('x/a'),
  null,
  true,
  false,
  vec([1, 2]),
  list([1, 2]),
  set([1, 2]),
  set([2, 1]),
  set([vec([1]), list([2])]),
  map([
    [kw('a'), 1],
    [kw('b'), 2],
  ]),
  map([
    [kw('b'), 2],
    [kw('a'), 1],
  ]),
  ...Array.from({ length: 12 }, (_, i) => `k${i}`),
];

type Op = { kind: 'add' | 'delete'; i: number } | { kind: 'batch'; ops: Op[] };
const simpleOp: fc.Arbitrary<Op> = fc.record({
  kind: fc.constantFrom('add' as const, 'add' as const, 'delete' as const),
  i: fc.nat(pool.length - 1),
});
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: simpleOp },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('batch' as const), ops: fc.array(simpleOp, { maxLength: 20 }) }),
  },
);

function applyModel(model: Value[], o: Op): Value[] {
  if (o.kind === 'batch') return o.ops.reduce(applyModel, model);
  const x = pool[o.i]!;
  if (o.kind === 'add') return model.some((m) => same(m, x)) ? model : [...model, x];
  return model.filter((m) => !same(m, x));
}

function applySet(s: PSet, o: Op): PSet {
  if (o.kind === 'batch') {
    return s.withMutations((t) => {
      for (const inner of o.ops) applySet(t, inner);
    });
  }
  return o.kind === 'add' ? s.add(pool[o.i]!) : s.delete(pool[o.i]!);
}

describe('PSet against a model', () => {
  it('has the model members, in order, after any add/delete sequence; older versions unchanged', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        let s = PSet.EMPTY;
        let model: Value[] = [];
        const versions: [PSet, Value[]][] = [];
        for (const o of ops) {
          s = applySet(s, o);
          model = applyModel(model, o);
          versions.push([s, model]);
        }
        for (const [v, m] of versions) {
          expect(v.size).toBe(m.length);
          const items = [...v];
          expect(items.length).toBe(m.length);
          items.forEach((x, i) => expect(same(x, m[i]!)).toBe(true));
          for (const x of pool) expect(v.has(x)).toBe(m.some((y) => same(y, x)));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('equal sets built in different orders are equal and hash alike', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat(pool.length - 1), { maxLength: 30 }), fc.nat(), (idx, seed) => {
        const members = idx.map((i) => pool[i]!);
        const shuffled = members.slice().sort((a, b) => ((hashKey(a) ^ seed) & 7) - ((hashKey(b) ^ seed) & 7));
        const a = PSet.from(members);
        const b = PSet.from(shuffled);
        expect(a.equals(b)).toBe(true);
        expect(equals(a, b)).toBe(true);
        expect(hashKey(a)).toBe(hashKey(b));
        // as members of a set, the two are one
        expect(PSet.from([a, b]).size).toBe(1);
      }),
      { numRuns: 200 },
    );
  });
});

describe('set functions compare members with =', () => {
  it.each([
    ['(count (set [#{1 2} #{2 1}]))', '1'],
    ['(count (set [(list 1 2) [1 2]]))', '1'],
    ["(contains? #{[1 2]} '(1 2))", 'true'],
    ["(get #{[1 2]} '(1 2))", '[1 2]'],
    ["(#{[1 2]} '(1 2))", '[1 2]'],
    ["(disj #{[1 2] 3} '(1 2))", '#{3}'],
    ["(conj #{[1 2]} '(1 2))", '#{[1 2]}'],
    ["(distinct [[1 2] '(1 2) #{1 2} #{2 1}])", '([1 2] #{1 2})'],
    ["(distinct? [1 2] '(1 2))", 'false'],
    ["(set/union #{[1]} #{'(1) 2})", '#{[1] 2}'],
    ["(set/intersection #{[1] 2} #{'(1)})", '#{[1]}'],
    ["(set/difference #{[1] 2} #{'(1)})", '#{2}'],
    ['(frequencies [#{1 2} #{2 1}])', '{#{1 2} 2}'],
    ['(into #{} (range 40))', `#{${Array.from({ length: 40 }, (_, i) => i).join(' ')}}`],
  ])('%s is %s', async (src, expected) => {
    const r = await run(src);
    expect(r.status === 'ok' ? prStr(r.value) : r).toBe(expected);
  });
});
