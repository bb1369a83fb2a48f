/**
 * Plan executor benchmarks on the embedded dev server with one in-process worker, each
 * against the same plan run in-process (the same scheduler rules from src/plans, tool
 * handlers called directly, no Temporal):
 *  1. a one-step plan, start → result: the fixed cost of a plan workflow;
 *  2. a chain of 10 dependent steps: scheduling overhead per step;
 *  3. 100 independent steps: total time and ready-to-running latency (from the `ready`
 *     progress event to the tool handler starting), median and worst.
 */
import { z } from 'zod';
import { createScriptedModel } from '../src/llm/index.ts';
import { createActivities } from '../src/activities/index.ts';
import type { AgentRegistry } from '../src/activities/agents.ts';
import { startPlan } from '../src/client/plan/client.ts';
import { createTestEnv, type TestEnv } from '../src/devserver/testing.ts';
import { defineAgent, defineTool } from '../src/navigator/index.ts';
import { buildPlan } from '../src/plans/build.ts';
import { readySteps } from '../src/plans/scheduler.ts';
import type { Catalog, Plan, StepSpecInput } from '../src/plans/schema.ts';
import { workflowInterceptorModules, workflowsPath } from '../src/worker/index.ts';
import { silentSpanSinks } from '../src/telemetry/setup.ts';
import { type BenchRow, medianMs } from './types.ts';

const tick = defineTool({
  name: 'tick',
  description: 'Returns when it started.',
  input: z.object({ n: z.number() }),
  sideEffect: 'read_only',
  handler: ({ n }) => ({ n, startedAt: Date.now() }),
});
const agent = defineAgent({
  name: 'bench-plans',
  prompt: 'bench',
  input: z.object({}),
  output: z.unknown(),
  tools: [tick],
});
const catalog: Catalog = {
  tools: new Map([['tick', { sideEffect: 'read_only', destructive: false, input: tick.input }]]),
  agents: new Set(),
};

const independent = (n: number): StepSpecInput[] =>
  Array.from({ length: n }, (_, i) => ({ id: `s${i}`, description: `step ${i}`, tool: 'tick', args: { n: i } }));
const chain = (n: number): StepSpecInput[] =>
  independent(n).map((s, i) => ({ ...s, dependsOn: i ? [`s${i - 1}`] : [] }));

/** The same plan without Temporal: ready steps run together, in rounds, by the same rules. */
async function runInProcess(steps: StepSpecInput[]): Promise<void> {
  const built = buildPlan({ id: 'p', taskId: 'p', createdAt: new Date().toISOString(), steps }, catalog);
  if (!built.ok) throw new Error('invalid bench plan');
  let plan: Plan = built.plan;
  for (let ready = readySteps(plan); ready.length; ready = readySteps(plan)) {
    const results = await Promise.all(
      ready.map(
        async (id) =>
          [
            id,
            await tick.handler(plan.steps.find((s) => s.id === id)!.args as { n: number }, {
              idempotencyKey: id,
              taskId: id,
              signal: new AbortController().signal,
            }),
          ] as const,
      ),
    );
    const done = new Map(results);
    plan = {
      ...plan,
      steps: plan.steps.map((s) =>
        done.has(s.id)
          ? {
              ...s,
              status: 'completed',
              result: { ok: true, value: done.get(s.id) as never, duration: 0, timestamp: '', attempts: 1 },
            }
          : s,
      ),
    };
  }
}

export async function benchPlans(): Promise<BenchRow[]> {
  const env: TestEnv = await createTestEnv({
    workflowsPath,
    workflowInterceptorModules,
    worker: { sinks: silentSpanSinks },
    startWorker: false,
  });
  const agents: AgentRegistry = new Map([['bench-plans', { agent, model: () => createScriptedModel([]) }]]);
  const worker = await env.createWorker({
    activities: createActivities({ agents, client: env.client }),
    maxConcurrentActivityTaskExecutions: 200,
  });
  const running = worker.run();
  let seq = 0;
  const run = async (steps: StepSpecInput[]) => {
    const plan = await startPlan(env.client, {
      agent: 'bench-plans',
      approve: true,
      document: { steps },
      id: `bench-plan-${++seq}`,
      taskQueue: env.taskQueue,
    });
    await plan.result();
    return plan;
  };
  const rows: BenchRow[] = [];
  try {
    const one = await medianMs(() => run(independent(1)), 10, 2);
    const oneLocal = await medianMs(() => runInProcess(independent(1)), 10, 2);
    rows.push({
      name: 'one-step plan, start → result',
      median_ms: one,
      baseline_ms: oneLocal,
      ratio: one / oneLocal,
      note: 'baseline: the same plan in-process',
    });

    const ten = await medianMs(() => run(chain(10)), 5, 1);
    const tenLocal = await medianMs(() => runInProcess(chain(10)), 5, 1);
    rows.push({
      name: 'chain of 10 dependent steps',
      median_ms: ten,
      baseline_ms: tenLocal,
      ratio: ten / tenLocal,
      note: `${((ten - one) / 9).toFixed(1)} ms per extra step on Temporal`,
    });

    const hundredTimes: number[] = [];
    let latencies: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      const plan = await run(independent(100));
      hundredTimes.push(performance.now() - t);
      const progress = await plan.progress();
      const readyAt = new Map(
        progress.events.filter((e) => e.status === 'ready').map((e) => [e.stepId, Date.parse(e.at)]),
      );
      latencies = progress.plan!.steps.map(
        (s) => (s.result!.value as { startedAt: number }).startedAt - readyAt.get(s.id)!,
      );
    }
    const hundredLocal = await medianMs(() => runInProcess(independent(100)), 5, 1);
    const sorted = [...latencies].sort((a, b) => a - b);
    const hundred = [...hundredTimes].sort((a, b) => a - b)[1]!;
    rows.push({
      name: '100 independent steps',
      median_ms: hundred,
      baseline_ms: hundredLocal,
      ratio: hundred / hundredLocal,
      note: `${(hundred / 100).toFixed(1)} ms per step`,
    });
    rows.push({
      name: '100 independent steps: ready → running',
      median_ms: sorted[Math.floor(sorted.length / 2)]!,
      note: `worst ${sorted.at(-1)} ms (ready event to the tool handler starting)`,
    });
  } finally {
    worker.shutdown();
    await running;
    await env.shutdown();
  }
  return rows;
}
