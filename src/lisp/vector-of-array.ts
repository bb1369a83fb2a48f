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
 * that lists made this way are indistinguishable from `List(array)` (same fields, equal,
 * same hash, same results of the operations the library uses) for sizes around every
 * boundary; if not (another Immutable version), every vector goes through `List(array)`
 * as before. test/lisp/vector-of-array.property.test.ts checks the same at random.
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
  const list = (size: number, level: number, root: unknown, tail: unknown): Vector => {
    const l = Object.create(proto) as ListFields;
    l.size = size;
    l._origin = 0;
    l._capacity = size;
    l._level = level;
    l._root = root;
    l._tail = tail;
    l.__ownerID = undefined;
    l.__hash = undefined;
    l.__altered = false;
    return l as unknown as Vector;
  };
  const make: Maker = (items) => {
    const n = items.length;
    if (n <= WIDTH) return list(n, SHIFT, null, new Node(items, undefined));
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
    return list(n, level, new Node(nodes, undefined), new Node(items.slice(tailOffset), undefined));
  };
  return behavesAsList(make) ? make : undefined;
}

/** Lists made by `make` have List's fields and give what `List(array)` gives. */
function behavesAsList(make: Maker): boolean {
  try {
    for (const n of [1, 2, 31, 32, 33, 64, 65, 1024, 1025, 1056, 1057, 32800, 32801, 33000]) {
      const items: Value[] = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? `s${i}` : i));
      const made = make(items.slice());
      const real = List(items);
      if (JSON.stringify(Object.keys(made).sort()) !== JSON.stringify(Object.keys(real).sort())) return false;
      if ((made as unknown as ListFields)._level !== (real as unknown as ListFields)._level) return false;
      const same =
        is(made, real) &&
        made.hashCode() === real.hashCode() &&
        made.get(n - 1) === real.get(n - 1) &&
        is(made.push(true), real.push(true)) &&
        is(made.set(n - 1, null), real.set(n - 1, null)) &&
        is(made.pop(), real.pop()) &&
        is(made.unshift(0), real.unshift(0)) &&
        is(made.slice(1, -1), real.slice(1, -1)) &&
        is(made.concat(real), real.concat(real)) &&
        made.toArray().every((v, i) => v === items[i]) &&
        sameItems(made) &&
        sameItems(real) &&
        sameItems(real.pop()) &&
        sameItems(real.slice(1)) &&
        sameItems(real.push(true));
      if (!same) return false;
    }
    return true;
  } catch {
    return false;
  }
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
