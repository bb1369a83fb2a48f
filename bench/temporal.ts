/**
 * `npm run bench -- temporal`: the Temporal overhead a user feels, on the embedded server
 * and, when the Temporal CLI is there (`npm run temporal:build`), on a real `temporal
 * server start-dev` in the same run. Each lane: one server, one in-process worker with the
 * shipped workflow bundle and default slots, scripted models (no network), real activities.
 *
 * Our own time is measured where it runs and taken out, so what is left is Temporal's:
 * an activity's own time is the worker's run of it minus the workflow queries it made
 * (runPass reads its journal by query when its input does not carry it: that query is
 * Temporal overhead); history event
 * times say when the server scheduled, started and completed it, and when the workflow
 * task that acted on its result completed ("applied").
 *
 *  1. pass: a one-pass mission; runPass scheduled → applied, minus the pass's own time;
 *     and the whole mission (start → result) minus the pass's own time.
 *  0. floor: a bare workflow (no Navigator code) running no-op activities: what any
 *     Temporal application pays per activity and workflow task on that server and worker.
 *  2. effects: missions with N = 1, 5, 20 external effects, all at once (pmap) or one
 *     after the other (each its own suspension); from the suspending pass applied to the
 *     last resumed pass applied, minus the resumed passes' own time, per effect.
 *  3. decision: a mission waiting for a decision; decide update sent → acknowledged,
 *     → the next pass's activity running, → mission completed; and an effect waiting
 *     for approval: approveEffect sent → its activity running, and the same from an Approve
 *     click in the web console (bench/temporal-console.ts): what an approver feels.
 *  4. plans: N = 1, 5, 20, 50 independent steps and a chain of N, each step a tool that
 *     works 20 ms; overhead per step, and how many steps ran at once.
 *  5. curve: N = 5, 10, 100, 1000 ready steps, per step ready → running (p50/p95/max) and
 *     the whole plan, beside a bare workflow starting N activities (temporal-plan-curve.ts).
 *
 * `BENCH_TEMPORAL_PARTS=curve` (or `floor,pass,...`) runs some parts; `BENCH_TEMPORAL_REAL=0`
 * only the embedded server; `BENCH_TEMPORAL_RUNS` the runs per figure.
 *
 * Rows: `median ms` is the embedded server's p50, `baseline ms` the real server's p50,
 * `ratio` embedded / real; the note has both p90s and what the figure is made of.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WorkflowHandle } from '@temporalio/client';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { z } from 'zod';
import { createActivities } from '../src/activities/index.ts';
import type { AgentRegistry, RegisteredAgent } from '../src/activities/agents.ts';
import { startPlan } from '../src/client/plan/client.ts';
import { startDevServer } from '../src/devserver/index.ts';
import { bundleOnce, createTestEnv, type TestEnv } from '../src/devserver/testing.ts';
import { createScriptedModel } from '../src/llm/index.ts';
import { type Agent, defineAgent, defineTool, runNavigator } from '../src/navigator/index.ts';
import type { StepSpecInput } from '../src/plans/schema.ts';
import { programEvaluator } from '../src/sandbox/index.ts';
import { findTemporalCli, startTemporalDevServer } from '../src/temporal/cli-server.ts';
import { silentSpanSinks } from '../src/telemetry/setup.ts';
import { workflowInterceptorModules, workflowsPath } from '../src/worker/index.ts';
import type { MissionInput } from '../src/workflows/mission/contract.ts';
import { approveEffectUpdate, decideUpdate, statusQuery } from '../src/workflows/mission/messages.ts';
import { benchAgents, onePass, repeatingModel, onePassProgram } from './agents/mission-agents.ts';
import { waitFor } from './mission.ts';
import { curveFigures } from './temporal-plan-curve.ts';
import { consoleClicks } from './temporal-console.ts';
import {
  ActivityProbe,
  type ActivitySpan,
  type TaskSpan,
  activitySpans,
  calibrateClock,
  fmtMs as p,
  maxInFlight,
  nowMs,
  percentiles,
  workflowTaskSpans,
} from './temporal-probe.ts';
import type { BenchRow } from './types.ts';

/** timed runs per figure (`BENCH_TEMPORAL_RUNS`); plans of 50 steps run half as often */
const RUNS = Number(process.env.BENCH_TEMPORAL_RUNS ?? 10);
const WARMUP = 2;
const EFFECT_COUNTS = [1, 5, 20];
const ALL_PARTS = ['floor', 'pass', 'effects', 'decision', 'plans', 'curve'] as const;
type Part = (typeof ALL_PARTS)[number];
/** which parts run (`BENCH_TEMPORAL_PARTS=floor,curve`): all by default */
const PARTS: Part[] = partsOf(process.env.BENCH_TEMPORAL_PARTS);
const PLAN_SIZES = [1, 5, 20, 50];
/** how long each plan step's tool works, so steps that run at once show it */
const STEP_MS = 20;

type Kind = 'embedded' | 'real';

/** One figure of one lane: its samples (ms) and what it is made of (p50s of the parts). */
export interface Figure {
  name: string;
  samples: number[];
  detail?: string;
}

export interface Lane {
  env: TestEnv;
  /** the lane's worker (its slots are printed beside the plan curve) */
  worker: Worker;
  probe: ActivityProbe;
  start(workflowType: string, input: unknown, workflowId?: string): Promise<WorkflowHandle>;
  spans(workflowId: string): Promise<ActivitySpan[]>;
  history(workflowId: string): Promise<{ spans: ActivitySpan[]; tasks: TaskSpan[] }>;
}

const work = defineTool({
  name: 'work',
  description: 'Works for a while, then answers.',
  input: z.object({ i: z.number().int(), ms: z.number().int().nonnegative() }),
  sideEffect: 'read_only',
  handler: async ({ i, ms }) => (await sleep(ms), { i }),
});
/** External and guarded: each call waits for a person's approval, then runs as its own activity. */
const guarded = defineTool({
  name: 'guarded',
  description: 'Answers once approved.',
  input: z.object({ i: z.number().int() }),
  sideEffect: 'external',
  requiresApproval: true,
  handler: ({ i }) => ({ i }),
});
const approvedAgent = defineAgent({
  name: 'bench-approved',
  prompt: 'Call guarded once.',
  input: z.object({}),
  output: z.unknown(),
  tools: [guarded],
  limits: { maxTurns: 2 },
});
const approvedProgram = `(return {:r (task "g" (tool/guarded {:i 1}))})`;
const planAgent = defineAgent({
  name: 'bench-temporal-plans',
  prompt: 'bench',
  input: z.object({}),
  output: z.unknown(),
  tools: [work],
});
const registered: RegisteredAgent[] = [
  ...benchAgents,
  { agent: approvedAgent as unknown as Agent, model: repeatingModel(approvedProgram) },
  { agent: planAgent as unknown as Agent, model: () => createScriptedModel([]) },
];

const p50 = (xs: number[]) => percentiles(xs).p50;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

export async function benchTemporal(): Promise<BenchRow[]> {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // already installed by another suite
  }
  let pass: Promise<number> | undefined;
  const library = () => (pass ??= libraryPass());
  const embedded = await inLane('embedded', library);
  let real: Figure[] | string;
  try {
    if (process.env.BENCH_TEMPORAL_REAL === '0') real = 'not run (BENCH_TEMPORAL_REAL=0)';
    else real = findTemporalCli() ? await inLane('real', library) : 'not run: no Temporal CLI (npm run temporal:build)';
  } catch (e) {
    real = `FAILED: ${(e as Error).message.split('\n')[0]}`;
  }
  return rows(embedded, real);
}

function partsOf(given: string | undefined): Part[] {
  if (!given) return [...ALL_PARTS];
  const wanted = given.split(',').map((s) => s.trim());
  const unknown = wanted.filter((w) => !(ALL_PARTS as readonly string[]).includes(w));
  if (unknown.length)
    throw new Error(`BENCH_TEMPORAL_PARTS: unknown part ${unknown.join(', ')}; the parts are ${ALL_PARTS.join(', ')}`);
  return ALL_PARTS.filter((part) => wanted.includes(part));
}

/** The one-pass mission's pass in library mode (same model, same sandbox): the work without Temporal. */
async function libraryPass(): Promise<number> {
  const evaluate = programEvaluator();
  const model = repeatingModel(onePassProgram);
  const times: number[] = [];
  for (let i = 0; i < 30 + WARMUP * 5; i++) {
    const t = nowMs();
    await runNavigator(onePass, { input: {}, model: model(), evaluate });
    if (i >= WARMUP * 5) times.push(nowMs() - t);
  }
  return p50(times);
}

async function inLane(kind: Kind, library: () => Promise<number>): Promise<Figure[]> {
  const startServer = kind === 'embedded' ? () => startDevServer({ port: 0 }) : () => startTemporalDevServer();
  const env = await createTestEnv({
    workflowsPath,
    workflowInterceptorModules,
    worker: { sinks: silentSpanSinks },
    startWorker: false,
    startServer,
  });
  const probe = new ActivityProbe();
  const agents: AgentRegistry = new Map(registered.map((e) => [e.agent.name, e]));
  const activities = createActivities({ agents, client: probe.client(env.connection, env.server.namespace) });
  const worker = await env.createWorker({ activities: probe.wrap(activities) });
  const running = worker.run();
  let seq = 0;
  const lane: Lane = {
    env,
    worker,
    probe,
    async start(workflowType, input, workflowId = `bench-temporal-${++seq}-${randomUUID().slice(0, 8)}`) {
      return env.client.workflow.start(workflowType, { taskQueue: env.taskQueue, workflowId, args: [input] });
    },
    async history(workflowId) {
      const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
      return { spans: activitySpans(events, probe.of(workflowId)), tasks: workflowTaskSpans(events) };
    },
    async spans(workflowId) {
      return (await lane.history(workflowId)).spans;
    },
  };
  try {
    console.error(`bench temporal: ${kind} server`);
    const parts: Record<Part, () => Promise<Figure[]>> = {
      floor: () => floorFigures(lane),
      pass: async () => passFigures(lane, await library()),
      effects: () => effectFigures(lane),
      decision: () => decisionFigures(lane),
      plans: () => planFigures(lane),
      curve: () => curveFigures(lane, { agent: planAgent.name, steps: independent }),
    };
    const figures: Figure[] = [];
    for (const part of PARTS) figures.push(...(await parts[part]()));
    return figures;
  } finally {
    worker.shutdown();
    await running.catch(() => undefined);
    await env.shutdown();
  }
}

const mission = (lane: Lane, input: MissionInput) => lane.start('navigatorMission', input);

/** Runs `once` WARMUP + runs times and keeps the timed ones. */
async function repeat<T>(runs: number, once: () => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < WARMUP + runs; i++) {
    calibrateClock();
    const got = await once();
    if (i >= WARMUP) out.push(got);
  }
  return out;
}

/** A mission run to its end: client time start → result, its activity spans, and the passes' own time. */
async function missionRun(lane: Lane, input: MissionInput) {
  const t0 = nowMs();
  const handle = await mission(lane, input);
  await handle.result();
  const e2e = nowMs() - t0;
  const { spans, tasks } = await lane.history(handle.workflowId);
  lane.probe.clear();
  const passes = spans.filter((s) => s.type === 'runPass');
  return { e2e, spans, tasks, passes, own: sum(passes.map((s) => s.ownMs)) };
}

// ---------------------------------------------------------------- 0. Temporal's floor

const floorWorkflow = new URL('./temporal-floor-workflow.ts', import.meta.url).pathname;

/** A bare workflow's activities and workflow tasks on the same server, from a worker of its own. */
async function floorFigures(lane: Lane): Promise<Figure[]> {
  const taskQueue = `bench-floor-${randomUUID().slice(0, 8)}`;
  const worker = await Worker.create({
    connection: lane.env.nativeConnection,
    namespace: lane.env.server.namespace,
    taskQueue,
    workflowBundle: await bundleOnce(floorWorkflow),
    activities: lane.probe.wrap({ noop: async () => undefined }),
  });
  const running = worker.run();
  try {
    const got = await repeat(RUNS, async () => {
      const workflowId = `bench-floor-${randomUUID().slice(0, 8)}`;
      await lane.env.client.workflow.execute('benchFloor', { taskQueue, workflowId, args: [3] });
      const { spans, tasks } = await lane.history(workflowId);
      lane.probe.clear();
      return {
        activities: spans.map((s) => s.applied - s.scheduled - s.ownMs),
        tasks: tasks.map((t) => t.completed - t.scheduled),
        work: tasks.map((t) => t.completed - t.started),
      };
    });
    return [
      {
        name: 'floor: bare activity, scheduled → applied',
        samples: got.flatMap((g) => g.activities),
        detail: 'a no-op activity of a workflow without Navigator code or interceptors',
      },
      {
        name: 'floor: bare workflow task, scheduled → completed',
        samples: got.flatMap((g) => g.tasks),
        detail: `started → completed ${p(p50(got.flatMap((g) => g.work)))}`,
      },
    ];
  } finally {
    worker.shutdown();
    await running;
  }
}

// ---------------------------------------------------------------- 1. pass

async function passFigures(lane: Lane, library: number): Promise<Figure[]> {
  const got = await repeat(RUNS * 2, async () => {
    const m = await missionRun(lane, { agent: 'bench-one-pass' });
    const pass = m.passes[0]!;
    const run = pass.run!;
    return {
      overhead: pass.applied - pass.scheduled - pass.ownMs,
      // worker-side times: the embedded server writes an activity's started event when it completes
      dispatch: run.start - pass.scheduled,
      query: run.queryMs,
      report: pass.completed - run.end,
      acted: pass.applied - pass.completed,
      own: pass.ownMs,
      mission: m.e2e - m.own,
      tasks: m.tasks.length,
      taskDispatch: m.tasks.map((t) => t.started - t.scheduled),
      taskWork: m.tasks.map((t) => t.completed - t.started),
    };
  });
  const col = <K extends 'overhead' | 'dispatch' | 'query' | 'report' | 'acted' | 'own' | 'mission' | 'tasks'>(k: K) =>
    got.map((g) => g[k]);
  return [
    {
      name: 'pass: scheduled → applied, minus its own time',
      samples: col('overhead'),
      detail:
        `dispatch ${p(p50(col('dispatch')))} + journal query ${p(p50(col('query')))} + report ${p(p50(col('report')))} + workflow task ${p(p50(col('acted')))}; ` +
        `own time ${p(p50(col('own')))} (library mode ${p(library)})`,
    },
    {
      name: 'one-pass mission: start → result, minus the pass',
      samples: col('mission'),
      detail: `start, describeAgent, the pass, result: ${p50(col('tasks'))} workflow tasks`,
    },
    {
      name: 'workflow task: scheduled → completed',
      samples: got.flatMap((g) => g.taskDispatch.map((d, i) => d + g.taskWork[i]!)),
      detail: `scheduled → started ${p(p50(got.flatMap((g) => g.taskDispatch)))}, started → completed (the worker's turn) ${p(p50(got.flatMap((g) => g.taskWork)))}`,
    },
  ];
}

// ---------------------------------------------------------------- 2. effects

async function effectFigures(lane: Lane): Promise<Figure[]> {
  // the same mission without effects: what effects add is measured beyond it
  const base = p50(
    (await repeat(RUNS, () => missionRun(lane, { agent: 'bench-sequential', input: { n: 0 } }))).map(
      (m) => m.e2e - m.own,
    ),
  );
  const figures: Figure[] = [];
  for (const [agent, how] of [
    ['bench-effects', 'at once (pmap)'],
    ['bench-sequential', 'one after another'],
  ] as const) {
    for (const n of EFFECT_COUNTS) {
      const got = await repeat(n >= 20 ? Math.ceil(RUNS / 2) : RUNS, async () => {
        const m = await missionRun(lane, { agent, input: { n } });
        const first = m.passes[0]!;
        const last = m.passes.at(-1)!;
        const tools = m.spans.filter((s) => s.type === 'runTool');
        // from the pass that asked for the effects being applied to the last resumed pass
        // being applied, minus the resumed passes' own time (the tools answer at once)
        const added = last.applied - first.applied - sum(m.passes.slice(1).map((s) => s.ownMs));
        const gaps = m.passes.slice(1).map((resume, i) => resume.scheduled - m.passes[i]!.completed);
        return { perEffect: added / n, mission: (m.e2e - m.own - base) / n, gap: sum(gaps) / n, tools: tools.length };
      });
      const tools = got.map((g) => g.tools);
      if (tools.some((t) => t !== n))
        throw new Error(`${agent} n=${n}: ${tools.join(',')} runTool activities, expected ${n} each`);
      figures.push({
        name: `effect: ${n} ${how}, per effect`,
        samples: got.map((g) => g.perEffect),
        detail: `suspend → resume ${p(p50(got.map((g) => g.gap)))} + the resumed pass; client-timed mission beyond the effect-free one (${p(base)}) ${p(p50(got.map((g) => g.mission)))}`,
      });
    }
  }
  return figures;
}

// ---------------------------------------------------------------- 3. decision

async function decisionFigures(lane: Lane): Promise<Figure[]> {
  const got = await repeat(RUNS, async () => {
    const handle = await mission(lane, { agent: 'bench-parked' });
    await waitFor(handle, 'go_ahead');
    const t0 = nowMs();
    await handle.executeUpdate(decideUpdate, { args: [{ key: 'go_ahead', value: 'approved', by: 'bench' }] });
    const ack = nowMs() - t0;
    await handle.result();
    const done = nowMs() - t0;
    const next = lane.probe.runs.find(
      (r) => r.type === 'runPass' && r.workflowId === handle.workflowId && r.start >= t0,
    );
    const spans = await lane.spans(handle.workflowId);
    lane.probe.clear();
    const own = spans.filter((s) => s.type === 'runPass').at(-1)!.ownMs;
    return { ack, next: next ? next.start - t0 : NaN, done, doneOverhead: done - own };
  });
  const col = (k: keyof (typeof got)[number]) => got.map((g) => g[k]);
  const approval = await repeat(RUNS, async () => {
    const handle = await mission(lane, { agent: 'bench-approved' });
    const key = await pendingApproval(handle);
    const t0 = nowMs();
    await handle.executeUpdate(approveEffectUpdate, { args: [{ key, approved: true, by: 'bench' }] });
    const ack = nowMs() - t0;
    await handle.result();
    const tool = lane.probe.runs.find((r) => r.type === 'runTool' && r.workflowId === handle.workflowId);
    lane.probe.clear();
    return { ack, started: tool ? tool.start - t0 : NaN };
  });
  const park = async () => {
    const handle = await mission(lane, { agent: 'bench-approved' });
    await pendingApproval(handle);
    return handle;
  };
  await consoleClicks({ client: lane.env.client, taskQueue: lane.env.taskQueue, probe: lane.probe }, WARMUP, park);
  const clicks = await consoleClicks(
    { client: lane.env.client, taskQueue: lane.env.taskQueue, probe: lane.probe },
    RUNS,
    park,
  );
  return [
    { name: 'decision: update sent → acknowledged', samples: col('ack') },
    {
      name: 'decision: update sent → next pass running',
      samples: col('next'),
      detail: 'until the runPass activity starts on the worker',
    },
    {
      name: 'decision: update sent → mission completed, minus the pass',
      samples: col('doneOverhead'),
      detail: `raw ${p(p50(col('done')))}`,
    },
    {
      name: 'approval: approveEffect sent → the effect running',
      samples: approval.map((a) => a.started),
      detail: `until its runTool activity starts on the worker; acknowledged ${p(p50(approval.map((a) => a.ack)))}`,
    },
    {
      name: 'approval: Approve clicked in the console → the effect running',
      samples: clicks.map((c) => c.started),
      detail: `the form POST a browser sends, to a running console (its handler reads the args, sends approveEffect); the console answered after ${p(p50(clicks.map((c) => c.answered)))}`,
    },
  ];
}

/** Polls the status until one effect waits for approval; its key. */
async function pendingApproval(handle: WorkflowHandle): Promise<string> {
  for (let i = 0; i < 12_000; i++) {
    const status = await handle.query(statusQuery).catch(() => null);
    const key = status?.effectApprovals[0]?.key;
    if (key) return key;
    if (status && ['completed', 'failed', 'cancelled'].includes(status.status))
      throw new Error(`${handle.workflowId} ended (${status.status}) without asking for approval`);
    await sleep(5);
  }
  throw new Error(`${handle.workflowId} never asked for approval`);
}

// ---------------------------------------------------------------- 4. plans

const independent = (n: number): StepSpecInput[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `s${i}`,
    description: `step ${i}`,
    tool: 'work',
    args: { i, ms: STEP_MS },
  }));
const chain = (n: number): StepSpecInput[] =>
  independent(n).map((s, i) => ({ ...s, dependsOn: i ? [`s${i - 1}`] : [] }));

async function planFigures(lane: Lane): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const [shape, steps] of [
    ['independent', independent],
    ['chain', chain],
  ] as const) {
    for (const n of PLAN_SIZES) {
      const got = await repeat(n >= 50 ? Math.ceil(RUNS / 2) : RUNS, async () => {
        const t0 = nowMs();
        const plan = await startPlan(lane.env.client, {
          agent: planAgent.name,
          approve: true,
          document: { steps: steps(n) },
          id: `bench-temporal-plan-${randomUUID().slice(0, 8)}`,
          taskQueue: lane.env.taskQueue,
        });
        const summary = await plan.result();
        const total = nowMs() - t0;
        const spans = (await lane.spans(plan.id)).filter((s) => s.type === 'runPlanStep');
        lane.probe.clear();
        if (spans.length !== n)
          throw new Error(
            `plan of ${n} ${shape} steps ran ${spans.length} steps: ${JSON.stringify(summary).slice(0, 300)}`,
          );
        const span = Math.max(...spans.map((s) => s.applied)) - Math.min(...spans.map((s) => s.scheduled));
        // a chain's steps take turns; independent ones overlap, so only the longest counts
        const own = shape === 'chain' ? sum(spans.map((s) => s.ownMs)) : Math.max(...spans.map((s) => s.ownMs));
        return { perStep: (span - own) / n, total, span, inFlight: maxInFlight(spans) };
      });
      figures.push({
        name: `plan: ${n} ${shape} step${n > 1 ? 's' : ''}, overhead per step`,
        samples: got.map((g) => g.perStep),
        detail: `total ${p(p50(got.map((g) => g.total)))} (start → result), steps ${p(p50(got.map((g) => g.span)))}; at most ${Math.max(...got.map((g) => g.inFlight))} of ${n} at once`,
      });
    }
  }
  return figures;
}

// ---------------------------------------------------------------- the table

function rows(embedded: Figure[], real: Figure[] | string): BenchRow[] {
  const realByName = new Map(typeof real === 'string' ? [] : real.map((f) => [f.name, f]));
  const out: BenchRow[] = embedded.map((f) => {
    const e = percentiles(f.samples);
    const r = realByName.get(f.name);
    const rp = r ? percentiles(r.samples) : undefined;
    const note = [
      `p90 ${p(e.p90)}${rp ? ` / ${p(rp.p90)}` : ''} (${e.n} runs)`,
      f.detail && `embedded: ${f.detail}`,
      r?.detail && `real: ${r.detail}`,
    ]
      .filter(Boolean)
      .join('; ');
    return { name: f.name, median_ms: e.p50, ...(rp ? { baseline_ms: rp.p50, ratio: e.p50 / rp.p50 } : {}), note };
  });
  out.unshift({
    name: 'columns: median = embedded server p50, baseline = temporal server start-dev p50, ratio = embedded / real',
    median_ms: NaN,
    note: typeof real === 'string' ? `real server ${real}` : 'p90s in the note as embedded / real',
  });
  return out;
}
