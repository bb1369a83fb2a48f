/**
 * Where a plan step's workflow time goes, for the plan curve of `npm run bench -- temporal`
 * (temporal-plan-curve.ts runs this file as a child process with the histories it recorded):
 * the plan's histories replayed (workflow code only: no server, no activities) with the
 * shipped bundle, the bare workflow's beside them, and the promises each creates in the
 * workflow context (the SDK captures a stack trace for every one). The bench's plans start
 * untraced, so they run without Temporal's OpenTelemetry workflow interceptors
 * (src/telemetry/workflow-tracing.ts; a traced plan's step makes 13 promises more).
 *
 * Per step: the smallest plan's replay taken from the largest's (that cancels the replay
 * worker's start and the plan's preparation), divided by the steps between them; CPU time
 * of this process, best of alternated rounds (wall time moves by 2x with the machine's load).
 */
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import proto from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { z } from 'zod';
import { bundleOnce } from '../src/devserver/testing.ts';
import { silentSpanSinks } from '../src/telemetry/setup.ts';
import { workflowInterceptorModules, workflowsPath } from '../src/worker/index.ts';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;
const { History } = proto.temporal.api.history.v1;

/** A plan's and a bare workflow's recorded first run, of n steps (activities). */
export interface Histories {
  n: number;
  plan: HistoryEvent[];
  bare: HistoryEvent[];
}

const Files = z.object({ n: z.number().int().positive(), plan: z.string(), bare: z.string() });
/** The child's argument: the files of the smallest and the largest size. */
export const ReplayInput = z
  .object({ small: Files, large: Files })
  .refine((i) => i.large.n > i.small.n, 'large.n must be above small.n');
export type ReplayInput = z.infer<typeof ReplayInput>;

const ByVariant = z.object({ shipped: z.number(), bare: z.number() });
/** The child's answer, the last line of its stdout. */
export const ReplayOutput = z.object({ rounds: z.number().int(), perStep: ByVariant, promises: ByVariant });
export type ReplayOutput = z.infer<typeof ReplayOutput>;

export const encodeHistory = (events: HistoryEvent[]): Uint8Array => History.encode({ events }).finish();

const ROUNDS = 2;
const floorPath = new URL('./temporal-floor-workflow.ts', import.meta.url).pathname;

async function measure(input: ReplayInput): Promise<ReplayOutput> {
  const load = async (path: string) => History.decode(await readFile(path)).events;
  const histories = {
    small: { plan: await load(input.small.plan), bare: await load(input.small.bare) },
    large: { plan: await load(input.large.plan), bare: await load(input.large.bare) },
  };
  const variants = {
    shipped: { bundle: await bundleOnce(workflowsPath, workflowInterceptorModules), which: 'plan' },
    bare: { bundle: await bundleOnce(floorPath), which: 'bare' },
  } as const;
  type Variant = keyof typeof variants;
  const names = Object.keys(variants) as Variant[];
  const best = { small: fill(names, Infinity), large: fill(names, Infinity) };
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of names) {
      for (const size of ['small', 'large'] as const) {
        const v = variants[name];
        best[size][name] = Math.min(best[size][name], await cpuMs(() => replay(v.bundle, histories[size][v.which])));
      }
    }
  }
  const steps = input.large.n - input.small.n;
  const promises = fill(names, 0);
  for (const name of names) {
    const v = variants[name];
    promises[name] =
      ((await promisesIn(v.bundle, histories.large[v.which])) -
        (await promisesIn(v.bundle, histories.small[v.which]))) /
      steps;
  }
  const perStep = Object.fromEntries(
    names.map((name) => [name, (best.large[name] - best.small[name]) / steps]),
  ) as Record<Variant, number>;
  return { rounds: ROUNDS, perStep, promises };
}

const fill = <K extends string>(keys: K[], value: number) =>
  Object.fromEntries(keys.map((k) => [k, value])) as Record<K, number>;

type Bundle = Awaited<ReturnType<typeof bundleOnce>>;

function replay(workflowBundle: Bundle, events: HistoryEvent[]): Promise<void> {
  return Worker.runReplayHistory({ workflowBundle, sinks: silentSpanSinks }, { events }, 'bench-replay');
}

/** CPU time of this process (user + system, every thread) while `fn` runs. */
async function cpuMs(fn: () => Promise<void>): Promise<number> {
  const start = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** How many promises a replay creates in the workflow context (its Promise is not this realm's). */
async function promisesIn(workflowBundle: Bundle, events: HistoryEvent[]): Promise<number> {
  let count = 0;
  const stop = v8.promiseHooks.onInit((promise) => {
    if (promise.constructor !== Promise) count++;
  });
  try {
    await replay(workflowBundle, events);
  } finally {
    stop();
  }
  return count;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const input = ReplayInput.parse(JSON.parse(process.argv[2] ?? 'null'));
  console.log(JSON.stringify(await measure(input)));
  process.exit(0);
}
