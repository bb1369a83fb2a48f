/**
 * PTC-Lisp benchmarks: programs typical of LLM output, each timed end to end through
 * `run()` (read + analyze + evaluate) and compared with the same work written by hand
 * in JS, measured in the same process.
 */
import { run } from '../src/lisp/index.ts';
import type { RunOptions } from '../src/lisp/api.ts';
import { type BenchRow, medianMs } from './types.ts';

const LIMITS: RunOptions = { limits: { fuel: 1e10, timeoutMs: 60_000, maxCollectionSize: 10_000_000 } };

interface Case {
  name: string;
  src: string;
  opts?: RunOptions;
  js: () => unknown;
  iterations?: number;
  note?: string;
}

const records = Array.from({ length: 10_000 }, (_, i) => ({
  id: i,
  name: `user${i}`,
  dept: ['eng', 'ops', 'sales', 'hr'][i % 4]!,
  age: 20 + (i % 45),
  active: i % 3 !== 0,
  salary: 30_000 + ((i * 7919) % 90_000),
}));

const text100k = Array.from({ length: 6000 }, (_, i) => `order-${i} total ${i * 13 % 997}.${i % 100} EUR; `).join('').slice(0, 100_000);

const TYPICAL = `
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
const typicalUsers = records.slice(0, 20);

const cases: Case[] = [
  {
    name: 'filter/sort/group 10k records',
    src: `(->> data/records (filter :active) (filter #(> (:age %) 30)) (sort-by :salary >) (group-by :dept) (map (fn [[d us]] [d (count us)])) (into {}))`,
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
    src: '(str/join "," (map #(str "item-" % ":" (* % 2)) (range 10000)))',
    js: () => Array.from({ length: 10_000 }, (_, i) => `item-${i}:${i * 2}`).join(','),
  },
  {
    name: '1e6-iteration loop/recur',
    src: '(loop [i 0 acc 0] (if (< i 1000000) (recur (inc i) (+ acc i)) acc))',
    js: () => {
      let acc = 0;
      for (let i = 0; i < 1_000_000; i++) acc += i;
      return acc;
    },
    iterations: 7,
  },
  {
    name: 'nested map updates (update-in x 10k)',
    src: '(reduce (fn [m i] (update-in m [:stats (keyword (str "k" (mod i 10))) :n] (fnil inc 0))) {} (range 10000))',
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
    src: '(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 25)',
    js: () => {
      const fib = (n: number): number => (n < 2 ? n : fib(n - 1) + fib(n - 2));
      return fib(25);
    },
    iterations: 7,
  },
  {
    name: 'regex over 100 KB (re-seq)',
    src: '(count (re-seq #"order-(\\d+) total (\\d+)\\.(\\d+)" data/text))',
    opts: { context: { text: text100k } },
    js: () => [...text100k.matchAll(/order-(\d+) total (\d+)\.(\d+)/g)].length,
    note: 're2js (linear time) vs V8 backtracking',
  },
  {
    name: '10k-entry map with assoc',
    src: '(count (reduce #(assoc %1 %2 (* 2 %2)) {} (range 10000)))',
    js: () => {
      const m = new Map<number, number>();
      for (let i = 0; i < 10_000; i++) m.set(i, i * 2);
      return m.size;
    },
  },
  {
    name: '10k-element vector with conj + frequencies',
    src: '(frequencies (map #(mod % 7) (reduce conj [] (range 10000))))',
    js: () => {
      const f = new Map<number, number>();
      for (let i = 0; i < 10_000; i++) f.set(i % 7, (f.get(i % 7) ?? 0) + 1);
      return f;
    },
  },
  {
    name: 'typical 40-line program (parse+analyze+eval)',
    src: TYPICAL,
    opts: { context: { users: typicalUsers }, journal: new Map() },
    js: () => {
      const active = typicalUsers.filter((u) => u.active);
      const byDept = new Map<string, typeof active>();
      for (const u of active) byDept.set(u.dept, [...(byDept.get(u.dept) ?? []), u]);
      const report: Record<string, unknown> = {};
      for (const [d, us] of byDept) {
        const s = us.filter((u) => u.age >= 40);
        if (s.length) report[d] = { count: s.length, avg: s.reduce((a, u) => a + u.salary, 0) / s.length, names: s.slice(0, 3).map((u) => u.name) };
      }
      const top = [...active].sort((a, b) => b.salary - a.salary).slice(0, 5).map((u) => ({ name: u.name, salary: u.salary }));
      return { report, top };
    },
    iterations: 201,
    note: 'target: well under 1 ms',
  },
];

async function timeLisp(c: Case): Promise<number> {
  const opts = { ...LIMITS, ...c.opts, limits: LIMITS.limits };
  const check = await run(c.src, { ...opts, journal: c.opts?.journal ? new Map() : undefined });
  if (check.status !== 'ok' && check.status !== 'fail') {
    throw new Error(`bench ${c.name}: ${check.status === 'error' ? check.error.toLine() : check.status}`);
  }
  return medianMs(() => run(c.src, { ...opts, journal: c.opts?.journal ? new Map() : undefined }), c.iterations ?? 15);
}

export async function benchLisp(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const c of cases) {
    const median = await timeLisp(c);
    const baseline = await medianMs(c.js, Math.max(c.iterations ?? 15, 15));
    rows.push({ name: c.name, median_ms: median, baseline_ms: baseline, ratio: baseline > 0 ? median / baseline : undefined, note: c.note });
  }
  return rows;
}
