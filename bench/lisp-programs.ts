/**
 * The programs of the lisp benchmark: named programs of the kinds models write (each with
 * its nbb twin and the same work in hand-written JS), and generated sets of many small,
 * different programs (valid in PTC-Lisp and in ClojureScript alike) that warm both
 * interpreters up and measure the fixed cost of a program.
 */
import type { RunOptions } from '../src/lisp/api.ts';
import { rng } from '../eval/benchmark/rng.ts';

export interface Case {
  name: string;
  /** the whole program */
  src: string;
  opts?: RunOptions;
  /** the same program for nbb's `load-string` (data is `bench/records`, `bench/text`, `bench/users`) */
  nbb?: string;
  /** the core of `nbb` as one expression, analysed once, for nbb's steady state (default: `nbb`) */
  nbbSteady?: string;
  js: () => unknown;
  iterations?: number;
  note?: string;
}

export const records = Array.from({ length: 10_000 }, (_, i) => ({
  id: i,
  name: `user${i}`,
  dept: ['eng', 'ops', 'sales', 'hr'][i % 4]!,
  age: 20 + (i % 45),
  active: i % 3 !== 0,
  salary: 30_000 + ((i * 7919) % 90_000),
}));

export const text100k = Array.from({ length: 6000 }, (_, i) => `order-${i} total ${(i * 13) % 997}.${i % 100} EUR; `)
  .join('')
  .slice(0, 100_000);

export const typicalUsers = records.slice(0, 20);

export const TYPICAL = `
;; a typical agent turn: gather, filter, summarise, decide
(def threshold 40)
(defn senior? [u] (>= (:age u) threshold))
(defn summarize [users]
  {:count (count users)
   :avg-salary (if (seq users) (/ (reduce + (map :salary users)) (count users)) 0)
   :names (->> users (map :name) (take 3) vec)})
(let [users data/users
      active (filter :active users)
      by-dept (group-by :dept active)
      report (into {}
               (for [[dept us] by-dept
                     :let [seniors (filter senior? us)]
                     :when (seq seniors)]
                 [dept (summarize seniors)]))
      top (->> active
               (sort-by :salary >)
               (take 5)
               (map #(select-keys % [:name :salary])))
      flagged (cond-> []
                (> (count active) 10) (conj :many-active)
                (empty? report) (conj :no-seniors))]
  (step-done "analyze" (str (count active) " active users"))
  (when (some #(> (:salary %) 1000000) active)
    (fail {:reason :suspicious}))
  (doseq [[d r] report]
    (println d (:count r)))
  (task "report" {:report report :top top :flags flagged}))
`;

/** TYPICAL for nbb: the same work with plain Clojure in place of the PTC-only forms (`step-done`, `fail`, `task`). */
const TYPICAL_NBB = `
(def threshold 40)
(defn senior? [u] (>= (:age u) threshold))
(defn summarize [users]
  {:count (count users)
   :avg-salary (if (seq users) (/ (reduce + (map :salary users)) (count users)) 0)
   :names (->> users (map :name) (take 3) vec)})
(let [users (js->clj bench/users :keywordize-keys true)
      active (filter :active users)
      by-dept (group-by :dept active)
      report (into {}
               (for [[dept us] by-dept
                     :let [seniors (filter senior? us)]
                     :when (seq seniors)]
                 [dept (summarize seniors)]))
      top (->> active (sort-by :salary >) (take 5) (map #(select-keys % [:name :salary])))
      flagged (cond-> []
                (> (count active) 10) (conj :many-active)
                (empty? report) (conj :no-seniors))]
  (when (some #(> (:salary %) 1000000) active)
    (throw (ex-info "suspicious" {})))
  (doseq [[d r] report]
    (println d (:count r)))
  {:report report :top top :flags flagged})
`;

const FIB = '(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))';
const COLLATZ =
  '(defn steps [n] (loop [n n c 0] (if (<= n 1) c (recur (if (even? n) (quot n 2) (+ (* 3 n) 1)) (inc c)))))';
const ARITH_LOOP =
  '(loop [i 0 acc 0] (if (< i 200000) (recur (inc i) (if (< (mod (* i 7) 13) 6) (+ acc (quot (* i i) 3)) (- acc (mod i 5)))) acc))';
const ARITH_REDUCE =
  '(reduce (fn [acc x] (if (>= (rem x 3) 1) (+ acc (* (mod x 7) (quot x 3))) acc)) 0 (range 100000))';

/** A program that is the same text on both sides. */
function same(src: string): Pick<Case, 'src' | 'nbb'> {
  return { src, nbb: src };
}

export const cases: Case[] = [
  {
    name: 'filter/sort/group 10k records',
    src: '(->> data/records (filter :active) (filter #(> (:age %) 30)) (sort-by :salary >) (group-by :dept) (map (fn [[d us]] [d (count us)])) (into {}))',
    nbb: '(->> (js->clj bench/records :keywordize-keys true) (filter :active) (filter #(> (:age %) 30)) (sort-by :salary >) (group-by :dept) (map (fn [[d us]] [d (count us)])) (into {}))',
    opts: { context: { records } },
    js: () => {
      const rs = records.filter((r) => r.active && r.age > 30).sort((a, b) => b.salary - a.salary);
      const g = new Map<string, number>();
      for (const r of rs) g.set(r.dept, (g.get(r.dept) ?? 0) + 1);
      return g;
    },
    iterations: 9,
    note: 'includes converting 10k JSON records',
  },
  {
    name: 'string building (str + join, 10k)',
    ...same('(clojure.string/join "," (map #(str "item-" % ":" (* % 2)) (range 10000)))'),
    js: () => Array.from({ length: 10_000 }, (_, i) => `item-${i}:${i * 2}`).join(','),
  },
  {
    name: '1e6-iteration loop/recur',
    ...same('(loop [i 0 acc 0] (if (< i 1000000) (recur (inc i) (+ acc i)) acc))'),
    js: () => {
      let acc = 0;
      for (let i = 0; i < 1_000_000; i++) acc += i;
      return acc;
    },
    iterations: 7,
  },
  {
    name: 'arithmetic loop (* mod quot, 2e5)',
    ...same(ARITH_LOOP),
    js: () => {
      let acc = 0;
      for (let i = 0; i < 200_000; i++) acc = (i * 7) % 13 < 6 ? acc + Math.trunc((i * i) / 3) : acc - (i % 5);
      return acc;
    },
    iterations: 7,
  },
  {
    name: 'arithmetic reduce (rem mod quot, 1e5)',
    ...same(ARITH_REDUCE),
    js: () => {
      let acc = 0;
      for (let i = 0; i < 100_000; i++) if (i % 3 >= 1) acc += (i % 7) * Math.trunc(i / 3);
      return acc;
    },
    iterations: 7,
  },
  {
    name: 'collatz steps 1..3000 (defn + loop)',
    ...same(`${COLLATZ} (reduce max (map steps (range 1 3000)))`),
    js: () => {
      let best = 0;
      for (let k = 1; k < 3000; k++) {
        let n = k;
        let c = 0;
        while (n > 1) {
          n = n % 2 === 0 ? n / 2 : 3 * n + 1;
          c++;
        }
        best = Math.max(best, c);
      }
      return best;
    },
    iterations: 7,
  },
  {
    name: 'nested map updates (update-in x 10k)',
    ...same(
      '(reduce (fn [m i] (update-in m [:stats (keyword (str "k" (mod i 10))) :n] (fnil inc 0))) {} (range 10000))',
    ),
    js: () => {
      const m: Record<string, Record<string, { n: number }>> = { stats: {} };
      for (let i = 0; i < 10_000; i++) {
        const k = `k${i % 10}`;
        const s = { ...m.stats };
        s[k] = { n: (s[k]?.n ?? 0) + 1 };
        m.stats = s;
      }
      return m;
    },
  },
  {
    name: 'fib 25 (recursive defn)',
    src: `${FIB} (fib 25)`,
    nbb: `${FIB} (fib 25)`,
    nbbSteady: '(fib 25)',
    js: () => {
      const fib = (n: number): number => (n < 2 ? n : fib(n - 1) + fib(n - 2));
      return fib(25);
    },
    iterations: 7,
  },
  {
    name: 'regex over 100 KB (re-seq)',
    src: '(count (re-seq #"order-(\\d+) total (\\d+)\\.(\\d+)" data/text))',
    nbb: '(count (re-seq #"order-(\\d+) total (\\d+)\\.(\\d+)" bench/text))',
    opts: { context: { text: text100k } },
    js: () => [...text100k.matchAll(/order-(\d+) total (\d+)\.(\d+)/g)].length,
    note: 'ours: V8 backtracking with its linear-engine fallback',
  },
  {
    name: '10k-entry map with assoc',
    ...same('(count (reduce #(assoc %1 %2 (* 2 %2)) {} (range 10000)))'),
    js: () => {
      const m = new Map<number, number>();
      for (let i = 0; i < 10_000; i++) m.set(i, i * 2);
      return m.size;
    },
  },
  {
    name: '10k-element vector with conj + frequencies',
    ...same('(frequencies (map #(mod % 7) (reduce conj [] (range 10000))))'),
    js: () => {
      const f = new Map<number, number>();
      for (let i = 0; i < 10_000; i++) f.set(i % 7, (f.get(i % 7) ?? 0) + 1);
      return f;
    },
  },
  {
    name: 'typical 40-line program (parse+analyze+eval)',
    src: TYPICAL,
    nbb: TYPICAL_NBB,
    opts: { context: { users: typicalUsers }, journal: new Map() },
    js: () => {
      const active = typicalUsers.filter((u) => u.active);
      const byDept = new Map<string, typeof active>();
      for (const u of active) byDept.set(u.dept, [...(byDept.get(u.dept) ?? []), u]);
      const report: Record<string, unknown> = {};
      for (const [d, us] of byDept) {
        const s = us.filter((u) => u.age >= 40);
        if (s.length)
          report[d] = {
            count: s.length,
            avg: s.reduce((a, u) => a + u.salary, 0) / s.length,
            names: s.slice(0, 3).map((u) => u.name),
          };
      }
      const top = [...active]
        .sort((a, b) => b.salary - a.salary)
        .slice(0, 5)
        .map((u) => ({ name: u.name, salary: u.salary }));
      return { report, top };
    },
    iterations: 201,
    note: 'target: well under 1 ms',
  },
];

type Template = (int: (lo: number, hi: number) => number, pick: <T>(xs: readonly T[]) => T, name: string) => string;

const ARITH = ['+', '-', '*'] as const;
const CMP = ['<', '>', '<=', '>='] as const;

/**
 * Small programs of the shapes models write: pipelines, local functions, loops, maps,
 * strings. Random numbers, operators and names make each one different text (and, where
 * we generate code, different generated code). Values stay well inside 2^53.
 */
const TEMPLATES: Template[] = [
  (int, pick) =>
    `(reduce + (map #(${pick(ARITH)} % ${int(1, 9)}) (filter #(${pick(CMP)} (mod % ${int(2, 9)}) ${int(0, 4)}) (range ${int(20, 300)}))))`,
  (int, pick, f) =>
    `(defn ${f} [x] (if (${pick(CMP)} x ${int(5, 50)}) (quot x ${int(2, 7)}) (${pick(ARITH)} x ${int(1, 9)}))) (mapv ${f} (range ${int(10, 100)}))`,
  (int, pick) =>
    `(loop [i 0 acc ${int(0, 9)}] (if (< i ${int(50, 2000)}) (recur (inc i) (if (= 0 (mod i ${int(2, 9)})) (mod (${pick(ARITH)} acc ${int(1, 5)}) ${int(100, 1000)}) acc)) acc))`,
  (int) => `(clojure.string/join "${pick2(int)}" (map #(str "x" (* % ${int(2, 9)})) (range ${int(5, 60)})))`,
  (int) =>
    `(->> (range ${int(20, 200)}) (map (fn [i] {:id i :g (mod i ${int(2, 6)}) :v (* i ${int(1, 9)})})) (group-by :g) (map (fn [[k vs]] [k (reduce + (map :v vs))])) (into {}))`,
  (int) => `(frequencies (map #(mod % ${int(2, 12)}) (range ${int(20, 400)})))`,
  (int, pick, f) =>
    `(let [${f} (vec (range ${int(10, 200)}))] (count (filter #(${pick(CMP)} % ${int(5, 100)}) (map #(quot % ${int(2, 5)}) ${f}))))`,
  (int) =>
    `(-> {:a {:b ${int(0, 99)}} :c [${int(0, 9)} ${int(0, 9)}]} (update-in [:a :b] + ${int(1, 9)}) (assoc :d ${int(0, 99)}) (update :c conj ${int(0, 9)}) (dissoc :d))`,
  (int, pick, f) => `(defn ${f} [n] (if (< n 2) n (+ (${f} (- n 1)) (${f} (- n 2))))) (${f} ${int(8, 14)})`,
  (int, pick) =>
    `(let [m (zipmap (map #(keyword (str "k" %)) (range ${int(5, 50)})) (range))] (reduce-kv (fn [acc k v] (if (${pick(CMP)} v ${int(1, 30)}) (+ acc v) acc)) 0 m))`,
  (int, pick) =>
    `(->> (range ${int(10, 100)}) (partition ${int(2, 5)}) (map #(apply ${pick(['+', 'max', 'min'])} %)) (sort >) (take ${int(1, 8)}) vec)`,
  (int, pick, f) =>
    `(letfn [(${f} [x] (cond (${pick(CMP)} x ${int(10, 40)}) :small (even? x) :even :else :odd))] (frequencies (map ${f} (range ${int(20, 120)}))))`,
  (int) =>
    `(let [words (map #(str "w" (mod (* % ${int(3, 11)}) ${int(5, 17)})) (range ${int(20, 150)}))] (->> words frequencies (sort-by val >) first))`,
  (int, pick) =>
    `(for [x (range ${int(3, 12)}) y (range ${int(3, 12)}) :when (${pick(CMP)} (+ x y) ${int(4, 15)})] [x y (* x y)])`,
];

function pick2(int: (lo: number, hi: number) => number): string {
  return [',', ';', ' ', '-', '|'][int(0, 4)]!;
}

/** `count` small, different programs from `seed` (same seed, same programs). */
export function generatedPrograms(count: number, seed: number): string[] {
  // mulberry32, seeded: every run generates the same programs
  const rnd = rng(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  return Array.from({ length: count }, (_, i) => {
    const t = TEMPLATES[Math.floor(rnd() * TEMPLATES.length)]!;
    return t(int, pick, `f${seed}-${i}`);
  });
}
