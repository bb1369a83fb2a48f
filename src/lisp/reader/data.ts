/**
 * Reading text as data (EDN-like): one form becomes a {@link Value} directly, without
 * evaluation. `readData(prStr(v))` equals `v` for every data value.
 */
import type { Form } from '../form.ts';
import { compileRegex } from '../regex.ts';
import { type Value, list, vec } from '../values.ts';
import { OrderedMap, OrderedSet } from 'immutable';
import { parseError, readerMessages as M } from './messages.ts';
import { read } from './reader.ts';

export interface ReadDataOptions {
  /** longest regex pattern accepted @default 1000 */
  maxRegexLength?: number;
}

/**
 * Reads exactly one form of `text` as data: literals, keywords, vectors (Immutable
 * List), lists (PList), maps (OrderedMap), sets (OrderedSet) and regexes.
 * @throws PtcError `parse_error` for bad syntax, symbols, `#()` and `#'`; `regex_error`
 */
export function readData(text: string, options: ReadDataOptions = {}): Value {
  const forms = read(text);
  if (forms.length === 0) throw parseError(M.dataEmpty, { offset: 0, length: text.length, line: 1, col: 1 });
  if (forms.length > 1) throw parseError(M.dataTrailing, forms[1]!.span);
  return formToValue(forms[0]!, options.maxRegexLength ?? 1000);
}

/** Converts a literal form to its value; code forms (symbols, `#()`, `#'`) are errors. */
export function formToValue(form: Form, maxRegexLength = 1000): Value {
  const toValue = (f: Form): Value => {
    switch (f.kind) {
      case 'nil':
        return null;
      case 'bool':
      case 'number':
      case 'string':
      case 'char':
        return f.value;
      case 'keyword':
        return f.value;
      case 'vector':
        return vec(f.items.map(toValue));
      case 'list':
        return list(f.items.map(toValue));
      case 'set':
        return OrderedSet(f.items.map(toValue));
      case 'map': {
        return OrderedMap<Value, Value>().withMutations((m) => {
          for (let i = 0; i < f.items.length; i += 2) m.set(toValue(f.items[i]!), toValue(f.items[i + 1]!));
        });
      }
      case 'regex':
        return compileRegex(f.source, maxRegexLength);
      case 'symbol':
        throw parseError(M.dataSymbol(f.ns === null ? f.name : `${f.ns}/${f.name}`), f.span);
      case 'fnLiteral':
        throw parseError(M.dataForm('#(...)'), f.span);
      case 'var':
        throw parseError(M.dataForm(`#'${f.name}`), f.span);
    }
  };
  return toValue(form);
}

