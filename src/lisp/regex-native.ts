/**
 * A faster path for regexes: V8's own engines, used only where their answers are
 * guaranteed to be re2js's. Searches run on V8's backtracking engine, which V8 itself
 * hands to its linear-time engine once a search backtracks too much; patterns the linear
 * engine cannot run (checked by compiling them with the `l` flag) stay on re2js. So
 * linear time is kept, and so is every result:
 *
 * - The pattern must be in a conservative subset whose meaning is the same in RE2 and in
 *   JS without the `u` flag (the `l` engine refuses `u`): literals, the escapes below,
 *   classes without POSIX or Unicode names, groups, `(?:`, alternation, greedy and lazy
 *   quantifiers, `^` and `$`. `.`, `\s` and `\S` are rewritten to RE2's meaning. Anything
 *   else (inline flags, named groups, `\p`, `\A`, `\z`, `\Q`, ...) stays on re2js.
 * - The input must have no UTF-16 surrogates: then code units are code points, which is
 *   what RE2 matches on.
 *
 * The adapter has the methods of re2js's (Java's) Matcher that the core functions use.
 */
import { setFlagsFromString } from 'node:v8';
import { translateJavaRegex } from './regex.ts';
import { BoundedCache } from './bounded-cache.ts';

/**
 * Backtracks one search may take before V8 gives it to the linear engine. A normal
 * search takes a handful; a pattern that would backtrack exponentially (or quadratically
 * over a huge input) reaches this quickly and then finishes in linear time.
 */
const BACKTRACKS_BEFORE_LINEAR = 10_000;

let available: boolean | undefined;

/**
 * Whether this V8 has its linear engine, both for `l` regexes and as the fallback of
 * ordinary ones that backtrack too much. The flags are process-wide and set once, before
 * any of our regexes is compiled: the backtrack limit is built into compiled code.
 */
function linearEngine(): boolean {
  if (available !== undefined) return available;
  try {
    setFlagsFromString('--enable-experimental-regexp-engine');
    setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
    setFlagsFromString(`--regexp-backtracks-before-fallback=${BACKTRACKS_BEFORE_LINEAR}`);
    new RegExp('a', 'l');
    available = true;
  } catch {
    available = false;
  }
  return available;
}
linearEngine();

const RE2_SPACE = '\\t\\n\\f\\r ';
/** Escapes whose meaning is the same in RE2 and in JS (non-unicode mode). */
const SAME_ESCAPES = new Set([...'dDwWbBntrfv', ...'.*+?()[]{}|\\^$/-']);
const SAME_IN_CLASS = new Set([...'dDwWntrfv', ...'.*+?()[]{}|\\^$/-']);

/**
 * The JS source for an RE2 pattern (after the Java translation), or undefined when it is
 * outside the subset. Counted repetitions are kept within RE2's limit of 1000.
 */
export function toNativeSource(re2: string): string | undefined {
  // V8's linear engine wrongly matches U+FFFF with a negated class that lists it
  if (re2.includes('\uffff')) return undefined;
  if (!loopsAgree(re2)) return undefined;
  let out = '';
  let inClass = false;
  for (let i = 0; i < re2.length; i++) {
    const c = re2[i]!;
    if (c === '\\') {
      const e = re2[i + 1];
      if (e === undefined) return undefined;
      i++;
      if (e === 's') out += inClass ? RE2_SPACE : `[${RE2_SPACE}]`;
      else if (e === 'S' && !inClass) out += `[^${RE2_SPACE}]`;
      else if (e === 'x' && /^[0-9a-fA-F]{2}$/.test(re2.slice(i + 1, i + 3))) {
        out += `\\x${re2.slice(i + 1, i + 3)}`;
        i += 2;
      } else if ((inClass ? SAME_IN_CLASS : SAME_ESCAPES).has(e)) out += `\\${e}`;
      else return undefined;
      continue;
    }
    if (inClass) {
      if (c === '[') return undefined; // POSIX [[:alpha:]] or a nested class
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      if (re2[i + 1] === '^') out += re2[++i];
      if (re2[i + 1] === ']') {
        out += '\\]';
        i++;
      }
      continue;
    }
    if (c === '(' && re2[i + 1] === '?') {
      if (re2[i + 2] !== ':') return undefined; // inline flags, named groups, lookaround
      out += '(?:';
      i += 2;
      continue;
    }
    if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(re2.slice(i));
      if (!m) return undefined; // a literal brace: RE2 and JS disagree on some forms
      if (Number(m[1]) > 1000 || (m[3] && Number(m[3]) > 1000)) return undefined;
      out += m[0];
      i += m[0].length - 1;
      continue;
    }
    if (c === '.') out += '[^\\n]';
    else if (c === '}' || c === ']') return undefined;
    else out += c;
  }
  return inClass ? undefined : out;
}

const QUANTIFIER = /^(?:[*+?]|\{\d)/;

/**
 * Whether every repeated group repeats the same way in RE2 and in JS. They differ when a
 * repeated body can match the empty string (JS stops the loop there, RE2 does not) and
 * in what a capture inside a repeated group keeps (JS clears it on each round), so a
 * quantified group must have no capturing group inside and nothing that may match
 * empty: no `*`, `?` or `{0` in it, no anchor, no empty alternative. Anchors may not be
 * quantified either. Conservative: some safe patterns are refused, and run on re2js.
 */
function loopsAgree(re2: string): boolean {
  const opens: number[] = [];
  let inClass = false;
  for (let i = 0; i < re2.length; i++) {
    const c = re2[i]!;
    if (c === '\\') {
      const e = re2[++i];
      if (!inClass && (e === 'b' || e === 'B') && QUANTIFIER.test(re2.slice(i + 1))) return false;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      if (re2[i + 1] === '^') i++;
      if (re2[i + 1] === ']') i++;
    } else if ((c === '^' || c === '$') && QUANTIFIER.test(re2.slice(i + 1))) return false;
    else if (c === '(') opens.push(i);
    else if (c === ')') {
      const start = opens.pop();
      if (start === undefined) return false;
      if (!QUANTIFIER.test(re2.slice(i + 1))) continue;
      const body = re2.slice(re2.startsWith('(?:', start) ? start + 3 : start + 1, i);
      if (mayBeEmpty(body) || /\((?!\?:)/.test(body.replace(/\\./g, ''))) return false;
    }
  }
  return true;
}

function mayBeEmpty(body: string): boolean {
  const plain = body
    .replace(/\\[^bB]/g, 'x')
    .replace(/\[[^\]]*\]/g, 'x')
    .replace(/\(\?:/g, '(');
  return plain === '' || /[*?^$]|\{0|\\[bB]|\|\||^\||\|$|\(\||\|\)|\(\)/.test(plain);
}

interface Compiled {
  find: RegExp;
  whole: RegExp;
}

const cache = new BoundedCache<Compiled | null>(500);

/** The native regexes of a pattern (as written), or null when it must stay on re2js. */
export function nativeRegex(source: string): Compiled | null {
  return cache.get(source, () => nativeOf(source));
}

function nativeOf(source: string): Compiled | null {
  let compiled: Compiled | null = null;
  const js = linearEngine() ? toNativeSource(translateJavaRegex(source)) : undefined;
  if (js !== undefined) {
    try {
      // Compiling with `l` proves the linear engine can run the pattern, so the fallback
      // will take it when it backtracks too much; the search itself runs on V8's
      // backtracking engine, several times faster on ordinary inputs.
      new RegExp(js, 'l');
      compiled = { find: new RegExp(js, 'g'), whole: new RegExp(`^(?:${js})$`) };
    } catch {
      compiled = null; // V8 cannot run it in linear time (or disagrees on the syntax)
    }
  }
  return compiled;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** True when `s` can be matched natively (no surrogates: code units are code points). */
export const nativeInput = (s: string): boolean => !SURROGATE.test(s);

/** The subset of re2js's Matcher the core regex functions use, over a native regex. */
export class NativeMatcher {
  private match: RegExpExecArray | null = null;
  private next = 0;

  constructor(
    private readonly re: Compiled,
    private readonly input: string,
    private readonly groups: number,
  ) {}

  /** The next match, as Java's Matcher.find: after an empty match the search moves on by one. */
  find(): boolean {
    if (this.next > this.input.length) return false;
    const re = this.re.find;
    re.lastIndex = this.next;
    this.match = re.exec(this.input);
    if (!this.match) {
      this.next = this.input.length + 1;
      return false;
    }
    const end = this.match.index + this.match[0].length;
    this.next = end === this.match.index ? end + 1 : end;
    return true;
  }

  matches(): boolean {
    this.match = this.re.whole.exec(this.input);
    return this.match !== null;
  }

  groupCount(): number {
    return this.groups;
  }

  group(i = 0): string | null {
    return this.match?.[i] ?? null;
  }

  start(): number {
    return this.match!.index;
  }

  end(): number {
    return this.match!.index + this.match![0].length;
  }
}
