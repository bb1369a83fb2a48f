/**
 * A plan started without a trace runs without Temporal's OpenTelemetry workflow
 * interceptors (src/telemetry/workflow-tracing.ts), and whether a run has them is read from
 * its history: a history recorded by a tracing worker from a traced start replays on a
 * worker with tracing off, and one recorded untraced replays on a worker with tracing on.
 * Each plan runs steps at once, an approval by update and a child mission, where the
 * interceptors' promise steps would change the order of commands.
 */
import { Client, Connection } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PlanHandle, startPlan } from '../../src/client/plan/client.ts';
import type { DevServer } from '../../src/devserver/index.ts';
import { startTestServer } from '../../src/devserver/testing.ts';
import { setupTelemetry, silentSpanSinks, type Telemetry } from '../../src/telemetry/setup.ts';
import { UNTRACED_PATCH } from '../../src/telemetry/workflow-tracing.ts';
import { bundleMissionWorkflows, createNavigatorWorker } from '../../src/worker/index.ts';
import labAgents from '../plans/fixtures/lab-agents.ts';
import { awaiting, waitForPlan } from '../plans/plan-harness.ts';

type Events = temporal.api.history.v1.IHistoryEvent[];

const STEPS = [
  { id: 'a', description: 'wait a', tool: 'sleep_echo', args: { ms: 50, value: 1 } },
  { id: 'b', description: 'wait b', tool: 'sleep_echo', args: { ms: 50, value: 2 } },
  { id: 'child', description: 'add', agent: 'lab-child', input: { a: 1, b: 2 } },
  { id: 'delete', description: 'delete the thing', tool: 'delete_thing', args: { name: 'x' } },
  { id: 'after', description: 'report', tool: 'echo', args: { value: '$delete.deleted' }, dependsOn: ['delete', 'a'] },
];

describe('plans started without a trace', () => {
  const exporter = new InMemorySpanExporter();
  let telemetry: Telemetry;
  let server: DevServer;
  let connection: Connection;
  let native: NativeConnection;
  let bundle: Awaited<ReturnType<typeof bundleMissionWorkflows>>;

  beforeAll(async () => {
    telemetry = setupTelemetry({ spanProcessor: new SimpleSpanProcessor(exporter), serviceName: 'navigator-test' });
    server = await startTestServer();
    connection = await Connection.connect({ address: server.address });
    native = await NativeConnection.connect({ address: server.address });
    bundle = await bundleMissionWorkflows();
  }, 120_000);
  afterAll(async () => {
    await connection?.close();
    await native?.close();
    await server?.shutdown();
    await telemetry?.shutdown();
  });

  /** Runs the plan to its end on a worker traced or not, started by a client traced or not; returns its history. */
  async function recordPlan(opts: {
    clientTraced: boolean;
    workerTraced: boolean;
  }): Promise<{ id: string; events: Events }> {
    const client = new Client({ connection, ...(opts.clientTraced ? { plugins: telemetry.plugins } : {}) });
    const taskQueue = `untraced-${opts.clientTraced}-${opts.workerTraced}-${Date.now()}`;
    const worker = await createNavigatorWorker({
      connection: native,
      client,
      taskQueue,
      agents: Object.values(labAgents),
      telemetry: opts.workerTraced ? telemetry : null,
      workflowBundle: bundle,
    });
    const running = worker.run();
    try {
      const plan: PlanHandle = await startPlan(client, {
        agent: 'lab',
        approve: true,
        document: { steps: STEPS },
        id: `untraced-plan-${taskQueue}`,
        taskQueue,
      });
      await waitForPlan(plan, awaiting('delete'));
      await plan.approveStep('delete', { by: 'ana' });
      const summary = await plan.result();
      expect(summary.status).toBe('completed');
      expect(summary.counts.completed).toBe(STEPS.length);
      const events = (await client.workflow.getHandle(plan.id).fetchHistory()).events ?? [];
      return { id: plan.id, events };
    } finally {
      worker.shutdown();
      await running;
    }
  }

  const replay = ({ id, events }: { id: string; events: Events }, traced: boolean) =>
    Worker.runReplayHistory(
      { workflowBundle: bundle, ...(traced ? { plugins: telemetry.plugins } : { sinks: silentSpanSinks }) },
      { events },
      id,
    );
  const markers = (events: Events) =>
    events
      .filter((e) => e.markerRecordedEventAttributes)
      .map((e) => e.markerRecordedEventAttributes!.details?.['patch-data']?.payloads?.[0]?.data)
      .map((d) => (d ? Buffer.from(d).toString() : ''));
  const tracedCalls = (events: Events) =>
    events.filter(
      (e) =>
        e.activityTaskScheduledEventAttributes?.header?.fields?.['_tracer-data'] ||
        e.startChildWorkflowExecutionInitiatedEventAttributes?.header?.fields?.['_tracer-data'],
    ).length;
  const calls = (events: Events) =>
    events.filter(
      (e) => e.activityTaskScheduledEventAttributes || e.startChildWorkflowExecutionInitiatedEventAttributes,
    ).length;

  it(
    'traced start: the interceptors run and mark each call; the history replays on a worker with tracing off and on',
    { timeout: 180_000 },
    async () => {
      exporter.reset();
      const run = await recordPlan({ clientTraced: true, workerTraced: true });
      await telemetry.flush();
      const { events } = run;
      expect(markers(events).some((m) => m.includes(UNTRACED_PATCH))).toBe(false);
      expect(calls(events)).toBeGreaterThanOrEqual(STEPS.length + 2);
      expect(tracedCalls(events)).toBe(calls(events));
      const names = new Set(exporter.getFinishedSpans().map((s) => s.name));
      for (const name of [
        'RunWorkflow:planExecution',
        'StartActivity:runPlanStep',
        'StartChildWorkflow:navigatorMission',
      ])
        expect(names, name).toContain(name);
      await replay(run, false);
      await replay(run, true);
    },
  );

  it(
    'untraced start: recorded with the marker and no trace headers; replays on a worker with tracing on and off',
    { timeout: 180_000 },
    async () => {
      const run = await recordPlan({ clientTraced: false, workerTraced: false });
      const { events } = run;
      expect(markers(events).filter((m) => m.includes(UNTRACED_PATCH))).toHaveLength(1);
      expect(calls(events)).toBeGreaterThanOrEqual(STEPS.length + 2);
      expect(tracedCalls(events)).toBe(0);
      await replay(run, true);
      await replay(run, false);
    },
  );

  it(
    'untraced start on a tracing worker: no workflow spans (its activities still trace); replays with tracing off',
    { timeout: 180_000 },
    async () => {
      exporter.reset();
      const run = await recordPlan({ clientTraced: false, workerTraced: true });
      await telemetry.flush();
      const { events } = run;
      expect(markers(events).filter((m) => m.includes(UNTRACED_PATCH))).toHaveLength(1);
      expect(tracedCalls(events)).toBe(0);
      const names = new Set(exporter.getFinishedSpans().map((s) => s.name));
      expect(names.has('RunWorkflow:planExecution')).toBe(false);
      expect(names.has('RunActivity:runPlanStep')).toBe(true);
      await replay(run, false);
    },
  );
});
