/**
 * Where payloads too large for Temporal history are kept (the claim check of
 * offload-codec.ts): a content-addressed object store. Keys are `sha256/<hex digest>` of
 * what is stored, so a put of a key already present writes the same bytes again and an
 * object never changes once written. Implementations: a folder (file-store.ts, the default)
 * and any S3-compatible bucket (s3-store.ts).
 */

/** One object the store holds, as `list` reports it. */
export interface StoredObject {
  key: string;
  size: number;
  /** when it was (last) written */
  modified: Date;
}

export interface PayloadStore {
  /** where it is, for messages: `file:/var/lib/navigator/payloads`, `s3://bucket/prefix` */
  readonly location: string;
  /** Writes `bytes` under `key`; resolves once they are durable. */
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** The bytes under `key`, or null when the store has no such object. */
  get(key: string): Promise<Uint8Array | null>;
  /** Every object, in no particular order. */
  list(): AsyncIterable<StoredObject>;
  /** Removes `key` (no error when it is absent). */
  delete(key: string): Promise<void>;
}

/** The error of a store that could not be reached or refused a call (not a missing object). */
export class PayloadStoreError extends Error {
  override readonly name = 'PayloadStoreError';
  constructor(
    readonly location: string,
    readonly operation: 'put' | 'get' | 'list' | 'delete',
    readonly key: string | null,
    cause: unknown,
  ) {
    super(
      `payload store ${location}: ${operation}${key ? ` ${key}` : ''} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

const KEY = /^sha256\/[0-9a-f]{64}$/;

/** Throws unless `key` is a store key (`sha256/` and 64 hex digits): never a path of its own. */
export function checkKey(key: string): string {
  if (!KEY.test(key)) throw new Error(`not a payload store key: ${JSON.stringify(key)}`);
  return key;
}
