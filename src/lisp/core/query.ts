/**
 * The reference's data-query extensions: `pluck sum sum-by avg avg-by min-by max-by
 * extract extract-int`, and the builders behind the `where`, `all-of`, `any-of` and
 * `none-of` special forms ({@link buildWhere}, {@link allOf}, ...), which the
 * evaluator calls with already evaluated arguments.
 *
 * Key arguments (`sum-by :amount`, `pluck [:user :name]`) read flexibly: a keyword or
 * string is a field, a vector a path, anything else a function.
 */
import { PtcError } from '../errors.ts';
import { getIn1 } from '../lookup.ts';
import { prStr, valueSource } from '../printer/index.ts';
import {
  type Runtime,
  type Value,
  Builtin,
  Keyword,
  equals,
  isSequential,
  isSet,
  isVector,
  seqable,
  truthy,
} from '../values.ts';
import { vectorOfArray } from '../vector-of-array.ts';
import { argError, expectInteger, seqItems } from './args.ts';
import { chargeScan, expectRegex, matcherOf } from './regex.ts';
import { type CoreTable, VARIADIC, defn } from './registry.ts';
import { compareValues, getPath, keyFnOf } from './seq.ts';

// ---------------------------------------------------------------- key functions

/** A key argument as a function of an item: keyword/string field, vector path, or a fn. */
function keyOf(fn: string, key: Value, rt: Runtime): (x: Value) => Value {
  if (key instanceof Keyword) return (x) => getIn1(x, key);
  return keyFnOf(fn, key, rt);
}

/** Numbers of `key` over `coll`, nils skipped; any other value is a type error. */
function numbersBy(fn: string, key: ((x: Value) => Value) | null, coll: Value, rt: Runtime): number[] {
  const out: number[] = [];
  for (const item of seqItems(fn, coll, rt)) {
    const v = key ? key(item) : item;
    if (v === null) continue;
    if (typeof v !== 'number')
      throw argError(fn, 'numbers', v, 'nil values are skipped; convert strings with parse-long or parse-double');
    out.push(v);
  }
  rt.tick(out.length);
  return out;
}

const total = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
const average = (xs: number[]): Value => (xs.length === 0 ? null : total(xs) / xs.length);

/** The item whose key is least (`sign` 1) or greatest (`sign` -1); first wins ties; nil keys skipped. */
function extremeBy(fn: string, sign: 1 | -1, args: Value[], rt: Runtime): Value {
  const key = keyOf(fn, args[0]!, rt);
  const items = args.length === 2 ? seqItems(fn, args[1]!, rt) : args.slice(1);
  let best: Value = null;
  let bestKey: Value = null;
  for (const item of items) {
    rt.tick(1);
    const k = key(item);
    if (k === null) continue;
    if (bestKey === null || sign * compareValues(k, bestKey, fn) < 0) {
      best = item;
      bestKey = k;
    }
  }
  return best;
}

// ---------------------------------------------------------------- extract

function extractGroup(args: Value[], rt: Runtime, fn: string): string | null {
  const [pattern, s, n] = args;
  if (s === null) return null;
  const text =
    typeof s === 'string'
      ? s
      : (() => {
          throw argError(fn, 'string', s!);
        })();
  const m = matcherOf(expectRegex(fn, pattern!, rt), text);
  chargeScan(rt, text);
  if (!m.find()) return null;
  const group = n === undefined || n === null ? Math.min(1, m.groupCount()) : expectInteger(fn, n);
  if (group < 0 || group > m.groupCount()) return null;
  return m.group(group);
}

const LEADING_INT = /^\s*([+-]?\d+)/;

// ---------------------------------------------------------------- where

/** The operators of `(where field op value)`. */
export const WHERE_OPS = ['=', 'not=', '>', '<', '>=', '<=', 'includes', 'in'] as const;
export type WhereOp = (typeof WHERE_OPS)[number];

/** Keywords compare by name in `where`: `:active` matches `"active"` (booleans stay booleans). */
const norm = (v: Value): Value => (v instanceof Keyword ? v.fullName : v);

const looseEquals = (a: Value, b: Value): boolean => (a === null || b === null ? a === b : equals(norm(a), norm(b)));

/** Ordering for `> < >= <=`: numbers with numbers, strings (or keywords) with strings; else none. */
function order(a: Value, b: Value): number | null {
  const x = norm(a);
  const y = norm(b);
  if (typeof x === 'number' && typeof y === 'number') return Number.isNaN(x - y) ? null : x - y;
  if (typeof x === 'string' && typeof y === 'string') return x < y ? -1 : x > y ? 1 : 0;
  return null;
}

const members = (v: Value): Iterable<Value> | null => (isSequential(v) || isSet(v) ? seqable(v)! : null);

/**
 * Section 2.3 of the reference, on the field's value `fv`: `=`/`not=` compare with
 * keywords as their names and nil equal only to nil; `> < >= <=` are false for nil or
 * mismatched types (never an error); `in` tests membership of `fv` in the value
 * collection; `includes` membership in a collection field or substring of a string field.
 */
export function whereTest(op: WhereOp | null, fv: Value, value: Value): boolean {
  switch (op) {
    case null:
      return truthy(fv);
    case '=':
      return looseEquals(fv, value);
    case 'not=':
      return !looseEquals(fv, value);
    case '>':
    case '<':
    case '>=':
    case '<=': {
      if (fv === null || value === null) return false;
      const c = order(fv, value);
      if (c === null) return false;
      return op === '>' ? c > 0 : op === '<' ? c < 0 : op === '>=' ? c >= 0 : c <= 0;
    }
    case 'in': {
      const coll = members(value);
      if (fv === null || coll === null) return false;
      for (const x of coll) if (looseEquals(x, fv)) return true;
      return false;
    }
    case 'includes': {
      const coll = members(fv);
      if (coll !== null) {
        for (const x of coll) if (looseEquals(x, value)) return true;
        return false;
      }
      return typeof fv === 'string' && typeof value === 'string' && fv.includes(value);
    }
  }
}

/** The path of a `where` field: a keyword or string is one key, a vector a path. */
export function wherePath(field: Value): Value[] {
  if (field instanceof Keyword || typeof field === 'string') return [field];
  if (isVector(field) && field.size > 0) return field.toArray();
  throw new PtcError(
    'invalid_where_form',
    `where field must be a keyword or a vector path, got ${prStr(field)}`,
    undefined,
    '(where :status = "active") or (where [:user :age] > 18)',
  );
}

/**
 * The predicate of `(where field)` (op null: the field is truthy) or
 * `(where field op value)`. The value is evaluated once, by the caller.
 * @throws PtcError `invalid_where_operator` for an unknown op, `invalid_where_form` for a bad field
 */
export function buildWhere(field: Value, op: string | null, value: Value): (item: Value) => boolean {
  const path = wherePath(field);
  if (op !== null && !(WHERE_OPS as readonly string[]).includes(op)) {
    throw new PtcError(
      'invalid_where_operator',
      `invalid where operator ${op}`,
      undefined,
      `operators: ${WHERE_OPS.join(' ')}`,
    );
  }
  const test = op as WhereOp | null;
  return (item) => whereTest(test, getPath(item, path), value);
}

/** `buildWhere` as a function value, printing as its source. */
export function whereFn(field: Value, op: string | null, value: Value): Builtin {
  const p = buildWhere(field, op, value);
  const src = op === null ? `(where ${prStr(field)})` : `(where ${prStr(field)} ${op} ${valueSource(value)})`;
  return new Builtin('where', (args) => p(args[0] ?? null), src);
}

/** A predicate combinator, printing as its source `(all-of p ...)` with each predicate's source. */
function combine(name: string, preds: Value[], test: (hit: (p: Value) => boolean) => boolean): Builtin {
  const src = `(${[name, ...preds.map((p) => valueSource(p))].join(' ')})`;
  return new Builtin(name, (args, rt) => test((p) => truthy(rt.apply(p, args))), src);
}

/** `(all-of p ...)`: true when every predicate holds; `(all-of)` is always true. */
export const allOf = (preds: Value[]): Builtin => combine('all-of', preds, (hit) => preds.every(hit));
/** `(any-of p ...)`: true when some predicate holds; `(any-of)` is always false. */
export const anyOf = (preds: Value[]): Builtin => combine('any-of', preds, (hit) => preds.some(hit));
/** `(none-of p ...)`: true when no predicate holds; `(none-of)` is always true. */
export const noneOf = (preds: Value[]): Builtin => combine('none-of', preds, (hit) => !preds.some(hit));

// ---------------------------------------------------------------- the table

export const queryFns: CoreTable = {
  pluck: defn(
    [2, 2],
    ([key, coll], rt) => {
      const k = keyOf('pluck', key!, rt);
      const out = Array.from(seqItems('pluck', coll!, rt), k);
      rt.tick(out.length);
      return vectorOfArray(out);
    },
    '(pluck :name users) is the vector of names; the key may be a path [:user :name]',
  ),
  sum: defn(
    [1, 1],
    ([coll], rt) => total(numbersBy('sum', null, coll!, rt)),
    '(sum [1 2 nil 3]) is 6; nils skipped; empty is 0',
  ),
  'sum-by': defn(
    [2, 2],
    ([key, coll], rt) => total(numbersBy('sum-by', keyOf('sum-by', key!, rt), coll!, rt)),
    '(sum-by :amount orders); nil fields skipped',
  ),
  avg: defn(
    [1, 1],
    ([coll], rt) => average(numbersBy('avg', null, coll!, rt)),
    'mean of the numbers (nils skipped); nil when empty',
  ),
  'avg-by': defn(
    [2, 2],
    ([key, coll], rt) => average(numbersBy('avg-by', keyOf('avg-by', key!, rt), coll!, rt)),
    '(avg-by :score rows); nil when there is nothing to average',
  ),
  'min-by': defn(
    [2, VARIADIC],
    (args, rt) => extremeBy('min-by', 1, args, rt),
    '(min-by :price items): the item with the smallest key (nil keys skipped, first wins ties)',
  ),
  'max-by': defn(
    [2, VARIADIC],
    (args, rt) => extremeBy('max-by', -1, args, rt),
    '(max-by :price items): the item with the largest key',
  ),
  extract: defn(
    [2, 3],
    (args, rt) => extractGroup(args, rt, 'extract'),
    '(extract #"id=(\\d+)" s) is group 1 of the first match (the whole match without groups); (extract re s n) group n; nil if no match',
  ),
  'extract-int': defn(
    [2, 4],
    (args, rt) => {
      const g = extractGroup(args.slice(0, 3), rt, 'extract-int');
      const m = g === null ? null : LEADING_INT.exec(g);
      return m ? Number(m[1]) : (args[3] ?? null);
    },
    '(extract-int #"(\\d+) items" s) is the number; (extract-int re s n default)',
  ),
};
