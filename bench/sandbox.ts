/**
 * `npm run bench -- sandbox`: what the sandbox thread adds to a program on a warm pool,
 * against the same program run in-process (`run`), side by side in one run, p50 and p95.
 *
 * - trivial: `(+ 1 2)`, nothing carried.
 * - namespace: a pass's next program, with the namespace the previous pass kept (data,
 *   functions, a closure). As the pass activity does, the namespace is read from its
 *   source record before each program (untimed, the same on both sides) and passed in,
 *   with the mission's run id; the program adds a def and reads the others.
 * - typical: the lisp bench's typical turn (defines 3 functions, reads data/users): what
 *   a program carries back. Run again as it is (a model repeating its helpers: the host
 *   reads the mission's results once), and with its threshold changed each time (the
 *   threshold, the function naming it and the value are read anew).
 * - tools: a program whose tool calls cross back to the host (validation and handler).
 *
 * Both sides are timed in alternating blocks (the machine is shared; a block of one side
 * never sees only the quiet moments). Then rows that say where the time goes: a bare
 * message round trip to an idle thread, the (de)serialisation of the namespace, and the
 * typical program in-process back to back against after 1 ms idle: the thread sleeps
 * between its programs while the in-process side here runs them back to back, and a run
 * after a pause is slower (caches); in production a program follows a model call, so
 * part of the difference on the typical rows is that pause, not the thread.
 *
 * `BENCH_SANDBOX_BASELINE=/path/to/src/sandbox/index.ts` adds the same cases through
 * another copy of the sandbox (an older commit, checked out elsewhere with its own
 * sources): before and after in the same run.
 */
import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import type { Namespace, RunOptions, RunResult } from '../src/lisp/api.ts';
import { deserializeNamespace, run, serializeNamespace } from '../src/lisp/index.ts';
import type { ToolDef } from '../src/lisp/tools.ts';
import { TYPICAL, typicalUsers } from './lisp-programs.ts';
import type { BenchRow } from './types.ts';

/** timed programs per side and case (`BENCH_SANDBOX_RUNS`) */
const RUNS = Math.max(20, Number(process.env.BENCH_SANDBOX_RUNS ?? 600) || 600);
const BLOCK = 20;
const WARMUP = 200;

type Runner = (source: string, opts: RunOptions) => Promise<RunResult>;

const NAMESPACE: Record<string, string> = {
  threshold: '40',
  users: `[${Array.from({ length: 20 }, (_, i) => `{:id ${i} :name "user${i}" :dept ${[':eng', ':ops', ':sales'][i % 3]} :age ${20 + ((i * 7) % 45)} :salary ${30000 + ((i * 7919) % 90000)}}`).join(' ')}]`,
  'senior?': '(fn senior? [u] (>= (:age u) threshold))',
  summarize: '(fn summarize [us] {:count (count us) :names (vec (take 3 (map :name us)))})',
  'by-dept': '(let [k :dept] (fn by-dept [us] (group-by k us)))',
  notes: '{:seen #{1 2 3} :last "user7"}',
};

const tools: ToolDef[] = [
  {
    name: 'lookup',
    description: 'a read',
    input: z.object({ id: z.number() }),
    sideEffect: 'read_only',
    handler: async ({ id }: { id: number }) => ({ id, score: id * 3 }),
  },
];

interface Case {
  name: string;
  /** the program, or the i-th program */
  source: string | ((i: number) => string);
  /** options of one program; called untimed before each */
  opts: () => Promise<RunOptions>;
}

const LIMITS = { fuel: 1_000_000, timeoutMs: 60_000 };

const cases: Case[] = [
  { name: 'trivial (+ 1 2)', source: '(+ 1 2)', opts: async () => ({ limits: LIMITS }) },
  {
    name: 'namespace of 6 defs carried',
    source:
      '(def seniors (filter senior? users)) (assoc (summarize seniors) :depts (count (by-dept users)) :last (:last notes))',
    opts: async () => ({
      namespace: await deserializeNamespace(NAMESPACE, { tools }),
      tools,
      journal: new Map(),
      runId: 'bench-mission',
      limits: LIMITS,
    }),
  },
  {
    name: 'typical program (3 defs, data/users), again',
    source: TYPICAL,
    opts: async () => ({
      context: { users: typicalUsers },
      journal: new Map(),
      runId: 'bench-mission',
      limits: LIMITS,
    }),
  },
  {
    name: 'typical program, its threshold changed each time',
    source: (i) => TYPICAL.replace('(def threshold 40)', `(def threshold ${30 + (i % 20)})`),
    opts: async () => ({
      context: { users: typicalUsers },
      journal: new Map(),
      runId: 'bench-mission',
      limits: LIMITS,
    }),
  },
  {
    name: '3 tool calls to the host',
    source: '(task "scores" (mapv #(:score (tool/lookup {:id %})) [1 2 3]))',
    opts: async () => ({ tools, journal: new Map(), runId: 'bench-mission', limits: LIMITS }),
  },
];

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

let programs = 0;

async function timeOnce(runner: Runner, c: Case): Promise<number> {
  const opts = await c.opts();
  const source = typeof c.source === 'string' ? c.source : c.source(programs++);
  const t = performance.now();
  const r = await runner(source, opts);
  const ms = performance.now() - t;
  if (r.status !== 'ok')
    throw new Error(`bench sandbox ${c.name}: ${r.status === 'error' ? r.error.message : r.status}`);
  return ms;
}

/** Alternating blocks of each runner, in turning order; samples per runner, sorted. */
async function measure(runners: Runner[], c: Case): Promise<number[][]> {
  for (const r of runners) for (let i = 0; i < WARMUP; i++) await timeOnce(r, c);
  const samples = runners.map((): number[] => []);
  // the order turns each round: a block pays for what the one before left (GC), so no side always follows the same one
  for (let round = 0; samples[0]!.length < RUNS; round++) {
    for (let j = 0; j < runners.length; j++) {
      const k = (j + round) % runners.length;
      for (let i = 0; i < BLOCK; i++) samples[k]!.push(await timeOnce(runners[k]!, c));
    }
  }
  return samples.map((s) => s.sort((a, b) => a - b));
}

const f3 = (x: number) => x.toFixed(3);

/** A bare message round trip to an idle thread that answers at once: the floor of any sandbox. */
async function roundTrip(): Promise<number[]> {
  const w = new Worker(
    "require('node:worker_threads').parentPort.on('message', (m) => require('node:worker_threads').parentPort.postMessage(m))",
    { eval: true },
  );
  const once = () =>
    new Promise<number>((resolve) => {
      const t = performance.now();
      w.once('message', () => resolve(performance.now() - t));
      w.postMessage({ kind: 'run', source: '(+ 1 2)' });
    });
  for (let i = 0; i < WARMUP; i++) await once();
  const xs: number[] = [];
  for (let i = 0; i < RUNS; i++) xs.push(await once());
  await w.terminate();
  return xs.sort((a, b) => a - b);
}

/** Times of `fn`, sorted; with `own`, `fn` returns the time of its timed part. */
async function syncMs(fn: () => unknown, own = false): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await fn();
  const xs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    const r = await fn();
    xs.push(own ? (r as number) : performance.now() - t);
  }
  return xs.sort((a, b) => a - b);
}

export async function benchSandbox(): Promise<BenchRow[]> {
  const { closeSandboxes, runSandboxed } = await import('../src/sandbox/index.ts');
  const baselinePath = process.env.BENCH_SANDBOX_BASELINE;
  const baseline = baselinePath
    ? ((await import(baselinePath)) as typeof import('../src/sandbox/index.ts'))
    : undefined;
  const runners: Runner[] = [
    run,
    (s, o) => runSandboxed(s, o),
    ...(baseline ? [(s: string, o: RunOptions) => baseline.runSandboxed(s, o)] : []),
  ];
  const rows: BenchRow[] = [];
  for (const c of cases) {
    const [inProcess, sandboxed, before] = await measure(runners, c);
    const row = (label: string, xs: number[]): BenchRow => {
      const p50 = pct(xs, 0.5);
      const base = pct(inProcess!, 0.5);
      return {
        name: `${c.name}: ${label}`,
        median_ms: p50,
        baseline_ms: base,
        ratio: p50 / base,
        note: `p95 ${f3(pct(xs, 0.95))} vs ${f3(pct(inProcess!, 0.95))} in-process; +${f3(p50 - base)} ms p50, +${f3(pct(xs, 0.95) - pct(inProcess!, 0.95))} ms p95`,
      };
    };
    rows.push(row('sandbox vs in-process', sandboxed!));
    if (before) rows.push(row('baseline sandbox vs in-process', before));
  }
  await closeSandboxes();
  await baseline?.closeSandboxes();

  const rt = await roundTrip();
  rows.push({
    name: 'where: bare message round trip to an idle thread',
    median_ms: pct(rt, 0.5),
    note: `p95 ${f3(pct(rt, 0.95))}`,
  });
  const ns: Namespace = await deserializeNamespace(NAMESPACE, { tools });
  const ser = await syncMs(() => serializeNamespace(ns));
  rows.push({
    name: 'where: serialise the 6-def namespace',
    median_ms: pct(ser, 0.5),
    note: `p95 ${f3(pct(ser, 0.95))}; ${JSON.stringify(NAMESPACE).length} chars`,
  });
  const de = await syncMs(() => deserializeNamespace(NAMESPACE, { tools }));
  rows.push({
    name: 'where: read the 6-def namespace back',
    median_ms: pct(de, 0.5),
    note: `p95 ${f3(pct(de, 0.95))}`,
  });
  const typical = cases.find((c) => c.source === TYPICAL)!;
  const runTypical = async () => run(TYPICAL, await typical.opts());
  const tight = await syncMs(runTypical);
  const paused = await syncMs(async () => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    const t = performance.now();
    await runTypical();
    return performance.now() - t;
  }, true);
  rows.push({
    name: 'where: typical program in-process after 1 ms idle vs back to back',
    median_ms: pct(paused, 0.5),
    baseline_ms: pct(tight, 0.5),
    ratio: pct(paused, 0.5) / pct(tight, 0.5),
    note: `p95 ${f3(pct(paused, 0.95))} vs ${f3(pct(tight, 0.95))}`,
  });
  const clone = await syncMs(() => structuredClone(NAMESPACE));
  rows.push({
    name: 'where: structured clone of its source record',
    median_ms: pct(clone, 0.5),
    note: `p95 ${f3(pct(clone, 0.95))}`,
  });
  return rows;
}
