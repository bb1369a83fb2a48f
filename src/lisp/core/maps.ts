/**
 * Map functions: reading (flexible key lookup), writing (exact keys), merging and
 * bulk transforms. Maps keep insertion order, so `keys`, `vals` and `seq` list entries
 * in the order they were added (as Clojure's small array-maps do).
 *
 * Keys: every read is flexible (`:a` finds `"a"`). `assoc`, `dissoc` and `merge` write
 * the key exactly as given. `update`/`update-in` (and the inner levels of `assoc-in`)
 * write back to the key they read, so `(update {"n" 1} :n inc)` is `{"n" 2}`.
 */
import { List } from 'immutable';
import { alternateKey, getIn1, mapHas } from '../lookup.ts';
import { PMap, type Runtime, type Value, PList, isLazySeq, isMap, isPList, isSet, isVector } from '../values.ts';
import { argError, expectCallable, expectMap, expectSet, indexOutOfBounds, oddPairs, seqItems } from './args.ts';
import { type CoreTable, VARIADIC, defn, fixedArity } from './registry.ts';
import { compareValues, conjAll, getPath, itemsArray } from './seq.ts';

const NOT_FOUND = Symbol('not-found') as unknown as Value;

/** The key under which `k` is stored in `coll` (exact, else the other spelling), else `k`. */
function storedKey(coll: Value, k: Value): Value {
  if (isMap(coll) && !coll.has(k)) {
    const alt = alternateKey(k);
    if (alt !== undefined && coll.has(alt)) return alt;
  }
  return k;
}

/** `(assoc coll k v)` on a map, a vector (index ≤ size) or nil. */
export function assocOne(fn: string, coll: Value, k: Value, v: Value): Value {
  if (coll === null) return PMap.from([[k, v]]);
  if (isMap(coll)) return coll.set(k, v);
  if (isVector(coll)) {
    if (typeof k !== 'number' || !Number.isInteger(k)) throw argError(fn, 'integer index for a vector', k);
    if (k < 0 || k > coll.size) throw indexOutOfBounds(fn, k, coll.size);
    return k === coll.size ? coll.push(v) : coll.set(k, v);
  }
  throw argError(fn, 'map or vector', coll);
}

function assocIn(fn: string, coll: Value, path: Value[], v: Value): Value {
  if (path.length === 0) return assocOne(fn, coll, null, v);
  const k = storedKey(coll, path[0]!);
  if (path.length === 1) return assocOne(fn, coll, k, v);
  return assocOne(fn, coll, k, assocIn(fn, getIn1(coll, k), path.slice(1), v));
}

/** `update-in` from `path[i]` on: reads each level once, writes back to the key it read. */
function updateIn(fn: string, coll: Value, path: Value[], f: Value, extra: Value[], rt: Runtime, i = 0): Value {
  let k = path[i] ?? null;
  let inner: Value;
  if (isMap(coll)) {
    // storedKey + getIn1 in one or two lookups instead of up to four
    inner = coll.get(k, NOT_FOUND);
    if (inner === NOT_FOUND) {
      const alt = alternateKey(k);
      inner = alt === undefined ? NOT_FOUND : coll.get(alt, NOT_FOUND);
      if (inner === NOT_FOUND) inner = null;
      else k = alt!;
    }
  } else {
    inner = getIn1(coll, k);
  }
  const next =
    i >= path.length - 1
      ? rt.apply(f, extra.length === 0 ? [inner] : [inner, ...extra])
      : updateIn(fn, inner, path, f, extra, rt, i + 1);
  return assocOne(fn, coll, k, next);
}

/** Builds a map from alternating keys and values. */
function mapFromPairs(fn: string, kvs: Value[]): PMap {
  if (kvs.length % 2 !== 0) throw oddPairs(fn, kvs.length);
  return PMap.EMPTY.withMutations((m) => {
    for (let i = 0; i < kvs.length; i += 2) m.set(kvs[i]!, kvs[i + 1]!);
  });
}

/** A map or nil (treated as empty). */
function mapOrNil(fn: string, v: Value): PMap | null {
  return v === null ? null : expectMap(fn, v);
}

const updateValsHint = 'the map comes first: (update-vals m f); in a thread use (-> m (update-vals f))';
const updateKeysHint = 'the map comes first: (update-keys m f); in a thread use (-> m (update-keys f))';

function expectMapFirst(fn: string, m: Value, f: Value, hint: string): PMap | null {
  if (!isMap(m) && m !== null && (isMap(f) || f === null)) throw argError(fn, 'map as the first argument', m, hint);
  return mapOrNil(fn, m);
}

/** `contains?`: a key of a map, a member of a set, an index of a vector or string. */
function containsKey(c: Value, k: Value): boolean {
  if (c === null) return false;
  if (isMap(c)) return mapHas(c, k);
  if (isSet(c)) return getIn1(c, k, NOT_FOUND) !== NOT_FOUND;
  if (isVector(c) || typeof c === 'string') {
    const size = isVector(c) ? c.size : c.length;
    return typeof k === 'number' && Number.isInteger(k) && k >= 0 && k < size;
  }
  throw argError(
    'contains?',
    'map, set, vector or string',
    c,
    isPList(c) || isLazySeq(c) ? 'to test membership use (some #{x} coll)' : undefined,
  );
}

/** No extra arguments (shared: never changed). */
const NO_ARGS: Value[] = [];

export const mapFns: CoreTable = {
  // ;; reading
  get: fixedArity(
    [2, 3],
    { call2: (m, k) => getIn1(m, k, null), call3: (m, k, d) => getIn1(m, k, d) },
    '(get m k) or (get m k default): value at key k (keyword or string spelling) or index k',
  ),
  'get-in': fixedArity(
    [2, 3],
    {
      call2: (m, ks, rt) => getPath(m, seqItems('get-in', ks, rt), null),
      call3: (m, ks, d, rt) => getPath(m, seqItems('get-in', ks, rt), d),
    },
    '(get-in m [k1 k2 ...] default?) nested lookup; default when a level is missing',
  ),
  'contains?': fixedArity(
    [2, 2],
    { call2: containsKey },
    '(contains? coll k) true if the map/set has key k, or the vector has index k (use (some #{x} v) for membership)',
  ),
  keys: defn(
    [1, 1],
    ([m], rt) => {
      const mm = mapOrNil('keys', m!);
      return mm === null || mm.size === 0 ? null : listFrom(mm.keys(), rt);
    },
    '(keys m) seq of the keys in insertion order; nil when empty',
  ),
  vals: defn(
    [1, 1],
    ([m], rt) => {
      const mm = mapOrNil('vals', m!);
      return mm === null || mm.size === 0 ? null : listFrom(mm.values(), rt);
    },
    '(vals m) seq of the values in insertion order; nil when empty',
  ),
  entries: defn(
    [1, 1],
    ([m], rt) => {
      const mm = mapOrNil('entries', m!);
      return listFrom(mm === null ? [] : Array.from(mm, ([k, v]) => List<Value>([k, v])), rt);
    },
    '(entries m) seq of [k v] pairs in insertion order',
  ),
  key: defn([1, 1], ([e]) => entryPart('key', e!, 0), '(key entry) key of a [k v] map entry'),
  val: defn([1, 1], ([e]) => entryPart('val', e!, 1), '(val entry) value of a [k v] map entry'),
  'select-keys': defn(
    [2, 2],
    ([m, ks], rt) => {
      const mm = mapOrNil('select-keys', m!);
      return PMap.EMPTY.withMutations((out) => {
        for (const k of seqItems('select-keys', ks!, rt)) {
          const v = mm === null ? NOT_FOUND : getIn1(mm, k, NOT_FOUND);
          if (v !== NOT_FOUND) out.set(k, v);
        }
      });
    },
    '(select-keys m [k ...]) map of only those keys that are present',
  ),

  // ;; writing
  assoc: {
    ...defn(
      [3, VARIADIC],
      (args) => {
        // the common case, without the generic path's checks (or a rest array)
        const m = args[0]!;
        if (args.length === 3 && isMap(m)) return m.set(args[1]!, args[2]!);
        const kvs = args.slice(1);
        if (kvs.length % 2 !== 0) throw oddPairs('assoc', kvs.length);
        let out: Value = m;
        if (isMap(out) && kvs.length > 2) {
          return out.withMutations((mm) => {
            for (let i = 0; i < kvs.length; i += 2) mm.set(kvs[i]!, kvs[i + 1]!);
          });
        }
        for (let i = 0; i < kvs.length; i += 2) out = assocOne('assoc', out, kvs[i]!, kvs[i + 1]!);
        return out;
      },
      '(assoc m k v & kvs) map with keys set; on a vector k is an index (= count appends)',
    ),
    // one pair: what the loop above does for it
    call3: (m, k, v) => (isMap(m) ? m.set(k, v) : assocOne('assoc', m, k, v)),
  },
  'assoc-in': fixedArity(
    [3, 3],
    { call3: (m, ks, v, rt) => assocIn('assoc-in', m, itemsArray('assoc-in', ks, rt), v) },
    '(assoc-in m [k1 k2 ...] v) sets a nested value, creating maps as needed',
  ),
  dissoc: {
    ...defn(
      [1, VARIADIC],
      ([m, ...ks]) => {
        const mm = mapOrNil('dissoc', m!);
        if (mm === null) return null;
        return ks.length === 1 ? mm.delete(ks[0]!) : mm.deleteAll(ks);
      },
      '(dissoc m & ks) map without those keys (exact keys)',
    ),
    call2: (m, k) => mapOrNil('dissoc', m)?.delete(k) ?? null,
  },
  disj: defn(
    [1, VARIADIC],
    ([s, ...ks]) => {
      if (s === null) return null;
      const set = expectSet('disj', s!);
      return ks.length === 1 ? set.delete(ks[0]!) : set.subtract(ks);
    },
    '(disj set & xs) set without those items (exact items)',
  ),
  update: {
    ...defn(
      [3, VARIADIC],
      ([m, k, f, ...extra], rt) => {
        expectCallable('update', f!);
        return updateIn('update', m!, [k!], f!, extra, rt);
      },
      '(update m k f & args) sets k to (f old-value & args)',
    ),
    call3: (m, k, f, rt) => {
      expectCallable('update', f);
      return updateIn('update', m, [k], f, NO_ARGS, rt);
    },
  },
  'update-in': {
    ...defn(
      [3, VARIADIC],
      ([m, ks, f, ...extra], rt) => {
        expectCallable('update-in', f!);
        return updateIn('update-in', m!, itemsArray('update-in', ks!, rt), f!, extra, rt);
      },
      '(update-in m [k1 k2 ...] f & args) updates a nested value, creating maps as needed',
    ),
    call3: (m, ks, f, rt) => {
      expectCallable('update-in', f);
      return updateIn('update-in', m, itemsArray('update-in', ks, rt), f, NO_ARGS, rt);
    },
  },
  merge: defn(
    [0, VARIADIC],
    (ms, rt) => {
      let acc: Value = null;
      for (const m of ms) {
        if (m === null) continue;
        acc = acc === null ? (isMap(m) ? m : conjAll('merge', PMap.EMPTY, [m], rt)) : conjAll('merge', acc, [m], rt);
      }
      return acc;
    },
    '(merge & maps) one map; later keys win; nil when all are nil',
  ),
  'merge-with': defn(
    [1, VARIADIC],
    ([f, ...ms], rt) => {
      expectCallable('merge-with', f!);
      let acc: PMap | null = null;
      for (const m of ms) {
        const mm = mapOrNil('merge-with', m!);
        if (mm === null) continue;
        if (acc === null) {
          acc = mm;
          continue;
        }
        acc = acc.withMutations((out) => {
          for (const [k, v] of mm) out.set(k, out.has(k) ? rt.apply(f!, [out.get(k) as Value, v]) : v);
        });
      }
      if (acc !== null) rt.checkSize(acc.size);
      return acc;
    },
    '(merge-with f & maps) like merge; values of a key in several maps are combined with (f old new)',
  ),
  zipmap: defn(
    [2, 2],
    ([ks, vs], rt) => {
      const ki = seqItems('zipmap', ks!, rt)[Symbol.iterator]();
      const vi = seqItems('zipmap', vs!, rt)[Symbol.iterator]();
      const out = PMap.EMPTY.withMutations((m) => {
        for (let k = ki.next(), v = vi.next(); !k.done && !v.done; k = ki.next(), v = vi.next())
          m.set(k.value, v.value);
      });
      rt.tick(out.size);
      return out;
    },
    '(zipmap keys vals) map pairing keys with values',
  ),
  'update-vals': defn(
    [2, 2],
    ([m, f], rt) => {
      const mm = expectMapFirst('update-vals', m!, f!, updateValsHint);
      expectCallable('update-vals', f!);
      rt.tick(mm?.size ?? 0);
      return mm === null ? PMap.EMPTY : mm.map((v) => rt.apply(f!, [v]));
    },
    '(update-vals m f) map with (f v) for every value',
  ),
  'update-keys': defn(
    [2, 2],
    ([m, f], rt) => {
      const mm = expectMapFirst('update-keys', m!, f!, updateKeysHint);
      expectCallable('update-keys', f!);
      rt.tick(mm?.size ?? 0);
      return PMap.EMPTY.withMutations((out) => {
        if (mm !== null) for (const [k, v] of mm) out.set(rt.apply(f!, [k]), v);
      });
    },
    '(update-keys m f) map with (f k) for every key',
  ),

  // ;; constructing
  'hash-map': defn([0, VARIADIC], (kvs) => mapFromPairs('hash-map', kvs), '(hash-map k v ...) map of the pairs'),
  'array-map': defn([0, VARIADIC], (kvs) => mapFromPairs('array-map', kvs), '(array-map k v ...) map of the pairs'),
  'sorted-map': defn(
    [0, VARIADIC],
    (kvs) =>
      PMap.from(Array.from(mapFromPairs('sorted-map', kvs)).sort(([a], [b]) => compareValues(a, b, 'sorted-map'))),
    '(sorted-map k v ...) map of the pairs ordered by key',
  ),
};

function listFrom(items: Iterable<Value>, rt: Runtime): PList {
  const arr = Array.from(items);
  rt.tick(arr.length);
  return PList.fromArray(arr);
}

function entryPart(fn: string, e: Value, i: 0 | 1): Value {
  if (isVector(e) && e.size === 2) return e.get(i) as Value;
  throw argError(fn, 'map entry [k v]', e);
}
