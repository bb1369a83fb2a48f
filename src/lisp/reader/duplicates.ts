/** Duplicate keys in map and set literals (`{:a 1 :a 2}`, `#{1 1}`) are read errors, as in Clojure. */
import type { Form, Span } from '../form.ts';
import { parseError, readerMessages as M } from './messages.ts';

/** Compact description of a literal key, for duplicate-key messages. */
function literalKey(f: Form): string | undefined {
  switch (f.kind) {
    case 'nil':
      return 'nil';
    case 'bool':
      return String(f.value);
    case 'number':
      return Number.isNaN(f.value) ? undefined : `n${f.value}`;
    case 'string':
    case 'char':
      return `s${f.value}`;
    case 'keyword':
      return `k${f.value.fullName}`;
    default:
      return undefined;
  }
}

function describeKey(f: Form): string {
  switch (f.kind) {
    case 'keyword':
      return `:${f.value.fullName}`;
    case 'string':
    case 'char':
      return JSON.stringify(f.value);
    case 'nil':
      return 'nil';
    case 'bool':
    case 'number':
      return String(f.value);
    default:
      return f.kind;
  }
}

function sameLiteral(a: Form, b: Form): boolean {
  switch (a.kind) {
    case 'keyword':
      return b.kind === 'keyword' && a.value === b.value;
    case 'string':
    case 'char':
      return (b.kind === 'string' || b.kind === 'char') && a.value === b.value;
    case 'number':
      return b.kind === 'number' && a.value === b.value;
    case 'bool':
      return b.kind === 'bool' && a.value === b.value;
    case 'nil':
      return b.kind === 'nil';
    default:
      return false;
  }
}

export function checkDuplicates(items: Form[], what: 'map' | 'set', span: Span): void {
  const step = what === 'map' ? 2 : 1;
  if (items.length <= 16) {
    // small literals: pairwise, no allocation
    for (let i = step; i < items.length; i += step) {
      for (let j = 0; j < i; j += step) {
        if (sameLiteral(items[j]!, items[i]!))
          throw parseError(M.duplicateKey(what, describeKey(items[i]!)), items[i]!.span ?? span);
      }
    }
    return;
  }
  const seen = new Set<string>();
  for (let i = 0; i < items.length; i += step) {
    const k = literalKey(items[i]!);
    if (k === undefined) continue;
    if (seen.has(k)) throw parseError(M.duplicateKey(what, describeKey(items[i]!)), items[i]!.span ?? span);
    seen.add(k);
  }
}
