/**
 * The probe `npm run bench -- temporal` measures Temporal's overhead with: every activity
 * run of a real mission is recorded on the worker and joined with its history events, and
 * the times line up (scheduled, run on the worker, completed, acted on by a workflow task).
 * Orderings and counts only, no durations: the figures themselves are the bench's.
 */
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../src/activities/index.ts';
import { createTestEnv, type TestEnv } from '../../src/devserver/testing.ts';
import { silentSpanSinks } from '../../src/telemetry/setup.ts';
import { workflowInterceptorModules, workflowsPath } from '../../src/worker/index.ts';
import { benchAgents } from '../../bench/agents/mission-agents.ts';
import {
  ActivityProbe,
  activitySpans,
  calibrateClock,
  percentiles,
  workflowTaskSpans,
} from '../../bench/temporal-probe.ts';

// event times have millisecond resolution on the embedded server, the probe's have less
const TICK = 1;

let env: TestEnv;
const probe = new ActivityProbe();
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  env = await createTestEnv({
    workflowsPath,
    workflowInterceptorModules,
    worker: { sinks: silentSpanSinks },
    startWorker: false,
  });
  const agents = new Map(benchAgents.map((e) => [e.agent.name, e]));
  worker = await env.createWorker({
    activities: probe.wrap(createActivities({ agents, client: probe.client(env.connection, env.server.namespace) })),
  });
  running = worker.run();
});
afterAll(async () => {
  // the worker first: the connection cannot close while a worker holds it
  worker?.shutdown();
  await running;
  await env?.shutdown();
});

describe('the overhead probe', () => {
  it('joins every activity of a mission with its run on the worker, in time order', async () => {
    calibrateClock();
    // a journal too big to give the first step in its input: it queries; its resume does not
    const journal = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`notes_${i}`, 'x'.repeat(1000)]));
    const handle = await env.client.workflow.start('navigatorMission', {
      taskQueue: env.taskQueue,
      workflowId: `probe-${Date.now()}`,
      args: [{ agent: 'bench-effects', input: { n: 2 }, journal }],
    });
    expect(await handle.result()).toEqual({ count: 2 });
    const events = (await handle.fetchHistory()).events ?? [];
    const spans = activitySpans(events, probe.of(handle.workflowId));

    expect(spans.map((s) => s.type)).toEqual(['describeAgent', 'runPass', 'runTool', 'runTool', 'runPass']);
    for (const s of spans) {
      const run = s.run!;
      expect(run.type).toBe(s.type);
      expect(run.start + TICK).toBeGreaterThanOrEqual(s.scheduled);
      expect(run.end).toBeGreaterThanOrEqual(run.start);
      expect(s.completed + TICK).toBeGreaterThanOrEqual(run.end);
      expect(s.applied).toBeGreaterThanOrEqual(s.completed);
      expect(s.ownMs).toBeCloseTo(run.end - run.start - run.queryMs, 6);
    }
    // the time a pass spends querying the journal is not the pass's own
    const passes = spans.filter((x) => x.type === 'runPass');
    expect(passes[0]!.run!.queryMs).toBeGreaterThan(0);
    for (const s of spans.filter((x) => x !== passes[0])) expect(s.run!.queryMs).toBe(0);
    expect(spans.filter((s) => s.type === 'runPass').map((s) => s.run!.pass)).toEqual([1, 1]);

    const tasks = workflowTaskSpans(events);
    expect(tasks).toHaveLength(events.filter((e) => e.workflowTaskCompletedEventAttributes).length);
    for (const t of tasks) {
      expect(t.started).toBeGreaterThanOrEqual(t.scheduled);
      expect(t.completed).toBeGreaterThanOrEqual(t.started);
    }
  });

  it('forgets its runs when cleared', () => {
    expect(probe.runs.length).toBeGreaterThan(0);
    probe.clear();
    expect(probe.runs).toEqual([]);
  });
});

describe('percentiles', () => {
  it('takes the nearest rank and ignores samples that are not numbers', () => {
    expect(percentiles([10, 1, 9, 2, 8, 3, 7, 4, 6, 5, NaN])).toEqual({ p50: 6, p90: 9, p95: 10, max: 10, n: 10 });
    expect(percentiles([4])).toEqual({ p50: 4, p90: 4, p95: 4, max: 4, n: 1 });
    expect(percentiles([])).toEqual({ p50: NaN, p90: NaN, p95: NaN, max: NaN, n: 0 });
  });
});
