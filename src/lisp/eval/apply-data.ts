/**
 * Calls whose callee is data, not a fn, and the arity errors of calls. As in Clojure,
 * keywords and symbols look themselves up in their argument (`(:a m)`, `(:a m default)`),
 * maps and sets look up their argument, and vectors return the item at an index; any
 * other value is not callable, with a hint for the usual mistakes.
 */
import type { FnInfo } from '../analyzer/nodes.ts';
import { PtcError } from '../errors.ts';
import { getIn1, mapGet } from '../lookup.ts';
import { prStr } from '../printer/index.ts';
import { type Value, isKeyword, isMap, isSet, isSymbol, isVector, typeName } from '../values.ts';

/** `(f ...args)` where `f` is a keyword, symbol, map, set or vector; else not_callable. */
export function applyData(f: Value, args: Value[]): Value {
  if (isKeyword(f)) {
    if (args.length < 1 || args.length > 2) throw arity(`keyword :${f.fullName}`, '1 or 2', args.length);
    return getIn1(args[0]!, f, args.length > 1 ? args[1]! : null);
  }
  if (isSymbol(f)) {
    if (args.length < 1 || args.length > 2) throw arity(`symbol '${f.fullName}`, '1 or 2', args.length);
    return getIn1(args[0]!, f, args.length > 1 ? args[1]! : null);
  }
  if (isMap(f)) {
    if (args.length < 1 || args.length > 2) throw arity('a map', '1 or 2', args.length);
    return mapGet(f, args[0]!, args.length > 1 ? args[1]! : null);
  }
  if (isSet(f)) {
    if (args.length !== 1) throw arity('a set', '1', args.length);
    return getIn1(f, args[0]!, null);
  }
  if (isVector(f)) {
    if (args.length !== 1) throw arity('a vector', '1', args.length);
    const i = args[0]!;
    if (typeof i !== 'number' || !Number.isInteger(i))
      throw new PtcError('type_error', `vector index must be an integer, got ${typeName(i)}`);
    if (i < 0 || i >= f.size)
      throw new PtcError('index_out_of_bounds', `index ${i} is out of bounds for a vector of ${f.size} items`);
    return f.get(i)!;
  }
  throw new PtcError('not_callable', `${describe(f)} is not a function`, undefined, notCallableHint(f));
}

/** The arity error of a call to a closure with `got` arguments. */
export function closureArity(info: FnInfo, got: number): PtcError {
  const counts = info.arities.map((a) => (a.rest ? `${a.fixed} or more` : String(a.fixed)));
  const expected =
    counts.length === 1 ? counts[0]! : `${counts.slice(0, -1).join(', ')} or ${counts[counts.length - 1]}`;
  const plural = counts.length === 1 && counts[0] === '1' ? 'argument' : 'arguments';
  return new PtcError('arity_error', `${info.name ?? 'fn'} expects ${expected} ${plural}, got ${got}`);
}

function arity(what: string, expected: string, got: number): PtcError {
  return new PtcError('arity_error', `${what} expects ${expected} argument${expected === '1' ? '' : 's'}, got ${got}`);
}

function describe(v: Value): string {
  if (v === null) return 'nil';
  if (typeof v === 'string') return `the string ${prStr(v).slice(0, 40)}`;
  if (typeof v === 'number' || typeof v === 'boolean') return `${typeName(v)} ${String(v)}`;
  return `a ${typeName(v)}`;
}

function notCallableHint(v: Value): string | undefined {
  if (typeof v === 'number') return 'a list of numbers is written as a vector: [1 2 3]';
  if (v === null) return 'the function is nil: check the name, or that a value you call is bound';
  return undefined;
}
