/**
 * PTC-Lisp benchmarks, timed as production runs programs: each pass is a program new to a
 * worker whose interpreter is warm from earlier programs. Both interpreters (ours and
 * SCI in nbb, one process each for the run) are first warmed on the same few hundred
 * varied programs; then, per row:
 *
 * - first run (the `median ms` column against nbb's in `baseline ms`): the program run
 *   as new. Ours empties every per-source cache first (generated code, compiled regexes:
 *   `forgetCaches`), so each timed run pays what a program's first run pays; nbb's
 *   `load-string` reads and analyses anew on every run. Median of a few runs.
 * - steady state (the note): the same program run again and again, ours with its caches
 *   warm, nbb's expression analysed once and called (as the bench timed before).
 * - the same work in hand-written JS, for scale.
 *
 * A generated set of many small, different programs (each run once) gives the fixed cost
 * of a program; the summary row gives the geometric mean and the worst of the first-run
 * ratios. nbb is a dev dependency (`NBB` names another command); without it only our
 * columns are printed.
 *
 * Two modes, each in a process of its own (with an nbb of its own), both reported:
 * - warm: both sides first run the same 300 generated small programs (above);
 * - seasoned: both sides first run the 1,262 programs of ptc-runner's own tests
 *   (../shared/oracles/ptc-runner/cases.jsonl: every form and error path of the language,
 *   as a worker meets many program shapes before a given pass; nbb runs them with
 *   `load-string`, errors and all, but for the two that loop forever in Clojure), then the
 *   same rows. An interpreter whose call sites went megamorphic on many shapes shows it here.
 *   `BENCH_LISP_MODES=warm` or `seasoned` runs one.
 */
import { fork } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { run } from '../src/lisp/index.ts';
import type { RunOptions } from '../src/lisp/api.ts';
import { forgetCaches } from '../src/lisp/bounded-cache.ts';
import { type Case, TYPICAL, cases, generatedPrograms, records, text100k, typicalUsers } from './lisp-programs.ts';
import { NbbSession } from './nbb.ts';
import { type BenchRow, medianMs } from './types.ts';

/**
 * Rounds per row: ours, then nbb, repeated, and each side's best kept. The machine is
 * shared and its speed drifts (another tenant's load only ever slows a side down), so the
 * best of a few alternated rounds compares the two at their usual speed. `BENCH_ROUNDS`.
 */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3) || 3);

/** Steady state: warm-up for at least this long, then timed for at least this long (see medianMs). */
const STEADY_MS = Math.max(0, Number(process.env.BENCH_STEADY_MS ?? 100) || 0);

/** Programs each side runs before the first row, and programs in the generated set. */
const WARM_PROGRAMS = 300;
const SET_PROGRAMS = 200;

const LIMITS: RunOptions = { limits: { fuel: 1e10, timeoutMs: 60_000, maxCollectionSize: 10_000_000 } };

function options(c: Pick<Case, 'opts'>): RunOptions {
  return { ...LIMITS, ...c.opts, limits: LIMITS.limits, journal: c.opts?.journal ? new Map() : undefined };
}

async function runChecked(name: string, src: string, opts: RunOptions): Promise<void> {
  const r = await run(src, opts);
  if (r.status !== 'ok' && r.status !== 'fail')
    throw new Error(`bench ${name}: ${r.status === 'error' ? r.error.toLine() : r.status}`);
}

/** Runs of a first run to take the median of: fewer for the long programs. */
function firstRuns(c: Case): number {
  return Math.max(3, Math.min(15, Math.round((c.iterations ?? 15) / 2)));
}

/** Median of `n` first runs: every per-source cache emptied before each. */
async function firstRunMs(c: Case, n: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    forgetCaches();
    const opts = options(c);
    const t = performance.now();
    await run(c.src, opts);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** Total ms of one run of each program (new programs: nothing of them is cached). */
async function setMs(programs: string[]): Promise<number> {
  let total = 0;
  for (const src of programs) {
    const opts = { ...LIMITS };
    const t = performance.now();
    await run(src, opts);
    total += performance.now() - t;
  }
  return total;
}

interface Measured {
  first: number;
  nbbFirst?: number;
  steady: number;
  nbbSteady?: number;
}

async function measure(c: Case, nbb: NbbSession | undefined): Promise<Measured> {
  await runChecked(c.name, c.src, options(c));
  const m: Measured = { first: Infinity, steady: Infinity };
  const n = firstRuns(c);
  for (let round = 0; round < ROUNDS; round++) {
    m.first = Math.min(m.first, await firstRunMs(c, n));
    const t = c.nbb ? await nbb?.load(c.nbb, n) : undefined;
    if (t !== undefined) m.nbbFirst = Math.min(m.nbbFirst ?? Infinity, t);
  }
  for (let round = 0; round < ROUNDS; round++) {
    m.steady = Math.min(m.steady, await medianMs(() => run(c.src, options(c)), c.iterations ?? 15, 3, STEADY_MS));
    const t = c.nbb ? await nbb?.steady(c.name, c.iterations ?? 15) : undefined;
    if (t !== undefined) m.nbbSteady = Math.min(m.nbbSteady ?? Infinity, t);
  }
  return m;
}

function ms(x: number): string {
  return x >= 1 ? x.toFixed(2) : x.toFixed(3);
}

function geoMean(xs: number[]): number {
  return Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
}

/** The typical program, and a trivial one, in a sandbox thread (what a pass and `navigator eval` use) vs in-process. */
async function sandboxRows(): Promise<BenchRow[]> {
  const { closeSandboxes, runSandboxed } = await import('../src/sandbox/index.ts');
  const typical = cases.find((c) => c.src === TYPICAL)!;
  const rows: BenchRow[] = [];
  for (const [name, src, opts] of [
    ['typical program in the sandbox thread', TYPICAL, () => options(typical)],
    ['(+ 1 2) in the sandbox thread', '(+ 1 2)', () => ({ ...LIMITS })],
  ] as const) {
    let inProcess = Infinity;
    let sandboxed = Infinity;
    for (let round = 0; round < ROUNDS; round++) {
      inProcess = Math.min(inProcess, await medianMs(() => run(src, opts()), 100, 20, STEADY_MS));
      sandboxed = Math.min(sandboxed, await medianMs(() => runSandboxed(src, opts()), 100, 20, STEADY_MS));
    }
    rows.push({
      name,
      median_ms: sandboxed,
      baseline_ms: inProcess,
      ratio: sandboxed / inProcess,
      note: `+${(sandboxed - inProcess).toFixed(3)} ms per program (pooled thread) over in-process`,
    });
  }
  await closeSandboxes();
  return rows;
}

/** The programs of ptc-runner's tests, for the seasoned mode (undefined when the oracle is not there). */
export const PTC_CASES = fileURLToPath(new URL('../../shared/oracles/ptc-runner/cases.jsonl', import.meta.url));

interface PtcCase {
  id: string;
  source: string;
  context: Record<string, unknown> | null;
  journal?: Record<string, unknown>;
  expected_error: string | null;
}

function ptcCases(): PtcCase[] {
  return readFileSync(PTC_CASES, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as PtcCase);
}

type Mode = 'warm' | 'seasoned';

/** Makes both interpreters what the mode says they have seen; a line on what was run. */
async function prepare(mode: Mode, nbb: NbbSession | undefined): Promise<string> {
  if (mode === 'warm') {
    // both sides warm on the same varied programs, as a worker is warm from earlier passes
    const warm = generatedPrograms(WARM_PROGRAMS, 1);
    await setMs(warm);
    await nbb?.batch(warm);
    return `after ${WARM_PROGRAMS} warm-up programs`;
  }
  const all = ptcCases();
  const t = performance.now();
  let errors = 0;
  for (const c of all) {
    const r = await run(c.source, {
      context: c.context ?? {},
      ...(c.journal ? { journal: new Map(Object.entries(c.journal)) as NonNullable<RunOptions['journal']> } : {}),
    }).catch(() => null);
    if (!r || r.status === 'error') errors++;
  }
  const ours = performance.now() - t;
  // the two that loop until PTC-Lisp's loop limit stops them loop forever in Clojure
  const forNbb = all.filter((c) => c.expected_error !== 'loop_limit_exceeded').map((c) => c.source);
  const t2 = performance.now();
  const ran = await nbb?.warm(forNbb);
  const theirs = performance.now() - t2;
  return `after the ${all.length} programs of ptc-runner's tests (ours ${(ours / 1000).toFixed(1)} s, ${errors} ending in errors; nbb ${(theirs / 1000).toFixed(1)} s, ${ran ?? '?'} of ${forNbb.length} without error)`;
}

/** The rows of one mode, in this process. */
export async function lispRows(mode: Mode): Promise<BenchRow[]> {
  const nbb = await NbbSession.start(
    { records, text: text100k, users: typicalUsers },
    cases.filter((c) => c.nbb).map((c) => ({ name: c.name, expr: c.nbbSteady ?? c.nbb! })),
    STEADY_MS,
  );
  const rows: BenchRow[] = [];
  const firstRatios: number[] = [];
  const steadyRatios: number[] = [];
  const label = mode === 'warm' ? '' : 'seasoned: ';
  let seen: string;
  try {
    seen = await prepare(mode, nbb);

    for (const c of cases) {
      const m = await measure(c, nbb);
      const js = await medianMs(c.js, Math.max(c.iterations ?? 15, 15), 3, STEADY_MS);
      const notes = [`steady ${ms(m.steady)} ms`];
      if (m.nbbSteady !== undefined) {
        notes.push(`nbb ${ms(m.nbbSteady)} ms (${(m.steady / m.nbbSteady).toFixed(2)}x)`);
        steadyRatios.push(m.steady / m.nbbSteady);
      }
      notes.push(`JS ${ms(js)} ms`);
      if (c.note) notes.push(c.note);
      if (m.nbbFirst !== undefined) firstRatios.push(m.first / m.nbbFirst);
      rows.push({
        name: `${label}${c.name}: first run`,
        median_ms: m.first,
        baseline_ms: m.nbbFirst,
        ratio: m.nbbFirst ? m.first / m.nbbFirst : undefined,
        note: notes.join('; '),
      });
    }

    // many small, different programs, each run once: the fixed cost of a program
    let ours = Infinity;
    let theirs: number | undefined;
    for (let round = 0; round < ROUNDS; round++) {
      const set = generatedPrograms(SET_PROGRAMS, 2 + round);
      ours = Math.min(ours, (await setMs(set)) / SET_PROGRAMS);
      const t = await nbb?.batch(set);
      if (t !== undefined) theirs = Math.min(theirs ?? Infinity, t / SET_PROGRAMS);
    }
    if (theirs !== undefined) firstRatios.push(ours / theirs);
    rows.push({
      name: `${label}${SET_PROGRAMS} generated small programs, each run once (per program)`,
      median_ms: ours,
      baseline_ms: theirs,
      ratio: theirs ? ours / theirs : undefined,
      note: seen,
    });
  } finally {
    nbb?.close();
  }
  if (firstRatios.length) {
    const gm = geoMean(firstRatios);
    const worst = Math.max(...firstRatios);
    rows.push({
      name: `${label}first run vs nbb: geo-mean ratio`,
      median_ms: gm,
      note: `worst ${worst.toFixed(2)}x over ${firstRatios.length} rows (goal: geo-mean <= 0.5, none > 1); steady vs nbb geo-mean ${steadyRatios.length ? geoMean(steadyRatios).toFixed(2) : '-'}x; ${seen}`,
    });
  }
  return rows;
}

/** The rows of one mode in a child process (a fresh interpreter and JIT state per mode). */
function lispRowsApart(mode: Mode): Promise<BenchRow[]> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--mode', mode], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let rows: BenchRow[] | undefined;
    child.on('message', (m: { rows: BenchRow[] }) => (rows = m.rows));
    child.on('exit', (code) => (rows ? resolve(rows) : reject(new Error(`lisp bench (${mode}) exited with ${code}`))));
  });
}

export async function benchLisp(): Promise<BenchRow[]> {
  const modes = (process.env.BENCH_LISP_MODES ?? 'warm,seasoned').split(',').map((m) => m.trim()) as Mode[];
  const rows: BenchRow[] = [];
  for (const mode of modes) {
    if (mode === 'seasoned' && !existsSync(PTC_CASES)) {
      rows.push({ name: 'seasoned mode', median_ms: NaN, note: `not run: ${PTC_CASES} is not there` });
      continue;
    }
    rows.push(...(await lispRowsApart(mode)));
  }
  rows.push(...(await sandboxRows()));
  return rows;
}

// a mode run apart (lispRowsApart): its rows go back to the parent
const modeArg = process.argv.indexOf('--mode');
if (modeArg > 0 && process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = await lispRows(process.argv[modeArg + 1] as Mode);
  process.send({ rows }, () => process.exit(0));
}
