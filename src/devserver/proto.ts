/**
 * Protobuf reflection for the Temporal API, taken from `@temporalio/proto` so the
 * server and the SDK can never disagree about field numbers.
 *
 * Every message crosses the wire as a plain JSON-compatible object: camelCase fields,
 * enums as their string names, int64 as numbers, bytes as base64 strings. That one
 * shape is also what history events and persisted state are stored in, so nothing is
 * converted twice and `--db` can write state with `JSON.stringify`.
 */
import { createRequire } from 'node:module';
import type * as protobuf from 'protobufjs';

const require = createRequire(import.meta.url);
export const root: protobuf.Root = require('@temporalio/proto/protos/json-module');
root.resolveAll();

/** A decoded protobuf message in the JSON-compatible shape described above. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Msg = Record<string, any>;

const DECODE_OPTIONS = { longs: Number, enums: String, bytes: String, defaults: false } as const;

export function lookupType(fullName: string): protobuf.Type {
  return root.lookupType(fullName);
}

export function decode(type: protobuf.Type, bytes: Uint8Array): Msg {
  return type.toObject(type.decode(bytes), DECODE_OPTIONS);
}

export function encode(type: protobuf.Type, value: Msg): Buffer {
  return Buffer.from(type.encode(type.fromObject(value)).finish());
}

const ANY_PREFIX = 'type.googleapis.com/';

/** Packs `value` as a google.protobuf.Any in the stored shape. */
export function packAny(fullName: string, value: Msg): Msg {
  // google.protobuf.Any keeps its snake_case field name in this reflection root.
  return { type_url: ANY_PREFIX + fullName, value: encode(lookupType(fullName), value).toString('base64') };
}

/** Unpacks a google.protobuf.Any; returns the message type name and the message. */
export function unpackAny(any: Msg | undefined): { type: string; value: Msg } | undefined {
  const url = String(any?.type_url ?? '');
  if (!any || !url) return undefined;
  const type = url.slice(url.lastIndexOf('/') + 1);
  return { type, value: decode(lookupType(type), Buffer.from(any.value ?? '', 'base64')) };
}

/** Milliseconds as {seconds, nanos}, the shape of both Timestamp and Duration. */
function secondsAndNanos(ms: number): Msg {
  return { seconds: Math.floor(ms / 1000), nanos: Math.round(ms % 1000) * 1_000_000 };
}

/** Milliseconds since the epoch → google.protobuf.Timestamp. */
export const timestamp = (epochMs: number): Msg => secondsAndNanos(epochMs);

/** Milliseconds → google.protobuf.Duration. */
export const duration = (ms: number): Msg => secondsAndNanos(ms);

/** google.protobuf.Duration → milliseconds; absent means 0 ("not set" in Temporal). */
export function durationMs(d: Msg | undefined | null): number {
  if (!d) return 0;
  return Number(d.seconds ?? 0) * 1000 + Math.floor(Number(d.nanos ?? 0) / 1_000_000);
}

export function textOf(bytes: string | undefined): string {
  return Buffer.from(bytes ?? '', 'base64').toString('utf8');
}
