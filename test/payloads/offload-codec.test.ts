/**
 * The claim-check codec stage (src/payloads/offload-codec.ts): small payloads pass through,
 * large ones become references and come back byte for byte; a reference whose object is
 * missing or altered fails with a message naming it; with AES-GCM after it, neither the
 * reference nor the stored object holds the plaintext; an answer stored ahead is not
 * written again when the SDK encodes it at completion.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { AesGcmCodec } from '../../src/codec/aes-gcm.ts';
import { chainCodecs } from '../../src/codec/load.ts';
import { FileStore } from '../../src/payloads/file-store.ts';
import { OffloadCodec, STORED_ENCODING, referenceOf } from '../../src/payloads/offload-codec.ts';
import type { PayloadStore } from '../../src/payloads/store.ts';

const text = (b: Uint8Array | null | undefined) => Buffer.from(b ?? []).toString();
const folder = () => mkdtempSync(join(tmpdir(), 'offload-'));

/** A folder store that counts its writes. */
class CountingStore extends FileStore {
  puts = 0;
  override async put(key: string, bytes: Uint8Array): Promise<void> {
    this.puts++;
    return super.put(key, bytes);
  }
}

const big = (n: number) => defaultPayloadConverter.toPayload({ text: 'x'.repeat(n) });

describe('OffloadCodec', () => {
  it('passes small payloads through and turns large ones into references that decode byte for byte', async () => {
    const codec = new OffloadCodec({ store: new FileStore(folder()), thresholdBytes: 1024 });
    const small = defaultPayloadConverter.toPayload({ a: 1 });
    const large = big(100_000);
    const [s, l] = await codec.encode([small, large]);
    expect(s).toBe(small);
    expect(text(l!.metadata!.encoding)).toBe(STORED_ENCODING);
    const ref = referenceOf(l!)!;
    expect(ref).toMatchObject({
      size: expect.any(Number),
      encoding: 'json/plain',
      preview: expect.stringMatching(/^\{"text":"xxx/),
    });
    expect(l!.data!.length).toBeLessThan(600);
    const [back] = await new OffloadCodec({ store: new FileStore(codecFolder(codec)) }).decode([l!]);
    expect(defaultPayloadConverter.fromPayload(back!)).toEqual({ text: 'x'.repeat(100_000) });
  });

  it('names the digest, size and store of a reference whose object is missing or altered', async () => {
    const dir = folder();
    const codec = new OffloadCodec({ store: new FileStore(dir), thresholdBytes: 1024 });
    const [ref] = await codec.encode([big(50_000)]);
    const fresh = () => new OffloadCodec({ store: new FileStore(dir) });
    const [file] = readdirSync(join(dir, 'sha256'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    const path = join(file!.parentPath, file!.name);
    writeFileSync(path, Buffer.concat([readFileSync(path), Buffer.from('!')]));
    await expect(fresh().decode([ref!])).rejects.toThrow(
      /stored payload sha256:[0-9a-f]{16}… in file:.* does not match its reference: its bytes hash to/,
    );
    const empty = new OffloadCodec({ store: new FileStore(folder()) });
    await expect(empty.decode([ref!])).rejects.toThrow(
      /stored payload sha256:[0-9a-f]{16}… \(48\.\d KB\) is not in the payload store file:/,
    );
  });

  it('with AES-GCM after it: the reference in history and the stored object are both ciphertext', async () => {
    const dir = folder();
    const keys = { keys: new Map([['k1', new Uint8Array(randomBytes(32))]]), current: 'k1' };
    const aes = new AesGcmCodec(keys);
    const offload = new OffloadCodec({ store: new FileStore(dir), thresholdBytes: 1024, storedCodecs: [aes] });
    const chain = chainCodecs([offload, aes]);
    const secret = { text: `secret-${'y'.repeat(20_000)}` };
    const [encoded] = await chain.encode([defaultPayloadConverter.toPayload(secret)]);
    expect(text(encoded!.metadata!.encoding)).toBe('binary/encrypted');
    expect(text(encoded!.data)).not.toContain('secret');
    for (const e of readdirSync(join(dir, 'sha256'), { recursive: true, withFileTypes: true }).filter((f) =>
      f.isFile(),
    )) {
      expect(readFileSync(join(e.parentPath, e.name)).toString('latin1')).not.toContain('secret');
    }
    const reader = chainCodecs([new OffloadCodec({ store: new FileStore(dir), storedCodecs: [aes] }), aes]);
    const [back] = await reader.decode([encoded!]);
    expect(defaultPayloadConverter.fromPayload(back!)).toEqual(secret);
  });

  it('an answer stored ahead is found at completion: the encode writes nothing more', async () => {
    const store = new CountingStore(folder());
    const codec = new OffloadCodec({ store, thresholdBytes: 1024 });
    const answer = { result: 'r'.repeat(200_000), attempt: 1 };
    const ahead = await codec.storeAhead(defaultPayloadConverter.toPayload(answer));
    expect(ahead).not.toBeNull();
    expect(store.puts).toBe(1);
    // what the SDK does with the activity's return value
    const [atCompletion] = await codec.encode([defaultPayloadConverter.toPayload(answer)]);
    expect(store.puts).toBe(1);
    expect(referenceOf(atCompletion!)).toEqual(referenceOf(ahead!));
    expect(await codec.storeAhead(defaultPayloadConverter.toPayload({ small: true }))).toBeNull();
  });

  it('retries a write that fails, then gives up with the store error', async () => {
    let fails = 2;
    const inner = new FileStore(folder());
    const flaky: PayloadStore = {
      location: 'test:flaky',
      put: async (k, b) => (fails-- > 0 ? Promise.reject(new Error('ECONNRESET')) : inner.put(k, b)),
      get: (k) => inner.get(k),
      list: () => inner.list(),
      delete: (k) => inner.delete(k),
    };
    const [ref] = await new OffloadCodec({ store: flaky, thresholdBytes: 1024 }).encode([big(10_000)]);
    expect(referenceOf(ref!)).not.toBeNull();
    const down: PayloadStore = { ...flaky, put: async () => Promise.reject(new Error('ECONNREFUSED')) };
    await expect(new OffloadCodec({ store: down, thresholdBytes: 1024 }).encode([big(10_000)])).rejects.toThrow(
      'ECONNREFUSED',
    );
  });
});

function codecFolder(codec: OffloadCodec): string {
  return (codec.store as FileStore).dir;
}
