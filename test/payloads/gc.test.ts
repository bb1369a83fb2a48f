/**
 * `navigator store gc` (issue 38): an object is deleted only when no retained history
 * references it and it is older than the given age. A mission's stored payloads survive
 * a collection; an orphan (written, never referenced) goes once it is old enough; a
 * recent orphan stays (it may belong to an activity that has not completed yet).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MissionEnv, missionEnv } from '../mission/harness.ts';
import { largeEffect, largeRead } from '../mission/fixtures/large-agents.ts';
import { FileStore } from '../../src/payloads/file-store.ts';
import { OffloadCodec } from '../../src/payloads/offload-codec.ts';
import { collectGarbage, parseAge } from '../../src/payloads/gc.ts';
import { resultRecording } from '../../src/activities/recording.ts';
import { decodePayloads } from '../../src/codec/history.ts';

const keyOf = (bytes: Uint8Array) => `sha256/${createHash('sha256').update(bytes).digest('hex')}`;

describe('payload store garbage collection', () => {
  let m: MissionEnv;
  let dir: string;
  let store: FileStore;
  let offload: OffloadCodec;
  beforeAll(async () => {
    process.env.LARGE_TOOL_LOG = join(mkdtempSync(join(tmpdir(), 'gc-tools-')), 'calls.jsonl');
    dir = mkdtempSync(join(tmpdir(), 'gc-store-'));
    store = new FileStore(dir);
    offload = new OffloadCodec({ store });
    m = await missionEnv({ dataConverter: { payloadCodecs: [offload] } });
    await m.startWorker([largeEffect, largeRead], { recording: resultRecording(offload) });
  }, 60_000);
  afterAll(() => m?.shutdown());

  it('keeps what a retained history references and recent objects; deletes old orphans; a dry run deletes nothing', async () => {
    const handle = await m.start({ agent: 'large-effect', input: { bytes: 512 * 1024 } });
    await handle.result();
    const old = new Uint8Array(Buffer.from('an orphan written long ago'));
    const recent = new Uint8Array(Buffer.from('an orphan written just now'));
    await store.put(keyOf(old), old);
    await store.put(keyOf(recent), recent);
    const day = Date.now() / 1000 - 2 * 86_400;
    utimesSync(join(dir, 'sha256', keyOf(old).slice(7, 9), keyOf(old).slice(7)), day, day);
    const before: string[] = [];
    for await (const o of store.list()) before.push(o.key);
    // the mission's own stored payloads, besides the two orphans
    expect(before.length).toBeGreaterThan(2);

    const dry = await collectGarbage({
      clients: [m.client],
      store,
      codecs: [offload],
      olderThanMs: parseAge('1d'),
      dryRun: true,
    });
    expect(dry.deleted.map((d) => d.key)).toEqual([keyOf(old)]);
    expect(await store.get(keyOf(old))).not.toBeNull();

    const done = await collectGarbage({ clients: [m.client], store, codecs: [offload], olderThanMs: parseAge('1d') });
    expect(done.deleted.map((d) => d.key)).toEqual([keyOf(old)]);
    expect(done.histories).toBeGreaterThan(0);
    expect(await store.get(keyOf(old))).toBeNull();
    expect(await store.get(keyOf(recent))).not.toBeNull();
    // everything the history references is still there: the audit resolves it
    const audit = await m.audit(handle.workflowId);
    expect(audit.ok, JSON.stringify(audit.problems)).toBe(true);
    expect(audit.storedPayloads.checked).toBeGreaterThan(0);

    // with no age at all, only unreferenced objects go: the mission's survive
    const all = await collectGarbage({
      clients: [m.client],
      store,
      codecs: [offload],
      olderThanMs: 0,
      allowYoung: true,
    });
    await expect(collectGarbage({ clients: [m.client], store, codecs: [offload], olderThanMs: 0 })).rejects.toThrow(
      /at least 1h/,
    );
    expect(all.deleted.map((d) => d.key)).toContain(keyOf(recent));
    // read through a codec with nothing cached: every reference of the history is still in the store
    const decoded = await decodePayloads(await handle.fetchHistory(), [new OffloadCodec({ store })]);
    expect(decoded.failures).toEqual([]);
    expect(decoded.stored).toBeGreaterThan(0);
  }, 180_000);

  it('parses ages and refuses others', () => {
    expect(parseAge('7d')).toBe(7 * 86_400_000);
    expect(parseAge('30m')).toBe(1_800_000);
    expect(() => parseAge('soon')).toThrow(/not an age/);
  });
});
