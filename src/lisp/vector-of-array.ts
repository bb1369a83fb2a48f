/**
 * Vectors made directly from an array. `List(array)` goes through Immutable's generic
 * path: an indexed Seq, an iteration copying the array, then one `set` per item into a
 * growing trie. For the 2- to 8-item vectors programs make all the time (map entries
 * `[k v]`, regex groups, destructured pairs) that is three times the cost of the list
 * itself, and for 10k items 15 times the cost of building the trie at once.
 *
 * An Immutable list of n items is a trie of 32-item leaf nodes for the items before its
 * tail offset (`((n - 1) >>> 5) << 5`, 0 for n <= 32) and a tail leaf for the rest; its
 * `_level` is the smallest multiple of 5 (at least 5) with `tailOffset < 1 << (level + 5)`.
 * Building that here relies on Immutable's internal fields, so the module checks at load
 * that lists made this way are built exactly as `List(array)` builds them (a structural
 * comparison, cheap enough for every process and sandbox thread); if not (another
 * Immutable version), every vector goes through `List(array)` as before.
 * test/lisp/vector-of-array.property.test.ts checks equality, hashing and the operations
 * the library uses at random sizes up to a second trie level.
 */
import { List, is } from 'immutable';
import type { Value, Vector } from './values.ts';

const SHIFT = 5;
const WIDTH = 1 << SHIFT;

interface ListFields {
  size: number;
  _origin: number;
  _capacity: number;
  _level: number;
  _root: unknown;
  _tail: unknown;
  __ownerID: unknown;
  __hash: unknown;
  __altered: boolean;
}

type NodeCtor = new (array: unknown[], ownerID: unknown) => unknown;
type Maker = (items: Value[]) => Vector;

function directMaker(): Maker | undefined {
  const sample = List(['a', 'b']) as unknown as ListFields;
  const proto = Object.getPrototypeOf(sample) as object;
  const Node = (sample._tail as { constructor: NodeCtor }).constructor;
  // A constructor rather than Immutable's `Object.create(proto)` plus nine stores: V8
  // sizes a constructor's objects to hold all nine fields, where `Object.create` gives
  // room for four and grows a separate property store twice (about 100 bytes more and
  // three allocations per vector, for the millions of small vectors programs make).
  function DirectList(this: ListFields, size: number, level: number, root: unknown, tail: unknown): void {
    this.size = size;
    this._origin = 0;
    this._capacity = size;
    this._level = level;
    this._root = root;
    this._tail = tail;
    this.__ownerID = undefined;
    this.__hash = undefined;
    this.__altered = false;
  }
  DirectList.prototype = proto;
  const Made = DirectList as unknown as new (size: number, level: number, root: unknown, tail: unknown) => Vector;
  const make: Maker = (items) => {
    const n = items.length;
    if (n <= WIDTH) return new Made(n, SHIFT, null, new Node(items, undefined));
    const tailOffset = ((n - 1) >>> SHIFT) << SHIFT;
    let nodes: unknown[] = [];
    for (let i = 0; i < tailOffset; i += WIDTH) nodes.push(new Node(items.slice(i, i + WIDTH), undefined));
    let level = SHIFT;
    while (tailOffset >= 1 << (level + SHIFT)) {
      const up: unknown[] = [];
      for (let i = 0; i < nodes.length; i += WIDTH) up.push(new Node(nodes.slice(i, i + WIDTH), undefined));
      nodes = up;
      level += SHIFT;
    }
    return new Made(n, level, new Node(nodes, undefined), new Node(items.slice(tailOffset), undefined));
  };
  return behavesAsList(make) ? make : undefined;
}

/**
 * Lists made by `make` are built exactly as `List(array)` builds them: the same fields
 * with the same values, and the same trie (node by node, item by item), for sizes around
 * the first leaf and trie boundaries (the property test covers deeper tries). Comparing
 * the structure is cheap: this runs in every process and sandbox thread at load (about
 * 2 ms, cold); the earlier check by operations on lists of up to 33,000 items took a
 * second. A few operations on top check that Immutable treats them alike.
 */
function behavesAsList(make: Maker): boolean {
  try {
    for (const n of [1, 2, 32, 33, 65]) {
      const items: Value[] = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? `s${i}` : i));
      const real = List(items);
      if (!sameList(make(items.slice()), real)) return false;
      // vectorToArray's shortcut gives what toArray gives, also after changes
      if (![real, real.pop(), real.slice(1), real.push(true)].every(sameItems)) return false;
    }
    const made = make(['a', 1, null]);
    const real = List<Value>(['a', 1, null]);
    return (
      is(made, real) &&
      made.hashCode() === real.hashCode() &&
      is(made.push(true).set(0, 2).pop(), real.push(true).set(0, 2).pop())
    );
  } catch {
    return false;
  }
}

function sameList(made: Vector, real: Vector): boolean {
  const a = made as unknown as ListFields & Record<string, unknown>;
  const b = real as unknown as ListFields & Record<string, unknown>;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const keys = Object.keys(b);
  if (Object.keys(a).length !== keys.length) return false;
  for (const k of keys) {
    if (k === '_root' || k === '_tail') continue;
    if (a[k] !== b[k]) return false;
  }
  return sameNode(a._root, b._root) && sameNode(a._tail, b._tail);
}

/** Two trie nodes with the same items (leaves) or the same children (inner nodes). */
function sameNode(x: unknown, y: unknown): boolean {
  if (x === null || x === undefined || y === null || y === undefined) return (x ?? null) === (y ?? null);
  const xa = (x as { array: unknown[] }).array;
  const ya = (y as { array: unknown[] }).array;
  if (Object.getPrototypeOf(x) !== Object.getPrototypeOf(y) || xa.length !== ya.length) return false;
  for (let i = 0; i < xa.length; i++) {
    const u = xa[i];
    const v = ya[i];
    if (u === v) continue;
    if (typeof u !== 'object' || typeof v !== 'object' || !sameNode(u, v)) return false;
  }
  return true;
}

/**
 * The items of a vector of at most 32 items starting at its origin: they are the first
 * `size` cells of its tail node (Immutable's `toArray` walks its generic iteration).
 * Undefined for other vectors.
 */
function tailItems(v: Vector): Value[] | undefined {
  const l = v as unknown as ListFields;
  if (l._origin !== 0 || l._capacity > WIDTH || l._root != null) return undefined;
  const tail = l._tail as { array: Value[] } | undefined | null;
  if (tail == null) return l.size === 0 ? [] : undefined;
  // a vector grown by setSize may have cells the tail never held
  return tail.array.length >= l.size ? tail.array.slice(0, l.size) : undefined;
}

/** `tailItems` gives what `toArray` gives (or nothing). */
function sameItems(v: Vector): boolean {
  const fast = tailItems(v);
  if (fast === undefined) return true;
  const slow = v.toArray();
  return fast.length === slow.length && fast.every((x, i) => x === slow[i]);
}

const direct = directMaker();

/** A new array of the items of `v`. */
export function vectorToArray(v: Vector): Value[] {
  return (direct !== undefined ? tailItems(v) : undefined) ?? v.toArray();
}

/** A vector of `items`. The array is not copied for 32 items or fewer: the caller gives it up. */
export function vectorOfArray(items: Value[]): Vector {
  if (items.length === 0) return List();
  return direct !== undefined ? direct(items) : List(items);
}

/** Whether vectors are built directly (false: Immutable's internals differ from what this module expects). */
export const directVectors = direct !== undefined;
