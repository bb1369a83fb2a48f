/**
 * Namespace persistence, checked with fast-check: what `serializeNamespace` writes,
 * `deserializeNamespace` reads back as the same value, for data (nested lists, lazy
 * seqs, vectors, maps, sets, keywords, also keywords the reader cannot spell) and for
 * closures and built functions capturing such data.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deserializeNamespace, run, serializeNamespace } from '../../src/lisp/index.ts';
import type { Namespace } from '../../src/lisp/api.ts';
import { prStr, valueSource } from '../../src/lisp/printer/index.ts';
import { LazySeq, equals, kw, list, map, set, vec, type Value } from '../../src/lisp/values.ts';

const nameArb = fc.stringMatching(/^[a-zA-Z*+!_?<>=-][a-zA-Z0-9*+!_?<>=.'-]{0,8}$/);
const keywordArb = fc.oneof(
  { weight: 4, arbitrary: nameArb.map((n) => kw(n)) },
  { weight: 1, arbitrary: fc.tuple(nameArb, nameArb).map(([ns, n]) => kw(`${ns}/${n}`)) },
  // made by (keyword "..."): no reader spelling
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }).map((s) => kw(s)) },
);

const stringArb = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.string({ unit: fc.constantFrom('"', '\\', '\n', '\t', 'a', '😀', '(', ' '), maxLength: 6 }),
);

const numberArb = fc.oneof(
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  fc.double({ noNaN: true }),
  fc.constantFrom(0, 1e21, 1e-7, 0.1 + 0.2, Number.MAX_SAFE_INTEGER),
);

const scalarArb: fc.Arbitrary<Value> = fc.oneof(fc.constant(null), fc.boolean(), numberArb, stringArb, keywordArb);

const lazy = (xs: Value[]): LazySeq => new LazySeq((i) => (i < xs.length ? xs[i]! : LazySeq.END));

/**
 * Data values. Lazy seqs compare by identity as set members and map keys (two equal lazy
 * seqs are two members), so they appear only where that cannot matter.
 */
const { value: valueArb } = fc.letrec<{ value: Value; key: Value }>((tie) => {
  const coll = (item: 'value' | 'key') => [
    { weight: 1, arbitrary: fc.array(tie(item), { maxLength: 4 }).map((xs) => vec(xs)) },
    { weight: 2, arbitrary: fc.array(tie(item), { maxLength: 4 }).map((xs) => list(xs)) },
    { weight: 1, arbitrary: fc.array(fc.tuple(tie('key'), tie(item)), { maxLength: 3 }).map((es) => map(es)) },
    { weight: 1, arbitrary: fc.array(tie('key'), { maxLength: 3 }).map((xs) => set(xs)) },
  ];
  return {
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      { weight: 4, arbitrary: scalarArb },
      ...coll('value'),
      { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }).map((xs) => lazy(xs)) },
    ),
    key: fc.oneof({ depthSize: 'small', withCrossShrink: true }, { weight: 4, arbitrary: scalarArb }, ...coll('key')),
  };
});

/** Same value and same printed form (a list stays a list, a vector a vector). */
function expectSame(got: Value | undefined, want: Value): void {
  expect(got).not.toBeUndefined();
  expect(prStr(got!)).toBe(prStr(want));
  expect(equals(got!, want)).toBe(true);
}

async function roundTrip(ns: Namespace): Promise<Namespace> {
  return deserializeNamespace(JSON.parse(JSON.stringify(serializeNamespace(ns))) as Record<string, string>);
}

async function call(src: string, namespace: Namespace): Promise<Value> {
  const r = await run(src, { namespace });
  if (r.status !== 'ok') throw new Error(`${src}: ${r.status === 'error' ? r.error.toLine() : r.status}`);
  return r.value;
}

describe('namespace persistence', () => {
  it('lists, lazy seqs and unreadable keywords are written as source that evaluates to them', () => {
    expect(valueSource(list([1, list([2]), vec([list()])]))).toBe('(list 1 (list 2) [()])');
    expect(valueSource(lazy([1, 2]))).toBe('(list 1 2)');
    expect(valueSource(map([[kw('a b'), set([list([kw('x')])])]]))).toBe('{(keyword "a b") #{(list :x)}}');
    expect(prStr(list([1, 2]))).toBe('(1 2)');
  });

  it('a collection of more than maxItems items is limit_exceeded', () => {
    expect(() => valueSource(vec([1, 2, 3]), { maxItems: 2 })).toThrow(/more than 2 items/);
    expect(() =>
      serializeNamespace(
        new Map([
          [
            'x',
            map([
              [1, 1],
              [2, 2],
              [3, 3],
            ]),
          ],
        ]),
        { maxItems: 2 },
      ),
    ).toThrow(/more than 2 items/);
  });

  it('closures and built functions capturing lists print re-readable source', async () => {
    const r = await run(
      '(def xs (list 1 2)) (def f (let [y (list 1 (list 2))] (fn [] y))) (def g (partial conj (map inc [1 2]))) (def h (where :a = (list 1)))',
    );
    expect(r.status).toBe('ok');
    const rec = serializeNamespace(r.namespace);
    expect(rec).toEqual({
      xs: '(list 1 2)',
      f: '(let [y (list 1 (list 2))] (fn [] y))',
      g: '(partial conj (list 2 3))',
      h: '(where :a = (list 1))',
    });
    const ns = await deserializeNamespace(rec);
    expect(prStr(await call('[xs (f) (g 4) (h {:a [1]}) (list? xs) (list? (f))]', ns))).toBe(
      '[(1 2) (1 (2)) (4 2 3) true true true]',
    );
  });

  it('deserializeNamespace(serializeNamespace({x: v})) gives v back', async () => {
    await fc.assert(
      fc.asyncProperty(valueArb, async (v) => {
        const ns = await roundTrip(new Map([['x', v]]));
        expectSame(ns.get('x'), v);
      }),
      { numRuns: 300 },
    );
  });

  it('a deserialised closure capturing data returns what the original returns', async () => {
    await fc.assert(
      fc.asyncProperty(valueArb, async (v) => {
        const r = await run('(def f (let [y v] (fn [z] [y z]))) (def g (let [y v] (fn [] (let [h (fn [] y)] (h)))))', {
          namespace: new Map([['v', v]]),
        });
        if (r.status !== 'ok') throw new Error(r.status === 'error' ? r.error.toLine() : r.status);
        const fns: Namespace = new Map([...r.namespace].filter(([k]) => k !== 'v'));
        const back = await roundTrip(fns);
        expectSame(await call('[(f :z) (g)]', back), await call('[(f :z) (g)]', fns));
        expectSame(await call('(g)', back), v);
      }),
      { numRuns: 200 },
    );
  });
});
