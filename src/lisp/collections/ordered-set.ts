/**
 * The PTC-Lisp set: persistent, iterated in insertion order, members compared with the
 * language's `=` (as map keys are: `#{1 2}` and `#{2 1}` are one member, so are `[1 2]`
 * and `(list 1 2)`). A {@link PMap} from each member to itself holds it, so sets share
 * the map's storage (flat array when small, hash trie beyond), its transients and its
 * key hashing.
 *
 * The API is the subset of Immutable.OrderedSet the interpreter uses, so call sites read
 * the same; `equals` / `hashCode` let Immutable vectors hold sets.
 */
import { PMap } from './ordered-map.ts';
import { hashKey } from './key-hash.ts';
import type { Value } from '../values.ts';

/** Tag read by values.ts `isSet` (the same scheme as the other value classes there). */
export const SET_TAG = 9;

export class PSet {
  /** true between {@link asMutable} and {@link asImmutable} */
  private transient = false;

  private constructor(private m: PMap) {}

  static readonly EMPTY = new PSet(PMap.EMPTY);

  /** A set of the items, a later duplicate of a member keeping the first one. */
  static from(items: Iterable<Value> = []): PSet {
    return PSet.EMPTY.withMutations((s) => {
      for (const x of items) s.add(x);
    });
  }

  get size(): number {
    return this.m.size;
  }

  has(x: Value): boolean {
    return this.m.has(x);
  }

  /** The member equal to `x` as stored (the first one added), or `notFound`. */
  get<D>(x: Value, notFound: D): Value | D {
    return this.m.get(x, notFound);
  }

  // ------------------------------------------------------------ writing

  /** The set with `x` (this set itself when transient). An equal member stays as it was. */
  add(x: Value): PSet {
    if (this.m.has(x)) return this;
    return this.wrap(this.m.set(x, x));
  }

  /** The set without `x` (this set itself when transient). */
  delete(x: Value): PSet {
    return this.wrap(this.m.delete(x));
  }

  remove(x: Value): PSet {
    return this.delete(x);
  }

  /** The set without any of `xs`. */
  subtract(xs: Iterable<Value>): PSet {
    return this.withMutations((s) => {
      for (const x of xs) s.delete(x);
    });
  }

  /** The set with every item of `xs` added (after its own members). */
  union(xs: Iterable<Value>): PSet {
    return this.withMutations((s) => {
      for (const x of xs) s.add(x);
    });
  }

  private wrap(m: PMap): PSet {
    if (m === this.m) return this;
    if (this.transient) {
      this.m = m;
      return this;
    }
    return new PSet(m);
  }

  // ------------------------------------------------------------ transients

  /** Runs `fn` on a transient copy and returns it frozen (see PMap.withMutations). */
  withMutations(fn: (s: PSet) => unknown): PSet {
    const s = this.asMutable();
    fn(s);
    return s.asImmutable();
  }

  asMutable(): PSet {
    const s = new PSet(this.m.asMutable());
    s.transient = true;
    return s;
  }

  asImmutable(): PSet {
    this.m.asImmutable();
    this.transient = false;
    return this;
  }

  // ------------------------------------------------------------ derived sets

  /** The members for which `pred` is true, in order. */
  filter(pred: (x: Value) => unknown): PSet {
    return PSet.EMPTY.withMutations((out) => {
      for (const x of this) if (pred(x)) out.add(x);
    });
  }

  /** The same members, in the order `cmp` gives (a stable sort). */
  sort(cmp: (a: Value, b: Value) => number): PSet {
    return PSet.from(this.toArray().sort(cmp));
  }

  every(pred: (x: Value) => unknown): boolean {
    for (const x of this) if (!pred(x)) return false;
    return true;
  }

  some(pred: (x: Value) => unknown): boolean {
    for (const x of this) if (pred(x)) return true;
    return false;
  }

  // ------------------------------------------------------------ iteration (insertion order)

  [Symbol.iterator](): IterableIterator<Value> {
    return this.m.keys();
  }

  values(): IterableIterator<Value> {
    return this.m.keys();
  }

  forEach(f: (x: Value) => unknown): void {
    this.m.forEach((_, k) => f(k));
  }

  toArray(): Value[] {
    return this.m.keyArray();
  }

  // ------------------------------------------------------------ value protocol

  /** Same members, in any order. */
  equals(other: unknown): boolean {
    if (this === other) return true;
    if (!(other instanceof PSet) || other.size !== this.size) return false;
    return this.every((x) => other.has(x));
  }

  /** Independent of insertion order, so equal sets hash equal. */
  hashCode(): number {
    return hashKey(this);
  }
}

Object.defineProperty(PSet.prototype, 'ptcTag', {
  value: SET_TAG,
  enumerable: false,
  writable: false,
  configurable: false,
});
