/**
 * The plan curve of `npm run bench -- temporal` (issue 30): a plan of N independent steps,
 * all ready at once (N = 5, 10, 100, 1000; `BENCH_CURVE_SIZES`), each a tool that works
 * 20 ms, on the lane's worker with its default slots; beside it the floor, a bare workflow
 * (no Navigator code) that starts N activities of the same 20 ms at once on a worker of
 * its own with the same slots, on the same server.
 *
 * Per step, from history event times joined with the worker's run of the activity:
 *  - ready: the workflow task that scheduled it started (the plan records the step `ready`
 *    at that time, workflow time);
 *  - scheduled: that task completed and the server wrote the step's ActivityTaskScheduled;
 *  - running: the worker started the activity (the probe; the embedded server writes its
 *    ActivityTaskStarted only when the activity ends, so the event time is not used).
 * Per run: start → result, how many activities ran at once, the rate at which the worker
 * got them, and the workflow tasks (count, the worker's time in them) and history size.
 *
 * Where the workflow's time goes, for the largest N: the plan's recorded history replayed
 * (workflow code only: no server, no activities; CPU time, the smallest N's replay taken
 * off), the bare workflow's history beside it, and the promises each creates in the workflow context
 * (the SDK captures a stack trace for every one). `BENCH_CURVE_KEEP_HISTORIES=dir` keeps the
 * histories it replays there (small-plan.bin, large-plan.bin, ...; History protobuf).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { startPlan } from '../src/client/plan/client.ts';
import { bundleOnce } from '../src/devserver/testing.ts';
import type { StepSpecInput } from '../src/plans/schema.ts';
import type { Figure, Lane } from './temporal.ts';
import { type Histories, type ReplayInput, ReplayOutput, encodeHistory } from './temporal-replay.ts';
import {
  type ActivitySpan,
  activitySpans,
  calibrateClock,
  fmtMs as p,
  maxInFlight,
  nowMs,
  percentiles,
  workflowTaskSpans,
} from './temporal-probe.ts';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const SIZES = sizesOf(process.env.BENCH_CURVE_SIZES ?? '5,10,100,1000');
/** timed runs per size: 1000-step plans load the machine for seconds, so they run once */
const runsOf = (n: number) => (n >= 1000 ? 1 : n >= 100 ? 3 : 5);
const STEP_MS = 20;

function sizesOf(given: string): number[] {
  const sizes = given.split(',').map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error(`BENCH_CURVE_SIZES: expected whole numbers >= 1 separated by commas, got ${given}`);
  // ascending: the replay figure takes the smallest size's histories from the largest's
  return [...new Set(sizes)].sort((a, b) => a - b);
}

/** What the curve needs from the bench's plan agent: its name, and N independent steps of its 20 ms tool. */
export interface CurvePlan {
  agent: string;
  steps(n: number): StepSpecInput[];
}

/** One run of N steps (or bare activities), as measured. */
interface Run {
  ready: number[];
  turn: number[];
  dispatch: number[];
  total: number;
  inFlight: number;
  /** activities handed to the worker per second, first to last start */
  rate: number;
  tasks: number;
  taskWork: number;
  events: number;
  runs: number;
  /** the first run's history */
  history: HistoryEvent[];
}

const floorPath = new URL('./temporal-floor-workflow.ts', import.meta.url).pathname;
const run = promisify(execFile);

export async function curveFigures(lane: Lane, plan: CurvePlan): Promise<Figure[]> {
  const slots = slotsOf(lane.worker);
  const taskQueue = `bench-curve-floor-${randomUUID().slice(0, 8)}`;
  const floorWorker = await Worker.create({
    connection: lane.env.nativeConnection,
    namespace: lane.env.server.namespace,
    taskQueue,
    workflowBundle: await bundleOnce(floorPath),
    activities: lane.probe.wrap({ work: (ms: number) => sleep(ms) }),
  });
  const running = floorWorker.run();
  const figures: Figure[] = [];
  const smallest: { plan?: HistoryEvent[]; bare?: HistoryEvent[] } = {};
  try {
    // warm: the plan workflow's first run on this worker, and the floor's
    await planRun(lane, plan, 10);
    await floorRun(lane, taskQueue, 10);
    for (const n of SIZES) {
      const plans: Run[] = [];
      const floors: Run[] = [];
      for (let i = 0; i < runsOf(n); i++) {
        plans.push(await planRun(lane, plan, n));
        floors.push(await floorRun(lane, taskQueue, n));
      }
      figures.push(
        {
          name: `plan curve: ${n} ready steps, ready → running`,
          samples: plans.flatMap((r) => r.ready),
          detail: describe(plans, slots),
        },
        {
          name: `plan curve: ${n} ready steps, start → result`,
          samples: plans.map((r) => r.total),
          detail: `${plans.length} run${plans.length > 1 ? 's' : ''}`,
        },
        {
          name: `plan curve floor: ${n} bare activities at once, ready → running`,
          samples: floors.flatMap((r) => r.ready),
          detail: describe(floors, slotsOf(floorWorker)),
        },
        { name: `plan curve floor: ${n} bare activities, start → result`, samples: floors.map((r) => r.total) },
      );
      if (n === Math.min(...SIZES))
        Object.assign(smallest, { plan: plans.at(-1)!.history, bare: floors.at(-1)!.history });
      if (n === Math.max(...SIZES) && n > Math.min(...SIZES)) {
        figures.push(
          await replayFigure(
            { n: Math.min(...SIZES), plan: smallest.plan!, bare: smallest.bare! },
            { n, plan: plans.at(-1)!.history, bare: floors.at(-1)!.history },
          ),
        );
      }
    }
  } finally {
    floorWorker.shutdown();
    await running;
  }
  return figures;
}

/** The worker's activity slots and pollers, as it was created (the SDK's defaults unless set). */
function slotsOf(worker: Worker): string {
  const supplier = worker.options.tuner.activityTaskSlotSupplier;
  const slots = supplier.type === 'fixed-size' ? `${supplier.numSlots}` : supplier.type;
  const pollers = worker.options.activityTaskPollerBehavior;
  return `${slots} activity slots, ${pollers.type === 'simple-maximum' ? pollers.maximum : `${pollers.minimum}-${pollers.maximum} autoscaling`} pollers`;
}

function describe(runs: Run[], slots: string): string {
  const all = (k: 'ready' | 'turn' | 'dispatch') => percentiles(runs.flatMap((r) => r[k]));
  const mid = (k: 'inFlight' | 'rate' | 'tasks' | 'taskWork' | 'events' | 'runs') =>
    percentiles(runs.map((r) => r[k])).p50;
  const ready = all('ready');
  return (
    `p95 ${p(ready.p95)}, max ${p(ready.max)}; ready → scheduled (the workflow task) ${p(all('turn').p50)}, scheduled → running ${p(all('dispatch').p50)} (p95 ${p(all('dispatch').p95)}); ` +
    `at most ${mid('inFlight')} at once of ${slots}, ${mid('rate').toFixed(0)} started/s; ` +
    `${mid('tasks')} workflow tasks, the worker's time in them ${p(mid('taskWork'))}; ${mid('events')} events in ${mid('runs')} run${mid('runs') > 1 ? 's' : ''}`
  );
}

async function planRun(lane: Lane, plan: CurvePlan, n: number): Promise<Run> {
  calibrateClock();
  const t0 = nowMs();
  const handle = await startPlan(lane.env.client, {
    agent: plan.agent,
    approve: true,
    document: { steps: plan.steps(n) },
    id: `bench-curve-plan-${n}-${randomUUID().slice(0, 8)}`,
    taskQueue: lane.env.taskQueue,
  });
  const summary = await handle.result();
  const total = nowMs() - t0;
  // startPlan's handle is the one workflow.start gave, with the first run's id
  const firstRunId = (handle.workflow as Partial<WorkflowHandleWithFirstExecutionRunId>).firstExecutionRunId;
  return measured(lane, handle.workflow.workflowId, firstRunId, 'runPlanStep', n, total, () =>
    JSON.stringify(summary).slice(0, 300),
  );
}

async function floorRun(lane: Lane, taskQueue: string, n: number): Promise<Run> {
  calibrateClock();
  const t0 = nowMs();
  const handle = await lane.env.client.workflow.start('benchFloorParallel', {
    taskQueue,
    workflowId: `bench-curve-floor-${n}-${randomUUID().slice(0, 8)}`,
    args: [n, STEP_MS],
  });
  await handle.result();
  const total = nowMs() - t0;
  return measured(lane, handle.workflowId, handle.firstExecutionRunId, 'work', n, total, () => 'bare workflow');
}

/** Reads every run of the workflow (it may continue as new) and measures its `type` activities. */
async function measured(
  lane: Lane,
  workflowId: string,
  firstRunId: string | undefined,
  type: string,
  n: number,
  total: number,
  what: () => string,
): Promise<Run> {
  const histories = await historiesOf(lane, workflowId, firstRunId);
  const runs = lane.probe.of(workflowId);
  lane.probe.clear();
  const spans: ActivitySpan[] = histories
    .flatMap((events) => activitySpans(events, runs))
    .filter((s) => s.type === type);
  if (spans.length !== n || spans.some((s) => !s.run))
    throw new Error(
      `${workflowId}: ${spans.length} ${type} activities in history (${spans.filter((s) => s.run).length} seen on the worker), expected ${n}: ${what()}`,
    );
  const tasks = histories.flatMap((events) => workflowTaskSpans(events));
  const starts = spans.map((s) => s.run!.start);
  const spread = Math.max(...starts) - Math.min(...starts);
  return {
    ready: spans.map((s) => s.run!.start - s.decided),
    turn: spans.map((s) => s.scheduled - s.decided),
    dispatch: spans.map((s) => s.run!.start - s.scheduled),
    total,
    inFlight: maxInFlight(spans),
    rate: spread > 0 ? ((n - 1) * 1000) / spread : NaN,
    tasks: tasks.length,
    taskWork: tasks.reduce((a, t) => a + t.completed - t.started, 0),
    events: histories.reduce((a, events) => a + events.length, 0),
    runs: histories.length,
    history: histories[0]!,
  };
}

/** The history of each run of a workflow, following continue-as-new from its first run. */
async function historiesOf(lane: Lane, workflowId: string, runId: string | undefined): Promise<HistoryEvent[][]> {
  const out: HistoryEvent[][] = [];
  for (let next = runId; next;) {
    const events = (await lane.env.client.workflow.getHandle(workflowId, next).fetchHistory()).events ?? [];
    out.push(events);
    next = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return out;
}

// ---------------------------------------------------------------- where the workflow's time goes

/**
 * The replay figure, from a child process (bench/temporal-replay.ts): replaying installs the
 * SDK's promise hook and stack-trace override in the thread that replays, for good, which
 * would slow down (and once crashed) the rest of this process.
 */
async function replayFigure(small: Histories, large: Histories): Promise<Figure> {
  const keep = process.env.BENCH_CURVE_KEEP_HISTORIES;
  const dir = keep ?? (await mkdtemp(join(tmpdir(), 'bench-replay-')));
  try {
    const files: ReplayInput = {
      small: { n: small.n, plan: join(dir, 'small-plan.bin'), bare: join(dir, 'small-bare.bin') },
      large: { n: large.n, plan: join(dir, 'large-plan.bin'), bare: join(dir, 'large-bare.bin') },
    };
    for (const size of ['small', 'large'] as const) {
      const h = size === 'small' ? small : large;
      await writeFile(files[size].plan, encodeHistory(h.plan));
      await writeFile(files[size].bare, encodeHistory(h.bare));
    }
    const script = new URL('./temporal-replay.ts', import.meta.url).pathname;
    const { stdout } = await run(process.execPath, [...process.execArgv, script, JSON.stringify(files)], {
      maxBuffer: 1 << 20,
    });
    const r = ReplayOutput.parse(JSON.parse(stdout.trim().split('\n').at(-1)!));
    return {
      name: `plan curve replay: workflow CPU ms per step (${large.n} - ${small.n} steps)`,
      samples: [r.perStep.shipped],
      detail:
        `bare workflow ${p(r.perStep.bare)} per activity (best of ${r.rounds}); promises in the workflow ${r.promises.shipped.toFixed(0)} per step, bare ${r.promises.bare.toFixed(0)} per activity ` +
        `(an untraced plan, without the OpenTelemetry workflow interceptor)`,
    };
  } finally {
    if (!keep) await rm(dir, { recursive: true, force: true });
  }
}
