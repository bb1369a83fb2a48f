/**
 * Encrypted payloads: a Temporal `PayloadCodec` with AES-256-GCM, keyed from the
 * environment. Each encrypted payload names its key id in its metadata, so keys can
 * rotate: new payloads use the current key, old ones stay readable while their key is
 * still listed.
 *
 * NAVIGATOR_CODEC_KEYS="k2026:BASE64_32_BYTES,k2025:BASE64_32_BYTES" (the first is current,
 * or NAVIGATOR_CODEC_KEY_ID names it). A payload that is not ours passes through.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
const CIPHER = 'AES-256-GCM';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const PayloadProto = proto.temporal.api.common.v1.Payload;
const utf8 = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | null | undefined) => (b ? new TextDecoder().decode(b) : '');

export class CodecKeyError extends Error {
  override readonly name = 'CodecKeyError';
}

export interface AesGcmKeys {
  /** key id → 32-byte key */
  keys: ReadonlyMap<string, Uint8Array>;
  /** the id new payloads are encrypted with */
  current: string;
}

/** Keys from NAVIGATOR_CODEC_KEYS (and NAVIGATOR_CODEC_KEY_ID), with precise errors. */
export function keysFromEnv(env: NodeJS.ProcessEnv = process.env): AesGcmKeys {
  const raw = env.NAVIGATOR_CODEC_KEYS?.trim();
  if (!raw)
    throw new CodecKeyError(
      'NAVIGATOR_CODEC_KEYS is not set: give ID:BASE64 pairs of 32-byte keys, e.g. `k1:$(openssl rand -base64 32)`',
    );
  const keys = new Map<string, Uint8Array>();
  for (const part of raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const colon = part.indexOf(':');
    if (colon <= 0) throw new CodecKeyError(`NAVIGATOR_CODEC_KEYS: "${part.slice(0, 20)}..." is not ID:BASE64`);
    const id = part.slice(0, colon);
    const key = Buffer.from(part.slice(colon + 1), 'base64');
    if (key.length !== 32)
      throw new CodecKeyError(`NAVIGATOR_CODEC_KEYS: key ${id} is ${key.length} bytes, AES-256 needs 32`);
    if (keys.has(id)) throw new CodecKeyError(`NAVIGATOR_CODEC_KEYS: key id ${id} is given twice`);
    keys.set(id, new Uint8Array(key));
  }
  const current = env.NAVIGATOR_CODEC_KEY_ID?.trim() || [...keys.keys()][0]!;
  if (!keys.has(current))
    throw new CodecKeyError(
      `NAVIGATOR_CODEC_KEY_ID names ${current}, which is not in NAVIGATOR_CODEC_KEYS (${[...keys.keys()].join(', ')})`,
    );
  return { keys, current };
}

export class AesGcmCodec implements PayloadCodec {
  constructor(private readonly keyring: AesGcmKeys = keysFromEnv()) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const key = this.keyring.keys.get(this.keyring.current)!;
    return payloads.map((p) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const plain = PayloadProto.encode(p).finish();
      const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: {
          encoding: utf8(ENCRYPTED_ENCODING),
          'encryption-key-id': utf8(this.keyring.current),
          'encryption-cipher': utf8(CIPHER),
        },
        data: new Uint8Array(sealed),
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => {
      if (text(p.metadata?.encoding) !== ENCRYPTED_ENCODING) return p;
      const id = text(p.metadata?.['encryption-key-id']);
      const key = this.keyring.keys.get(id);
      if (!key)
        throw new CodecKeyError(
          `payload encrypted with key ${id}, which is not in NAVIGATOR_CODEC_KEYS (${[...this.keyring.keys.keys()].join(', ')})`,
        );
      const data = Buffer.from(p.data ?? []);
      if (data.length < IV_BYTES + TAG_BYTES) throw new CodecKeyError('encrypted payload is too short');
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
        decipher.final(),
      ]);
      return PayloadProto.decode(plain) as Payload;
    });
  }
}
