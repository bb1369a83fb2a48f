/**
 * `reduce` with a fn that only assoc/updates its accumulator builds one transient map
 * (eval/closures/in-place-accumulator.ts, core/seq-eager.ts reduceInPlace). Checked here:
 * - which fns qualify (the syntactic test, both ways);
 * - random reduce programs give the value, error and fuel of the general path, also when
 *   the fuel runs out part way;
 * - no map anyone can see is ever changed: the initial map, the result (later assoc'd),
 *   and a map caught after an error part way.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { analyze } from '../../src/lisp/analyzer/index.ts';
import type { Node } from '../../src/lisp/analyzer/nodes.ts';
import { fastPaths } from '../../src/lisp/core/seq-eager.ts';
import { updatesFirstParamInPlace } from '../../src/lisp/eval/closures/in-place-accumulator.ts';
import { run } from '../../src/lisp/index.ts';
import { prStr } from '../../src/lisp/printer/index.ts';
import { read } from '../../src/lisp/reader/index.ts';
import { outcomeOf } from './helpers/outcome.ts';

/** The first arity of the fn form `src`. */
function arityOf(src: string) {
  let node: Node = analyze(read(src), { source: src }).body;
  while (node.kind === 'do' && node.body.length === 1) node = node.body[0]!;
  if (node.kind !== 'fn') throw new Error(`not a fn: ${src} (${node.kind})`);
  return node.fn.arities[0]!;
}

afterEach(() => {
  fastPaths.on = true;
});

describe('in-place accumulator: which fns qualify', () => {
  it.each([
    '#(assoc %1 %2 (* 2 %2))',
    '(fn [m x] (assoc m (:id x) x))',
    '(fn [m x] (update m x (fnil inc 0)))',
    '(fn [m x] (update m (:k x) #(conj (or % []) x)))',
    '(fn [m [k v]] (assoc m k v))',
    '(fn [m {:keys [a] :or {a 0}}] (assoc m a 1))',
    '(fn [m x] (assoc m x (let [[a b] [x x]] (+ a b))))',
    '(fn [m x] (assoc m x (let [y (* x x)] (if (odd? y) [y] {:y y}))))',
    '(fn [m x] (assoc m x (map #(+ x %) [1 2])))',
    '(fn [m x] (dissoc m x))',
    '(fn [m x] (assoc m x (count m)))',
    '(fn [m x] (conj m [x 1]))',
    '(fn [acc x] (if (odd? x) (conj acc x) acc))',
    '(fn [m [x & {:keys [b] :or {b (count m)}}]] (assoc m x b))',
    '(fn [m x] (assoc (assoc m x 1) :n 2))',
    '(fn [m x] (if (contains? m x) m (assoc m x 1)))',
    '(fn [m x] (-> m (assoc :last x) (update :n (fnil inc 0))))',
    '(fn [m x] (when (odd? x) (assoc m x (:total m))))',
    '(fn [m x] (let [n (count m)] (assoc m x n)))',
    '(fn [m x] (cond (neg? x) m (zero? x) {} :else (update m :sum + x)))',
    '(fn [m x] (assoc-in m [:a x] 1))',
    '(fn [m x] (update-in m [:a (:k x)] (fnil inc 0)))',
  ])('%s', (src) => {
    expect(updatesFirstParamInPlace(arityOf(src))).toBe(true);
  });

  it.each([
    '(fn [m x] (assoc m x m))',
    '(fn [m x] (assoc m x #(get m %)))',
    '(fn [m x] (assoc m x (let [n m] 1)))',
    '(fn [m x] (assoc m x (let [{:keys [a] :or {a m}} x] a)))',
    '(fn [m {:keys [a] :or {a m}}] (assoc m a 1))',
    '(fn [m x] (update m x (fn [_] m)))',
    '(fn [m x] (assoc (assoc m :a 1) :b (count m)))',
    '(fn [m x] (update (assoc m :a 1) :b (constantly (:a m))))',
    '(fn [m x] (if (= m {}) (assoc m x 1) m))',
    '(fn [m x] (assoc m x (fn [] (count m))))',
    '(fn [m x] (do (println m) (assoc m x 1)))',
    '(fn [{:as m} x] (assoc m x 1))',
    '(fn [m x y] (assoc m x y))',
    '(fn [m & xs] (assoc m xs 1))',
    '(fn [m x] (assoc x m 1))',
    '(fn [m x] (assoc m x (for [k (keys m)] k)))',
  ])('not %s', (src) => {
    expect(updatesFirstParamInPlace(arityOf(src))).toBe(false);
  });
});

const reducer = fc.constantFrom(
  '#(assoc %1 %2 (* 2 %2))',
  '(fn [m x] (assoc m (str "k" (mod x 5)) x))',
  '(fn [m x] (update m (mod x 7) (fnil inc 0)))',
  '(fn [m x] (update m (odd? x) #(conj (or % []) x)))',
  '(fn [m x] (assoc m x (/ 10 x)))',
  '(fn [m x] (assoc m [x (* x x)] #{x}))',
  '(fn [m x] (update m :total + x))',
  '(fn [m x] (assoc m (mod x 3) x (inc x) :pair))',
  '(fn [m x] (dissoc m x (inc x)))',
  '(fn [m x] (dissoc m (- x 1)))',
  '(fn [m x] (assoc-in m [(mod x 4) :v] x))',
  '(fn [m x] (update-in m [:n (odd? x)] (fnil + 0) x))',
  '(fn [m x] (update-in m [x] str))',
  '(fn [m x] (if (contains? m (mod x 5)) (update m (mod x 5) inc) (assoc m (mod x 5) 0)))',
  '(fn [m x] (-> m (assoc :last x) (update :n (fnil inc 0))))',
  '(fn [m x] (when (odd? x) (assoc m x (count m))))',
  '(fn [m x] (assoc (assoc m x 1) :size (count m)))',
  '(fn [m x] (let [n (get m :n 0)] (assoc m :n (+ n x) :seen (contains? m x))))',
  '(fn [m x] (assoc (if (even? x) m {}) x (:n m 0)))',
  '(fn [v x] (conj v (* x x)))',
  '(fn [v x] (if (even? x) (conj v x) v))',
  '(fn [v x] (conj v x (inc x)))',
  '(fn [v x] (assoc v 0 x))',
  '(fn [v x] (update v 0 (fnil + 0) x))',
  '(fn [v x] (cond-> v (odd? x) (conj x) (> (count v) 3) (conj :big)))',
);
const init = fc.constantFrom(
  '{}',
  '{:a 1}',
  '{0 :zero :total 0}',
  '(zipmap (range 12) (range 12))',
  '(zipmap (range 40) (repeat :x))',
  'nil',
  '[]',
  '[1 2]',
  '(vec (range 40))',
  '#{1}',
);
const coll = fc.oneof(
  fc.integer({ min: 0, max: 60 }).map((n) => `(range ${n})`),
  fc.array(fc.integer({ min: -3, max: 40 }), { maxLength: 12 }).map((xs) => `[${xs.join(' ')}]`),
  fc.constantFrom('nil', '(range 1 8)', '[1 2 0 3]', '#{1 2 3}', '[:a]'),
);

async function outcomes(src: string, cuts: number[]): Promise<string[]> {
  const full = await run(src, { limits: { fuel: 1_000_000, timeoutMs: 60_000 } });
  const out = [JSON.stringify(outcomeOf(full))];
  for (const c of cuts) {
    const r = await run(src, { limits: { fuel: Math.floor(full.fuelUsed * c), timeoutMs: 60_000 } });
    out.push(JSON.stringify(outcomeOf(r)));
  }
  return out;
}

describe('in-place accumulator: reduce', () => {
  it('gives the value, error and fuel of the general path', async () => {
    await fc.assert(
      fc.asyncProperty(
        reducer,
        init,
        coll,
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 3 }),
        async (f, i, c, cuts) => {
          // the initial map and the result are both used afterwards: neither may have changed
          const src = `(let [m0 ${i} r (reduce ${f} m0 ${c})] [m0 r (cond (map? r) (assoc r :after 1) (vector? r) (conj r :after) :else r) r (count r)])`;
          fastPaths.on = true;
          const fast = await outcomes(src, cuts);
          fastPaths.on = false;
          const general = await outcomes(src, cuts);
          fastPaths.on = true;
          expect(fast, src).toEqual(general);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('leaves the initial map, the result and a map seen after an error unchanged', async () => {
    const r = await run(`
      (let [m0 (zipmap (range 20) (range 20))
            r (reduce #(assoc %1 %2 :new) m0 (range 15 30))
            r2 (assoc r 100 :later)
            caught (try (reduce #(assoc %1 %2 (/ 1 %2)) m0 [5 4 0 3]) (catch Exception e (ex-message e)))]
        [(count m0) (get m0 15) (count r) (get r 15) (get r 100) (count r2) caught (count m0)])`);
    expect(r.status === 'ok' ? prStr(r.value) : r).toBe('[20 15 30 :new nil 31 "/: divide by zero" 20]');
  });

  it('keeps the persistent result when an :or default of the item reads the accumulator', async () => {
    const src = '(reduce (fn [m {:keys [k] :or {k m}}] (assoc m k (count m))) {:a 0} [{} {:k :b} {}])';
    const fast = await run(src);
    fastPaths.on = false;
    const general = await run(src);
    expect(fast.status).toBe('ok');
    expect(outcomeOf(fast)).toEqual(outcomeOf(general));
  });

  it('builds a 10k-entry map equal to the one the general path builds', async () => {
    const src = '(reduce #(assoc %1 %2 (* 2 %2)) {} (range 10000))';
    const fast = await run(src, { limits: { fuel: 10_000_000 } });
    fastPaths.on = false;
    const general = await run(src, { limits: { fuel: 10_000_000 } });
    expect(fast.status).toBe('ok');
    expect(outcomeOf(fast)).toEqual(outcomeOf(general));
  });
});
