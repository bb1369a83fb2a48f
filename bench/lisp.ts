/**
 * PTC-Lisp benchmarks: programs typical of LLM output, each timed end to end through
 * `run()` (read + analyze + evaluate) and compared with the same work written by hand
 * in JS, measured in the same process.
 *
 * Comparison with SCI (the Clojure interpreter behind babashka/nbb): nbb is a dev
 * dependency, so `npm run bench` finds it on the PATH (or `NBB` names another command);
 * the same programs are timed in one nbb process kept for the run, each right after ours
 * (`nbb.ts`), and the note column shows `nbb X ms` and our time as a multiple of it.
 * Without nbb the column is left out.
 */
import { run } from '../src/lisp/index.ts';
import type { RunOptions } from '../src/lisp/api.ts';
import { NbbSession } from './nbb.ts';
import { type BenchRow, medianMs } from './types.ts';

/**
 * Rounds per row: ours, then nbb, repeated, and each side's best median kept. The
 * machine is shared and its speed drifts (another tenant's load only ever slows a side
 * down), so one pair of medians could put a slow spell on either side of a row; the best
 * of a few alternated rounds compares the two at their usual speed. `BENCH_ROUNDS` sets it.
 */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3) || 3);

/** Each row warms up for at least this long, then is timed for at least this long (and its iterations), on both sides: see medianMs. `BENCH_STEADY_MS=0 BENCH_ROUNDS=1` is the earlier method: 3 warm-ups, one median of the iterations. */
const STEADY_MS = Math.max(0, Number(process.env.BENCH_STEADY_MS ?? 100) || 0);

const LIMITS: RunOptions = { limits: { fuel: 1e10, timeoutMs: 60_000, maxCollectionSize: 10_000_000 } };

interface Case {
  name: string;
  src: string;
  opts?: RunOptions;
  js: () => unknown;
  iterations?: number;
  note?: string;
  /** the same program for nbb (a ClojureScript expression over `records`, `text`, `users`) */
  nbb?: string;
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
    nbb: '(->> (js->clj records :keywordize-keys true) (filter :active) (filter #(> (:age %) 30)) (sort-by :salary >) (group-by :dept) (map (fn [[d us]] [d (count us)])) (into {}))',
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
    nbb: '(str/join "," (map #(str "item-" % ":" (* % 2)) (range 10000)))',
    src: '(str/join "," (map #(str "item-" % ":" (* % 2)) (range 10000)))',
    js: () => Array.from({ length: 10_000 }, (_, i) => `item-${i}:${i * 2}`).join(','),
  },
  {
    name: '1e6-iteration loop/recur',
    nbb: '(loop [i 0 acc 0] (if (< i 1000000) (recur (inc i) (+ acc i)) acc))',
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
    nbb: '(reduce (fn [m i] (update-in m [:stats (keyword (str "k" (mod i 10))) :n] (fnil inc 0))) {} (range 10000))',
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
    nbb: '(fib 25)',
    src: '(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 25)',
    js: () => {
      const fib = (n: number): number => (n < 2 ? n : fib(n - 1) + fib(n - 2));
      return fib(25);
    },
    iterations: 7,
  },
  {
    name: 'regex over 100 KB (re-seq)',
    nbb: '(count (re-seq #"order-(\\d+) total (\\d+)\\.(\\d+)" text))',
    src: '(count (re-seq #"order-(\\d+) total (\\d+)\\.(\\d+)" data/text))',
    opts: { context: { text: text100k } },
    js: () => [...text100k.matchAll(/order-(\d+) total (\d+)\.(\d+)/g)].length,
    note: 'ours: V8 backtracking with its linear-engine fallback',
  },
  {
    name: '10k-entry map with assoc',
    nbb: '(count (reduce #(assoc %1 %2 (* 2 %2)) {} (range 10000)))',
    src: '(count (reduce #(assoc %1 %2 (* 2 %2)) {} (range 10000)))',
    js: () => {
      const m = new Map<number, number>();
      for (let i = 0; i < 10_000; i++) m.set(i, i * 2);
      return m.size;
    },
  },
  {
    name: '10k-element vector with conj + frequencies',
    nbb: '(frequencies (map #(mod % 7) (reduce conj [] (range 10000))))',
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

async function timeLisp(c: Case): Promise<number> {
  const opts = { ...LIMITS, ...c.opts, limits: LIMITS.limits };
  const check = await run(c.src, { ...opts, journal: c.opts?.journal ? new Map() : undefined });
  if (check.status !== 'ok' && check.status !== 'fail') {
    throw new Error(`bench ${c.name}: ${check.status === 'error' ? check.error.toLine() : check.status}`);
  }
  return medianMs(() => run(c.src, { ...opts, journal: c.opts?.journal ? new Map() : undefined }), c.iterations ?? 15, 3, STEADY_MS);
}

/** The typical program in a sandbox thread (what a pass and `navigator eval` use) vs in-process. */
async function sandboxRow(): Promise<BenchRow> {
  const { closeSandboxes, runSandboxed } = await import('../src/sandbox/index.ts');
  const typical = cases.find((c) => c.src === TYPICAL)!;
  const opts = () => ({ ...LIMITS, ...typical.opts, limits: LIMITS.limits, journal: new Map() });
  const inProcess = await medianMs(() => run(TYPICAL, opts()), 50, 10);
  const sandboxed = await medianMs(() => runSandboxed(TYPICAL, opts()), 50, 10);
  await closeSandboxes();
  return { name: 'typical program in the sandbox thread', median_ms: sandboxed, baseline_ms: inProcess, ratio: sandboxed / inProcess, note: `+${(sandboxed - inProcess).toFixed(2)} ms per program (pooled thread)` };
}

export async function benchLisp(): Promise<BenchRow[]> {
  const typical = cases.find((c) => c.src === TYPICAL)!;
  const nbb = await NbbSession.start(
    { records, text: text100k, users: typicalUsers },
    cases.filter((c) => c.nbb).map((c) => ({ name: c.name, expr: c.nbb!, iterations: c.iterations ?? 15 })),
    { name: typical.name, src: TYPICAL_NBB, iterations: typical.iterations ?? 15 },
    STEADY_MS,
  );
  const rows: BenchRow[] = [];
  try {
    for (const c of cases) {
      let median = Infinity;
      let sci: number | undefined;
      for (let round = 0; round < ROUNDS; round++) {
        median = Math.min(median, await timeLisp(c));
        // nbb's figure for the row right after ours, in the same conditions
        const t = c.nbb || c === typical ? await nbb?.time(c.name) : undefined;
        if (t !== undefined) sci = Math.min(sci ?? Infinity, t);
      }
      const baseline = await medianMs(c.js, Math.max(c.iterations ?? 15, 15), 3, STEADY_MS);
      rows.push({ name: c.name, median_ms: median, baseline_ms: baseline, ratio: baseline > 0 ? median / baseline : undefined, note: withNbb(c.note, median, sci) });
    }
  } finally {
    nbb?.close();
  }
  rows.push(await sandboxRow());
  return rows;
}

function withNbb(note: string | undefined, ours: number, nbb: number | undefined): string | undefined {
  if (nbb === undefined) return note;
  const vs = `nbb ${nbb >= 1 ? nbb.toFixed(2) : nbb.toFixed(3)} ms (${(ours / nbb).toFixed(2)}x)`;
  return note ? `${note}; ${vs}` : vs;
}
