/**
 * OpenTelemetry: with a tracer provider set up (an in-memory exporter here, OTLP from
 * OTEL_* in production), one wire-transfer mission is one trace from the client's start
 * through its workflow, each pass, each model answer, each tool call and the manager's
 * decision, with the expected parents and our attributes. Off, nothing is wrapped.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NavigatorClient } from '../../src/client/index.ts';
import type { DevServer } from '../../src/devserver/index.ts';
import { startTestServer } from '../../src/devserver/testing.ts';
import { exporterFromEnv, setupTelemetry, telemetryWanted, type Telemetry } from '../../src/telemetry/setup.ts';
import { tracedModel, tracingOn } from '../../src/telemetry/spans.ts';
import { buildRegistry, bundleMissionWorkflows, createNavigatorWorker } from '../../src/worker/index.ts';
import { freshBankFile } from '../mission/harness.ts';

describe('telemetry off', () => {
  it('is off unless OTEL_* asks for it, and then wraps nothing', () => {
    expect(telemetryWanted({})).toBe(false);
    expect(telemetryWanted({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x' })).toBe(false);
    expect(telemetryWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(telemetryWanted({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingOn()).toBe(false);
    // the exporter follows the standard protocol variables (http/protobuf by default)
    const names = ['', 'http/protobuf', 'http/json', 'grpc'].map((p) =>
      exporterFromEnv(p ? { OTEL_EXPORTER_OTLP_PROTOCOL: p } : {}),
    );
    for (const e of names) void e.shutdown();
    expect(names.map((e) => e.constructor.name)).toEqual([
      'OTLPTraceExporter',
      'OTLPTraceExporter',
      'OTLPTraceExporter',
      'OTLPTraceExporter',
    ]);
    expect(new Set(names.slice(1).map((e) => Object.getPrototypeOf(e)))).toHaveProperty('size', 3);
    expect(exporterFromEnv({ OTEL_TRACES_EXPORTER: 'console' }).constructor.name).toBe('ConsoleSpanExporter');
    expect(() => exporterFromEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: 'carrier-pigeon' })).toThrow(
      /must be http\/protobuf, http\/json or grpc, got carrier-pigeon/,
    );
    const model = { id: 'm', generate: async () => ({ text: '', usage: { inputTokens: 0, outputTokens: 0 } }) };
    expect(tracedModel(model, { workflowId: 'w', runId: 'w', agent: 'a' })).toBe(model);
  });
});

describe('a traced mission', () => {
  const exporter = new InMemorySpanExporter();
  let telemetry: Telemetry;
  let server: DevServer;
  let connection: Connection;
  let native: NativeConnection;

  beforeAll(async () => {
    telemetry = setupTelemetry({ spanProcessor: new SimpleSpanProcessor(exporter), serviceName: 'navigator-test' });
    server = await startTestServer();
    connection = await Connection.connect({ address: server.address });
    native = await NativeConnection.connect({ address: server.address });
  }, 60_000);
  afterAll(async () => {
    await connection?.close();
    await native?.close();
    await server?.shutdown();
    await telemetry?.shutdown();
  });

  it('is one trace: start → workflow → passes → model answers and tools; the decision under the workflow', async () => {
    freshBankFile();
    const client = new Client({ connection, plugins: telemetry.plugins });
    const taskQueue = `traced-${Date.now()}`;
    const worker = await createNavigatorWorker({
      connection: native,
      client,
      taskQueue,
      agents: await buildRegistry(),
      telemetry,
      workflowBundle: await bundleMissionWorkflows(),
    });
    const navigator = new NavigatorClient({ client, taskQueue });
    const running = worker.run();
    let id = '';
    try {
      const mission = await navigator.start(
        'wire-transfer',
        { recipient: 'bob', amount: 5000 },
        { options: { timeouts: { heartbeatMs: 3000 } } },
      );
      id = mission.id;
      for (let i = 0; i < 300 && (await mission.status()).status !== 'waiting'; i++)
        await new Promise((r) => setTimeout(r, 100));
      await mission.approve({ by: 'ana' });
      expect(await mission.result()).toMatchObject({ status: 'sent' });
      // tracing is not part of the workflow code: the same bundle replays a traced history
      const audit = await mission.audit({ workflowBundle: await bundleMissionWorkflows() });
      expect(audit.ok, JSON.stringify(audit.replay)).toBe(true);
    } finally {
      worker.shutdown();
      await running;
    }
    await telemetry.flush();

    const spans = exporter.getFinishedSpans();
    const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
    const parentOf = (s: ReadableSpan) => byId.get(s.parentSpanId ?? '')?.name;
    const named = (name: string) =>
      spans.filter((s) => s.name === name && s.attributes['navigator.workflow_id'] === id);

    const start = spans.find((s) => s.name === 'StartWorkflow:navigatorMission')!;
    expect(start).toBeDefined();
    const trace = start.spanContext().traceId;
    const run = spans.filter((s) => s.name === 'RunWorkflow:navigatorMission');
    expect(run.length).toBeGreaterThanOrEqual(1);
    for (const r of run)
      expect([r.spanContext().traceId, parentOf(r)]).toEqual([trace, 'StartWorkflow:navigatorMission']);

    const passes = named('navigator.pass');
    expect(passes.map((p) => p.attributes['navigator.pass'])).toEqual(expect.arrayContaining([1, 2]));
    for (const p of passes) {
      expect([p.spanContext().traceId, parentOf(p)]).toEqual([trace, 'RunActivity:runPass']);
      expect(p.attributes).toMatchObject({ 'navigator.run_id': id, 'navigator.agent': 'wire-transfer' });
      expect(typeof p.attributes['navigator.pass.turns']).toBe('number');
      expect(p.attributes['navigator.pass.outcome']).toMatch(/^(return|fail|error|effects)$/);
    }
    const models = named('navigator.model');
    expect(models.length).toBeGreaterThanOrEqual(2);
    for (const m of models) {
      expect(parentOf(m)).toBe('navigator.pass');
      expect(m.attributes).toMatchObject({
        'navigator.model': expect.any(String),
        'navigator.model.input_tokens': expect.any(Number),
        'navigator.model.output_tokens': expect.any(Number),
      });
    }
    const tools = named('navigator.tool');
    const inline = tools.find((t) => t.attributes['navigator.tool'] === 'prepare_wire')!;
    expect([
      parentOf(inline),
      inline.attributes['navigator.tool.side_effect'],
      inline.attributes['navigator.tool.cached'],
    ]).toEqual(['navigator.pass', 'local', false]);
    expect(inline.attributes['navigator.tool.task_id']).toBe('prepare_wire_bob_5000');
    const effect = tools.find((t) => t.attributes['navigator.tool'] === 'execute_wire')!;
    expect([
      parentOf(effect),
      effect.attributes['navigator.tool.side_effect'],
      effect.attributes['navigator.run_id'],
    ]).toEqual(['RunActivity:runTool', 'external', id]);
    expect(String(effect.attributes['navigator.tool.idempotency_key'])).toMatch(/^[0-9a-f]{16,}/);
    for (const t of tools) expect(t.spanContext().traceId).toBe(trace);

    const [decision] = named('navigator.decision');
    expect(decision).toBeDefined();
    expect([decision!.spanContext().traceId, parentOf(decision!)]).toEqual([trace, 'RunWorkflow:navigatorMission']);
    expect(decision!.attributes).toMatchObject({
      'navigator.decision.key': 'manager_decision_bob_5000',
      'navigator.decision.by': 'ana',
      'navigator.decision.via': 'update',
    });
    // linked to the approver's own call (another trace)
    expect(decision!.links.length).toBe(1);
  }, 120_000);
});
