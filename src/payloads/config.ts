/**
 * The payload store of this process, from the environment, so that every client, worker,
 * audit and replay of one installation reads and writes the same one:
 *
 * - NAVIGATOR_PAYLOAD_STORE: unset → a folder in the per-user data folder (one machine:
 *   `npm start`, tests, `navigator dev`); `s3://bucket/prefix` → an S3-compatible bucket
 *   (credentials from the standard AWS chain, endpoint from NAVIGATOR_S3_ENDPOINT or
 *   AWS_ENDPOINT_URL_S3); `file:/path` or an absolute path → that folder; `off` → none
 *   (payloads stay in history, and results too large for it are refused, never re-run).
 * - NAVIGATOR_PAYLOAD_THRESHOLD: payloads over this many bytes are stored (default 64 KiB).
 * - NAVIGATOR_MAX_RESULT_BYTES: the hard cap on one tool result (default 64 MiB).
 */
import { isAbsolute, join } from 'node:path';
import { navigatorDataDir } from '../machine/folders.ts';
import { FileStore } from './file-store.ts';
import { DEFAULT_THRESHOLD_BYTES } from './offload-codec.ts';
import type { PayloadStore } from './store.ts';

export const DEFAULT_MAX_RESULT_BYTES = 64 * 1024 * 1024;
/**
 * Without a store, the largest activity answer sent to Temporal: the real server refuses a
 * payload over 2 MB (its blob size limit) and the embedded one a message over 4 MB.
 */
export const INLINE_LIMIT_BYTES = 2 * 1024 * 1024 - 64 * 1024;

/** The default store's folder: NAVIGATOR_DATA_DIR or $XDG_DATA_HOME/navigator-on-temporal or ~/.local/share/navigator-on-temporal, then /payloads. */
export function defaultStoreDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(navigatorDataDir(env), 'payloads');
}

/** The store NAVIGATOR_PAYLOAD_STORE names (see above); null for `off`. */
export async function storeFromSpec(
  spec: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<PayloadStore | null> {
  const s = spec?.trim();
  if (!s) return new FileStore(defaultStoreDir(env));
  if (s === 'off' || s === 'none') return null;
  if (s.startsWith('s3://')) {
    const { s3StoreFromUrl } = await import('./s3-store.ts');
    return s3StoreFromUrl(s, env);
  }
  const path = s.startsWith('file:') ? s.slice('file:'.length) : s;
  if (!isAbsolute(path))
    throw new Error(
      `NAVIGATOR_PAYLOAD_STORE=${s}: give s3://bucket/prefix, file:/absolute/folder, an absolute folder or off`,
    );
  return new FileStore(path);
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a whole number of bytes, got ${raw}`);
  return n;
}

export const thresholdFromEnv = (env: NodeJS.ProcessEnv = process.env) =>
  positiveInt(env, 'NAVIGATOR_PAYLOAD_THRESHOLD', DEFAULT_THRESHOLD_BYTES);
export const maxResultBytesFromEnv = (env: NodeJS.ProcessEnv = process.env) =>
  positiveInt(env, 'NAVIGATOR_MAX_RESULT_BYTES', DEFAULT_MAX_RESULT_BYTES);
