/**
 * Validation of data the model produced (the `(return v)` value) against a zod schema,
 * with problems phrased in PTC-Lisp terms: `- amount: expected number, got string`.
 */
import type { z } from 'zod';
import type { Json } from './tools.ts';
import { cut, ednOfJson } from './printer/edn.ts';

export type Validation<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/** PTC-Lisp name of a JSON value's type. */
export function jsonTypeName(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'nil';
  if (Array.isArray(v)) return 'vector';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'object') return 'map';
  return typeof v;
}

const EXPECTED_NAMES: Record<string, string> = {
  object: 'map',
  array: 'vector',
  record: 'map',
  int: 'integer',
  null: 'nil',
  undefined: 'nothing',
  tuple: 'vector',
};
const expectedName = (e: string): string => EXPECTED_NAMES[e] ?? e;

function at(value: unknown, path: readonly PropertyKey[]): { found: boolean; v: unknown } {
  let v: unknown = value;
  for (const p of path) {
    if (v === null || typeof v !== 'object' || !(String(p) in (v as object))) return { found: false, v: undefined };
    v = (v as Record<string, unknown>)[String(p)];
  }
  return { found: true, v };
}

/** `amount`, `items.0.id`; `(root)` for the whole value. */
export const pathText = (path: readonly PropertyKey[]): string => (path.length ? path.map(String).join('.') : '(root)');

const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);

/** One `path: message` line per zod issue; `value` is what was validated. */
export function issueProblems(
  issues: readonly z.core.$ZodIssue[],
  value: unknown,
  prefix: PropertyKey[] = [],
): string[] {
  const out: string[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    const here = at(value, path);
    const got = here.found ? jsonTypeName(here.v) : 'nothing (missing)';
    let msg: string;
    switch (issue.code) {
      case 'invalid_type':
        msg = `expected ${expectedName(issue.expected)}, got ${got}`;
        break;
      case 'invalid_value':
        msg =
          issue.values.length === 1
            ? `expected ${ednOfJson(issue.values[0] as Json)}, got ${here.found ? cut(ednOfJson(here.v), 60) : got}`
            : `expected one of ${issue.values.map((v) => ednOfJson(v as Json)).join(', ')}, got ${here.found ? cut(ednOfJson(here.v), 60) : got}`;
        break;
      case 'unrecognized_keys':
        msg = `unexpected ${issue.keys.length === 1 ? 'key' : 'keys'} ${issue.keys.map((k) => `:${k}`).join(', ')}`;
        break;
      case 'invalid_union': {
        // the alternatives' expected types, when each failed on type alone
        const expected = issue.errors.flatMap((alt) =>
          alt.length === 1 && alt[0]!.code === 'invalid_type' && alt[0]!.path.length === 0
            ? [expectedName((alt[0] as z.core.$ZodIssueInvalidType).expected)]
            : [],
        );
        msg =
          expected.length === issue.errors.length && expected.length > 0
            ? `expected ${[...new Set(expected)].join(' or ')}, got ${got}`
            : `matches none of the allowed shapes (got ${got})`;
        break;
      }
      default:
        msg = lowerFirst(issue.message);
    }
    out.push(`${pathText(path)}: ${msg}`);
  }
  return out;
}

/** Validates JSON data against a schema; problems as `path: message` lines. */
export function validateJson<S extends z.ZodType>(schema: S, value: Json): Validation<z.output<S>> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, problems: issueProblems(parsed.error.issues, value) };
}
