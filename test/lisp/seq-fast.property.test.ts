/**
 * The fast paths of the sequence functions (core/seq-eager.ts, array-backed lists, items
 * read by index in seqItems, comparators of > and <, keyword key functions)
 * against the general paths, checked with fast-check: random programs over random
 * collections of every kind give the same value or error, the same fuel used, and the
 * same outcome when the fuel runs out part way or the collection-size limit is small.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { fastPaths } from '../../src/lisp/core/seq-eager.ts';
import { run } from '../../src/lisp/index.ts';
import { formatNumber, prStr, strOf } from '../../src/lisp/printer/index.ts';
import { type Value, vec } from '../../src/lisp/values.ts';

const item = fc.integer({ min: -5, max: 30 }).map(String);
const items = fc.array(item, { maxLength: 9 }).map((xs) => xs.join(' '));

/** The same items as a vector, list, lazy or realised seq, set, array- or List-backed list. */
const coll: fc.Arbitrary<string> = fc.oneof(
  items.map((xs) => `[${xs}]`),
  items.map((xs) => `'(${xs})`),
  items.map((xs) => `(list ${xs})`),
  items.map((xs) => `(into () [${xs}])`),
  items.map((xs) => `(map identity [${xs}])`),
  items.map((xs) => `(rest (cons 0 [${xs}]))`),
  items.map((xs) => `#{${[...new Set(xs.split(' '))].join(' ')}}`),
  fc.integer({ min: 0, max: 12 }).map((n) => `(range ${n})`),
  fc.integer({ min: 0, max: 12 }).map((n) => `(vec (range ${n}))`),
  fc.integer({ min: 0, max: 12 }).map((n) => `(take ${n} (iterate inc 3))`),
  fc.constantFrom('nil', '{:a 1 :b 2}', '"abc"', '(range)', '(iterate inc 0)'),
);

/** Maps, some without :a, some with a non-number :a, for the keyword and comparator paths. */
const mapItem = fc.oneof(
  fc.tuple(fc.integer({ min: 0, max: 4 }), item).map(([a, b]) => `{:a ${a} :b ${b}}`),
  item.map((x) => `{:b ${x}}`),
  fc.constantFrom('{:a "s"}', '{:a nil}', '{:a 2.5}', '{:a ##NaN}'),
);
const maps = fc.array(mapItem, { maxLength: 8 }).map((ms) => `[${ms.join(' ')}]`);
const cmpOf = fc.constantFrom('>', '<', ':asc', ':desc', 'compare', '#(> %1 %2)', '>=');

const fnOf = fc.constantFrom(
  'inc',
  'str',
  '#(* 2 %)',
  '(fn [x] (if (> x 20) nil x))',
  'odd?',
  ':a',
  '#{1 2 3}',
  'vector',
);
const predOf = fc.constantFrom('odd?', 'even?', '#(> % 3)', '#{1 2 3}', 'nil?', 'some?', ':a');
const reducerOf = fc.constantFrom(
  '+',
  'conj',
  'max',
  'vector',
  '(fn [a x] (if (> a 20) (reduced [:stop a]) (+ a x)))',
  '#(conj %1 (inc %2))',
);
const initOf = fc.constantFrom('[]', '[1 2]', "'()", '#{}', 'nil', '0', '{}');

const program: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fnOf, coll).map(([f, c]) => `(map ${f} ${c})`),
  fc.tuple(fnOf, coll).map(([f, c]) => `(mapv ${f} ${c})`),
  fc.tuple(predOf, coll).map(([p, c]) => `(filter ${p} ${c})`),
  fc.tuple(predOf, coll).map(([p, c]) => `(filterv ${p} ${c})`),
  fc.tuple(predOf, coll).map(([p, c]) => `(remove ${p} ${c})`),
  fc.tuple(reducerOf, coll).map(([f, c]) => `(reduce ${f} ${c})`),
  fc.tuple(reducerOf, initOf, coll).map(([f, i, c]) => `(reduce ${f} ${i} ${c})`),
  fc.tuple(initOf, coll, coll).map(([i, a, b]) => `(reduce conj (reduce conj ${i} ${a}) ${b})`),
  fc
    .tuple(fc.constantFrom('0', '2', '2.5', '-1', '20', '##Inf'), coll)
    .map(([n, c]) => `[(take ${n} ${c}) (drop ${n} ${c}) (take ${n} (map inc ${c})) (drop ${n} (filter odd? ${c}))]`),
  fc.tuple(cmpOf, coll).map(([c, xs]) => `(sort ${c} ${xs})`),
  fc.tuple(cmpOf, maps).map(([c, ms]) => `(sort-by :a ${c} ${ms})`),
  fc.tuple(cmpOf, maps).map(([c, ms]) => `(sort-by #(get % :b 0) ${c} ${ms})`),
  fc.tuple(cmpOf, coll).map(([c, xs]) => `(sort ${c} (map #(if (odd? %) (str %) %) ${xs}))`),
  fc
    .tuple(predOf, coll)
    .map(
      ([p, c]) =>
        `[(frequencies ${c}) (str/join "," ${c}) (some ${p} ${c}) (every? ${p} ${c}) (vec ${c}) (into [] ${c})]`,
    ),
  maps.map((ms) => `[(group-by :a ${ms}) (distinct-by :b ${ms}) (sort-by :b ${ms})]`),
  fc
    .tuple(fnOf, predOf, coll)
    .map(
      ([f, p, c]) =>
        `(let [xs (map ${f} ${c})] [(count xs) (first xs) (last xs) (nth xs 1 :none) (seq (rest xs)) (filter ${p} xs)])`,
    ),
);

async function outcome(src: string, fuel: number, maxCollectionSize: number): Promise<string> {
  const r = await run(src, { limits: { fuel, maxCollectionSize, timeoutMs: 60_000 } });
  const what =
    r.status === 'error'
      ? `error ${r.error.code}: ${r.error.message}`
      : r.status === 'suspended'
        ? 'suspended'
        : `${r.status} ${printed(r.value)}`;
  return `${what} | used ${r.fuelUsed}`;
}

/** A lazy seq inside a returned vector is not realised by run(); printing it may fail. */
function printed(v: Value): string {
  try {
    return prStr(v);
  } catch (e) {
    return `unprintable: ${String(e)}`;
  }
}

/** Outcomes with plenty of fuel, and with the fuel cut at a few points. */
async function outcomes(src: string, cuts: number[], maxCollectionSize: number): Promise<string[]> {
  const full = (await run(src, { limits: { fuel: 1_000_000, maxCollectionSize, timeoutMs: 60_000 } })).fuelUsed;
  const out = [await outcome(src, 1_000_000, maxCollectionSize)];
  for (const c of cuts) out.push(await outcome(src, Math.max(0, Math.floor(full * c)), maxCollectionSize));
  return out;
}

afterEach(() => {
  fastPaths.on = true;
});

describe('sequence fast paths', () => {
  it('give the value, error and fuel of the general paths', async () => {
    await fc.assert(
      fc.asyncProperty(
        program,
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 3 }),
        fc.constantFrom(1000, 6),
        async (src, cuts, max) => {
          fastPaths.on = true;
          const fast = await outcomes(src, cuts, max);
          fastPaths.on = false;
          const general = await outcomes(src, cuts, max);
          fastPaths.on = true;
          expect(fast, src).toEqual(general);
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('str and str/join write numbers as strOf does', async () => {
    const num = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(0, -0, 1e21, -1e21, 1.5e-7, 2 ** 53));
    await fc.assert(
      fc.asyncProperty(fc.array(num, { minLength: 1, maxLength: 4 }), async (xs) => {
        const src = xs
          .map((x) =>
            Number.isNaN(x) ? '##NaN' : x === Infinity ? '##Inf' : x === -Infinity ? '##-Inf' : formatNumber(x),
          )
          .join(' ');
        const r = await run(`[(str ${src}) (str/join "," [${src}])]`);
        const texts = xs.map((x) => strOf(x));
        expect(r.status === 'ok' ? prStr(r.value) : r.status).toBe(prStr(vec([texts.join(''), texts.join(',')])));
      }),
      { numRuns: 300 },
    );
  });

  it('array-backed and List-backed lists are equal and work as the same key', async () => {
    const r = await run(`(let [a (map inc [0 1 2]) b (into () [3 2 1])]
      [(= a b) (get {b :found} a) (contains? #{a} b) (frequencies [a b]) (nth a -1 :none) (second a) (peek a) (pop a) (conj a 0) (cons 0 a)])`);
    expect(r.status === 'ok' ? prStr(r.value) : r.status).toBe(
      '[true :found true {(1 2 3) 2} :none 2 1 (2 3) (0 1 2 3) (0 1 2 3)]',
    );
  });

  it('build the reduce-conj vector without touching the initial one', async () => {
    const r = await run('(let [v [1 2] w (reduce conj v (range 5))] [v w])');
    expect(r.status === 'ok' ? prStr(r.value) : r.status).toBe('[[1 2] [1 2 0 1 2 3 4]]');
  });
});
