/**
 * Printing JSON data the way PTC-Lisp's `pr-str` prints the value it maps to (JSON
 * objects become maps with string keys, arrays become vectors). Used by the prompt for
 * journal values, data samples and examples, which are all JSON.
 */
import { formatNumber } from './number.ts';
import { quoteString } from './print.ts';
import type { Json } from '../tools.ts';

export interface EdnOptions {
  /** print object keys as keywords (`{:amount 5}`): for example calls the model copies */
  keywordKeys?: boolean;
}

const KEYWORD_NAME = /^[A-Za-z_*+!?<>=-][A-Za-z0-9_*+!?<>=.-]*$/;

/** A string as `pr-str` prints it. */
export const ednString = (s: string): string => quoteString(s);

/** A number as PTC-Lisp prints it (`5`, `2.5`, `1.0E21`). */
export const ednNumber = (n: number): string => formatNumber(n);

/** `pr-str` of the PTC-Lisp value a JSON value maps to. */
export function ednOfJson(v: unknown, opts: EdnOptions = {}): string {
  if (v === null || v === undefined) return 'nil';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return ednNumber(v);
  if (typeof v === 'string') return ednString(v);
  if (Array.isArray(v)) return `[${v.map((x) => ednOfJson(x, opts)).join(' ')}]`;
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, Json>).map(
      ([k, x]) => `${opts.keywordKeys && KEYWORD_NAME.test(k) ? `:${k}` : ednString(k)} ${ednOfJson(x, opts)}`,
    );
    return `{${entries.join(', ')}}`;
  }
  return ednString(String(v));
}

/** Cuts text to `max` characters, marking the cut with `...`. */
export const cut = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max)}...` : s);
