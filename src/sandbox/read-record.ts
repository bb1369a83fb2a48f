/**
 * Reading a namespace record (`deserializeNamespace`) with two shortcuts that give the
 * same values: entries already known are taken (see namespace-cache.ts), and an entry
 * whose source is one literal form (numbers, strings, keywords, nil, booleans, and
 * vectors, maps and sets of those: what `*1` and most data defs are) is the form's value,
 * which is what the analyzer makes of it (a constant) without its analysis and
 * evaluator. When every entry is known so, no evaluator is made at all.
 */
import { literalValue } from '../lisp/analyzer/syntax.ts';
import type { Namespace } from '../lisp/api.ts';
import { type DeserializeOptions, deserializeNamespace } from '../lisp/index.ts';
import { read } from '../lisp/reader/index.ts';
import type { Value } from '../lisp/values.ts';

/** Sources that may be a literal: anything else (a list, a function) is read as usual. */
const MAYBE_LITERAL = /^(?:[[{"\\:\d-]|#\{|nil$|true$|false$)/;

/** The value of a source that is one literal form, or undefined. */
export function literalOf(source: string): Value | undefined {
  if (!MAYBE_LITERAL.test(source)) return undefined;
  let forms;
  try {
    forms = read(source);
  } catch {
    return undefined; // read again by deserializeNamespace, which reports it
  }
  return forms.length === 1 ? literalValue(forms[0]!) : undefined;
}

/** `deserializeNamespace(rec, options)`, literal entries and `known` ones taken as they are. */
export async function readRecord(
  rec: Record<string, string>,
  options: DeserializeOptions & { known: Map<string, Value> },
): Promise<Namespace> {
  const { known } = options;
  const names = Object.keys(rec);
  let all = true;
  for (const name of names) {
    if (known.has(name)) continue;
    const v = literalOf(rec[name]!);
    if (v === undefined) all = false;
    else known.set(name, v);
  }
  if (!all) return deserializeNamespace(rec, options);
  return new Map(names.map((n) => [n, known.get(n)!]));
}
