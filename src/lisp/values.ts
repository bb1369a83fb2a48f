/**
 * The PTC-Lisp value model. Every phase (reader, evaluator, core library, printer,
 * JSON mapping) works on these types and nothing else.
 *
 * | PTC-Lisp            | TypeScript                                   |
 * |---------------------|----------------------------------------------|
 * | nil                 | `null`                                       |
 * | true / false        | `boolean`                                    |
 * | number              | `number` (JS double; see docs/language.md)   |
 * | string, character   | `string` (a character is a 1-char string)    |
 * | keyword             | {@link Keyword}, interned: compare with `===` |
 * | symbol (quoted)     | {@link Sym}, interned: compare with `===`     |
 * | vector              | `Immutable.List` (persistent, O(log32 n))    |
 * | list / realised seq | {@link PList}                                |
 * | lazy seq            | {@link LazySeq} (range, iterate, repeat, ...) |
 * | map                 | {@link PMap} (insertion order)               |
 * | set                 | `PSet` (collections/ordered-set.ts)         |
 * | function            | {@link FnValue} subclasses                   |
 * | regex               | {@link Regex}                                |
 *
 * Maps and sets keep insertion order so printing and iteration are deterministic.
 */
import { List, isList } from 'immutable';
import { PMap } from './collections/ordered-map.ts';
import { PSet } from './collections/ordered-set.ts';
import { vectorOfArray } from './vector-of-array.ts';

export { PMap, PSet };

export type Vector = List<Value>;

export type Value =
  null | boolean | number | string | Keyword | Sym | Vector | PList | LazySeq | PMap | PSet | FnValue | Regex | Reduced;

// ---------------------------------------------------------------- type tags

/**
 * Each value class carries a small integer tag on its prototype (`ptcTag`, inherited by
 * subclasses, so `FnValue`'s covers every function). The type tests below compare it
 * instead of using `instanceof`: under tsx (esbuild keepNames) every class gets
 * `static { __name(this, ...) }`, which redefines the constructor's `name`, and
 * `instanceof` on such a constructor can take V8's slow path (it did for `Closure`, see
 * `isClosure`). Same semantics: an object has the tag exactly when the class's prototype
 * is on its prototype chain. (On Node 20.20 `npm run bench -- lisp` showed no difference
 * beyond noise for these classes; the tag keeps the tests cheap on any engine.)
 */
const TAG_KEYWORD = 1;
const TAG_PLIST = 2;
const TAG_LAZY = 3;
const TAG_FN = 4;
const TAG_REGEX = 5;
const TAG_REDUCED = 6;
const TAG_SYMBOL = 7;
/**
 * PMap's tag, set by collections/ordered-map.ts (MAP_TAG there): a literal, as the two
 * modules import each other and values.ts must not read PMap's module while loading.
 */
const TAG_MAP = 8;
/** PSet's tag, set by collections/ordered-set.ts (SET_TAG there), a literal as TAG_MAP. */
const TAG_SET = 9;

type Tagged = { readonly ptcTag?: number };

/** The tag of a non-null object value (undefined for Immutable collections). */
const tagOf = (v: object): number | undefined => (v as Tagged).ptcTag;

function setTag(cls: { prototype: object }, tag: number): void {
  Object.defineProperty(cls.prototype, 'ptcTag', {
    value: tag,
    enumerable: false,
    writable: false,
    configurable: false,
  });
}

// ---------------------------------------------------------------- keywords

/** A well-mixed 32-bit hash of a string (for map keys; see collections/key-hash.ts). */
export function hashString(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  // spread the bits: keys that differ in one character must differ in the low 5 bits
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h;
}

const keywordTable = new Map<string, Keyword>();

/** A keyword. Interned, so `===` is equality and identity hashing is correct. */
export class Keyword {
  /** hash of the spelling, computed once: maps hash keyword keys on every lookup */
  readonly hash: number;

  private constructor(
    readonly ns: string | null,
    readonly name: string,
  ) {
    this.hash = hashString(ns === null ? name : `${ns}/${name}`) ^ 0x3c6ef372;
  }

  /** `foo` for `:foo`, `a/b` for `:a/b`: the spelling without the colon. */
  get fullName(): string {
    return this.ns === null ? this.name : `${this.ns}/${this.name}`;
  }

  static intern(fullName: string): Keyword {
    let k = keywordTable.get(fullName);
    if (k) return k;
    const slash = fullName.indexOf('/');
    k =
      slash > 0 && slash < fullName.length - 1
        ? new Keyword(fullName.slice(0, slash), fullName.slice(slash + 1))
        : new Keyword(null, fullName);
    keywordTable.set(fullName, k);
    return k;
  }
}

setTag(Keyword, TAG_KEYWORD);

/** Interned keyword from its spelling without the colon: `kw('status')` is `:status`. */
export const kw = (fullName: string): Keyword => Keyword.intern(fullName);

// ---------------------------------------------------------------- symbols

const symbolTable = new Map<string, Sym>();

/**
 * A symbol as data: only quoting makes one (`'sym`, `'[a b]`, `(symbol "x")`); symbols
 * in code are names the analyzer resolves. Interned like keywords, so `===` is equality.
 */
export class Sym {
  private constructor(
    readonly ns: string | null,
    readonly name: string,
  ) {}

  get fullName(): string {
    return this.ns === null ? this.name : `${this.ns}/${this.name}`;
  }

  static intern(fullName: string): Sym {
    let s = symbolTable.get(fullName);
    if (s) return s;
    const slash = fullName.indexOf('/');
    s =
      slash > 0 && slash < fullName.length - 1
        ? new Sym(fullName.slice(0, slash), fullName.slice(slash + 1))
        : new Sym(null, fullName);
    symbolTable.set(fullName, s);
    return s;
  }
}

setTag(Sym, TAG_SYMBOL);

/** Interned symbol: `sym('a')` is `'a`. */
export const sym = (fullName: string): Sym => Sym.intern(fullName);

// ---------------------------------------------------------------- lists and seqs

/**
 * A list or a realised sequence: prints as `(a b c)`, `conj` prepends. Results of
 * `map`, `filter`, `list`, `cons`, ... are PLists. Equal to a vector with equal items.
 *
 * Either an Immutable `List` or a plain array backs it. The sequence functions build
 * their results in arrays, and most results are only walked once (by the next function
 * of a `->>` pipeline), so building a `List` for each (a tree update per item) would be
 * wasted: {@link items} builds it on first use (`rest`, `cons`, `conj`, printing) and
 * keeps it. {@link array} lets the hot loops read the array directly.
 */
export class PList {
  private list: List<Value> | undefined;
  /** never mutated: {@link PList.fromArray} takes ownership of the array */
  private readonly arr: readonly Value[] | undefined;

  constructor(items: List<Value>);
  /** array-backed: see {@link PList.fromArray} */
  constructor(items: undefined, arr: readonly Value[]);
  constructor(items: List<Value> | undefined, arr?: readonly Value[]) {
    this.list = items;
    this.arr = arr;
  }

  static readonly EMPTY = new PList(List());

  static of(items: Iterable<Value>): PList {
    return new PList(vec(items));
  }

  /** A list of the items of `xs`, which the caller must not change afterwards. */
  static fromArray(xs: readonly Value[]): PList {
    if (xs.length === 0) return PList.EMPTY;
    return new PList(undefined, xs);
  }

  /** The items as an Immutable `List` (built from the array on first use). */
  get items(): List<Value> {
    // the array is never changed, by us or by Immutable (its leaf nodes are copied before any change)
    return (this.list ??= vectorOfArray(this.arr as Value[]));
  }

  /** The backing array when there is one (read only), else undefined. */
  get array(): readonly Value[] | undefined {
    return this.arr;
  }

  get size(): number {
    return this.arr !== undefined ? this.arr.length : this.list!.size;
  }

  /** Item `i`, or undefined outside `0 <= i < size`; does not build the `List`. */
  get(i: number): Value | undefined {
    if (i < 0) return undefined; // List.get(-1) would count from the end
    return this.arr !== undefined ? this.arr[i] : this.list!.get(i);
  }

  // Immutable.js value-object protocol, so PLists work as map keys and set members.
  equals(other: unknown): boolean {
    return equals(this, other as Value);
  }

  hashCode(): number {
    return this.items.hashCode();
  }
}
setTag(PList, TAG_PLIST);

/**
 * A lazy, possibly infinite sequence (`(range)`, `(iterate f x)`, `(repeat x)`,
 * `(cycle c)`). Items are produced on demand by `next()` and memoised, so every reader
 * sees the same items. Consumers that need everything call {@link realize}, which is
 * bounded by the collection-size limit of the running program.
 */
export class LazySeq {
  private readonly realised: Value[] = [];
  private done = false;

  /** `produce(i)` returns item i, or `LazySeq.END` when the sequence ends. */
  constructor(private readonly produce: (index: number) => Value | typeof LazySeq.END) {}

  static readonly END: unique symbol = Symbol('end');

  /** Item at `index`, or `LazySeq.END` if the sequence is shorter. */
  nth(index: number): Value | typeof LazySeq.END {
    while (!this.done && this.realised.length <= index) {
      const v = this.produce(this.realised.length);
      if (v === LazySeq.END) this.done = true;
      else this.realised.push(v);
    }
    return index < this.realised.length ? this.realised[index]! : LazySeq.END;
  }

  /** Every item, failing through `onTooMany` when there are more than `max`. */
  realize(max: number, onTooMany: () => never): Value[] {
    for (let i = 0; ; i++) {
      if (this.nth(i) === LazySeq.END) return this.realised.slice();
      if (i >= max) onTooMany(); // item max exists: one more than allowed
    }
  }

  *[Symbol.iterator](): Iterator<Value> {
    for (let i = 0; ; i++) {
      const v = this.nth(i);
      if (v === LazySeq.END) return;
      yield v;
    }
  }

  equals(other: unknown): boolean {
    return this === other;
  }

  hashCode(): number {
    return 0x1a2e;
  }
}
setTag(LazySeq, TAG_LAZY);

// ---------------------------------------------------------------- functions and regexes

/**
 * Base of every callable value. The evaluator defines closures; the core library
 * defines builtins. Calling goes through the runtime (`Runtime.apply`) so that fuel,
 * depth and the journal are threaded through every call.
 */
export abstract class FnValue {
  abstract readonly name: string | undefined;
  /** Re-readable source: `inc`, `(partial + 1)`, `(let [y 1] (fn [x] (+ x y)))`. */
  abstract toSource(): string;
}
setTag(FnValue, TAG_FN);

/** Implementation of a builtin: pure function of its arguments and the runtime. */
export type BuiltinImpl = (args: Value[], rt: Runtime) => Value;

export class Builtin extends FnValue {
  /**
   * @param name the core name (`inc`, `str/join`)
   * @param source re-readable source when the function is not a plain core name,
   *   e.g. `(partial + 1)` for a function built by `partial`
   */
  constructor(
    readonly name: string,
    readonly impl: BuiltinImpl,
    /** or a function computing it: functions made in a loop, `(fnil inc 0)`, are rarely printed */
    private source?: string | (() => string),
    /** `impl` for exactly two arguments without the array, when there is such a form (a core function's `call2`) */
    readonly call2: ((a: Value, b: Value, rt: Runtime) => Value) | undefined = undefined,
  ) {
    super();
  }

  toSource(): string {
    if (typeof this.source === 'function') this.source = this.source();
    return this.source ?? this.name;
  }
}

/** A compiled regex. `source` is the pattern as written between `#"` and `"`. */
export class Regex {
  constructor(
    readonly source: string,
    /** the compiled linear-time matcher (re2js `RE2JS`), opaque to most code */
    readonly compiled: unknown,
  ) {}
}
setTag(Regex, TAG_REGEX);

/** `(reduced x)`: tells `reduce` (and `reductions`, `reduce-kv`) to stop with `x`. */
export class Reduced {
  constructor(readonly value: Value) {}
}
setTag(Reduced, TAG_REDUCED);

// ---------------------------------------------------------------- the runtime seen by builtins

/**
 * What a builtin may ask of the running program. Implemented by the evaluator.
 * Builtins are synchronous; async tools are handled by the evaluator itself.
 */
export interface Runtime {
  /** Calls any callable value (fn, builtin, keyword, map, set) with arguments. */
  apply(f: Value, args: Value[]): Value;
  /** `apply(f, [x])`, without the array when `f` is a closure (map/filter callbacks). */
  apply1(f: Value, x: Value): Value;
  /** `apply(f, [x, y])`, without the array when `f` is a closure (reduce callbacks). */
  apply2(f: Value, x: Value, y: Value): Value;
  /**
   * Whether `(f acc x)` only updates `acc` with `assoc`, `update`, ... and lets nothing else
   * see it, so `reduce` may pass a transient map (eval/closures/in-place-accumulator.ts).
   */
  updatesInPlace(f: Value): boolean;
  /**
   * `reduce`'s loop over `xs` from `from` (a unit of fuel, then `(f acc x)`, per item), run
   * at once when `f` can (a numeric fn compiled to WebAssembly: eval/closures/code.ts's `Fold`):
   * the acc after the items it took and the index of the next. Undefined: it took none.
   */
  foldNumbers?(f: Value, acc: Value, xs: readonly Value[], from: number): readonly [Value, number] | undefined;
  /** Charges `n` units of evaluation fuel; throws `limit_exceeded` when spent. */
  tick(n?: number): void;
  /** Throws `limit_exceeded` if a collection of `n` items would exceed the size limit. */
  checkSize(n: number): void;
  /** The collection-size limit, for realising lazy sequences. */
  readonly maxCollectionSize: number;
  /** Appends one line of program output (println). Enforces the output limit. */
  print(line: string): void;
}

// ---------------------------------------------------------------- type tests

export const isKeyword = (v: Value): v is Keyword => typeof v === 'object' && v !== null && tagOf(v) === TAG_KEYWORD;
export const isSymbol = (v: Value): v is Sym => typeof v === 'object' && v !== null && tagOf(v) === TAG_SYMBOL;
export const isVector = (v: Value): v is Vector => isList(v);
export const isPList = (v: Value): v is PList => typeof v === 'object' && v !== null && tagOf(v) === TAG_PLIST;
export const isLazySeq = (v: Value): v is LazySeq => typeof v === 'object' && v !== null && tagOf(v) === TAG_LAZY;
export const isMap = (v: Value): v is PMap => typeof v === 'object' && v !== null && tagOf(v) === TAG_MAP;
export const isSet = (v: Value): v is PSet => typeof v === 'object' && v !== null && tagOf(v) === TAG_SET;
export const isFn = (v: Value): v is FnValue => typeof v === 'object' && v !== null && tagOf(v) === TAG_FN;
export const isRegex = (v: Value): v is Regex => typeof v === 'object' && v !== null && tagOf(v) === TAG_REGEX;
export const isReduced = (v: Value): v is Reduced => typeof v === 'object' && v !== null && tagOf(v) === TAG_REDUCED;
/** list or lazy seq (not a vector) */
export const isSeq = (v: Value): v is PList | LazySeq => {
  if (typeof v !== 'object' || v === null) return false;
  const t = tagOf(v);
  return t === TAG_PLIST || t === TAG_LAZY;
};
/** vector, list or lazy seq */
export const isSequential = (v: Value): v is Vector | PList | LazySeq => isSeq(v) || isList(v);
/** any collection: sequential, map or set */
export const isColl = (v: Value): v is Vector | PList | LazySeq | PMap | PSet =>
  isSequential(v) || isMap(v) || isSet(v);

/** Name of a value's type as used in error messages: `expected number, got string`. */
export function typeName(v: Value): string {
  if (v === null) return 'nil';
  switch (typeof v) {
    case 'boolean':
      return 'boolean';
    case 'number':
      return 'number';
    case 'string':
      return 'string';
  }
  switch (tagOf(v)) {
    case TAG_KEYWORD:
      return 'keyword';
    case TAG_SYMBOL:
      return 'symbol';
    case TAG_PLIST:
    case TAG_LAZY:
      return 'list';
    case TAG_FN:
      return 'function';
    case TAG_REGEX:
      return 'regex';
    case TAG_REDUCED:
      return 'reduced';
    case TAG_MAP:
      return 'map';
  }
  if (isList(v)) return 'vector';
  if (isSet(v)) return 'set';
  return 'unknown';
}

// ---------------------------------------------------------------- constructors

/** A vector of the items (an array is copied: the caller keeps it). */
export const vec = (items: Iterable<Value> = []): Vector => {
  if (!Array.isArray(items)) return List(items);
  // vectorOfArray keeps arrays of up to 32 items as they are and copies bigger ones by leaf
  return vectorOfArray(items.length <= 32 ? items.slice() : items);
};
export const list = (items: Iterable<Value> = []): PList => PList.of(items);
export const map = (entries: Iterable<readonly [Value, Value]> = []): PMap => PMap.from(entries);
export const set = (items: Iterable<Value> = []): PSet => PSet.from(items);

// ---------------------------------------------------------------- equality

/**
 * Clojure `=`: structural. Vectors equal lists with equal items; maps compare as sets of
 * entries (order does not matter); numbers by value (`(= 1 1.0)` is true here, one of
 * the documented differences from Clojure); NaN equals nothing.
 */
export function equals(a: Value, b: Value): boolean {
  if (a === b) return typeof a !== 'number' || !Number.isNaN(a);
  if (a === null || b === null) return false;
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (isSequential(a)) return isSequential(b) && sequentialEquals(a, b);
  if (isMap(a)) return isMap(b) && mapEquals(a, b);
  if (isSet(a)) return isSet(b) && a.size === b.size && a.every((x) => b.has(x));
  return false;
}

function sequentialEquals(a: Vector | PList | LazySeq, b: Vector | PList | LazySeq): boolean {
  if (!isLazySeq(a) && !isLazySeq(b) && a.size !== b.size) return false;
  const ia = iterate(a)[Symbol.iterator]();
  const ib = iterate(b)[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return Boolean(x.done && y.done);
    if (!equals(x.value, y.value)) return false;
  }
}

function mapEquals(a: PMap, b: PMap): boolean {
  if (a.size !== b.size) return false;
  const missing = Symbol('missing');
  for (const [k, v] of a) {
    const w = b.get(k, missing as unknown as Value);
    if ((w as unknown) === missing || !equals(v, w)) return false;
  }
  return true;
}

// ---------------------------------------------------------------- iteration

/**
 * Iterates any seqable value: vectors, lists and lazy seqs item by item, maps as
 * `[k v]` vectors, sets by member, strings by character, nil as empty.
 * Returns `undefined` for values that are not seqable (numbers, keywords, fns).
 */
export function seqable(v: Value): Iterable<Value> | undefined {
  if (v === null) return [];
  if (typeof v === 'string') return Array.from(v);
  if (typeof v !== 'object') return undefined;
  const t = tagOf(v);
  if (t === TAG_PLIST) return (v as PList).array ?? (v as PList).items;
  if (t === TAG_LAZY) return v as LazySeq;
  if (t === TAG_MAP) return mapEntries(v as PMap);
  if (t === TAG_SET) return v as PSet;
  if (t !== undefined) return undefined;
  if (isList(v)) return v;
  return undefined;
}

function* mapEntries(m: PMap): Iterable<Value> {
  for (const [k, v] of m) yield vectorOfArray([k, v]);
}

/** Like {@link seqable} but for values already known to be seqable. */
export function iterate(v: Vector | PList | LazySeq | PMap | PSet | string | null): Iterable<Value> {
  return seqable(v)!;
}

/** Truthiness: only nil and false are falsy. */
export const truthy = (v: Value): boolean => v !== null && v !== false;
