/**
 * Fuel is part of the language's contract: a program that runs out of fuel must stop at
 * the same point, with the same output so far, however the evaluator is optimised. This
 * test pins what every program of the agreement corpus and of the benchmarks gives (value
 * or error, prints, fuel used) at a spread of fuel limits, from nothing to more than it
 * needs. A change of speed must leave every snapshot as it is; a change of the language's
 * fuel costs updates them on purpose (`npx vitest run -u test/lisp/fuel-exact.test.ts`)
 * and says so in its commit.
 */
import { describe, expect, it } from 'vitest';
import { run } from '../../src/lisp/index.ts';
import { prStr } from '../../src/lisp/printer/index.ts';
import { CORPUS } from './helpers/corpus.ts';

/** Heavier programs, where the fast paths of the evaluator and core functions run. */
const WORKLOADS: string[] = [
  '(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 12)',
  '(loop [i 0 acc 0] (if (< i 300) (recur (inc i) (+ acc i)) acc))',
  '(loop [i 0 acc []] (if (< i 50) (recur (inc i) (conj acc (* i i))) (count acc)))',
  '(reduce (fn [m i] (update-in m [:stats (keyword (str "k" (mod i 10))) :n] (fnil inc 0))) {} (range 200))',
  '(count (reduce #(assoc %1 %2 (* 2 %2)) {} (range 300)))',
  '(frequencies (map #(mod % 7) (reduce conj [] (range 300))))',
  '(clojure.string/join "," (map #(str "item-" % ":" (* % 2)) (range 100)))',
  '(count (re-seq #"order-(\\d+) total (\\d+)" (apply str (map #(str "order-" % " total " (* 3 %) "; ") (range 50)))))',
  '(->> (range 200) (map (fn [i] {:id i :dept (mod i 5) :age (mod (* i 7) 60) :active (even? i)})) (filter :active) (filter #(> (:age %) 30)) (sort-by :age >) (group-by :dept) (map (fn [[d us]] [d (count us)])) (into {}))',
  '(defn countdown [n] (when (pos? n) (println "step" n) (countdown (dec n)))) (countdown 20)',
  '(doseq [i (range 30)] (when (zero? (mod i 7)) (println i)))',
  '(let [xs (vec (range 100))] (reduce + (map * xs (reverse xs))))',
  '(reduce (fn [acc x] (if (> acc 1000) (reduced acc) (+ acc x))) 0 (range))',
  '(defn ack [m n] (cond (zero? m) (inc n) (zero? n) (ack (dec m) 1) :else (ack (dec m) (ack m (dec n))))) (ack 2 3)',
  '(into {} (for [x (range 20) y (range 3) :when (odd? (+ x y))] [[x y] (* x y)]))',
];

/** Fuel limits to try for a program that needs `full`: every one when few, else a spread. */
function limits(full: number): number[] {
  if (full <= 80) return Array.from({ length: full + 2 }, (_, i) => i);
  const spread = Array.from({ length: 40 }, (_, i) => Math.floor((full * i) / 40));
  return [...new Set([...spread, 1, 2, 3, full - 2, full - 1, full, full + 1])].sort((a, b) => a - b);
}

async function outcome(src: string, fuel: number): Promise<string> {
  const r = await run(src, { limits: { fuel, timeoutMs: 60_000 } });
  const what =
    r.status === 'error'
      ? `error ${r.error.code}: ${r.error.message}`
      : r.status === 'suspended'
        ? 'suspended'
        : `${r.status} ${prStr(r.value)}`;
  return `fuel ${fuel}: ${what.slice(0, 200)} | used ${r.fuelUsed} | ${r.prints.length} prints${r.prints.length ? ` last ${JSON.stringify(r.prints.at(-1))}` : ''}`;
}

async function outcomes(src: string): Promise<string[]> {
  const full = (await run(src, { limits: { fuel: 10_000_000, timeoutMs: 60_000 } })).fuelUsed;
  const out: string[] = [];
  for (const fuel of limits(full)) out.push(await outcome(src, fuel));
  return out;
}

describe('fuel is exact: the same outcome at every fuel limit', () => {
  it.each(CORPUS.map((src, i) => [i, src]))('corpus %i: %s', async (_i, src) => {
    expect(await outcomes(src as string)).toMatchSnapshot();
  });
  it.each(WORKLOADS.map((src, i) => [i, src]))('workload %i: %s', async (_i, src) => {
    expect(await outcomes(src as string)).toMatchSnapshot();
  });
});
