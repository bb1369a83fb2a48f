/**
 * The payload codec of this process, configured once: `--codec MODULE` (the CLI sets
 * NAVIGATOR_CODEC) or NAVIGATOR_CODEC, `aes-gcm` for the built-in AES-256-GCM codec or a
 * module whose default export (or `codec`) is a `PayloadCodec` or a function making one.
 * Every client, worker, audit and replay of the process uses it.
 */
import type { DataConverter, PayloadCodec } from '@temporalio/common';
import { importUserModule } from '../user-module.ts';
import { AesGcmCodec } from './aes-gcm.ts';

let configured: Promise<PayloadCodec | null> | undefined;

const isCodec = (v: unknown): v is PayloadCodec =>
  typeof v === 'object' && v !== null && typeof (v as PayloadCodec).encode === 'function' && typeof (v as PayloadCodec).decode === 'function';

/** The codec named by `spec` (`aes-gcm` or a module path). */
export async function loadCodec(spec: string): Promise<PayloadCodec> {
  if (spec === 'aes-gcm') return new AesGcmCodec();
  const mod = await importUserModule(spec);
  const exported = mod.codec ?? mod.default;
  const codec = typeof exported === 'function' ? await (exported as () => unknown)() : exported;
  if (!isCodec(codec)) throw new Error(`${spec}: export a PayloadCodec (encode and decode) as default or as \`codec\`, or a function returning one`);
  return codec;
}

/** NAVIGATOR_CODEC's codec, loaded once per process; null when none is configured. */
export function configuredCodec(env: NodeJS.ProcessEnv = process.env): Promise<PayloadCodec | null> {
  const spec = env.NAVIGATOR_CODEC?.trim();
  if (!spec) return Promise.resolve(null);
  configured ??= loadCodec(spec);
  return configured;
}

/** The data converter for clients, workers and replays: the configured codec, if any. */
export async function configuredDataConverter(): Promise<DataConverter | undefined> {
  const codec = await configuredCodec();
  return codec ? { payloadCodecs: [codec] } : undefined;
}
