/**
 * `npm run eval -- [--model M] [--runs N] [--case NAME ...] [--record] [--json] [--without-memory] [--suite missions|benchmark]`
 *
 * Runs the evaluation suite (eval/cases) as real missions on the embedded Temporal
 * server and prints, per mission, whether it was done right (decided by each case's
 * checker from the tools' recorded effects and the returned value, plus an audit of the
 * history), passes, model calls, tokens and duration; then the success rate and the mean
 * model calls per mission.
 *
 * Without --model (no credentials needed) the recorded answers in eval/recordings/ are
 * replayed. With --model and --record, the real model's answers are written there.
 *
 * The missions of a suite share one memory of result shapes, as the missions of one
 * long-running worker do (src/navigator/shape-memory.ts): with --runs 2 the second run
 * shows what a warm worker costs. After a decision, the program that waited runs again
 * before the model is asked (src/navigator/waiting-programs.ts). --without-memory turns
 * both off: the behaviour before issue 29, to compare calls per mission.
 *
 * `--suite benchmark` runs ptc_runner's 30-task LLM benchmark instead (eval/benchmark/):
 * success rate and model calls per task, printed beside the reference's published table.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createTestEnv } from '../src/devserver/testing.ts';
import { createModel, createRecordingModel, createScriptedModel } from '../src/llm/index.ts';
import type { ChatModel } from '../src/llm/model.ts';
import { workflowsPath } from '../src/worker/index.ts';
import type { EvalCase } from './case.ts';
import { cases } from './cases/index.ts';
import { PUBLISHED, benchmarkCases, benchmarkRecordingsDir } from './benchmark/index.ts';
import { ShapeMemory } from '../src/navigator/shape-memory.ts';
import { formatReport, summarize } from './report.ts';
import { readManifest, relayRecorder, replayModel } from './live.ts';
import { type RunResult, counted, runCase, startCaseWorker } from './runner.ts';
import { type PlanEvalCase, runPlanCase } from './plan-case.ts';
import { liveCases } from './cases-live/index.ts';

export const recordingsDir = fileURLToPath(new URL('./recordings/', import.meta.url));
export const liveRecordingsDir = fileURLToPath(new URL('./recordings/live/', import.meta.url));
/** The live run `npm run eval -- --suite live` replays offline (eval/recordings/live/after-live). */
export const LATEST_LIVE = join(liveRecordingsDir, 'after-live');
export const recordingOf = (c: AnyCase, dir = recordingsDir) => join(dir, `${c.name}.json`);

/** The suites by name: their cases and where their recordings live. */
export const SUITES = {
  missions: { cases, recordings: recordingsDir },
  benchmark: { cases: benchmarkCases, recordings: benchmarkRecordingsDir },
  /** missions and plans written for live runs (eval/cases-live); recorded only as live runs (eval/recordings/live) */
  live: { cases: liveCases, recordings: liveRecordingsDir },
} as const satisfies Record<string, { cases: readonly AnyCase[]; recordings: string }>;
export type AnyCase = EvalCase | PlanEvalCase;
const isPlan = (c: AnyCase): c is PlanEvalCase => (c as PlanEvalCase).kind === 'plan';
export type SuiteName = keyof typeof SUITES;

export interface SuiteOptions {
  /** which suite @default missions */
  suite?: SuiteName;
  /** a model string; none replays the recordings */
  model?: string;
  runs?: number;
  only?: readonly string[];
  record?: boolean;
  /** where recordings are read from and written to @default the suite's */
  recordings?: string;
  /** replay this file for a case instead of its recording (tests use wrong answers) */
  recordingFor?: (c: AnyCase) => string;
  /** no shapes across missions and no program run again after a decision (the behaviour before issue 29) */
  withoutMemory?: boolean;
  /** a live run through the model relay: its folder, where the manifest is written (eval/live.ts) */
  relay?: string;
  /** what the live run measures, written in its manifest */
  label?: string;
  /** replay a live run's recording (a relay folder with its manifest) instead of the suite's recordings */
  replay?: string;
  /** told each case's result as it ends */
  onResult?: (r: RunResult) => void;
}

function modelFor(c: AnyCase, opts: SuiteOptions): ChatModel {
  const file = opts.recordingFor?.(c) ?? recordingOf(c, opts.recordings ?? SUITES[opts.suite ?? 'missions'].recordings);
  if (!opts.model) return createScriptedModel(file);
  const real = createModel(opts.model);
  return opts.record ? createRecordingModel(real, file) : real;
}

export async function runSuite(opts: SuiteOptions = {}): Promise<RunResult[]> {
  const suite = opts.suite ?? 'missions';
  const cases: readonly AnyCase[] = SUITES[suite].cases;
  // the live suite has no hand-written answers: offline, it replays its latest live run
  const replay = opts.replay ?? (suite === 'live' && !opts.model && !opts.recordingFor ? LATEST_LIVE : undefined);
  opts = { ...opts, replay };
  const replayed = opts.replay ? (readManifest(opts.replay)?.entries ?? []).filter((e) => e.suite === suite) : null;
  if (opts.replay && !replayed?.length)
    throw new Error(`${opts.replay} holds no recorded ${suite} case (manifest.json)`);
  const plan: Array<{ c: AnyCase; run: number; model?: ChatModel }> = [];
  const only = (c: AnyCase) => !opts.only?.length || opts.only.includes(c.name);
  if (replayed) {
    for (const e of replayed) {
      const c = cases.find((x) => x.name === e.case);
      if (!c) throw new Error(`the recording names a case this suite has not: ${e.case}`);
      if (only(c)) plan.push({ c, run: e.run, model: replayModel(opts.replay!, e) });
    }
  }
  const selected = cases.filter(only);
  const unknown = (opts.only ?? []).filter((n) => !cases.some((c) => c.name === n));
  if (unknown.length)
    throw new Error(`unknown case(s): ${unknown.join(', ')}; cases: ${cases.map((c) => c.name).join(', ')}`);
  const env = await createTestEnv({ workflowsPath, startWorker: false });
  const results: RunResult[] = [];
  if (!replayed) for (let run = 1; run <= (opts.runs ?? 1); run++) for (const c of selected) plan.push({ c, run });
  const relay = opts.relay ? relayRecorder(opts.relay, suite, opts.model ?? 'recorded', opts.label ?? '') : null;
  try {
    const worker = await startCaseWorker(
      env,
      opts.withoutMemory ? { waitingPrograms: false } : { shapeMemory: new ShapeMemory() },
    );
    try {
      for (const { c, run, model } of plan) {
        relay?.before();
        const m = model ?? modelFor(c, opts);
        const r = isPlan(c)
          ? await runPlanCase(env, worker, c, { model: m, run, counted })
          : await runCase(env, worker, c, { model: m, run });
        if (relay) r.modelCalls = relay.after(r).modelCalls;
        results.push(r);
        opts.onResult?.(r);
      }
    } finally {
      await worker.shutdown();
    }
  } finally {
    await env.shutdown();
  }
  return results;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      model: { type: 'string' },
      runs: { type: 'string', default: '1' },
      case: { type: 'string', multiple: true },
      record: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      'without-memory': { type: 'boolean', default: false },
      suite: { type: 'string', default: 'missions' },
      relay: { type: 'string' },
      label: { type: 'string' },
      replay: { type: 'string' },
      progress: { type: 'boolean', default: false },
    },
  });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, got ${values.runs}`);
  if (values.record && !values.model) throw new Error("--record needs --model: it records a real model's answers");
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // already installed
  }
  const model = values.model ?? process.env.NAVIGATOR_MODEL;
  const suite = values.suite as SuiteName;
  if (!Object.hasOwn(SUITES, suite))
    throw new Error(`--suite must be one of ${Object.keys(SUITES).join(', ')}, got ${values.suite}`);
  const onResult = values.progress
    ? (r: RunResult) =>
        process.stderr.write(
          `${r.case} run ${r.run}: ${r.correct ? 'ok' : `NO (${r.why})`}, ${r.modelCalls} calls, ${r.inputTokens}+${r.outputTokens} tokens, ${(r.durationMs / 1000).toFixed(0)} s\n`,
        )
    : undefined;
  const results = await runSuite({
    suite,
    model: values.replay ? undefined : model,
    runs,
    only: values.case,
    record: values.record,
    withoutMemory: values['without-memory'],
    relay: values.relay,
    label: values.label,
    replay: values.replay,
    onResult,
  });
  if (values.json)
    process.stdout.write(
      `${JSON.stringify({ suite, model: model ?? 'recorded', results: results.map(({ answers: _, ...r }) => r), summary: summarize(results) }, null, 2)}\n`,
    );
  else {
    const label = values.replay
      ? `live recording ${values.replay}, replayed`
      : (model ??
        `recorded answers (${suite === 'benchmark' ? 'eval/benchmark/recordings, written by hand' : 'eval/recordings'})`);
    process.stdout.write(`${formatReport(label, results)}\n`);
    if (suite === 'benchmark') process.stdout.write(`\n${PUBLISHED}\n`);
  }
  process.exitCode = results.every((r) => r.correct) ? 0 : 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err: Error) => {
    process.stderr.write(`eval: ${err.message}\n`);
    process.exit(2);
  });
}
