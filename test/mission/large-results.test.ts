/**
 * Exactly once at any size (issue 38): an external effect that returns 3 MB and a read that
 * returns 20 MB complete with the whole value available to the program, the effect runs
 * once (the tool's own log), history stays small (large payloads live in the payload
 * store, history keeps references), and the audit passes. A result over the hard cap and
 * a store that stays down never re-run the effect: the task is recorded as done with its
 * result unavailable, and ledger, program and audit say so; so too for a `local` tool that
 * waited for approval (an effect of its own, whatever its class).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { largeEffect, largeGatedLocal, largeRead, toolCalls } from './fixtures/large-agents.ts';
import { getMission } from '../../src/client/mission/client.ts';
import { ledgerQuery, statusQuery } from '../../src/workflows/mission/messages.ts';
import { historySize } from '../../bench/pass-history.ts';
import { type MissionEnv, missionEnv, waitForStatus } from './harness.ts';
import { FileStore } from '../../src/payloads/file-store.ts';
import { OffloadCodec } from '../../src/payloads/offload-codec.ts';
import type { PayloadStore } from '../../src/payloads/store.ts';
import { resultRecording } from '../../src/activities/recording.ts';

const agents = [largeEffect, largeRead];
const logFile = join(mkdtempSync(join(tmpdir(), 'large-tools-')), 'calls.jsonl');
process.env.LARGE_TOOL_LOG = logFile;

async function runMission(m: MissionEnv, name: string, bytes: number) {
  const before = toolCalls().length;
  const handle = await m.start({ agent: name, input: { bytes } });
  const result = (await handle.result()) as Record<string, unknown> & { message?: string };
  const history = await handle.fetchHistory();
  const status = await handle.query(statusQuery);
  const ledger = await handle.query(ledgerQuery);
  return { handle, result, history, status, ledger, calls: toolCalls().slice(before) };
}

describe('large results with the payload store (the default)', () => {
  let m: MissionEnv;
  beforeAll(async () => {
    m = await missionEnv();
    await m.startWorker(agents);
  }, 60_000);
  afterAll(() => m?.shutdown());

  it('an external effect returning 3 MB runs once, the program gets it whole, history stays small, the audit passes', async () => {
    const run = await runMission(m, 'large-effect', 3 * 1024 * 1024);
    expect(run.result).toMatchObject({ length: 3 * 1024 * 1024 });
    expect(run.calls.filter((c) => c.tool === 'publish_report')).toHaveLength(1);
    expect(historySize(run.history.events ?? [])).toBeLessThan(1024 * 1024);
    expect(run.ledger.filter((e) => e.tool === 'publish_report').map((e) => e.status)).toEqual(['completed']);
    expect(run.status.status).toBe('completed');
    const audit = await m.audit(run.handle.workflowId);
    expect(audit.ok, JSON.stringify(audit.problems)).toBe(true);
  }, 180_000);

  it('a read returning 20 MB: the program reads all of it, history stays under 1 MB, the audit passes', async () => {
    const run = await runMission(m, 'large-read', 20 * 1024 * 1024);
    expect(run.result).toEqual({ length: 20 * 1024 * 1024, last: 'z' });
    expect(historySize(run.history.events ?? [])).toBeLessThan(1024 * 1024);
    const audit = await m.audit(run.handle.workflowId);
    expect(audit.ok, JSON.stringify(audit.problems)).toBe(true);
  }, 180_000);
});

/** A store that refuses every write (an outage), reads served from a folder. */
class DownStore implements PayloadStore {
  readonly location = 'test:down';
  puts = 0;
  constructor(private readonly inner: PayloadStore) {}
  async put(): Promise<void> {
    this.puts++;
    throw new Error('connect ECONNREFUSED 127.0.0.1:9');
  }
  get(key: string) {
    return this.inner.get(key);
  }
  list() {
    return this.inner.list();
  }
  delete(key: string) {
    return this.inner.delete(key);
  }
}

/** A store that refuses its first `failures` writes (a brief outage), then works. */
class FlakyStore extends DownStore {
  constructor(
    inner: PayloadStore,
    private failures: number,
    private readonly target: PayloadStore = inner,
  ) {
    super(inner);
  }
  override async put(key?: string, bytes?: Uint8Array): Promise<void> {
    if (this.failures-- > 0) return super.put();
    this.puts++;
    return this.target.put(key!, bytes!);
  }
}

describe('a store outage while an effect answers', () => {
  it('a brief outage: the activity retries the write itself, the effect runs once and its whole result arrives', async () => {
    const store = new FlakyStore(new FileStore(mkdtempSync(join(tmpdir(), 'payloads-'))), 3);
    const offload = new OffloadCodec({ store });
    const m = await missionEnv({ dataConverter: { payloadCodecs: [offload] } });
    try {
      await m.startWorker(agents, { recording: resultRecording(offload) });
      const run = await runMission(m, 'large-effect', 3 * 1024 * 1024);
      expect(run.calls.filter((c) => c.tool === 'publish_report')).toHaveLength(1);
      expect(run.result).toMatchObject({ length: 3 * 1024 * 1024, unavailable: null });
      const audit = await m.audit(run.handle.workflowId);
      expect(audit.ok, JSON.stringify(audit.problems)).toBe(true);
      expect(audit.storedPayloads.checked).toBeGreaterThan(0);
    } finally {
      await m.shutdown();
    }
  }, 180_000);
});

describe('a result that cannot be kept never runs the effect again', () => {
  it('over the hard cap: the effect runs once, the task is done with its result unavailable, named in ledger and program', async () => {
    const m = await missionEnv();
    try {
      await m.startWorker(agents, { recording: { ...resultRecording(null), maxResultBytes: 1024 * 1024 } });
      const run = await runMission(m, 'large-effect', 3 * 1024 * 1024);
      expect(run.calls.filter((c) => c.tool === 'publish_report')).toHaveLength(1);
      expect(run.result).toMatchObject({ unavailable: 'result_too_large', length: 0 });
      expect(run.result.message).toMatch(/publish_report returned 3\.0 MB, over the 1\.0 MB limit.*will not run again/);
      const entry = run.ledger.find((e) => e.tool === 'publish_report');
      expect(entry).toMatchObject({
        status: 'completed',
        unavailable: { reason: 'result_too_large', size: expect.any(Number) },
      });
      const audit = await m.audit(run.handle.workflowId);
      expect(audit.ok, JSON.stringify(audit.problems)).toBe(true);
      expect(audit.unavailableResults).toEqual([
        expect.objectContaining({ tool: 'publish_report', reason: 'result_too_large' }),
      ]);
    } finally {
      await m.shutdown();
    }
  }, 180_000);

  it('a gated local tool over the hard cap: approved, it runs once, its task done with its result unavailable', async () => {
    const m = await missionEnv();
    try {
      await m.startWorker([largeGatedLocal], {
        recording: { ...resultRecording(null), maxResultBytes: 1024 * 1024 },
      });
      const before = toolCalls().length;
      const handle = await m.start({ agent: 'large-gated-local', input: { bytes: 3 * 1024 * 1024 } });
      const mission = getMission(m.client, handle.workflowId);
      await waitForStatus(handle, (s: { effectApprovals?: Array<{ tool: string }> }) =>
        (s.effectApprovals ?? []).some((e) => e.tool === 'export_archive'),
      );
      await mission.approveEffect({ by: 'ana' });
      const result = (await handle.result()) as Record<string, unknown> & { message?: string };
      // it ran once: a failed call would have been retried, and run again each time
      expect(
        toolCalls()
          .slice(before)
          .filter((c) => c.tool === 'export_archive'),
      ).toHaveLength(1);
      expect(result).toMatchObject({ unavailable: 'result_too_large', length: 0 });
      expect(result.message).toMatch(/export_archive returned 3\.0 MB, over the 1\.0 MB limit.*will not run again/);
      const ledger = await handle.query(ledgerQuery);
      expect(ledger.find((e) => e.tool === 'export_archive')).toMatchObject({
        status: 'completed',
        unavailable: { reason: 'result_too_large', size: expect.any(Number) },
      });
      const audit = await m.audit(handle.workflowId);
      expect(audit.ok, JSON.stringify(audit.problems)).toBe(true);
      expect(audit.unavailableResults).toEqual([
        expect.objectContaining({ tool: 'export_archive', reason: 'result_too_large' }),
      ]);
    } finally {
      await m.shutdown();
    }
  }, 180_000);

  it('a store that stays down: the effect runs once, recorded as done with its result unavailable (store_unavailable)', async () => {
    const store = new DownStore(new FileStore(mkdtempSync(join(tmpdir(), 'payloads-'))));
    const offload = new OffloadCodec({ store });
    const m = await missionEnv({ dataConverter: { payloadCodecs: [offload] } });
    try {
      await m.startWorker(agents, { recording: { ...resultRecording(offload), storeRetryMs: 1500 } });
      const run = await runMission(m, 'large-effect', 3 * 1024 * 1024);
      expect(run.calls.filter((c) => c.tool === 'publish_report')).toHaveLength(1);
      expect(store.puts).toBeGreaterThan(1);
      expect(run.result).toMatchObject({ unavailable: 'store_unavailable', length: 0 });
      expect(run.result.message).toMatch(/payload store test:down could not keep it.*ECONNREFUSED/);
      expect(run.ledger.find((e) => e.tool === 'publish_report')).toMatchObject({
        status: 'completed',
        unavailable: { reason: 'store_unavailable' },
      });
      const audit = await m.audit(run.handle.workflowId);
      expect(audit.ok, JSON.stringify(audit.problems)).toBe(true);
      expect(audit.unavailableResults).toEqual([
        expect.objectContaining({ tool: 'publish_report', reason: 'store_unavailable' }),
      ]);
    } finally {
      await m.shutdown();
    }
  }, 180_000);

  it('a read over the hard cap fails that call in the program, named, and nothing of it is sent to Temporal', async () => {
    const m = await missionEnv();
    try {
      await m.startWorker(agents, { recording: { ...resultRecording(null), maxResultBytes: 1024 * 1024 } });
      const handle = await m.start({ agent: 'large-read', input: { bytes: 2 * 1024 * 1024 } });
      const outcome = await handle.result().then(
        () => null,
        (err: Error) => err,
      );
      // the mission's error names the cause, not only that the turns ran out
      expect(String((outcome?.cause as Error | undefined)?.message ?? outcome?.message)).toMatch(
        /result_too_large: tool fetch_dump returned 2\.0 MB, over the 1\.0 MB limit/,
      );
      expect(toolCalls().filter((c) => c.tool === 'fetch_dump').length).toBeGreaterThan(0);
      expect(historySize((await handle.fetchHistory()).events ?? [])).toBeLessThan(64 * 1024);
    } finally {
      await m.shutdown();
    }
  }, 180_000);
});
