/**
 * Decoding a history's payloads with codecs (the audit reads values from history): every
 * payload-shaped object (`{metadata, data}`) anywhere in the events goes through the
 * codecs' `decode`, last codec first, as Temporal's own tools do. Codecs pass through
 * payloads they did not encode, so search attributes and plain payloads are unchanged.
 *
 * A payload that does not decode (a stored payload missing from the store or not matching
 * its digest, a key that is gone) is left as it is and reported with the event that holds
 * it, so one bad payload is a named problem, not an unreadable history.
 */
import type { Payload, PayloadCodec } from '@temporalio/common';
import { referenceOf } from '../payloads/offload-codec.ts';

const isPayload = (v: unknown): v is Payload =>
  typeof v === 'object' &&
  v !== null &&
  'metadata' in v &&
  typeof (v as Payload).metadata === 'object' &&
  (v as Payload).metadata !== null &&
  'data' in v;

/** A payload that could not be decoded, and where. */
export interface DecodeFailure {
  /** the event holding it (0 when the value was not a history event) */
  eventId: number;
  /** e.g. `activityTaskCompletedEventAttributes` */
  attributes: string;
  message: string;
}

/** What decoding a history found. */
export interface DecodeReport {
  failures: DecodeFailure[];
  /** payloads that were references to the payload store, resolved and verified */
  stored: number;
  /** bytes those references named */
  storedBytes: number;
}

const eventIdOf = (v: Record<string, unknown>): number | null =>
  'eventId' in v && 'eventType' in v ? Number(v.eventId ?? 0) : null;

/**
 * Decodes every payload inside `value` (history events, or any part of them) in place:
 * the message objects keep their types (event ids stay Longs), only payloads change.
 */
export async function decodePayloads(value: unknown, codecs: readonly PayloadCodec[]): Promise<DecodeReport> {
  const report: DecodeReport = { failures: [], stored: 0, storedBytes: 0 };
  if (!codecs.length) return report;
  const seen = new Set<object>();
  const decodeOne = async (p: Payload, at: { eventId: number; attributes: string }): Promise<Payload> => {
    let out = [p];
    try {
      for (let i = codecs.length - 1; i >= 0; i--) {
        const ref = referenceOf(out[0]!);
        if (ref) {
          report.stored++;
          report.storedBytes += ref.size;
        }
        out = await codecs[i]!.decode(out);
      }
      return out[0]!;
    } catch (err) {
      report.failures.push({ ...at, message: (err as Error).message });
      return p;
    }
  };
  // the payloads and where they are, found in one synchronous walk; then decoded one after
  // another. (An await per object walked made ~100,000 promises for a 500-pass history: 0.75 s
  // of CPU, and 5-7 s at load 20 while a replay worker's promise hooks were on in the process.)
  const sites: Array<{ holder: Record<string, unknown>; key: string; at: { eventId: number; attributes: string } }> =
    [];
  const walk = (v: unknown, at: { eventId: number; attributes: string }): void => {
    if (typeof v !== 'object' || v === null || ArrayBuffer.isView(v) || seen.has(v)) return;
    seen.add(v);
    const holder = v as Record<string, unknown>;
    const id = eventIdOf(holder);
    const here = id === null ? at : { eventId: id, attributes: at.attributes };
    for (const k of Object.keys(holder)) {
      const x = holder[k];
      const where = id !== null && k.endsWith('EventAttributes') ? { ...here, attributes: k } : here;
      if (isPayload(x)) sites.push({ holder, key: k, at: where });
      else walk(x, where);
    }
  };
  walk(value, { eventId: 0, attributes: '' });
  for (const { holder, key, at } of sites) holder[key] = await decodeOne(holder[key] as Payload, at);
  return report;
}

/** A decode failure as one line: `event 12 (activityTaskCompleted): ...`. */
export function decodeFailureText(f: DecodeFailure): string {
  const where = f.eventId
    ? `event ${f.eventId}${f.attributes ? ` (${f.attributes.replace(/EventAttributes$/, '')})` : ''}`
    : 'a payload';
  return `${where}: ${f.message}`;
}
