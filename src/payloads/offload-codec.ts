/**
 * The claim check: a `PayloadCodec` stage that keeps any payload larger than a threshold
 * out of Temporal history. The payload's bytes go to a content-addressed store
 * (store.ts) under their SHA-256, and history keeps a small reference payload instead
 * (encoding `navigator/stored`: digest, size, the original encoding and a short preview
 * for people reading history in the Temporal UI).
 *
 * Why a codec and not our own data layer: every reader of a payload (clients, workers,
 * the workflow sandbox, audit, replay, the console and `navigator codec-server` for the
 * Temporal UI) already runs the data converter's codecs, so one stage serves them all and
 * the workflow code, the journal and recorded histories stay as they were (a history from
 * before the store has no references and decodes unchanged).
 *
 * It composes with other codecs (AES-GCM, compression): it runs first on encode, and the
 * codecs given as `storedCodecs` encode the stored bytes too, so with encryption both the
 * reference and the stored object are encrypted. The digest is of the plaintext payload,
 * verified on every read.
 */
import { createHash } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import type { PayloadStore } from './store.ts';

export const STORED_ENCODING = 'navigator/stored';
/** payloads above this many bytes (serialized) are stored @default 64 KiB */
export const DEFAULT_THRESHOLD_BYTES = 64 * 1024;

const PayloadProto = proto.temporal.api.common.v1.Payload;
const utf8 = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | null | undefined) => (b ? new TextDecoder().decode(b) : '');
const PREVIEW_CHARS = 160;
/** how long a write (or read) vouches for an object being in the store; gc keeps anything younger than an hour */
export const KNOWN_FOR_MS = 10 * 60 * 1000;

/** What a reference payload's data holds (JSON). */
export interface StoredReference {
  sha256: string;
  /** bytes of the stored payload (serialized, before any stored codec) */
  size: number;
  /** the stored payload's own encoding, e.g. json/plain */
  encoding: string;
  /** the start of its data, for people reading history */
  preview?: string;
}

/** A reference whose object is not in the store (deleted, another store, never written). */
export class StoredPayloadMissing extends Error {
  override readonly name = 'StoredPayloadMissing';
  constructor(
    readonly ref: StoredReference,
    readonly location: string,
  ) {
    super(
      `stored payload sha256:${ref.sha256.slice(0, 16)}… (${formatBytes(ref.size)}) is not in the payload store ${location}: was it deleted, or does this process use another store than the worker that wrote it (NAVIGATOR_PAYLOAD_STORE)?`,
    );
  }
}

/** A stored object whose bytes are not the ones its reference names. */
export class StoredPayloadCorrupt extends Error {
  override readonly name = 'StoredPayloadCorrupt';
  constructor(
    readonly ref: StoredReference,
    readonly location: string,
    why: string,
  ) {
    super(`stored payload sha256:${ref.sha256.slice(0, 16)}… in ${location} does not match its reference: ${why}`);
  }
}

export interface OffloadCodecOptions {
  store: PayloadStore;
  /** @default DEFAULT_THRESHOLD_BYTES */
  thresholdBytes?: number;
  /** codecs that encode the stored object (e.g. encryption), in encode order */
  storedCodecs?: readonly PayloadCodec[];
  /** bytes of decoded payloads kept for repeated reads (replays) @default 128 MiB */
  cacheBytes?: number;
  /** tries of a store write within one encode @default 3 */
  putAttempts?: number;
}

export const isStoredReference = (p: Payload): boolean => text(p.metadata?.encoding) === STORED_ENCODING;

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** The reference a payload of history holds, or null when it holds the value itself. */
export function referenceOf(p: Payload): StoredReference | null {
  if (!isStoredReference(p)) return null;
  const ref = JSON.parse(text(p.data)) as StoredReference;
  if (typeof ref?.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(ref.sha256) || typeof ref.size !== 'number') {
    throw new Error(`a ${STORED_ENCODING} payload without a valid sha256 and size: ${text(p.data).slice(0, 200)}`);
  }
  return ref;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A bounded map, least recently used out first, sized by a weight per entry. */
class Lru<V> {
  private readonly entries = new Map<string, { value: V; weight: number }>();
  private total = 0;
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.value;
  }
  set(key: string, value: V, weight: number): void {
    if (weight > this.max) return;
    const old = this.entries.get(key);
    if (old) this.total -= old.weight;
    this.entries.delete(key);
    this.entries.set(key, { value, weight });
    this.total += weight;
    for (const [k, e] of this.entries) {
      if (this.total <= this.max) break;
      this.entries.delete(k);
      this.total -= e.weight;
    }
  }
}

export class OffloadCodec implements PayloadCodec {
  readonly store: PayloadStore;
  readonly thresholdBytes: number;
  private readonly storedCodecs: readonly PayloadCodec[];
  private readonly putAttempts: number;
  /** decoded payload bytes by digest */
  private readonly cache: Lru<Uint8Array>;
  /** digests this process has written (or read) and so knows are in the store, with when */
  private readonly known = new Lru<number>(200_000);
  private readonly writing = new Map<string, Promise<void>>();

  constructor(opts: OffloadCodecOptions) {
    this.store = opts.store;
    this.thresholdBytes = opts.thresholdBytes ?? DEFAULT_THRESHOLD_BYTES;
    this.storedCodecs = opts.storedCodecs ?? [];
    this.putAttempts = opts.putAttempts ?? 3;
    this.cache = new Lru(opts.cacheBytes ?? 128 * 1024 * 1024);
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(payloads.map((p) => this.encodeOne(p)));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(payloads.map((p) => this.decodeOne(p)));
  }

  /**
   * Stores `p` now if it is over the threshold (so that encoding it later finds it
   * stored and needs no write): an activity calls this before it returns, retrying as
   * long as it likes, because a failed write at completion would fail the activity.
   */
  async storeAhead(p: Payload): Promise<Payload | null> {
    const bytes = PayloadProto.encode(p).finish();
    if (bytes.length <= this.thresholdBytes) return null;
    const digest = sha256(bytes);
    await this.ensureStored(digest, bytes, 1);
    return this.referenceFor(p, digest, bytes.length);
  }

  /**
   * Whether this process knows `digest` to be in the store: it wrote or read it in the last
   * KNOWN_FOR_MS. Not longer: `navigator store gc` may delete an object no history
   * references once it is an hour old, and a payload encoded again must be written again.
   */
  knows(digest: string): boolean {
    const at = this.known.get(digest);
    return at !== undefined && Date.now() - at < KNOWN_FOR_MS;
  }

  /** The payload a reference names, read from the store and verified. */
  async resolve(ref: StoredReference): Promise<Payload> {
    const cached = this.cache.get(ref.sha256);
    if (cached) return PayloadProto.decode(cached) as Payload;
    const raw = await this.store.get(`sha256/${ref.sha256}`);
    if (!raw) throw new StoredPayloadMissing(ref, this.store.location);
    const bytes = await this.unwrap(raw, ref);
    const actual = sha256(bytes);
    if (actual !== ref.sha256)
      throw new StoredPayloadCorrupt(ref, this.store.location, `its bytes hash to sha256:${actual.slice(0, 16)}…`);
    this.cache.set(ref.sha256, bytes, bytes.length);
    this.known.set(ref.sha256, Date.now(), 1);
    return PayloadProto.decode(bytes) as Payload;
  }

  private async encodeOne(p: Payload): Promise<Payload> {
    if (isStoredReference(p)) return p;
    const bytes = PayloadProto.encode(p).finish();
    if (bytes.length <= this.thresholdBytes) return p;
    const digest = sha256(bytes);
    await this.ensureStored(digest, bytes, this.putAttempts);
    return this.referenceFor(p, digest, bytes.length);
  }

  private async decodeOne(p: Payload): Promise<Payload> {
    const ref = referenceOf(p);
    return ref ? this.resolve(ref) : p;
  }

  private referenceFor(p: Payload, digest: string, size: number): Payload {
    const encoding = text(p.metadata?.encoding);
    const ref: StoredReference = { sha256: digest, size, encoding };
    if (encoding.startsWith('json/'))
      ref.preview = text(p.data?.subarray(0, PREVIEW_CHARS * 4)).slice(0, PREVIEW_CHARS);
    return { metadata: { encoding: utf8(STORED_ENCODING) }, data: utf8(JSON.stringify(ref)) };
  }

  private async ensureStored(digest: string, bytes: Uint8Array, attempts: number): Promise<void> {
    if (this.knows(digest)) return;
    const inFlight = this.writing.get(digest);
    if (inFlight) return inFlight;
    const write = this.write(digest, bytes, attempts).finally(() => this.writing.delete(digest));
    this.writing.set(digest, write);
    return write;
  }

  private async write(digest: string, bytes: Uint8Array, attempts: number): Promise<void> {
    const stored = await this.wrap(bytes);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.store.put(`sha256/${digest}`, stored);
        break;
      } catch (err) {
        if (attempt >= attempts) throw err;
        await sleep(100 * 4 ** (attempt - 1));
      }
    }
    this.known.set(digest, Date.now(), 1);
    this.cache.set(digest, bytes, bytes.length);
  }

  /** The object to store: the payload's bytes, through the stored codecs when there are any. */
  private async wrap(bytes: Uint8Array): Promise<Uint8Array> {
    if (!this.storedCodecs.length) return bytes;
    let out: Payload[] = [{ metadata: { encoding: utf8('binary/plain') }, data: bytes }];
    for (const codec of this.storedCodecs) out = await codec.encode(out);
    return PayloadProto.encode(out[0]!).finish();
  }

  private async unwrap(raw: Uint8Array, ref: StoredReference): Promise<Uint8Array> {
    if (!this.storedCodecs.length) return raw;
    try {
      let out: Payload[] = [PayloadProto.decode(raw) as Payload];
      for (let i = this.storedCodecs.length - 1; i >= 0; i--) out = await this.storedCodecs[i]!.decode(out);
      return out[0]!.data ?? new Uint8Array();
    } catch (err) {
      throw new StoredPayloadCorrupt(ref, this.store.location, `it could not be decoded: ${(err as Error).message}`);
    }
  }
}
