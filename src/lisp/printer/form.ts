/**
 * Printing forms back to source text (closures print as `(fn [x] (+ x y))`). The output
 * reads back to an equal form.
 */
import type { Form } from '../form.ts';
import { formatNumber } from './number.ts';
import { quoteString } from './print.ts';

const CHAR_NAMES: Record<string, string> = {
  '\n': 'newline',
  ' ': 'space',
  '\t': 'tab',
  '\r': 'return',
  '\b': 'backspace',
  '\f': 'formfeed',
};

/** A character literal: `\a`, `\newline`, `\u0001` for other control characters. */
export function charLiteral(c: string): string {
  const named = CHAR_NAMES[c];
  if (named !== undefined) return `\\${named}`;
  const code = c.charCodeAt(0);
  if (c.length === 1 && (code < 32 || code === 127)) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\${c}`;
}

const joinForms = (items: Form[]): string => items.map(printForm).join(' ');

function joinMap(items: Form[]): string {
  const parts: string[] = [];
  for (let i = 0; i < items.length; i += 2) parts.push(`${printForm(items[i]!)} ${printForm(items[i + 1]!)}`);
  return parts.join(', ');
}

/** Source text of a form: re-readable, `#(...)` stays `#(...)`, maps as `{:a 1, :b 2}`. */
export function printForm(f: Form): string {
  switch (f.kind) {
    case 'nil':
      return 'nil';
    case 'bool':
      return f.value ? 'true' : 'false';
    case 'number':
      return formatNumber(f.value);
    case 'string':
      return quoteString(f.value);
    case 'char':
      return charLiteral(f.value);
    case 'keyword':
      return `:${f.value.fullName}`;
    case 'symbol':
      return f.ns === null ? f.name : `${f.ns}/${f.name}`;
    case 'list':
      return `(${joinForms(f.items)})`;
    case 'vector':
      return `[${joinForms(f.items)}]`;
    case 'map':
      return `{${joinMap(f.items)}}`;
    case 'set':
      return `#{${joinForms(f.items)}}`;
    case 'regex':
      return `#"${f.source}"`;
    case 'fnLiteral':
      return `#(${joinForms(f.items)})`;
    case 'var':
      return `#'${f.name}`;
  }
}
