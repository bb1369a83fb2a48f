/**
 * Printing values: Clojure's `pr-str` (readable), `print`/`println` (strings raw) and
 * `str`. Output is built into one string by a small writer that can stop early, so a
 * huge or infinite value can be cut without being printed in full first.
 */
import { isList } from 'immutable';
import { PtcError, limitExceeded } from '../errors.ts';
import {
  LazySeq,
  type PMap,
  type Value,
  isFn,
  isMap,
  isSet,
  isKeyword,
  isLazySeq,
  isPList,
  isReduced,
  isRegex,
  isSymbol,
} from '../values.ts';
import { formatNumber, strNumber } from './number.ts';

export interface PrintOptions {
  /**
   * most items printed from one lazy seq (with {@link valueSource}: from any collection)
   * before `limit_exceeded` @default 100_000
   */
  maxItems?: number;
  /** deepest nesting printed before `limit_exceeded` @default 1000 */
  maxDepth?: number;
  /**
   * longest text printed before `limit_exceeded` (output) @default 8_000_000; a value
   * built by doubling (`[acc acc]` forty times) is stopped here instead of printing for ever
   */
  maxChars?: number;
  /** charged one unit per 4 characters written: printing inside a program spends its fuel */
  charge?: (units: number) => void;
}

const DEFAULT_MAX_ITEMS = 100_000;
const DEFAULT_MAX_DEPTH = 1000;
const DEFAULT_MAX_CHARS = 8_000_000;
/** characters written between two charges */
const CHARGE_EVERY = 4096;

/** Keyword spellings the reader reads back as the same keyword (conservative). */
const READABLE_KEYWORD = /^[\w*+!?<>=$&.-][\w*+!?<>=$&.'#-]*(?:\/[\w*+!?<>=$&.-][\w*+!?<>=$&.'#-]*)?$/;

/** Thrown inside the writer when the character budget is spent; never escapes. */
const FULL = Symbol('full');

class Writer {
  out = '';
  private charged = 0;
  constructor(
    /** false: `print` semantics (strings raw at every level) */
    readonly readably: boolean,
    /**
     * true: source that evaluates to the value ({@link valueSource}): lists and seqs as
     * `(list ...)`, and `maxItems` bounds every collection, not only lazy seqs
     */
    readonly code: boolean,
    readonly maxItems: number,
    readonly maxDepth: number,
    readonly maxChars: number,
    readonly charge: ((units: number) => void) | undefined,
  ) {}

  put(s: string): void {
    this.out += s;
    if (this.out.length > this.maxChars) throw FULL;
    if (this.charge && this.out.length - this.charged >= CHARGE_EVERY) {
      this.charge(Math.ceil((this.out.length - this.charged) / 4));
      this.charged = this.out.length;
    }
  }

  value(v: Value, depth: number): void {
    if (v === null) return this.put('nil');
    switch (typeof v) {
      case 'boolean':
        return this.put(v ? 'true' : 'false');
      case 'number':
        return this.put(formatNumber(v));
      case 'string':
        return this.put(this.readably ? quoteString(v) : v);
    }
    if (isKeyword(v)) {
      return this.put(
        this.code && !READABLE_KEYWORD.test(v.fullName) ? `(keyword ${quoteString(v.fullName)})` : `:${v.fullName}`,
      );
    }
    if (isSymbol(v)) return this.put(this.code ? `'${v.fullName}` : v.fullName);
    if (depth >= this.maxDepth) {
      throw limitExceeded('depth', `value is nested more than ${this.maxDepth} levels deep to print`);
    }
    if (isList(v)) return this.items('[', v, ']', depth);
    if (isPList(v)) return this.items(this.code && v.size > 0 ? '(list ' : '(', v.items, ')', depth);
    if (isLazySeq(v)) return this.lazy(v, depth);
    if (isMap(v)) return this.map(v, depth);
    if (isSet(v)) return this.items('#{', v, '}', depth);
    if (isRegex(v)) return this.put(`#"${v.source}"`);
    if (isFn(v)) return this.put(v.toSource());
    if (isReduced(v)) {
      this.put(this.code ? '(reduced ' : '#reduced[');
      this.value(v.value, depth + 1);
      return this.put(this.code ? ')' : ']');
    }
    return this.put('#<unknown>');
  }

  private items(open: string, xs: Iterable<Value>, close: string, depth: number): void {
    this.put(open);
    let n = 0;
    for (const x of xs) {
      if (n > 0) this.put(' ');
      if (this.code && n >= this.maxItems) this.tooMany();
      n++;
      this.value(x, depth + 1);
    }
    this.put(close);
  }

  private tooMany(): never {
    throw limitExceeded(
      'collection_size',
      `cannot print a ${this.code ? 'collection' : 'sequence'} of more than ${this.maxItems} items`,
    );
  }

  private lazy(s: LazySeq, depth: number): void {
    this.put('(');
    for (let i = 0; ; i++) {
      const x = s.nth(i);
      if (x === LazySeq.END) break;
      if (i >= this.maxItems) this.tooMany();
      if (i === 0 && this.code) this.put('list ');
      if (i > 0) this.put(' ');
      this.value(x, depth + 1);
    }
    this.put(')');
  }

  private map(m: PMap, depth: number): void {
    this.put('{');
    let n = 0;
    for (const [k, x] of m) {
      if (n > 0) this.put(', ');
      if (this.code && n >= this.maxItems) this.tooMany();
      n++;
      this.value(k, depth + 1);
      this.put(' ');
      this.value(x, depth + 1);
    }
    this.put('}');
  }
}

/**
 * A string as Clojure's `pr` writes it: in double quotes, with `"` `\` newline, tab,
 * return, backspace and formfeed escaped; every other character is written as is.
 */
export function quoteString(s: string): string {
  let out = '"';
  let chunk = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let rep: string | undefined;
    switch (c) {
      case 34: rep = '\\"'; break; // prettier-ignore
      case 92: rep = '\\\\'; break; // prettier-ignore
      case 10: rep = '\\n'; break; // prettier-ignore
      case 9: rep = '\\t'; break; // prettier-ignore
      case 13: rep = '\\r'; break; // prettier-ignore
      case 8: rep = '\\b'; break; // prettier-ignore
      case 12: rep = '\\f'; break; // prettier-ignore
    }
    if (rep !== undefined) {
      out += s.slice(chunk, i) + rep;
      chunk = i + 1;
    }
  }
  return out + s.slice(chunk) + '"';
}

/**
 * Prints `v`. With `cutAt` the text is cut there (printing stops); without, a text
 * longer than `options.maxChars` is a `limit_exceeded` error.
 */
function render(
  v: Value,
  readably: boolean,
  options: PrintOptions,
  cutAt: number | null,
  code = false,
): { text: string; cut: boolean } {
  const maxChars = cutAt ?? options.maxChars ?? DEFAULT_MAX_CHARS;
  const w = new Writer(
    readably,
    code,
    options.maxItems ?? DEFAULT_MAX_ITEMS,
    options.maxDepth ?? DEFAULT_MAX_DEPTH,
    maxChars,
    options.charge,
  );
  try {
    w.value(v, 0);
    return { text: w.out, cut: false };
  } catch (e) {
    if (e === FULL && cutAt === null)
      throw limitExceeded('output', `printed value has more than ${maxChars} characters`);
    if (e === FULL) return { text: w.out.slice(0, maxChars), cut: true };
    if (e instanceof PtcError) throw e;
    if (e instanceof RangeError) {
      throw limitExceeded('depth', 'value is nested too deeply to print');
    }
    throw e;
  }
}

/**
 * Clojure `pr-str`: the readable printed form. `readData(prStr(v))` equals `v` for data.
 * Lazy seqs are printed realised (at most `maxItems` items, else `limit_exceeded`).
 */
export function prStr(v: Value, options: PrintOptions = {}): string {
  return render(v, true, options, null).text;
}

/**
 * Source text that evaluates to `v` (what namespaces, closures' captured data and built
 * functions persist): `pr-str`, except that lists and seqs are written `(list 1 2)`
 * (`(1 2)` would read back as a call) and keywords the reader cannot read back as
 * `(keyword "a b")`. `maxItems` bounds every collection (`limit_exceeded`
 * `collection_size`), so an oversized value fails here rather than when read back.
 */
export function valueSource(v: Value, options: PrintOptions = {}): string {
  return render(v, true, options, null, true).text;
}

/**
 * `pr-str` cut to `maxChars` characters, followed by `ellipsis` when cut. Stops printing
 * as soon as the budget is spent, so huge (even infinite) values are cheap to show.
 */
export function prStrLimited(v: Value, maxChars: number, ellipsis = '...', options: PrintOptions = {}): string {
  const { text, cut } = render(v, true, options, maxChars);
  return cut ? text + ellipsis : text;
}

/** Clojure `print` of one value: like `pr-str` but strings (also nested ones) are raw. */
export function printStr(v: Value, options: PrintOptions = {}): string {
  return render(v, false, options, null).text;
}

/**
 * Clojure `str` of one value: nil → `""`, strings raw, keywords `:k`, numbers as
 * {@link formatNumber} except `Infinity`, `-Infinity`, `NaN` (as Clojure's `str`),
 * regexes as their pattern source, collections and functions as `pr-str`.
 */
export function strOf(v: Value, options: PrintOptions = {}): string {
  if (v === null) return '';
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
      return strNumber(v);
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (isRegex(v)) return v.source;
  return prStr(v, options);
}

/**
 * The line Clojure `println` writes for `args` (without the newline): each argument
 * printed with `print` semantics (strings raw, also inside collections, so
 * `(println ["a" :b])` gives `[a :b]`), joined by single spaces.
 */
export function printlnText(args: Value[], options: PrintOptions = {}): string {
  let out = '';
  for (let i = 0; i < args.length; i++) {
    if (i > 0) out += ' ';
    out += printStr(args[i]!, options);
  }
  return out;
}
