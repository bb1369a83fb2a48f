/**
 * A structural patch between two JSON values, so a value that grows a little at a time
 * (a suspended pass's state) crosses the activity boundary as what changed instead of
 * whole, every time: history keeps each change once.
 *
 * `applyPatch(base, diffJson(base, next))` deep-equals `next` for any JSON values (a
 * property test checks it). Pure and import-free: the workflow bundle applies patches.
 */
import type { Json } from './contract.ts';

/**
 * - `{ r: v }`: replace with `v`
 * - `{ o: {key: patch}, d: [keys] }`: object: patch these keys, delete those
 * - `{ a: n, i: {index: patch} }`: array of length `n`: patch these indices (new indices
 *   patch from nothing, that is `{ r: v }`)
 */
export type JsonPatch =
  { r: Json } | { o: Record<string, JsonPatch>; d?: string[] } | { a: number; i: Record<string, JsonPatch> };

/** Sets an own property, also for a key like `__proto__` (a `def` name can be one). */
function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

const isObject = (v: Json | undefined): v is { [key: string]: Json } =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deep equality of JSON values (key order does not matter). */
export function jsonEquals(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEquals(x, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEquals(a[k], b[k]))
  );
}

/** The patch from `base` to `next`; null when they are equal. */
export function diffJson(base: Json | undefined, next: Json): JsonPatch | null {
  if (jsonEquals(base, next)) return null;
  if (Array.isArray(base) && Array.isArray(next)) {
    const i: Record<string, JsonPatch> = {};
    for (let k = 0; k < next.length; k++) {
      const p = k < base.length ? diffJson(base[k], next[k]!) : { r: next[k]! };
      if (p) i[k] = p;
    }
    return { a: next.length, i };
  }
  if (isObject(base) && isObject(next)) {
    const o: Record<string, JsonPatch> = {};
    for (const [k, v] of Object.entries(next)) {
      const p = Object.prototype.hasOwnProperty.call(base, k) ? diffJson(base[k], v) : { r: v };
      if (p) setOwn(o, k, p);
    }
    const d = Object.keys(base).filter((k) => !Object.prototype.hasOwnProperty.call(next, k));
    return d.length ? { o, d } : { o };
  }
  return { r: next };
}

/** `base` with `patch` applied; `base` is not changed (unchanged parts are shared). */
export function applyPatch(base: Json | undefined, patch: JsonPatch | null): Json {
  if (patch === null) return base as Json;
  if ('r' in patch) return patch.r;
  if ('a' in patch) {
    if (!Array.isArray(base)) throw new PatchError('an array patch applies to an array only');
    const out = base.slice(0, patch.a);
    for (const [k, p] of Object.entries(patch.i)) out[Number(k)] = applyPatch(out[Number(k)], p);
    if (out.length !== patch.a) throw new PatchError(`array patch leaves ${out.length} items, expected ${patch.a}`);
    return out;
  }
  if (!isObject(base)) throw new PatchError('an object patch applies to an object only');
  const out: { [key: string]: Json } = {};
  for (const [k, v] of Object.entries(base)) setOwn(out, k, v);
  for (const k of patch.d ?? []) delete out[k];
  for (const [k, p] of Object.entries(patch.o))
    setOwn(out, k, applyPatch(Object.prototype.hasOwnProperty.call(out, k) ? out[k] : undefined, p));
  return out;
}

/** A patch that does not fit the value it is applied to (it was made from another base). */
export class PatchError extends Error {
  override readonly name = 'PatchError';
}
