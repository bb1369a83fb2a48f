/**
 * The visibility query language ("List Filter") used by ListWorkflowExecutions,
 * CountWorkflowExecutions and ListSchedules: a small SQL-like filter plus an optional
 * ORDER BY. Pure module: a matcher over in-memory {@link VisibilityRecord}s and a sorter,
 * on queries parsed by visibility-syntax.ts (the grammar is there).
 *
 * Semantics (chosen to follow Temporal's SQL visibility store, which the dev server emulates):
 * - SQL three-valued logic: a comparison against a missing value (absent attribute, running
 *   workflow's CloseTime, empty keyword list) is "unknown", so `!=`, `NOT IN`, `NOT BETWEEN`
 *   do not match it either; only `IS NULL` does. `NOT unknown` is unknown. A record matches
 *   when the whole filter is definitely true. Hence `A AND B` matches iff both match and
 *   `A OR B` iff either matches, but `NOT A` is not simply the complement of `A`.
 * - Datetime fields (StartTime, CloseTime, ExecutionTime, custom Datetime) compare as
 *   instants; literals must be RFC3339 strings with a zone (`2021-08-22T15:04:05Z`,
 *   `...15:04:05.123+02:00`). Sub-millisecond digits are kept as fractional milliseconds.
 * - Keyword: exact, case-sensitive; `<`/`>`/BETWEEN compare by UTF-16 code units (= byte
 *   order for ASCII); STARTS_WITH is a prefix test (Keyword only, as in Temporal).
 * - Text: `=` is word matching as documented for Temporal's Text attributes: both sides are
 *   split into lower-cased word tokens and `=` matches when ANY query token equals ANY stored
 *   token (`Description = 'foobar'` matches "my-business-id-foobar", `= 'foo'` does not).
 *   `!=` is the negation of that. Range operators, STARTS_WITH and ORDER BY are rejected.
 * - KeywordList: `=` means "the list contains the value", `!=` "does not contain", `IN` "contains
 *   any of", `NOT IN` "contains none of". Range operators and STARTS_WITH are rejected.
 * - ExecutionStatus accepts 'Running', 'Completed', 'Failed', 'Canceled', 'Terminated',
 *   'ContinuedAsNew', 'TimedOut' (case-insensitively, also the WORKFLOW_EXECUTION_STATUS_* form);
 *   any other value is an error. Only =, !=, IN, NOT IN and IS [NOT] NULL apply to it;
 *   ORDER BY ExecutionStatus orders by the proto enum number.
 * - `NOT expr` (boolean negation) is accepted as an extension; Temporal itself does not accept it.
 * - Field names: built-ins WorkflowType, WorkflowId, RunId, ExecutionStatus, StartTime,
 *   CloseTime, ExecutionTime, TaskQueue; anything else must be listed in `types` (custom
 *   search attributes, read from `record.searchAttributes`), otherwise
 *   "unknown search attribute". Omitting `types` means "no custom attributes".
 */

import {
  Parser,
  tokenize,
  VisibilityQueryError,
  type FieldRef,
  type SearchAttributeType,
  type VisibilityExpr,
  type VisibilityLiteral,
  type VisibilityQuery,
  type VisibilityRecord,
} from './visibility-syntax.ts';

// the query language's types and errors, for the modules that use this one
export * from './visibility-syntax.ts';
// ---------------------------------------------------------------------------------------------
// Built-in fields

type FieldType = SearchAttributeType | 'Status';

const BUILTIN_FIELDS: Record<string, { type: FieldType; get: (r: VisibilityRecord) => unknown }> = {
  WorkflowType: { type: 'Keyword', get: (r) => r.workflowType },
  WorkflowId: { type: 'Keyword', get: (r) => r.workflowId },
  RunId: { type: 'Keyword', get: (r) => r.runId },
  ExecutionStatus: { type: 'Status', get: (r) => r.status },
  StartTime: { type: 'Datetime', get: (r) => r.startTime },
  CloseTime: { type: 'Datetime', get: (r) => r.closeTime },
  ExecutionTime: { type: 'Datetime', get: (r) => r.executionTime },
  TaskQueue: { type: 'Keyword', get: (r) => r.taskQueue },
};

/** Canonical status names in proto enum order (WORKFLOW_EXECUTION_STATUS_RUNNING = 1, ...). */
const STATUSES = ['Running', 'Completed', 'Failed', 'Canceled', 'Terminated', 'ContinuedAsNew', 'TimedOut'] as const;

function normalizeStatus(s: string): string | undefined {
  const key = s
    .replace(/^WORKFLOW_EXECUTION_STATUS_/i, '')
    .replace(/_/g, '')
    .toLowerCase();
  return STATUSES.find((c) => c.toLowerCase() === key);
}

function statusRank(s: unknown): number | null {
  if (typeof s !== 'string') return null;
  const n = normalizeStatus(s);
  return n === undefined ? null : STATUSES.indexOf(n as (typeof STATUSES)[number]) + 1;
}

// ---------------------------------------------------------------------------------------------
// Datetime literals and record values

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

/** RFC3339 → fractional ms since epoch, or undefined when not RFC3339. */
function parseRfc3339(s: string): number | undefined {
  const m = RFC3339.exec(s.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, sec, frac, zone] = m;
  const month = Number(mo),
    day = Number(d),
    hour = Number(h),
    minute = Number(mi),
    second = Number(sec);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return undefined;
  let ms = Date.UTC(Number(y), month - 1, day, hour, minute, Math.min(second, 59));
  if (new Date(ms).getUTCDate() !== day) return undefined; // e.g. Feb 30
  if (frac) ms += Number(`0.${frac}`) * 1000;
  if (zone && zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const oh = Number(zone.slice(1, 3)),
      om = Number(zone.slice(4, 6));
    if (oh > 23 || om > 59) return undefined;
    ms -= sign * (oh * 60 + om) * 60_000;
  }
  return ms;
}

function recordTime(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.getTime();
  if (typeof v === 'string') {
    const t = parseRfc3339(v) ?? Date.parse(v);
    return Number.isNaN(t) ? null : t;
  }
  return null;
}

function recordNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isNaN(v) ? null : v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
  return null;
}

function recordBool(v: unknown): boolean | null {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  return null;
}

function recordKeywordList(v: unknown): string[] | null {
  if (v === undefined || v === null) return null;
  const list = Array.isArray(v) ? v : [v];
  const out = list.filter((x) => x !== undefined && x !== null).map(String);
  return out.length ? out : null;
}

/**
 * Word tokens of a Text value: an approximation of Elasticsearch's standard analyzer as
 * documented for Temporal. Letters/digits form words; '_' joins; '.' and ':' join between two
 * letters or two digits; an apostrophe joins between two letters; everything else splits.
 * Tokens are lower-cased.
 */
export function textTokens(s: string): string[] {
  const isL = (ch: string | undefined) => ch !== undefined && /\p{L}/u.test(ch);
  const isN = (ch: string | undefined) => ch !== undefined && /\p{N}/u.test(ch);
  const chars = Array.from(s);
  const tokens: string[] = [];
  let cur = '';
  for (let k = 0; k < chars.length; k++) {
    const ch = chars[k]!;
    const prev = chars[k - 1],
      next = chars[k + 1];
    let joins: boolean;
    if (isL(ch) || isN(ch) || /\p{M}/u.test(ch)) joins = true;
    else if (ch === '_') joins = true;
    else if (ch === '.' || ch === ':') joins = cur !== '' && ((isL(prev) && isL(next)) || (isN(prev) && isN(next)));
    else if (ch === "'" || ch === '\u2019') joins = cur !== '' && isL(prev) && isL(next);
    else joins = false;
    if (joins) cur += ch;
    else if (cur) {
      tokens.push(cur);
      cur = '';
    }
  }
  if (cur) tokens.push(cur);
  return tokens.map((t) => t.toLowerCase()).filter((t) => /[\p{L}\p{N}]/u.test(t));
}

// ---------------------------------------------------------------------------------------------
// Compilation (validation against field types) and matching

/** SQL three-valued truth: null = unknown. */
type Truth = boolean | null;
type Matcher = (r: VisibilityRecord) => Truth;

interface ResolvedField {
  type: FieldType;
  get: (r: VisibilityRecord) => unknown;
}

function resolveField(f: FieldRef, types: Record<string, SearchAttributeType> | undefined): ResolvedField {
  const builtin = Object.hasOwn(BUILTIN_FIELDS, f.name) ? BUILTIN_FIELDS[f.name] : undefined;
  if (builtin) return builtin;
  const t = types && Object.hasOwn(types, f.name) ? types[f.name] : undefined;
  if (!t) throw new VisibilityQueryError(`unknown search attribute '${f.name}'`, f.position);
  if (!['Keyword', 'Text', 'Int', 'Double', 'Bool', 'Datetime', 'KeywordList'].includes(t)) {
    throw new VisibilityQueryError(`search attribute '${f.name}' has unsupported type '${String(t)}'`, f.position);
  }
  const name = f.name;
  return { type: t, get: (r) => r.searchAttributes?.[name] };
}

function literalText(l: VisibilityLiteral): string {
  return l.type === 'string' ? JSON.stringify(l.value) : String(l.value);
}

/** A literal converted to the field's domain. */
type Coerced = string | number | boolean | string[];

function coerce(field: FieldRef, type: FieldType, l: VisibilityLiteral): Coerced {
  const bad = (what: string): never => {
    throw new VisibilityQueryError(
      `invalid value ${literalText(l)} for ${type} field '${field.name}': expected ${what}`,
      l.position,
    );
  };
  switch (type) {
    case 'Keyword':
    case 'KeywordList':
      return l.type === 'string' ? l.value : bad('a quoted string');
    case 'Text':
      return l.type === 'string' ? textTokens(l.value) : bad('a quoted string');
    case 'Status': {
      const s = l.type === 'string' ? normalizeStatus(l.value) : undefined;
      return s ?? bad(`one of ${STATUSES.join(', ')}`);
    }
    case 'Datetime': {
      const t = l.type === 'string' ? parseRfc3339(l.value) : undefined;
      return t ?? bad('an RFC3339 datetime string such as "2021-08-22T15:04:05Z"');
    }
    case 'Int':
    case 'Double': {
      const v = l.type === 'number' ? l.value : l.type === 'string' ? recordNumber(l.value) : null;
      if (v === null || !Number.isFinite(v)) return bad('a number');
      if (type === 'Int' && !Number.isInteger(v)) return bad('an integer');
      return v;
    }
    case 'Bool': {
      const v = l.type === 'bool' ? l.value : l.type === 'string' ? recordBool(l.value) : null;
      return v ?? bad('true or false');
    }
  }
}

/** The record's value for a field in the comparison domain; null when missing. */
function extract(type: FieldType, raw: unknown): string | number | boolean | string[] | null {
  if (raw === undefined || raw === null) return null;
  switch (type) {
    case 'Keyword':
      return Array.isArray(raw) ? (raw.length ? String(raw[0]) : null) : String(raw);
    case 'Status':
      return typeof raw === 'string' ? (normalizeStatus(raw) ?? raw) : null;
    case 'Text':
      return textTokens(Array.isArray(raw) ? raw.map(String).join(' ') : String(raw));
    case 'KeywordList':
      return recordKeywordList(raw);
    case 'Datetime':
      return recordTime(raw);
    case 'Int':
    case 'Double':
      return recordNumber(raw);
    case 'Bool':
      return recordBool(raw);
  }
}

const RANGE_OPS = new Set(['<', '<=', '>', '>=']);

function cmp(a: string | number | boolean, b: string | number | boolean): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * AND (decisive = false) and OR (decisive = true) under three-valued logic: the decisive
 * value as soon as one operand gives it, else unknown (null) if any operand is unknown,
 * else the other value.
 */
function anyDecides(ms: Matcher[], decisive: boolean): Matcher {
  return (r) => {
    let unknown = false;
    for (const m of ms) {
      const v = m(r);
      if (v === decisive) return decisive;
      if (v === null) unknown = true;
    }
    return unknown ? null : !decisive;
  };
}

function compileExpr(e: VisibilityExpr, types: Record<string, SearchAttributeType> | undefined): Matcher {
  switch (e.kind) {
    case 'and':
      return anyDecides(
        e.operands.map((o) => compileExpr(o, types)),
        false,
      );
    case 'or':
      return anyDecides(
        e.operands.map((o) => compileExpr(o, types)),
        true,
      );
    case 'not': {
      const m = compileExpr(e.operand, types);
      return (r) => {
        const v = m(r);
        return v === null ? null : !v;
      };
    }
    case 'isNull': {
      const f = resolveField(e.field, types);
      return (r) => {
        const v = extract(f.type, f.get(r));
        const isNull = v === null || (Array.isArray(v) && f.type !== 'Text' && v.length === 0);
        return e.negated ? !isNull : isNull;
      };
    }
    default:
      return compilePredicate(e, types);
  }
}

type Predicate = Extract<VisibilityExpr, { kind: 'compare' | 'startsWith' | 'in' | 'between' }>;

function compilePredicate(e: Predicate, types: Record<string, SearchAttributeType> | undefined): Matcher {
  const f = resolveField(e.field, types);
  const { type } = f;
  const opName =
    e.kind === 'compare' ? e.op : e.kind === 'startsWith' ? 'STARTS_WITH' : e.kind === 'in' ? 'IN' : 'BETWEEN';
  const unsupported = (): never => {
    throw new VisibilityQueryError(
      `operator ${e.kind !== 'compare' && e.negated ? 'NOT ' : ''}${opName} is not supported for ${type} field '${e.field.name}'`,
      e.field.position,
    );
  };
  const isRange = e.kind === 'between' || (e.kind === 'compare' && RANGE_OPS.has(e.op));
  if (type === 'Text' || type === 'KeywordList' || type === 'Bool' || type === 'Status') {
    if (isRange || e.kind === 'startsWith') unsupported();
  }
  if (e.kind === 'startsWith' && type !== 'Keyword') unsupported();

  /** equality test on a present, extracted value */
  const equals = (v: Exclude<ReturnType<typeof extract>, null>, lit: Coerced): boolean => {
    if (type === 'Text') return (lit as string[]).some((t) => (v as string[]).includes(t));
    if (type === 'KeywordList') return (v as string[]).includes(lit as string);
    return v === lit;
  };
  const negate = (neg: boolean, m: (v: Exclude<ReturnType<typeof extract>, null>) => boolean): Matcher => {
    return (r) => {
      const v = extract(type, f.get(r));
      if (v === null) return null;
      if (Array.isArray(v) && v.length === 0 && type !== 'Text') return null;
      const b = m(v);
      return neg ? !b : b;
    };
  };

  switch (e.kind) {
    case 'compare': {
      const lit = coerce(e.field, type, e.value);
      switch (e.op) {
        case '=':
          return negate(false, (v) => equals(v, lit));
        case '!=':
          return negate(true, (v) => equals(v, lit));
        default: {
          const op = e.op;
          return negate(false, (v) => {
            const c = cmp(v as string | number, lit as string | number);
            return op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
          });
        }
      }
    }
    case 'startsWith': {
      const lit = coerce(e.field, type, e.value) as string;
      return negate(e.negated, (v) => (v as string).startsWith(lit));
    }
    case 'in': {
      const lits = e.values.map((l) => coerce(e.field, type, l));
      return negate(e.negated, (v) => lits.some((lit) => equals(v, lit)));
    }
    case 'between': {
      const lo = coerce(e.field, type, e.low) as string | number;
      const hi = coerce(e.field, type, e.high) as string | number;
      return negate(e.negated, (v) => cmp(v as string | number, lo) >= 0 && cmp(v as string | number, hi) <= 0);
    }
  }
}

function checkOrderBy(q: VisibilityQuery, types: Record<string, SearchAttributeType> | undefined): void {
  for (const item of q.orderBy) {
    const f = resolveField(item.field, types);
    if (f.type === 'Text' || f.type === 'KeywordList') {
      throw new VisibilityQueryError(`cannot ORDER BY ${f.type} field '${item.field.name}'`, item.field.position);
    }
  }
}

const compiled = new WeakMap<VisibilityQuery, { types: Record<string, SearchAttributeType> | undefined; m: Matcher }>();

function compile(q: VisibilityQuery, types: Record<string, SearchAttributeType> | undefined): Matcher {
  const hit = compiled.get(q);
  if (hit && hit.types === types) return hit.m;
  checkOrderBy(q, types);
  const m: Matcher = q.filter ? compileExpr(q.filter, types) : () => true;
  compiled.set(q, { types, m });
  return m;
}

// ---------------------------------------------------------------------------------------------
// Public functions

/**
 * Parse a List Filter. Empty (or blank) = match all, default order.
 *
 * Syntax errors throw {@link VisibilityQueryError}. Values for built-in fields are checked here
 * too (bad datetime, unknown ExecutionStatus, wrong operator for the field type). Custom
 * attributes can only be checked against `types`: pass it here to get every error up front,
 * or call {@link validateVisibilityQuery}; {@link matchesVisibilityQuery} checks on first use.
 */
export function parseVisibilityQuery(query: string, types?: Record<string, SearchAttributeType>): VisibilityQuery {
  const q = new Parser(tokenize(query)).parseQuery(query);
  if (types) {
    compile(q, types);
  } else {
    // Check built-in fields now; custom attributes are checked when `types` is known.
    const builtinOnly = (e: VisibilityExpr): void => {
      if (e.kind === 'and' || e.kind === 'or') e.operands.forEach(builtinOnly);
      else if (e.kind === 'not') builtinOnly(e.operand);
      else if (Object.hasOwn(BUILTIN_FIELDS, e.field.name)) compileExpr(e, undefined);
    };
    if (q.filter) builtinOnly(q.filter);
  }
  return q;
}

/**
 * Check every field, operator and value of `q` against the built-in fields and the custom
 * search attribute `types`; throws {@link VisibilityQueryError} (e.g. "unknown search attribute
 * 'Foo' at position 12"). Call it before listing so that an empty namespace still reports errors.
 */
export function validateVisibilityQuery(q: VisibilityQuery, types?: Record<string, SearchAttributeType>): void {
  compile(q, types);
}

/**
 * Whether `r` satisfies the filter of `q`. `types` declares custom search attributes (values are
 * read from `r.searchAttributes`); an attribute that is neither built-in nor declared throws
 * "unknown search attribute". Validation is cached per (query, types object).
 */
export function matchesVisibilityQuery(
  q: VisibilityQuery,
  r: VisibilityRecord,
  types?: Record<string, SearchAttributeType>,
): boolean {
  return compile(q, types)(r) === true;
}

/** ORDER BY key: missing values sort as larger than any value (ASC: last, DESC: first), as in SQL. */
function sortKey(field: string, r: VisibilityRecord): string | number | boolean | null {
  const builtin = Object.hasOwn(BUILTIN_FIELDS, field) ? BUILTIN_FIELDS[field] : undefined;
  const raw = builtin ? builtin.get(r) : r.searchAttributes?.[field];
  if (raw === undefined || raw === null) return null;
  if (builtin?.type === 'Status') return statusRank(raw);
  if (builtin?.type === 'Datetime') return recordTime(raw);
  if (typeof raw === 'number' || typeof raw === 'boolean') return Number.isNaN(raw) ? null : raw;
  if (typeof raw === 'bigint') return Number(raw);
  if (raw instanceof Date) return recordTime(raw);
  if (typeof raw === 'string') {
    const t = parseRfc3339(raw);
    return t ?? raw;
  }
  if (Array.isArray(raw)) return raw.length ? String(raw[0]) : null;
  return String(raw);
}

function compareKeys(a: string | number | boolean | null, b: string | number | boolean | null): number {
  if (a === null || b === null) return a === null ? (b === null ? 0 : 1) : -1;
  if (typeof a !== typeof b) {
    const rank = (x: unknown) => (typeof x === 'boolean' ? 0 : typeof x === 'number' ? 1 : 2);
    return rank(a) - rank(b);
  }
  return cmp(a, b);
}

/**
 * A sorted copy of `records` following the query's ORDER BY. Without ORDER BY it uses
 * Temporal's documented default, `CloseTime DESC NULLS FIRST, StartTime DESC`: running
 * workflows first, newest start first, then closed ones, most recently closed first.
 * Ties fall back to that default order and finally RunId, so the result is deterministic.
 * (Use {@link validateVisibilityQuery} to reject ORDER BY on unknown/Text fields.)
 */
export function sortRecords(q: VisibilityQuery, records: VisibilityRecord[]): VisibilityRecord[] {
  const keys: { field: string; dir: 1 | -1 }[] = [
    ...q.orderBy.map((o) => ({ field: o.field.name, dir: o.direction === 'ASC' ? (1 as const) : (-1 as const) })),
    { field: 'CloseTime', dir: -1 },
    { field: 'StartTime', dir: -1 },
    { field: 'RunId', dir: 1 },
  ];
  const decorated = records.map((r, index) => ({ r, index, k: keys.map((k) => sortKey(k.field, r)) }));
  decorated.sort((x, y) => {
    for (let j = 0; j < keys.length; j++) {
      const c = compareKeys(x.k[j]!, y.k[j]!);
      if (c !== 0) return c * keys[j]!.dir;
    }
    return x.index - y.index;
  });
  return decorated.map((d) => d.r);
}
