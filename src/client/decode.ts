/** Reading a value Temporal hands back encoded (heartbeat details, a signal's or a start's input). */
import type { LoadedDataConverter, Payload } from '@temporalio/common';

/** The first payload's value, through the client's codecs (the last one first) and its payload converter. */
export async function firstValue(converter: LoadedDataConverter, payloads: Payload[]): Promise<unknown> {
  let decoded = payloads;
  for (const codec of [...converter.payloadCodecs].reverse()) decoded = await codec.decode(decoded);
  return converter.payloadConverter.fromPayload(decoded[0]!);
}
