/**
 * Hash array mapped trie: the storage of large maps (see ordered-map.ts). Persistent:
 * an update copies the nodes on the path to the changed leaf and shares the rest. A node
 * whose `owner` is the token of a transient (a map being built by `withMutations`) is
 * updated in place instead, so bulk builds do not copy a path per key.
 *
 * Each leaf carries its insertion sequence number `s`; the trie itself is unordered and
 * the map restores insertion order from `s` when it iterates.
 *
 * Key hashing and equality are injected (`KeyOps`) so this module knows nothing of the
 * value model.
 */

export interface KeyOps<K> {
  hash(k: K): number;
  equals(a: K, b: K): boolean;
}

/** A transient's token; nodes created or copied by that transient carry it. */
export type Owner = object | null;

const LEAF = 0;
const BITMAP = 1;
const COLLISION = 2;

export class Leaf<K, V> {
  readonly t = LEAF;
  constructor(
    readonly h: number,
    readonly k: K,
    readonly v: V,
    /** insertion sequence number: position in the map's iteration order */
    readonly s: number,
  ) {}
}

/** Up to 32 children, one per 5-bit hash fragment, present where `bitmap` has a bit. */
class BitmapNode<K, V> {
  readonly t = BITMAP;
  constructor(
    public bitmap: number,
    public slots: Slot<K, V>[],
    public owner: Owner,
  ) {}
}

/** Leaves whose keys have the same full 32-bit hash but are not equal. */
class CollisionNode<K, V> {
  readonly t = COLLISION;
  constructor(
    readonly h: number,
    public leaves: Leaf<K, V>[],
    public owner: Owner,
  ) {}
}

type Node<K, V> = BitmapNode<K, V> | CollisionNode<K, V>;
type Slot<K, V> = Leaf<K, V> | Node<K, V>;

/** What an update did: filled in by `assoc` / `dissoc`. */
export interface Change<K, V> {
  /** the leaf replaced or removed, if any */
  old: Leaf<K, V> | undefined;
}

const BITS = 5;
const MASK = 31;

const popcount = (x: number): number => {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
};

export function emptyRoot<K, V>(owner: Owner): Node<K, V> {
  return new BitmapNode<K, V>(0, [], owner);
}

export type Root<K, V> = Node<K, V>;

/** The leaf for `k` (hash `h`), or undefined. */
export function find<K, V>(root: Node<K, V>, h: number, k: K, ops: KeyOps<K>): Leaf<K, V> | undefined {
  let node: Slot<K, V> = root;
  for (let shift = 0; ; shift += BITS) {
    if (node.t === BITMAP) {
      const bit = 1 << ((h >>> shift) & MASK);
      if ((node.bitmap & bit) === 0) return undefined;
      node = node.slots[popcount(node.bitmap & (bit - 1))]!;
    } else if (node.t === LEAF) {
      return node.h === h && ops.equals(node.k, k) ? node : undefined;
    } else {
      if (node.h !== h) return undefined;
      for (const leaf of node.leaves) if (ops.equals(leaf.k, k)) return leaf;
      return undefined;
    }
  }
}

/**
 * Sets key `k` (hash `h`) to `v`: a new key gets a leaf with sequence number `s`; an
 * existing key keeps its leaf's key and number. Returns the new root; `change.old` tells
 * whether a key was replaced. The leaf is made only where it goes, so replacing a value
 * allocates one leaf, not two.
 */
export function assoc<K, V>(
  node: Node<K, V>,
  shift: number,
  h: number,
  k: K,
  v: V,
  s: number,
  owner: Owner,
  ops: KeyOps<K>,
  change: Change<K, V>,
): Node<K, V> {
  if (node.t === COLLISION) return assocCollision(node, shift, h, k, v, s, owner, ops, change);
  const bit = 1 << ((h >>> shift) & MASK);
  const i = popcount(node.bitmap & (bit - 1));
  if ((node.bitmap & bit) === 0) {
    const leaf = new Leaf(h, k, v, s);
    if (owner !== null && node.owner === owner) {
      node.slots.splice(i, 0, leaf);
      node.bitmap |= bit;
      return node;
    }
    return new BitmapNode(node.bitmap | bit, inserted(node.slots, i, leaf), owner);
  }
  const slot = node.slots[i]!;
  let next: Slot<K, V>;
  if (slot.t === LEAF) {
    if (slot.h === h && ops.equals(slot.k, k)) {
      change.old = slot;
      if (slot.v === v) return node;
      next = replacement(slot, v);
    } else {
      next = pair(shift + BITS, slot, new Leaf(h, k, v, s), owner);
    }
  } else {
    next = assoc(slot, shift + BITS, h, k, v, s, owner, ops, change);
    if (next === slot) return node;
  }
  const target = editable(node, owner);
  target.slots[i] = next;
  return target;
}

function assocCollision<K, V>(
  node: CollisionNode<K, V>,
  shift: number,
  h: number,
  k: K,
  v: V,
  s: number,
  owner: Owner,
  ops: KeyOps<K>,
  change: Change<K, V>,
): Node<K, V> {
  if (node.h !== h) {
    // a different hash reached this depth: put the collision node under a bitmap node
    const wrapper = new BitmapNode<K, V>(1 << ((node.h >>> shift) & MASK), [node], owner);
    return assoc(wrapper, shift, h, k, v, s, owner, ops, change);
  }
  const i = node.leaves.findIndex((l) => ops.equals(l.k, k));
  const target =
    node.owner !== null && node.owner === owner ? node : new CollisionNode(node.h, node.leaves.slice(), owner);
  if (i >= 0) {
    change.old = node.leaves[i]!;
    target.leaves[i] = replacement(change.old, v);
  } else {
    target.leaves.push(new Leaf(h, k, v, s));
  }
  return target;
}

/**
 * The leaf of an existing key with a new value: the key keeps its place (sequence
 * number) and, as in Clojure, the key object first stored (`(assoc {[1 2] 0} '(1 2) 1)`
 * is `{[1 2] 1}`).
 */
function replacement<K, V>(old: Leaf<K, V>, v: V): Leaf<K, V> {
  return new Leaf(old.h, old.k, v, old.s);
}

/** A node holding two leaves of different keys, split on their hash fragments. */
function pair<K, V>(shift: number, a: Leaf<K, V>, b: Leaf<K, V>, owner: Owner): Node<K, V> {
  if (a.h === b.h) return new CollisionNode(a.h, [a, b], owner);
  const fa = (a.h >>> shift) & MASK;
  const fb = (b.h >>> shift) & MASK;
  if (fa === fb) return new BitmapNode(1 << fa, [pair(shift + BITS, a, b, owner)], owner);
  return new BitmapNode((1 << fa) | (1 << fb), fa < fb ? [a, b] : [b, a], owner);
}

/** A copy of `slots` with `x` inserted at `i`, in one pass (slice + splice copies twice). */
function inserted<T>(slots: T[], i: number, x: T): T[] {
  const out = new Array<T>(slots.length + 1);
  for (let j = 0; j < i; j++) out[j] = slots[j]!;
  out[i] = x;
  for (let j = i; j < slots.length; j++) out[j + 1] = slots[j]!;
  return out;
}

function editable<K, V>(node: BitmapNode<K, V>, owner: Owner): BitmapNode<K, V> {
  if (owner !== null && node.owner === owner) return node;
  return new BitmapNode(node.bitmap, node.slots.slice(), owner);
}

/**
 * Removes the leaf of `k`. Returns the new node, `null` when the node became empty, or
 * the same node when `k` was absent.
 */
export function dissoc<K, V>(
  node: Node<K, V>,
  shift: number,
  h: number,
  k: K,
  owner: Owner,
  ops: KeyOps<K>,
  change: Change<K, V>,
): Node<K, V> | null {
  if (node.t === COLLISION) {
    const i = node.h === h ? node.leaves.findIndex((l) => ops.equals(l.k, k)) : -1;
    if (i < 0) return node;
    change.old = node.leaves[i];
    if (node.leaves.length === 1) return null;
    const leaves = node.leaves.slice();
    leaves.splice(i, 1);
    return new CollisionNode(node.h, leaves, owner);
  }
  const bit = 1 << ((h >>> shift) & MASK);
  if ((node.bitmap & bit) === 0) return node;
  const i = popcount(node.bitmap & (bit - 1));
  const slot = node.slots[i]!;
  let next: Slot<K, V> | null;
  if (slot.t === LEAF) {
    if (slot.h !== h || !ops.equals(slot.k, k)) return node;
    change.old = slot;
    next = null;
  } else {
    next = dissoc(slot, shift + BITS, h, k, owner, ops, change);
    if (next === slot) return node;
  }
  const target = editable(node, owner);
  if (next === null) {
    target.slots.splice(i, 1);
    target.bitmap &= ~bit;
    // the root stays even when empty; inner empty nodes disappear
    return target.slots.length === 0 && shift > 0 ? null : target;
  }
  target.slots[i] = next;
  return target;
}

/** Appends every leaf to `out`, in trie order (not insertion order). */
export function collect<K, V>(node: Slot<K, V>, out: Leaf<K, V>[]): void {
  if (node.t === LEAF) out.push(node);
  else if (node.t === BITMAP) for (const s of node.slots) collect(s, out);
  else for (const l of node.leaves) out.push(l);
}
