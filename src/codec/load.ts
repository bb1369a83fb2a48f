/**
 * The payload codecs of this process, configured once: the payload store's claim check
 * (src/payloads: NAVIGATOR_PAYLOAD_STORE, on by default) first, then `--codec MODULE` (the
 * CLI sets NAVIGATOR_CODEC) or NAVIGATOR_CODEC: `aes-gcm` for the built-in AES-256-GCM
 * codec or a module whose default export (or `codec`) is a `PayloadCodec` or a function
 * making one. Every client, worker, audit and replay of the process uses them.
 */
import type { DataConverter, PayloadCodec } from '@temporalio/common';
import { importUserModule } from '../user-module.ts';
import { AesGcmCodec } from './aes-gcm.ts';
import { OffloadCodec } from '../payloads/offload-codec.ts';
import { storeFromSpec, thresholdFromEnv } from '../payloads/config.ts';

let configured: Promise<PayloadCodec | null> | undefined;
let offload: Promise<OffloadCodec | null> | undefined;

const isCodec = (v: unknown): v is PayloadCodec =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as PayloadCodec).encode === 'function' &&
  typeof (v as PayloadCodec).decode === 'function';

/** The codec named by `spec` (`aes-gcm` or a module path). */
export async function loadCodec(spec: string): Promise<PayloadCodec> {
  if (spec === 'aes-gcm') return new AesGcmCodec();
  const mod = await importUserModule(spec);
  const exported = mod.codec ?? mod.default;
  const codec = typeof exported === 'function' ? await (exported as () => unknown)() : exported;
  if (!isCodec(codec))
    throw new Error(
      `${spec}: export a PayloadCodec (encode and decode) as default or as \`codec\`, or a function returning one`,
    );
  return codec;
}

/** NAVIGATOR_CODEC's codec, loaded once per process; null when none is configured. */
export function configuredCodec(env: NodeJS.ProcessEnv = process.env): Promise<PayloadCodec | null> {
  const spec = env.NAVIGATOR_CODEC?.trim();
  if (!spec) return Promise.resolve(null);
  configured ??= loadCodec(spec);
  return configured;
}

/** The payload store's codec of this process (NAVIGATOR_PAYLOAD_STORE), made once; null for `off`. */
export function configuredOffload(env: NodeJS.ProcessEnv = process.env): Promise<OffloadCodec | null> {
  offload ??= (async () => {
    const store = await storeFromSpec(env.NAVIGATOR_PAYLOAD_STORE, env);
    if (!store) return null;
    const codec = await configuredCodec(env);
    // with encryption, the stored objects are encrypted too
    return new OffloadCodec({ store, thresholdBytes: thresholdFromEnv(env), storedCodecs: codec ? [codec] : [] });
  })();
  return offload;
}

/** Every codec of the process in encode order: the store's claim check, then NAVIGATOR_CODEC's. */
export async function configuredCodecs(): Promise<PayloadCodec[]> {
  const [store, codec] = await Promise.all([configuredOffload(), configuredCodec()]);
  return [store, codec].filter((c): c is PayloadCodec => c !== null);
}

/** Several codecs as one, as the SDK runs them: encode in order, decode in reverse. */
export function chainCodecs(codecs: readonly PayloadCodec[]): PayloadCodec {
  return {
    async encode(payloads) {
      for (const c of codecs) payloads = await c.encode(payloads);
      return payloads;
    },
    async decode(payloads) {
      for (let i = codecs.length - 1; i >= 0; i--) payloads = await codecs[i]!.decode(payloads);
      return payloads;
    },
  };
}

/** The data converter for clients, workers and replays: the configured codecs, if any. */
export async function configuredDataConverter(): Promise<DataConverter | undefined> {
  const codecs = await configuredCodecs();
  return codecs.length ? { payloadCodecs: codecs } : undefined;
}

/** The claim-check stage among a data converter's codecs, if it has one. */
export function offloadOf(dataConverter: DataConverter | undefined): OffloadCodec | null {
  return (dataConverter?.payloadCodecs?.find((c) => c instanceof OffloadCodec) as OffloadCodec | undefined) ?? null;
}
