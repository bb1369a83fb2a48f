/**
 * The one mapping between PTC-Lisp values and JSON (docs: ptc-lisp.md, "Crossing into
 * JSON"). Used for the journal, tool arguments, tool results and Temporal payloads.
 *
 * | PTC-Lisp                     | JSON                                            |
 * |------------------------------|-------------------------------------------------|
 * | nil, boolean, string         | same                                            |
 * | finite number                | number (`-0` becomes `0`); NaN/±Inf: type_error |
 * | keyword                      | its full name, no colon (`:a/b` → `"a/b"`)      |
 * | vector, list, lazy seq, set  | array                                           |
 * | map                          | object; keyword/string keys; others: type_error |
 * | function, regex              | type_error ("a task result must be data")       |
 *
 * Errors name where the bad value sits: `... at [:items 2]`.
 */
import { isList } from 'immutable';
import { PtcError, limitExceeded } from './errors.ts';
import { prStrLimited } from './printer/index.ts';
import type { Json } from './tools.ts';
import {
  LazySeq,
  PMap,
  type Value,
  vec,
  isMap,
  isSet,
  isFn,
  isKeyword,
  isLazySeq,
  isPList,
  isRegex,
  isSymbol,
} from './values.ts';

export type { Json };

export interface JsonOptions {
  /** most items taken from one lazy seq before `limit_exceeded` @default 1_000_000 */
  maxItems?: number;
  /** deepest nesting converted before `limit_exceeded` @default 1000 */
  maxDepth?: number;
  /** values converted in all (every nested item counts) before `limit_exceeded` @default 4_000_000 */
  maxNodes?: number;
}

const DEFAULT_MAX_ITEMS = 1_000_000;
const DEFAULT_MAX_NODES = 4_000_000;
const DEFAULT_MAX_DEPTH = 1000;

type PathItem = Value;

function where(path: PathItem[]): string {
  if (path.length === 0) return '';
  return ` at [${path.map((p) => prStrLimited(p, 40)).join(' ')}]`;
}

function jsonTypeError(message: string, path: PathItem[], hint?: string): PtcError {
  return new PtcError('type_error', `${message}${where(path)}`, undefined, hint);
}

/** Sets `obj[key] = value` safely, also for keys like `__proto__`. */
function setKey(obj: { [key: string]: Json }, key: string, value: Json): void {
  if (key === '__proto__')
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

const hasOwn = (obj: object, key: string): boolean => Object.prototype.hasOwnProperty.call(obj, key);

// ---------------------------------------------------------------- Value → JSON

/**
 * Converts a data value to JSON.
 * @throws PtcError `type_error` for NaN/±Inf, functions, regexes and map keys that are
 *   not keywords or strings (also when `:a` and `"a"` are both keys); `limit_exceeded`
 *   for over-long lazy seqs or over-deep nesting
 */
export function toJson(v: Value, options: JsonOptions = {}): Json {
  const maxItems = options.maxItems ?? DEFAULT_MAX_ITEMS;
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const maxNodes = options.maxNodes ?? DEFAULT_MAX_NODES;
  const path: PathItem[] = [];
  let nodes = 0;

  const convert = (x: Value): Json => {
    // A value built by doubling shares its parts: small in memory, huge as JSON.
    if (++nodes > maxNodes)
      throw limitExceeded(
        'collection_size',
        `value has more than ${maxNodes} items in all as JSON (is it built by doubling?)`,
      );
    if (x === null) return null;
    switch (typeof x) {
      case 'boolean':
      case 'string':
        return x;
      case 'number':
        if (Number.isFinite(x)) return x === 0 ? 0 : x;
        throw jsonTypeError(`${x !== x ? '##NaN' : x > 0 ? '##Inf' : '##-Inf'} is not representable in JSON`, path);
    }
    if (isKeyword(x) || isSymbol(x)) return x.fullName;
    if (path.length >= maxDepth) throw limitExceeded('depth', `value is nested more than ${maxDepth} levels deep`);
    if (isList(x) || isPList(x) || isSet(x)) {
      const items = isPList(x) ? x.items : x;
      const out: Json[] = [];
      let i = 0;
      for (const item of items as Iterable<Value>) {
        path.push(i++);
        out.push(convert(item));
        path.pop();
      }
      return out;
    }
    if (isLazySeq(x)) {
      const out: Json[] = [];
      for (let i = 0; ; i++) {
        const item = x.nth(i);
        if (item === LazySeq.END) return out;
        if (i >= maxItems) throw limitExceeded('collection_size', `sequence has more than ${maxItems} items`);
        path.push(i);
        out.push(convert(item));
        path.pop();
      }
    }
    if (isMap(x)) {
      const out: { [key: string]: Json } = {};
      for (const [k, item] of x) {
        let key: string;
        if (typeof k === 'string') key = k;
        else if (isKeyword(k) || isSymbol(k)) key = k.fullName;
        else {
          throw jsonTypeError(
            `map key ${prStrLimited(k, 60)} is not representable in JSON`,
            path,
            'JSON object keys must be keywords or strings',
          );
        }
        if (hasOwn(out, key)) {
          throw jsonTypeError(`map has both :${key} and "${key}" as keys, which are the same JSON key`, path);
        }
        path.push(k);
        setKey(out, key, convert(item));
        path.pop();
      }
      return out;
    }
    const what = isFn(x) ? 'a function' : isRegex(x) ? 'a regex' : 'this value';
    throw jsonTypeError(`${what} is not representable in JSON: a task result must be data`, path);
  };

  try {
    return convert(v);
  } catch (e) {
    if (e instanceof RangeError) throw limitExceeded('depth', 'value is nested too deeply to convert to JSON');
    throw e;
  }
}

// ---------------------------------------------------------------- JSON → Value

/**
 * Converts JSON to a value: objects become maps with **string** keys in the object's key
 * order, arrays become vectors. Accepts what a tool may really return, with
 * `JSON.stringify` semantics: `toJSON()` is honoured (Dates become ISO strings),
 * `undefined`/functions are dropped from objects and become nil in arrays, bigints become
 * numbers.
 * @throws PtcError `limit_exceeded` for nesting deeper than `maxDepth` (also cycles)
 */
export function fromJson(j: Json, options: Pick<JsonOptions, 'maxDepth'> = {}): Value {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const convert = (x: unknown, depth: number): Value => {
    switch (typeof x) {
      case 'string':
      case 'boolean':
        return x;
      case 'number':
        return x;
      case 'bigint':
        return Number(x);
      case 'undefined':
      case 'function':
      case 'symbol':
        return null;
    }
    if (x === null || x === undefined) return null;
    if (depth >= maxDepth) throw limitExceeded('depth', `JSON is nested more than ${maxDepth} levels deep`);
    const obj = x as { toJSON?: unknown };
    if (typeof obj.toJSON === 'function') return convert((obj.toJSON as () => unknown)(), depth + 1);
    if (Array.isArray(x)) return vec(x.map((item) => convert(item, depth + 1)));
    const record = x as Record<string, unknown>;
    const flat: Value[] = [];
    for (const key of Object.keys(record)) {
      const item = record[key];
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
      flat.push(key, convert(item, depth + 1));
    }
    // object keys are distinct: no lookup per key
    return PMap.fromDistinctFlat(flat);
  };
  return convert(j, 0);
}

/**
 * `fromJson(toJson(v))`: what a value looks like after crossing into JSON and back
 * (keywords become strings, lists and sets become vectors). Tasks commit this.
 */
export const normalize = (v: Value, options: JsonOptions = {}): Value => fromJson(toJson(v, options), options);

/** JSON text with object keys sorted and no whitespace: stable input for idempotency keys. */
export function canonicalJson(j: Json): string {
  if (j === null || typeof j !== 'object') return JSON.stringify(j === 0 ? 0 : j) ?? 'null';
  if (Array.isArray(j)) return `[${j.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(j).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(j[k]!)}`).join(',')}}`;
}

// ---------------------------------------------------------------- tool arguments

/**
 * Key spellings of a tool's argument schema: the object's keys, and for keys whose value
 * is an object (or an array of objects, or optional/nullable ones) the nested shape.
 */
export interface KeyShape {
  keys: Set<string>;
  fields: Map<string, KeyShape>;
}

/** `user-id` ↔ `user_id`. */
export const swapDashes = (k: string): string => k.replace(/[-_]/g, (c) => (c === '-' ? '_' : '-'));

/**
 * The {@link KeyShape} of a zod object schema (duck-typed, so this module does not
 * import zod): unwraps optional/nullable/default/array wrappers. Undefined when the
 * schema is not an object schema.
 */
export function keyShapeOf(schema: unknown, depth = 0): KeyShape | undefined {
  if (depth > 20 || schema === null || typeof schema !== 'object') return undefined;
  const s = schema as { shape?: unknown; unwrap?: () => unknown; element?: unknown; def?: { innerType?: unknown } };
  const shape = s.shape;
  if (shape !== null && typeof shape === 'object') {
    const keys = new Set(Object.keys(shape));
    const fields = new Map<string, KeyShape>();
    for (const k of keys) {
      const inner = keyShapeOf((shape as Record<string, unknown>)[k], depth + 1);
      if (inner) fields.set(k, inner);
    }
    return { keys, fields };
  }
  if (s.element !== undefined) return keyShapeOf(s.element, depth + 1);
  if (s.def?.innerType !== undefined) return keyShapeOf(s.def.innerType, depth + 1);
  if (typeof s.unwrap === 'function') {
    try {
      return keyShapeOf(s.unwrap(), depth + 1);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function renameKeys(j: Json, shape: KeyShape | undefined): Json {
  if (!shape || j === null || typeof j !== 'object') return j;
  if (Array.isArray(j)) return j.map((item) => renameKeys(item, shape));
  const out: { [key: string]: Json } = {};
  for (const key of Object.keys(j)) {
    let target = key;
    if (!shape.keys.has(key)) {
      const swapped = swapDashes(key);
      if (shape.keys.has(swapped)) target = swapped;
    }
    if (hasOwn(out, target)) {
      throw new PtcError('type_error', `tool arguments give "${target}" twice (as "${key}" and "${target}")`);
    }
    setKey(out, target, renameKeys(j[key]!, shape.fields.get(target)));
  }
  return out;
}

/**
 * Tool arguments as JSON: the argument map through {@link toJson}, with each key
 * respelled `-`↔`_` when the schema has the swapped spelling and not the given one
 * (at every level the shape describes). nil means no arguments (`{}`).
 * @throws PtcError `type_error` when `v` is not a map or not representable in JSON
 */
export function toToolArgs(v: Value, schemaKeys?: Set<string> | KeyShape, options: JsonOptions = {}): Json {
  if (v === null) return {};
  if (!isMap(v)) {
    throw new PtcError(
      'type_error',
      `tool arguments must be a map, got ${prStrLimited(v, 60)}`,
      undefined,
      'call tools as (tool/name {:key value})',
    );
  }
  const j = toJson(v, options);
  const shape = schemaKeys instanceof Set ? { keys: schemaKeys, fields: new Map<string, KeyShape>() } : schemaKeys;
  return renameKeys(j, shape);
}
