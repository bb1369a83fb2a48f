/**
 * The step limit's measurement (issue 38): the largest plan validatePlan allows by default
 * (DEFAULT_MAX_STEPS = 1000 steps), run to its end on the embedded server with the shipped
 * workflow bundle, as independent steps (all ready at once: one workflow task schedules
 * them all) and as a chain (each step uses the one before). For each: the workflow tasks
 * of every run from history (WorkflowTaskStarted → WorkflowTaskCompleted event times; the
 * longest, and what it did), any timed-out or failed workflow task, and the plan audit
 * (history rebuilt, compared, replayed). The deadlines: the TypeScript SDK fails a workflow
 * task whose workflow code runs 5 s without yielding (`isolateExecutionTimeout`, "potential
 * deadlock"), the server one not completed in 10 s (the default workflow task timeout);
 * issue 38 met a first task of a 5000-step plan over 5 s.
 *
 *   node --import tsx bench/plan-limit.ts
 *   BENCH_LIMIT_STEPS=2000 BENCH_LIMIT_SHAPES=independent node --import tsx bench/plan-limit.ts
 *
 * (a size above the default raises the plan's maxSteps to it). `BENCH_LIMIT_SHAPES=foreach`:
 * one for-each step of N items instead (not a default shape: the limit counts steps). Beside the independent steps,
 * the floor: a bare workflow (bench/temporal-floor-workflow.ts, no Navigator code) that
 * starts as many activities from its first task, on a worker of its own, same server. `BENCH_LIMIT_STEP_MS` is
 * how long each step's tool works (20 ms, as in the plan curve of `npm run bench -- temporal`).
 */
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { temporal } from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { z } from 'zod';
import { createActivities } from '../src/activities/index.ts';
import type { AgentRegistry, RegisteredAgent } from '../src/activities/agents.ts';
import { auditPlan } from '../src/audit/plan/audit.ts';
import { startPlan } from '../src/client/plan/client.ts';
import { startDevServer } from '../src/devserver/index.ts';
import { bundleOnce, createTestEnv } from '../src/devserver/testing.ts';
import { createScriptedModel } from '../src/llm/index.ts';
import { type Agent, defineAgent, defineTool } from '../src/navigator/index.ts';
import { catalogOf } from '../src/plans/catalog.ts';
import { DEFAULT_MAX_STEPS } from '../src/plans/limits.ts';
import type { StepSpecInput } from '../src/plans/schema.ts';
import { validatePlan } from '../src/plans/validate.ts';
import { silentSpanSinks } from '../src/telemetry/setup.ts';
import { workflowInterceptorModules, workflowsPath } from '../src/worker/index.ts';
import { fmtMs as p, percentiles } from './temporal-probe.ts';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type Shape = 'independent' | 'chain' | 'foreach';

const N = Number(process.env.BENCH_LIMIT_STEPS ?? DEFAULT_MAX_STEPS);
const SHAPES = (process.env.BENCH_LIMIT_SHAPES ?? 'independent,chain').split(',').map((s) => s.trim()) as Shape[];
const STEP_MS = Number(process.env.BENCH_LIMIT_STEP_MS ?? 20);

const work = defineTool({
  name: 'work',
  description: 'Works for a while, then answers.',
  input: z.object({ i: z.number().int(), ms: z.number().int().nonnegative() }),
  sideEffect: 'read_only',
  handler: async ({ i, ms }) => (await sleep(ms), { i }),
});
const planAgent = defineAgent({
  name: 'bench-plan-limit',
  prompt: 'bench',
  input: z.object({}),
  output: z.unknown(),
  tools: [work],
});
const registered: RegisteredAgent[] = [{ agent: planAgent as unknown as Agent, model: () => createScriptedModel([]) }];

function steps(shape: Shape, n: number): StepSpecInput[] {
  // one step whose N items (each its own activity) all start at once
  if (shape === 'foreach')
    return [
      {
        id: 'each',
        description: `${n} items`,
        tool: 'work',
        forEach: `(range ${n})`,
        maxItems: n,
        args: { i: { $expr: 'item' }, ms: STEP_MS },
      },
    ];
  return Array.from({ length: n }, (_, i) =>
    shape === 'independent' || i === 0
      ? { id: `s${i}`, description: `step ${i}`, tool: 'work', args: { i, ms: STEP_MS } }
      : {
          id: `s${i}`,
          description: `step ${i}`,
          tool: 'work',
          args: { i: `$s${i - 1}.i`, ms: STEP_MS },
          dependsOn: [`s${i - 1}`],
        },
  );
}

const millis = (e: HistoryEvent): number => {
  const t = e.eventTime;
  return t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : NaN;
};

/** Every workflow task of one run: started → completed, and the commands it made (events up to the next task). */
function tasksOf(events: HistoryEvent[]): { ms: number; activities: number; eventId: number }[] {
  const started = new Map<number, number>();
  const out: { ms: number; activities: number; eventId: number }[] = [];
  for (const [i, e] of events.entries()) {
    if (e.workflowTaskStartedEventAttributes) started.set(Number(e.eventId), millis(e));
    const done = e.workflowTaskCompletedEventAttributes;
    if (!done) continue;
    const at = started.get(Number(done.startedEventId));
    let activities = 0;
    for (let j = i + 1; j < events.length && !events[j]!.workflowTaskScheduledEventAttributes; j++)
      if (events[j]!.activityTaskScheduledEventAttributes) activities++;
    out.push({ ms: at === undefined ? NaN : millis(e) - at, activities, eventId: Number(e.eventId) });
  }
  return out;
}

const badTasks = (events: HistoryEvent[]) =>
  events.filter((e) => e.workflowTaskTimedOutEventAttributes || e.workflowTaskFailedEventAttributes).length;

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const env = await createTestEnv({
    workflowsPath,
    workflowInterceptorModules,
    worker: { sinks: silentSpanSinks },
    startWorker: false,
    startServer: () => startDevServer({ port: 0 }),
  });
  const agents: AgentRegistry = new Map(registered.map((e) => [e.agent.name, e]));
  const worker = await env.createWorker({ activities: createActivities({ agents, client: env.client }) });
  const running = worker.run();
  const catalog = catalogOf(agents, agents.get(planAgent.name)!);
  const options = N > DEFAULT_MAX_STEPS ? { maxSteps: N } : {};
  const floorQueue = `bench-limit-floor-${Date.now()}`;
  const floorWorker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.server.namespace,
    taskQueue: floorQueue,
    workflowBundle: await bundleOnce(new URL('./temporal-floor-workflow.ts', import.meta.url).pathname),
    activities: { work: (ms: number) => sleep(ms) },
  });
  const floorRunning = floorWorker.run();
  /** the bare workflow's N activities from one task, at the same load */
  const floorLine = async (): Promise<string> => {
    const handle = await env.client.workflow.start('benchFloorParallel', {
      taskQueue: floorQueue,
      workflowId: `bench-limit-floor-${N}-${Date.now()}`,
      args: [N, STEP_MS],
    });
    await handle.result();
    const tasks = tasksOf((await handle.fetchHistory()).events ?? []);
    const longest = tasks.reduce((a, b) => (b.ms > a.ms ? b : a));
    return `  floor, a bare workflow starting ${N} activities at once: longest workflow task ${p(longest.ms)} ms (${longest.activities} activities scheduled by it), ${tasks.length} tasks`;
  };
  try {
    await env.client.workflow.execute('benchFloorParallel', {
      taskQueue: floorQueue,
      workflowId: `bench-limit-floor-warm-${Date.now()}`,
      args: [10, STEP_MS],
    });
    // warm: the plan workflow's first run on this worker
    await (
      await startPlan(env.client, {
        agent: planAgent.name,
        approve: true,
        document: { steps: steps('independent', 10) },
        taskQueue: env.taskQueue,
      })
    ).result();
    for (const shape of SHAPES) {
      const doc = steps(shape, N);
      const v0 = performance.now();
      const problems = validatePlan(doc, catalog, [], options);
      const validateMs = performance.now() - v0;
      if (problems.length) throw new Error(`${shape}: ${JSON.stringify(problems.slice(0, 3))}`);
      const load = loadavg()[0]!.toFixed(1);
      const t0 = performance.now();
      const plan = await startPlan(env.client, {
        agent: planAgent.name,
        approve: true,
        document: { steps: doc },
        options,
        id: `bench-limit-${shape}-${N}-${Date.now()}`,
        taskQueue: env.taskQueue,
      });
      const summary = await plan.result();
      const total = performance.now() - t0;
      // every run, from the first (startPlan's handle is the one workflow.start gave)
      const runs: HistoryEvent[][] = [];
      for (let runId = (plan.workflow as { firstExecutionRunId?: string }).firstExecutionRunId; runId;) {
        const events = (await env.client.workflow.getHandle(plan.id, runId).fetchHistory()).events ?? [];
        runs.push(events);
        runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
      }
      const tasks = runs.flatMap((events, run) => tasksOf(events).map((t) => ({ ...t, run })));
      const longest = tasks.reduce((a, b) => (b.ms > a.ms ? b : a));
      const pct = percentiles(tasks.map((t) => t.ms));
      const a0 = performance.now();
      const audit = await auditPlan(env.client, plan.id, { workflowBundle: env.bundle, replayer: env.replayer });
      const auditMs = performance.now() - a0;
      console.log(
        [
          `${shape}, ${N} steps of ${STEP_MS} ms (load ${load}): ${(summary as { status?: string }).status ?? JSON.stringify(summary).slice(0, 80)} in ${(total / 1000).toFixed(1)} s; validatePlan ${p(validateMs)} ms`,
          `  workflow tasks: ${tasks.length} in ${runs.length} run(s), ${runs.reduce((n, r) => n + r.length, 0)} events; started → completed p50 ${p(pct.p50)} ms, p95 ${p(pct.p95)}, max ${p(pct.max)} ` +
            `(run ${longest.run + 1}, completed at event ${longest.eventId}, ${longest.activities} activities scheduled by it); timed out or failed: ${runs.reduce((n, r) => n + badTasks(r), 0)}`,
          `  the first run's tasks, ms: ${tasksOf(runs[0]!)
            .slice(0, 6)
            .map((t) => `${p(t.ms)}${t.activities ? ` (${t.activities} scheduled)` : ''}`)
            .join(', ')}, ...`,
          ...(shape === 'independent' ? [await floorLine()] : []),
          `  audit: ${audit.ok ? 'ok' : 'FAILED'} in ${(auditMs / 1000).toFixed(1)} s (${audit.steps.length} steps compared, ${audit.duplicateEffects.length} duplicate effects, replay ${audit.replay.ok ? 'ok' : audit.replay.errors.join('; ')})${audit.problems.length ? `; problems: ${audit.problems.slice(0, 3).join('; ')}` : ''}`,
        ].join('\n'),
      );
    }
  } finally {
    floorWorker.shutdown();
    await floorRunning.catch(() => undefined);
    worker.shutdown();
    await running.catch(() => undefined);
    await env.shutdown();
  }
}

await main();
