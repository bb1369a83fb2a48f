/**
 * Type and value predicates, `not`, `boolean` and `type`.
 *
 * Clojure agreement notes (numbers are doubles, characters are 1-character strings):
 * `integer?`/`int?` mean "integral number", `float?`/`double?` "not integral" (so
 * `(double? 1.0)` is false here); `char?` is true for any one-code-point string, which is
 * also `string?`. `vector?` is true for vectors only, `list?` for lists (the results of
 * `map`, `filter`, ... are lists here, where Clojure has lazy seqs), `seq?` for lists
 * and lazy seqs.
 */
import {
  PSet,
  type Value,
  Keyword,
  Sym,
  isColl,
  isFn,
  isLazySeq,
  isMap,
  isPList,
  isRegex,
  isSequential,
  isSet,
  isVector,
  kw,
  truthy,
} from '../values.ts';
import { type CoreFn, type CoreTable, VARIADIC, defn, fixedArity } from './registry.ts';

const pred = (test: (x: Value) => boolean, doc: string): CoreFn => fixedArity([1, 1], { call1: test }, doc);

const isInteger = (x: Value): boolean => typeof x === 'number' && Number.isInteger(x);

/** The reference's `type`: a keyword naming the kind of value; nil for nil. */
export function typeKeyword(v: Value): Value {
  if (v === null) return null;
  switch (typeof v) {
    case 'boolean':
      return kw('boolean');
    case 'number':
      return kw('number');
    case 'string':
      return kw('string');
  }
  if (v instanceof Keyword) return kw('keyword');
  if (v instanceof Sym) return kw('symbol');
  if (isVector(v)) return kw('vector');
  if (isPList(v) || isLazySeq(v)) return kw('list');
  if (isMap(v)) return kw('map');
  if (isSet(v)) return kw('set');
  if (isFn(v)) return kw('function');
  if (isRegex(v)) return kw('regex');
  return null;
}

const isIdent = (x: Value): x is Keyword | Sym => x instanceof Keyword || x instanceof Sym;

export const predicateFns: CoreTable = {
  'nil?': pred((x) => x === null, 'x is nil'),
  'some?': pred((x) => x !== null, 'x is not nil'),
  'true?': pred((x) => x === true, 'x is the value true'),
  'false?': pred((x) => x === false, 'x is the value false'),
  'any?': pred(() => true, 'always true'),
  'boolean?': pred((x) => typeof x === 'boolean', 'true or false'),
  'number?': pred((x) => typeof x === 'number', 'any number, ##Inf and ##NaN included'),
  'integer?': pred(isInteger, 'an integral number: (integer? 2) is true, (integer? 2.5) false'),
  'int?': pred(isInteger, 'same as integer?'),
  'nat-int?': pred((x) => isInteger(x) && (x as number) >= 0, 'integer >= 0'),
  'pos-int?': pred((x) => isInteger(x) && (x as number) > 0, 'integer > 0'),
  'neg-int?': pred((x) => isInteger(x) && (x as number) < 0, 'integer < 0'),
  'float?': pred(
    (x) => typeof x === 'number' && !Number.isInteger(x),
    'a number with a fractional part (or ##Inf/##NaN)',
  ),
  'double?': pred((x) => typeof x === 'number' && !Number.isInteger(x), 'same as float?'),
  'string?': pred((x) => typeof x === 'string', 'a string (characters are 1-character strings)'),
  // one code point, as `first`/`seq` of a string give (an emoji is 2 UTF-16 units)
  'char?': pred(
    (x) => typeof x === 'string' && (x.length === 1 || (x.length === 2 && x.codePointAt(0)! > 0xffff)),
    'a 1-character string (one code point), like \\a',
  ),
  'keyword?': pred((x) => x instanceof Keyword, 'a keyword'),
  'symbol?': pred((x) => x instanceof Sym, "a quoted symbol: (symbol? 'a) is true"),
  'ident?': pred(isIdent, 'a keyword or symbol'),
  'simple-ident?': pred((x) => isIdent(x) && x.ns === null, 'a keyword or symbol without a namespace'),
  'qualified-ident?': pred((x) => isIdent(x) && x.ns !== null, 'a keyword or symbol with a namespace'),
  'simple-keyword?': pred((x) => x instanceof Keyword && x.ns === null, ':a, not :a/b'),
  'qualified-keyword?': pred((x) => x instanceof Keyword && x.ns !== null, ':a/b, not :a'),
  'simple-symbol?': pred((x) => x instanceof Sym && x.ns === null, "'a, not 'a/b"),
  'qualified-symbol?': pred((x) => x instanceof Sym && x.ns !== null, "'a/b, not 'a"),
  'vector?': pred(isVector, 'a vector [..]'),
  'list?': pred(isPList, "a list '(..) (results of map, filter, ... are lists)"),
  'seq?': pred((x) => isPList(x) || isLazySeq(x), 'a list or lazy sequence (not a vector)'),
  'sequential?': pred(isSequential, 'a vector, list or sequence'),
  'map?': pred(isMap, 'a map'),
  'set?': pred(isSet, 'a set'),
  'coll?': pred(isColl, 'any collection: vector, list, map or set'),
  'fn?': pred(isFn, 'a function'),
  'ifn?': pred(
    (x) => isFn(x) || x instanceof Keyword || x instanceof Sym || isMap(x) || isSet(x) || isVector(x),
    'callable: functions, keywords, maps, sets, vectors',
  ),
  'regex?': pred(isRegex, 'a regex #"..."'),
  'distinct?': defn(
    [1, VARIADIC],
    (args, rt) => {
      rt.tick(args.length);
      return PSet.from(args).size === args.length;
    },
    'no two arguments are equal',
  ),
  not: defn([1, 1], ([x]) => !truthy(x!), 'true for nil and false, else false'),
  boolean: defn([1, 1], ([x]) => truthy(x!), 'false for nil and false, else true'),
  type: defn(
    [1, 1],
    ([x]) => typeKeyword(x!),
    'a keyword: :number :string :keyword :symbol :boolean :vector :list :map :set :function :regex; nil for nil',
  ),
};
