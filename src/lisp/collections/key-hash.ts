/**
 * Hashing and equality of map keys (and of values inside keys), consistent with the
 * language's `=`: equal values hash equal. So vectors and lists with equal items hash
 * alike, sets and maps hash independently of insertion order, `1` and `1.0` are one key.
 *
 * Vectors and lists (which may hold sets or maps) and sets are hashed here instead of by
 * Immutable, so a vector and a list with equal items hash alike. Lazy seqs keep their
 * constant hash (they may be infinite).
 */
import { hash as immutableHash, isList } from 'immutable';
import { type Keyword, type PList, type Value, equals, hashString } from '../values.ts';

const TAG_KEYWORD = 1;
const TAG_PLIST = 2;
/** PSet's tag (SET_TAG in ordered-set.ts, which imports this module) */
const TAG_SET = 9;

const tagOf = (v: object): number | undefined => (v as { ptcTag?: number }).ptcTag;

/** The hash of a key under the language's equality. */
export function hashKey(k: Value): number {
  switch (typeof k) {
    case 'string':
      return hashString(k);
    case 'number':
      // integers hash to themselves: dense ranges fill trie nodes evenly
      return (k | 0) === k ? k | 0 : immutableHash(k);
    case 'boolean':
      return k ? 0x42108421 : 0x42108420;
  }
  if (k === null) return 0x42108422;
  const tag = tagOf(k);
  if (tag === TAG_KEYWORD) return (k as Keyword).hash;
  if (tag === TAG_PLIST) return hashCollection((k as PList).items, false);
  if (isList(k)) return hashCollection(k as Iterable<Value> & object, false);
  if (tag === TAG_SET) return hashCollection(k as Iterable<Value> & object, true);
  // maps (their own order-free hashCode), lazy seqs, symbols, functions, regexes
  return immutableHash(k);
}

/**
 * Hashes of vectors and sets, computed once per (immutable) collection object: a value
 * built by doubling (`[v v]` nested n deep) shares its parts, and hashing it must stay
 * linear in the number of distinct parts, not their 2^n paths.
 */
const collectionHashes = new WeakMap<object, number>();

function hashCollection(items: Iterable<Value> & object, unordered: boolean): number {
  const cached = collectionHashes.get(items);
  if (cached !== undefined) return cached;
  let h = unordered ? 0x5e7 : 1;
  if (unordered) for (const x of items) h = (h + hashKey(x)) | 0;
  else for (const x of items) h = (Math.imul(31, h) + hashKey(x)) | 0;
  collectionHashes.set(items, h);
  return h;
}

/** Key equality: the language's `=`, except that NaN is one key (as with Immutable maps). */
export function keyEquals(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (typeof a === 'object') return a !== null && typeof b === 'object' && b !== null && equals(a, b);
  return typeof a === 'number' && a !== a && b !== b;
}
