/**
 * The PTC-Lisp map: persistent, keyed by the language's equality, iterated in insertion
 * order (a language promise: printing and iteration are deterministic).
 *
 * Two representations, as Clojure's array-map / hash-map split:
 * - up to {@link SMALL} entries, a flat array `[k0, v0, k1, v1, ...]` in insertion
 *   order, copied on write. Most maps are records of a few keys; a linear `===` scan
 *   (keywords are interned) beats hashing for them.
 * - larger, a hash array mapped trie (hamt.ts) whose leaves carry an insertion sequence
 *   number; iteration orders the leaves by it once and caches the result on the
 *   (immutable) map.
 * Replacing a key's value keeps its position; dissoc then assoc moves it to the end.
 *
 * `withMutations` gives a transient: updates mutate this map's own array / trie nodes in
 * place, so bulk builds (into, frequencies, JSON) do not copy per key.
 *
 * The API follows the subset of Immutable.OrderedMap the interpreter used, so call
 * sites read the same; `equals` / `hashCode` let Immutable sets and vectors hold maps.
 */
import {
  type Change,
  type KeyOps,
  type Owner,
  type Root,
  Leaf,
  assoc,
  collect,
  dissoc,
  emptyRoot,
  find,
} from './hamt.ts';
import { hashKey, keyEquals } from './key-hash.ts';
import { type Value, equals } from '../values.ts';

/** Largest map kept in the flat-array form. */
const SMALL = 8;

const ops: KeyOps<Value> = { hash: hashKey, equals: keyEquals };

/** Tag read by values.ts `isMap` (the same scheme as the other value classes there). */
export const MAP_TAG = 8;

export class PMap {
  /** flat entries in insertion order while small; null once the trie is used */
  private arr: Value[] | null;
  private root: Root<Value, Value> | null;
  private count: number;
  /** next insertion sequence number (trie form) */
  private nextSeq: number;
  /** non-null while this map is a transient (inside `withMutations`) */
  private owner: Owner = null;
  private ordered: Leaf<Value, Value>[] | null = null;
  private hash: number | undefined = undefined;

  private constructor(arr: Value[] | null, root: Root<Value, Value> | null, count: number, nextSeq: number) {
    this.arr = arr;
    this.root = root;
    this.count = count;
    this.nextSeq = nextSeq;
  }

  static readonly EMPTY = new PMap([], null, 0, 0);

  /** A map of the entries, later duplicates of a key replacing the value in place. */
  static from(entries: Iterable<readonly [Value, Value]> = []): PMap {
    return PMap.EMPTY.withMutations((m) => {
      for (const [k, v] of entries) m.set(k, v);
    });
  }

  /**
   * A map of `[k0, v0, k1, v1, ...]` whose keys are known to be distinct (the keys of a
   * JS object): a small one takes the array itself, without a lookup per key. The
   * caller hands the array over and must not change it afterwards.
   */
  static fromDistinctFlat(flat: Value[]): PMap {
    if (flat.length <= SMALL * 2) return new PMap(flat, null, flat.length / 2, 0);
    return PMap.EMPTY.withMutations((m) => {
      for (let i = 0; i < flat.length; i += 2) m.set(flat[i]!, flat[i + 1]!);
    });
  }

  get size(): number {
    return this.count;
  }

  // ------------------------------------------------------------ reading

  /** Position of `k` in the flat array (an even index), or -1. */
  private indexOf(arr: Value[], k: Value): number {
    for (let i = 0; i < arr.length; i += 2) if (arr[i] === k) return i;
    // only objects (vectors, maps, ...) and NaN can be equal without being ===
    if (typeof k === 'object' ? k !== null && !isInterned(k) : k !== k) {
      for (let i = 0; i < arr.length; i += 2) if (keyEquals(arr[i]!, k)) return i;
    }
    return -1;
  }

  get(k: Value): Value | undefined;
  get<D>(k: Value, notFound: D): Value | D;
  get<D>(k: Value, notFound?: D): Value | D | undefined {
    const arr = this.arr;
    if (arr !== null) {
      const i = this.indexOf(arr, k);
      return i < 0 ? notFound : arr[i + 1]!;
    }
    const leaf = find(this.root!, hashKey(k), k, ops);
    return leaf === undefined ? notFound : leaf.v;
  }

  has(k: Value): boolean {
    if (this.arr !== null) return this.indexOf(this.arr, k) >= 0;
    return find(this.root!, hashKey(k), k, ops) !== undefined;
  }

  // ------------------------------------------------------------ writing

  /** The map with `k` set to `v` (this map itself when transient). */
  set(k: Value, v: Value): PMap {
    if (this.arr !== null) return this.setSmall(this.arr, k, v);
    const change = scratch;
    change.old = undefined;
    const root = assoc(this.root!, 0, hashKey(k), k, v, this.nextSeq, this.owner, ops, change);
    if (root === this.root && this.owner === null) return this;
    const added = change.old === undefined ? 1 : 0;
    return this.update(null, root, this.count + added, this.nextSeq + added);
  }

  private setSmall(arr: Value[], k: Value, v: Value): PMap {
    const i = this.indexOf(arr, k);
    if (i >= 0) {
      if (arr[i + 1] === v) return this;
      const next = this.owner !== null ? arr : arr.slice();
      next[i + 1] = v;
      return this.update(next, null, this.count, 0);
    }
    if (this.count < SMALL) {
      const next = this.owner !== null ? arr : arr.slice();
      next.push(k, v);
      return this.update(next, null, this.count + 1, 0);
    }
    return this.toTrie(arr).set(k, v);
  }

  /** The same entries in trie form (sequence numbers = positions), for growing past SMALL. */
  private toTrie(arr: Value[]): PMap {
    // a persistent map builds with a throwaway token: no transient will ever hold it
    const owner = this.owner ?? {};
    let root = emptyRoot<Value, Value>(owner);
    const change: Change<Value, Value> = { old: undefined };
    for (let i = 0; i < arr.length; i += 2)
      root = assoc(root, 0, hashKey(arr[i]!), arr[i]!, arr[i + 1]!, i / 2, owner, ops, change);
    if (this.owner === null) return new PMap(null, root, this.count, this.count);
    this.assign(null, root, this.count, this.count);
    return this;
  }

  /** The map without `k` (this map itself when transient). */
  delete(k: Value): PMap {
    if (this.arr !== null) {
      const i = this.indexOf(this.arr, k);
      if (i < 0) return this;
      const next = this.owner !== null ? this.arr : this.arr.slice();
      next.splice(i, 2);
      return this.update(next, null, this.count - 1, 0);
    }
    const change: Change<Value, Value> = { old: undefined };
    const root = dissoc(this.root!, 0, hashKey(k), k, this.owner, ops, change) ?? emptyRoot(this.owner);
    if (change.old === undefined) return this;
    return this.update(null, root, this.count - 1, this.nextSeq);
  }

  remove(k: Value): PMap {
    return this.delete(k);
  }

  deleteAll(keys: Iterable<Value>): PMap {
    return this.withMutations((m) => {
      for (const k of keys) m.delete(k);
    });
  }

  /** Applies a change: in place when transient, else as a new map. */
  private update(arr: Value[] | null, root: Root<Value, Value> | null, count: number, nextSeq: number): PMap {
    if (this.owner !== null) {
      this.assign(arr, root, count, nextSeq);
      return this;
    }
    return new PMap(arr, root, count, nextSeq);
  }

  private assign(arr: Value[] | null, root: Root<Value, Value> | null, count: number, nextSeq: number): void {
    this.arr = arr;
    this.root = root;
    this.count = count;
    this.nextSeq = nextSeq;
    this.ordered = null;
    this.hash = undefined;
  }

  /**
   * Runs `fn` on a transient copy and returns it frozen. The transient's flat array is
   * its own copy, and trie nodes it copies carry its token, so it never writes to
   * anything this map (or another) shares.
   */
  withMutations(fn: (m: PMap) => unknown): PMap {
    const m = this.asMutable();
    fn(m);
    return m.asImmutable();
  }

  /**
   * A transient copy, as `withMutations` gives its fn: `set` and `delete` update it in
   * place (and return it) until {@link asImmutable}. The caller must let nothing else
   * see it before then.
   */
  asMutable(): PMap {
    const m = new PMap(this.arr === null ? null : this.arr.slice(), this.root, this.count, this.nextSeq);
    m.owner = {};
    return m;
  }

  /** Ends a transient: this map, persistent from now on. */
  asImmutable(): PMap {
    this.owner = null;
    return this;
  }

  /** A map with the same keys and `f(v, k)` as values. */
  map(f: (v: Value, k: Value) => Value): PMap {
    return PMap.EMPTY.withMutations((out) => {
      this.forEach((v, k) => void out.set(k, f(v, k)));
    });
  }

  // ------------------------------------------------------------ iteration (insertion order)

  /** Trie leaves in insertion order, computed once per map. */
  private leaves(): Leaf<Value, Value>[] {
    if (this.ordered !== null) return this.ordered;
    const all: Leaf<Value, Value>[] = [];
    collect(this.root!, all);
    const out = inSequenceOrder(all, this.nextSeq);
    if (this.owner === null) this.ordered = out;
    return out;
  }

  forEach(f: (v: Value, k: Value) => unknown): void {
    const arr = this.arr;
    if (arr !== null) {
      // a snapshot: `f` may write to a transient being iterated
      const copy = this.owner !== null ? arr.slice() : arr;
      for (let i = 0; i < copy.length; i += 2) f(copy[i + 1]!, copy[i]!);
      return;
    }
    for (const l of this.leaves()) f(l.v, l.k);
  }

  *entries(): IterableIterator<[Value, Value]> {
    const arr = this.arr;
    if (arr !== null) {
      const copy = this.owner !== null ? arr.slice() : arr;
      for (let i = 0; i < copy.length; i += 2) yield [copy[i]!, copy[i + 1]!];
      return;
    }
    for (const l of this.leaves()) yield [l.k, l.v];
  }

  [Symbol.iterator](): IterableIterator<[Value, Value]> {
    return this.entries();
  }

  *keys(): IterableIterator<Value> {
    const arr = this.arr;
    if (arr !== null) {
      const copy = this.owner !== null ? arr.slice() : arr;
      for (let i = 0; i < copy.length; i += 2) yield copy[i]!;
      return;
    }
    for (const l of this.leaves()) yield l.k;
  }

  *values(): IterableIterator<Value> {
    for (const [, v] of this.entries()) yield v;
  }

  /** The keys in insertion order, as an array. */
  keyArray(): Value[] {
    const out: Value[] = [];
    this.forEach((_, k) => void out.push(k));
    return out;
  }

  // ------------------------------------------------------------ value protocol

  /** Same entries, in any order (values compared with the language's `=`). */
  equals(other: unknown): boolean {
    if (this === other) return true;
    if (!(other instanceof PMap) || other.size !== this.size) return false;
    const missing = MISSING as unknown as Value;
    let same = true;
    this.forEach((v, k) => {
      if (!same) return;
      const w = other.get(k, missing);
      if (w === missing || !equals(v, w)) same = false;
    });
    return same;
  }

  /** Independent of insertion order, so equal maps hash equal. */
  hashCode(): number {
    if (this.hash !== undefined) return this.hash;
    let h = 0;
    this.forEach((v, k) => {
      h = (h + (hashKey(k) ^ Math.imul(hashKey(v), 0x9e3779b1))) | 0;
    });
    if (this.owner === null) this.hash = h;
    return h;
  }
}

Object.defineProperty(PMap.prototype, 'ptcTag', {
  value: MAP_TAG,
  enumerable: false,
  writable: false,
  configurable: false,
});

const MISSING = Symbol('missing');

/**
 * The change record of `set`, reused: the trie update never calls back into map
 * updates (key hashing and equality only read), and `set` reads it right after.
 */
const scratch: Change<Value, Value> = { old: undefined };

/** Keywords and symbols are interned: equal only when identical. */
function isInterned(k: object): boolean {
  const tag = (k as { ptcTag?: number }).ptcTag;
  return tag === 1 || tag === 7;
}

/**
 * Orders leaves by sequence number. When the numbers are dense (few keys were removed),
 * placing each leaf at its number is linear; otherwise sort.
 */
function inSequenceOrder(leaves: Leaf<Value, Value>[], nextSeq: number): Leaf<Value, Value>[] {
  if (nextSeq > leaves.length * 2 + 32) return leaves.sort((a, b) => a.s - b.s);
  const slots: (Leaf<Value, Value> | undefined)[] = new Array(nextSeq).fill(undefined);
  for (const l of leaves) slots[l.s] = l;
  const out: Leaf<Value, Value>[] = [];
  for (const l of slots) if (l !== undefined) out.push(l);
  return out;
}
