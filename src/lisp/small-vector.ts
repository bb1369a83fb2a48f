/**
 * Small vectors made directly. `List(array)` goes through Immutable's generic path (an
 * indexed Seq, an iteration that copies the array, then the list): about three times the
 * cost of the list itself for the 2- to 8-item vectors programs make all the time (map
 * entries `[k v]`, regex groups, `juxt` results, destructured pairs).
 *
 * A list of at most 32 items is one leaf node (its `_tail`) and no tree, so it can be
 * made from the array directly. That relies on Immutable's internal fields, so the module
 * checks at load that a list made this way is indistinguishable from `List(array)` (same
 * fields, equal, same hash, same operations); if not (another Immutable version), every
 * vector goes through `List(array)` as before.
 */
import { List, is } from 'immutable';
import type { Value, Vector } from './values.ts';

/** Items in one leaf node of an Immutable list (its branching factor). */
const LEAF = 32;

type Maker = (items: Value[]) => Vector;

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

function directMaker(): Maker | undefined {
  const sample = List(['a', 'b']) as unknown as ListFields;
  const proto = Object.getPrototypeOf(sample) as object;
  const Leaf = (sample._tail as { constructor: new (array: Value[], ownerID: unknown) => unknown }).constructor;
  const level = sample._level;
  const make: Maker = (items) => {
    const l = Object.create(proto) as ListFields;
    l.size = items.length;
    l._origin = 0;
    l._capacity = items.length;
    l._level = level;
    l._root = null;
    l._tail = new Leaf(items, undefined);
    l.__ownerID = undefined;
    l.__hash = undefined;
    l.__altered = false;
    return l as unknown as Vector;
  };
  return behavesAsList(make) ? make : undefined;
}

/** The made list has List's fields and gives what `List(array)` gives. */
function behavesAsList(make: Maker): boolean {
  try {
    const items: Value[] = ['a', 1, null];
    const made = make(items.slice());
    const real = List(items);
    const sameFields = JSON.stringify(Object.keys(made).sort()) === JSON.stringify(Object.keys(real).sort());
    return (
      sameFields &&
      is(made, real) &&
      made.hashCode() === real.hashCode() &&
      is(made.push(true), real.push(true)) &&
      is(made.set(1, 2), real.set(1, 2)) &&
      is(made.pop(), real.pop()) &&
      made.get(2) === null &&
      made.toArray().length === 3 &&
      is(made.concat(real), real.concat(real))
    );
  } catch {
    return false;
  }
}

const direct = directMaker();

/** A vector of `items` (not copied: the caller gives the array up). */
export function vectorOfArray(items: Value[]): Vector {
  if (items.length === 0) return List();
  return direct !== undefined && items.length <= LEAF ? direct(items) : List(items);
}

/** Whether small vectors are made directly (false: Immutable's internals differ from what this module expects). */
export const directSmallVectors = direct !== undefined;
