/**
 * Encrypted payloads: the AES-256-GCM codec (round trip, key rotation, tampering, clear
 * errors); a real mission with the codec on leaves no tool args, results, journal values
 * or model answers in plaintext in history, and still audits and replays; the codec
 * server decodes a payload of that mission for the Temporal UI.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Payload } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import proto from '@temporalio/proto';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../src/activities/index.ts';
import { auditMission } from '../../src/audit/mission/audit.ts';
import { AesGcmCodec, CodecKeyError, keysFromEnv } from '../../src/codec/aes-gcm.ts';
import { type CodecServer, startCodecServer } from '../../src/codec/server.ts';
import { createTestEnv, type TestEnv } from '../../src/devserver/testing.ts';
import { buildRegistry } from '../../src/worker/agents.ts';
import { workflowInterceptorModules, workflowsPath } from '../../src/worker/index.ts';
import { silentSpanSinks } from '../../src/telemetry/setup.ts';
import { defaultInput } from '../../examples/report-job/index.ts';

const key = (fill: number) => Buffer.alloc(32, fill).toString('base64');
const KEYS = `k2:${key(2)},k1:${key(1)}`;
const payload = (v: unknown) => defaultPayloadConverter.toPayload(v) as Payload;
const value = (p: Payload) => defaultPayloadConverter.fromPayload(p);

describe('AES-256-GCM codec', () => {
  it('round-trips payloads and names the key in the metadata', async () => {
    const codec = new AesGcmCodec(keysFromEnv({ NAVIGATOR_CODEC_KEYS: KEYS }));
    const [enc] = await codec.encode([payload({ secret: 'bob 5000' })]);
    expect(Buffer.from(enc!.data!).toString('latin1')).not.toContain('bob 5000');
    expect(Buffer.from(enc!.metadata!['encryption-key-id']!).toString()).toBe('k2');
    const [dec] = await codec.decode([enc!]);
    expect(value(dec!)).toEqual({ secret: 'bob 5000' });
  });

  it('old payloads stay readable after rotation; a dropped key is a clear error', async () => {
    const old = new AesGcmCodec(keysFromEnv({ NAVIGATOR_CODEC_KEYS: `k1:${key(1)}` }));
    const [enc] = await old.encode([payload('old')]);
    const rotated = new AesGcmCodec(keysFromEnv({ NAVIGATOR_CODEC_KEYS: KEYS }));
    expect(value((await rotated.decode([enc!]))[0]!)).toBe('old');
    const dropped = new AesGcmCodec(keysFromEnv({ NAVIGATOR_CODEC_KEYS: `k2:${key(2)}` }));
    await expect(dropped.decode([enc!])).rejects.toThrow(/key k1, which is not in NAVIGATOR_CODEC_KEYS \(k2\)/);
  });

  it('refuses tampered data and passes other payloads through', async () => {
    const codec = new AesGcmCodec(keysFromEnv({ NAVIGATOR_CODEC_KEYS: KEYS }));
    const [enc] = await codec.encode([payload('x')]);
    const bad = { ...enc!, data: new Uint8Array(enc!.data!) };
    bad.data[bad.data.length - 1]! ^= 1;
    await expect(codec.decode([bad])).rejects.toThrow();
    const plain = payload({ a: 1 });
    expect((await codec.decode([plain]))[0]).toBe(plain);
  });

  it.each([
    [{}, /NAVIGATOR_CODEC_KEYS is not set/],
    [{ NAVIGATOR_CODEC_KEYS: 'nocolon' }, /is not ID:BASE64/],
    [{ NAVIGATOR_CODEC_KEYS: `k:${Buffer.alloc(16).toString('base64')}` }, /key k is 16 bytes, AES-256 needs 32/],
    [{ NAVIGATOR_CODEC_KEYS: KEYS, NAVIGATOR_CODEC_KEY_ID: 'k9' }, /names k9, which is not in/],
  ])('key configuration %j is refused clearly', (env, message) => {
    expect(() => keysFromEnv(env as NodeJS.ProcessEnv)).toThrow(CodecKeyError);
    expect(() => keysFromEnv(env as NodeJS.ProcessEnv)).toThrow(message);
  });
});

describe('a mission with the codec on', () => {
  const codec = new AesGcmCodec(keysFromEnv({ NAVIGATOR_CODEC_KEYS: KEYS }));
  let env: TestEnv;
  let worker: Worker;
  let running: Promise<void>;
  let server: CodecServer;
  let workflowId: string;
  let raw: Buffer;
  let firstInput: Payload;

  beforeAll(async () => {
    process.env.REPORT_JOB_SERVICES_FILE = join(mkdtempSync(join(tmpdir(), 'codec-')), 'services.jsonl');
    env = await createTestEnv({
      workflowsPath,
      workflowInterceptorModules,
      worker: { sinks: silentSpanSinks },
      startWorker: false,
      dataConverter: { payloadCodecs: [codec] },
    });
    worker = await env.createWorker({
      activities: createActivities({ agents: await buildRegistry(), client: env.client }),
    });
    running = worker.run();
    workflowId = `codec-${Date.now()}`;
    const handle = await env.client.workflow.start('navigatorMission', {
      taskQueue: env.taskQueue,
      workflowId,
      args: [{ agent: 'report-job', input: defaultInput }],
    });
    await handle.result();
    // the history as stored: fetched by a client without the codec
    const { Client } = await import('@temporalio/client');
    const plainClient = new Client({ connection: env.connection, namespace: env.server.namespace });
    const history = await plainClient.workflow.getHandle(workflowId).fetchHistory();
    raw = Buffer.from(proto.temporal.api.history.v1.History.encode(history).finish());
    firstInput = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0] as Payload;
    server = await startCodecServer({
      codec,
      port: 0,
      origin: 'http://localhost:8233',
      authorization: 'Bearer ui-token-0123456789abcdef',
    });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    // the worker lets go of the connection before the env closes it
    worker?.shutdown();
    await running?.catch(() => undefined);
    await env?.shutdown();
  });

  it('history holds no plaintext: input, tool args and results, journal values, model answers', () => {
    const text = raw.toString('latin1');
    for (const secret of [
      'shop.example',
      'ops@example.com',
      'reports.example',
      'render_report_shop',
      'tool/upload_report',
      'Site report',
      'crawl_site',
    ]) {
      expect(text, secret).not.toContain(secret);
    }
    expect(text).toContain('binary/encrypted');
  });

  it('audits (journal rebuilt from decrypted history, replay deterministic)', async () => {
    const report = await auditMission(env.client, workflowId, { workflowBundle: env.bundle });
    expect(report.ok, JSON.stringify(report.problems)).toBe(true);
    expect(report.journal.fromHistory.map(([k]) => k)).toContain('email_report_shop.example_2026-W47');
    expect(report.replay.ok).toBe(true);
  });

  it('the codec server decodes a payload of the mission for the UI, and encodes', async () => {
    const body = (p: Payload) =>
      JSON.stringify({
        payloads: [
          {
            metadata: Object.fromEntries(
              Object.entries(p.metadata!).map(([k, v]) => [k, Buffer.from(v!).toString('base64')]),
            ),
            data: Buffer.from(p.data!).toString('base64'),
          },
        ],
      });
    const headers = {
      'content-type': 'application/json',
      authorization: 'Bearer ui-token-0123456789abcdef',
      origin: 'http://localhost:8233',
      'x-namespace': 'default',
    };
    const decoded = await fetch(`${server.url}/decode`, { method: 'POST', headers, body: body(firstInput) });
    expect(decoded.status).toBe(200);
    expect(decoded.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
    const out = (await decoded.json()) as { payloads: Array<{ data: string }> };
    expect(JSON.parse(Buffer.from(out.payloads[0]!.data, 'base64').toString())).toMatchObject({
      agent: 'report-job',
      input: defaultInput,
    });

    const encoded = await fetch(`${server.url}/encode`, { method: 'POST', headers, body: body(payload('hello')) });
    const enc = (await encoded.json()) as { payloads: Array<{ metadata: Record<string, string> }> };
    expect(Buffer.from(enc.payloads[0]!.metadata.encoding!, 'base64').toString()).toBe('binary/encrypted');
  });

  it('the codec server checks the Authorization header and answers CORS for the UI origin only', async () => {
    const noAuth = await fetch(`${server.url}/decode`, { method: 'POST', body: '{"payloads":[]}' });
    expect(noAuth.status).toBe(401);
    const preflight = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:8233' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('x-namespace');
    const other = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.example' },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const bad = await fetch(`${server.url}/decode`, {
      method: 'POST',
      headers: { authorization: 'Bearer ui-token-0123456789abcdef' },
      body: 'nope',
    });
    expect(bad.status).toBe(400);
  });
});
