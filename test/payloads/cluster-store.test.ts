/**
 * The payload store as a cluster runs it (issue 38): an S3-compatible bucket (Versity
 * Gateway, a real S3 server over a folder) configured through the environment as a user
 * would (NAVIGATOR_PAYLOAD_STORE=s3://..., NAVIGATOR_S3_ENDPOINT, the standard AWS
 * credential variables), a worker in a process of its own, and a client in this one. A 3 MB
 * effect and a 20 MB read complete with their whole values, the effect runs once (the
 * tool's own log), history stays under 1 MB, the objects are in the bucket and the audit
 * resolves and verifies every reference. With the gateway stopped, the effect still runs
 * once: it is recorded as done with its result unavailable. Runs on the real-server lane
 * (or with NAVIGATOR_VERSITYGW set), on whichever server the lane gives.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MissionEnv, missionEnv } from '../mission/harness.ts';
import { toolCalls } from '../mission/fixtures/large-agents.ts';
import { historySize } from '../../bench/pass-history.ts';
import { OffloadCodec } from '../../src/payloads/offload-codec.ts';
import { s3StoreFromUrl } from '../../src/payloads/s3-store.ts';
import { type VersityGw, buildVersityGw, findVersityGw, startVersityGw } from '../../src/machine/versitygw.ts';
import { ledgerQuery } from '../../src/workflows/mission/messages.ts';

function skipReason(): string | null {
  if (process.env.NAVIGATOR_TEST_SERVER !== 'temporal' && !process.env.NAVIGATOR_VERSITYGW)
    return 'needs Versity Gateway: runs on the real-server lane (npm run test:real) or with NAVIGATOR_VERSITYGW=<binary>';
  if (findVersityGw() !== null) return null;
  const go = spawnSync('go', ['version']);
  return go.error || go.status !== 0
    ? 'Go is not installed: building Versity Gateway needs it (or set NAVIGATOR_VERSITYGW)'
    : null;
}
const reason = skipReason();
if (reason) console.warn(`test/payloads/cluster-store.test.ts skipped: ${reason}`);

describe.skipIf(reason !== null)(
  `missions with an S3 payload store (Versity Gateway)${reason ? ` (skipped: ${reason})` : ''}`,
  () => {
    let gw: VersityGw;
    let m: MissionEnv;
    let storeEnv: Record<string, string>;
    let offload: OffloadCodec;
    const log = join(mkdtempSync(join(tmpdir(), 'cluster-tools-')), 'calls.jsonl');

    beforeAll(async () => {
      gw = await startVersityGw({ binary: buildVersityGw({ log: (line) => console.error(line) }) });
      await gw.createBucket('navigator-payloads');
      storeEnv = {
        NAVIGATOR_PAYLOAD_STORE: `s3://navigator-payloads/test-${process.pid}`,
        NAVIGATOR_S3_ENDPOINT: gw.endpoint,
        AWS_ACCESS_KEY_ID: gw.accessKey,
        AWS_SECRET_ACCESS_KEY: gw.secretKey,
        AWS_REGION: 'us-east-1',
      };
      offload = new OffloadCodec({
        store: s3StoreFromUrl(storeEnv.NAVIGATOR_PAYLOAD_STORE!, { ...process.env, ...storeEnv }),
      });
      m = await missionEnv({ dataConverter: { payloadCodecs: [offload] } });
    }, 900_000);
    afterAll(async () => {
      await m?.shutdown();
      await gw?.stop();
    });

    const spawn = (extra: Record<string, string> = {}) => {
      const child = m.spawnWorker({
        ...storeEnv,
        NAVIGATOR_AGENTS: join(process.cwd(), 'test/mission/fixtures/large-agents.ts'),
        LARGE_TOOL_LOG: log,
        ...extra,
      });
      child.stderr?.on('data', (d: Buffer) => process.stderr.write(d));
      return child;
    };

    async function run(agent: string, bytes: number) {
      const before = toolCalls(log).length;
      const handle = await m.start({ agent, input: { bytes } });
      const result = (await handle.result()) as Record<string, unknown>;
      const history = await handle.fetchHistory();
      return { handle, result, history, calls: toolCalls(log).slice(before) };
    }

    it('a 3 MB effect and a 20 MB read: whole values, the effect once, history under 1 MB, objects in the bucket, the audit passes', async () => {
      spawn();
      const effect = await run('large-effect', 3 * 1024 * 1024);
      expect(effect.result).toMatchObject({ length: 3 * 1024 * 1024 });
      expect(effect.calls.filter((c) => c.tool === 'publish_report')).toHaveLength(1);
      expect(historySize(effect.history.events ?? [])).toBeLessThan(1024 * 1024);
      const read = await run('large-read', 20 * 1024 * 1024);
      expect(read.result).toEqual({ length: 20 * 1024 * 1024, last: 'z' });
      expect(historySize(read.history.events ?? [])).toBeLessThan(1024 * 1024);
      const objects: number[] = [];
      for await (const o of offload.store.list()) objects.push(o.size);
      expect(objects.some((size) => size > 20 * 1024 * 1024)).toBe(true);
      for (const id of [effect.handle.workflowId, read.handle.workflowId]) {
        const audit = await m.audit(id);
        expect(audit.ok, JSON.stringify(audit.problems)).toBe(true);
        expect(audit.storedPayloads.checked).toBeGreaterThan(0);
      }
      await m.killWorkers();
    }, 600_000);

    it('with the store down, the effect runs once and is recorded as done with its result unavailable', async () => {
      await gw.stop();
      spawn({ NAVIGATOR_STORE_RETRY_MS: '2000' });
      const effect = await run('large-effect', 3 * 1024 * 1024);
      expect(effect.calls.filter((c) => c.tool === 'publish_report')).toHaveLength(1);
      expect(effect.result).toMatchObject({ unavailable: 'store_unavailable', length: 0 });
      expect(String(effect.result.message)).toContain('navigator-payloads');
      const ledger = await effect.handle.query(ledgerQuery);
      expect(ledger.find((e) => e.tool === 'publish_report')).toMatchObject({
        status: 'completed',
        unavailable: { reason: 'store_unavailable' },
      });
      const audit = await m.audit(effect.handle.workflowId);
      expect(audit.ok, JSON.stringify(audit.problems)).toBe(true);
      expect(audit.unavailableResults).toEqual([
        expect.objectContaining({ tool: 'publish_report', reason: 'store_unavailable' }),
      ]);
      await m.killWorkers();
    }, 600_000);
  },
);
