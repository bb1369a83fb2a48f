/**
 * Decoding a history's payloads with codecs (the audit reads values from history): every
 * payload-shaped object (`{metadata, data}`) anywhere in the events goes through the
 * codecs' `decode`, last codec first, as Temporal's own tools do. Codecs pass through
 * payloads they did not encode, so search attributes and plain payloads are unchanged.
 */
import type { Payload, PayloadCodec } from '@temporalio/common';

const isPayload = (v: unknown): v is Payload =>
  typeof v === 'object' && v !== null && 'metadata' in v && typeof (v as Payload).metadata === 'object' && (v as Payload).metadata !== null && 'data' in v;

async function decodeOne(p: Payload, codecs: readonly PayloadCodec[]): Promise<Payload> {
  let out = [p];
  for (let i = codecs.length - 1; i >= 0; i--) out = await codecs[i]!.decode(out);
  return out[0]!;
}

/**
 * Decodes every payload inside `value` (history events, or any part of them) in place:
 * the message objects keep their types (event ids stay Longs), only payloads change.
 */
export async function decodePayloads(value: unknown, codecs: readonly PayloadCodec[]): Promise<void> {
  if (!codecs.length) return;
  const seen = new Set<object>();
  const walk = async (v: unknown): Promise<void> => {
    if (typeof v !== 'object' || v === null || ArrayBuffer.isView(v) || seen.has(v)) return;
    seen.add(v);
    const holder = v as Record<string, unknown>;
    for (const k of Object.keys(holder)) {
      const x = holder[k];
      if (isPayload(x)) holder[k] = await decodeOne(x, codecs);
      else await walk(x);
    }
  };
  await walk(value);
}
