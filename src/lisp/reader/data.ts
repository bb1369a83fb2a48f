/**
 * Reading text as data (EDN-like): one form becomes a {@link Value} directly, without
 * evaluation. `readData(prStr(v))` equals `v` for every data value.
 */
import type { Form } from '../form.ts';
import { compileRegex } from '../regex.ts';
import { PMap, PSet, type Value, list, vec } from '../values.ts';
import { parseError, readerMessages as M } from './messages.ts';
import { read } from './reader.ts';

export interface ReadDataOptions {
  /** longest regex pattern accepted @default 1000 */
  maxRegexLength?: number;
}

/**
 * Reads exactly one form of `text` as data: literals, keywords, vectors (Immutable
 * List), lists (PList), maps (PMap), sets (PSet) and regexes.
 * @throws PtcError `parse_error` for bad syntax, symbols, `#()` and `#'`; `regex_error`
 */
export function readData(text: string, options: ReadDataOptions = {}): Value {
  const forms = read(text);
  if (forms.length === 0) throw parseError(M.dataEmpty, { offset: 0, length: text.length, line: 1, col: 1 });
  if (forms.length > 1) throw parseError(M.dataTrailing, forms[1]!.span);
  return formToValue(forms[0]!, options.maxRegexLength ?? 1000);
}

/**
 * The value of a form built from literals: nil, booleans, numbers, strings, characters,
 * keywords, and vectors, maps and sets of them. Every other form (a list, regex, symbol,
 * `#()`, `#'`) goes to `other`, whose answer is used in its place; `undefined` from it
 * makes the whole form `undefined`. The analyzer treats those forms as code
 * (`() => undefined`); {@link formToValue} reads lists and regexes as data.
 */
export function literalToValue(f: Form, other: (f: Form) => Value | undefined): Value | undefined {
  const all = (forms: Form[]): Value[] | undefined => {
    const out: Value[] = [];
    for (const x of forms) {
      const v = literalToValue(x, other);
      if (v === undefined) return undefined;
      out.push(v);
    }
    return out;
  };
  switch (f.kind) {
    case 'nil':
      return null;
    case 'bool':
    case 'number':
    case 'string':
    case 'char':
    case 'keyword':
      return f.value;
    case 'vector': {
      const items = all(f.items);
      return items && vec(items);
    }
    case 'set': {
      const items = all(f.items);
      return items && PSet.from(items);
    }
    case 'map': {
      const items = all(f.items);
      if (!items) return undefined;
      return PMap.EMPTY.withMutations((m) => {
        for (let i = 0; i < items.length; i += 2) m.set(items[i]!, items[i + 1]!);
      });
    }
    default:
      return other(f);
  }
}

/** Converts a literal form to its value; code forms (symbols, `#()`, `#'`) are errors. */
export function formToValue(form: Form, maxRegexLength = 1000): Value {
  const dataOnly = (f: Form): Value => {
    switch (f.kind) {
      case 'list':
        return list(f.items.map((x) => literalToValue(x, dataOnly)!));
      case 'regex':
        return compileRegex(f.source, maxRegexLength);
      case 'symbol':
        throw parseError(M.dataSymbol(f.ns === null ? f.name : `${f.ns}/${f.name}`), f.span);
      case 'fnLiteral':
        throw parseError(M.dataForm('#(...)'), f.span);
      case 'var':
        throw parseError(M.dataForm(`#'${f.name}`), f.span);
      default:
        throw new Error(`unreachable: ${f.kind} is a literal`);
    }
  };
  return literalToValue(form, dataOnly)!;
}
