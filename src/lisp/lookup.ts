/**
 * Flexible key lookup: every read by key tries the exact key first, then the keyword ↔
 * string of the same name. So `(:id r)` works on JSON tool results with string keys.
 * Writes always use the exact key.
 */
import { type PMap, type Value, isMap, isSet, isVector, isPList, kw, isKeyword } from './values.ts';

const MISSING = Symbol('missing');

/** The other spelling of a key: `:a` ↔ `"a"`; undefined for other values. */
export function alternateKey(k: Value): Value | undefined {
  if (isKeyword(k)) return k.fullName;
  if (typeof k === 'string' && k.length > 0) return kw(k);
  return undefined;
}

/** Looks `k` up in a map, exact key first; `notFound` when neither spelling is there. */
export function mapGet(m: PMap, k: Value, notFound: Value = null): Value {
  const exact = m.get(k, MISSING as unknown as Value);
  if ((exact as unknown) !== MISSING) return exact;
  const alt = alternateKey(k);
  if (alt === undefined) return notFound;
  const other = m.get(alt, MISSING as unknown as Value);
  return (other as unknown) !== MISSING ? other : notFound;
}

/** Whether a map has `k` under either spelling. */
export function mapHas(m: PMap, k: Value): boolean {
  if (m.has(k)) return true;
  const alt = alternateKey(k);
  return alt !== undefined && m.has(alt);
}

/**
 * `get` semantics on any value: maps flexibly, vectors/lists by integer index, sets by
 * membership (returns the member), strings by index (a 1-char string); else `notFound`.
 */
export function getIn1(coll: Value, k: Value, notFound: Value = null): Value {
  if (isMap(coll)) return mapGet(coll, k, notFound);
  if (isVector(coll) || isPList(coll)) {
    const items = isVector(coll) ? coll : coll.items;
    if (typeof k !== 'number' || !Number.isInteger(k) || k < 0 || k >= items.size) return notFound;
    return items.get(k) ?? null;
  }
  if (isSet(coll)) {
    // the member as stored, as Clojure gives it: (get #{[1 2]} '(1 2)) is [1 2]
    const member = coll.get(k, MISSING);
    if (member !== MISSING) return member;
    const alt = alternateKey(k);
    return alt === undefined ? notFound : coll.get(alt, notFound);
  }
  if (typeof coll === 'string' && typeof k === 'number' && Number.isInteger(k) && k >= 0 && k < coll.length) {
    return coll[k]!;
  }
  return notFound;
}
