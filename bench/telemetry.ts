/**
 * What tracing costs, measured in one run on one embedded server: a mission with three
 * external effects (start, describeAgent, two passes, three runTool activities, result)
 * run by workers that differ only in tracing:
 *   none:  a bundle without the tracing workflow interceptors (the code before they existed)
 *   off:   the shipped bundle (interceptors always bundled), tracing off: spans go nowhere
 *   on:    tracing on, every span exported to memory through a batch processor
 * plus the history bytes of one such mission with and without the interceptors.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { InMemorySpanExporter, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { DefaultLogger, NativeConnection, Runtime, bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import proto from '@temporalio/proto';
import { startDevServer } from '../src/devserver/index.ts';
import { setupTelemetry, type Telemetry } from '../src/telemetry/setup.ts';
import { bundleMissionWorkflows, createNavigatorWorker, workflowsPath } from '../src/worker/index.ts';
import { benchAgents } from './agents/mission-agents.ts';
import { type BenchRow, medianMs } from './types.ts';

const ITERATIONS = 20;

export async function benchTelemetry(): Promise<BenchRow[]> {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // already installed
  }
  const server = await startDevServer({ port: 0 });
  const connection = await Connection.connect({ address: server.address });
  const native = await NativeConnection.connect({ address: server.address });
  try {
    const plain = await bundleWorkflowCode({
      workflowsPath,
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } as never,
    });
    const shipped = await bundleMissionWorkflows();
    // none and off first: once tracing is set up, the process has a tracer provider
    const none = await measure(connection, native, plain, null);
    const off = await measure(connection, native, shipped, null);
    const exporter = new InMemorySpanExporter();
    const telemetry = setupTelemetry({ spanProcessor: new BatchSpanProcessor(exporter) });
    const on = await measure(connection, native, shipped, telemetry);
    await telemetry.flush();
    const spans = exporter.getFinishedSpans().length / (ITERATIONS + 3);
    await telemetry.shutdown();
    return [
      {
        name: 'mission with 3 effects: interceptors bundled, tracing off, vs none',
        median_ms: off.ms,
        baseline_ms: none.ms,
        ratio: off.ms / none.ms,
        note: 'the cost of always bundling the tracing workflow interceptors',
      },
      {
        name: 'mission with 3 effects: tracing on vs off',
        median_ms: on.ms,
        baseline_ms: off.ms,
        ratio: on.ms / off.ms,
        note: `~${spans.toFixed(0)} spans per mission, exported to memory in batches`,
      },
      // the time column holds the mission's time again; the bytes are in the note and the ratio
      {
        name: 'history bytes of that mission: interceptors bundled vs none',
        median_ms: off.ms,
        ratio: off.bytes / none.bytes,
        note: `${off.bytes} B vs ${none.bytes} B (+${off.bytes - none.bytes} B: a trace context header on each activity)`,
      },
    ];
  } finally {
    await connection.close();
    await native.close();
    await server.shutdown();
  }
}

async function measure(
  connection: Connection,
  native: NativeConnection,
  workflowBundle: WorkflowBundle,
  telemetry: Telemetry | null,
) {
  const client = new Client({ connection, ...(telemetry ? { plugins: telemetry.plugins } : {}) });
  const taskQueue = `bench-telemetry-${randomUUID().slice(0, 8)}`;
  const worker = await createNavigatorWorker({
    connection: native,
    client,
    taskQueue,
    agents: benchAgents,
    workflowBundle,
    telemetry,
  });
  const running = worker.run();
  let last = '';
  const mission = async () => {
    last = `bench-telemetry-${randomUUID().slice(0, 8)}`;
    await client.workflow.execute('navigatorMission', {
      taskQueue,
      workflowId: last,
      args: [{ agent: 'bench-effects', input: { n: 3 } }],
    });
  };
  try {
    const ms = await medianMs(mission, ITERATIONS, 3);
    const history = await client.workflow.getHandle(last).fetchHistory();
    const bytes = proto.temporal.api.history.v1.History.encode(history).finish().length;
    return { ms, bytes };
  } finally {
    worker.shutdown();
    await running;
  }
}
