/**
 * `$step` references in step args: a whole-string value `"$fetch"` is fetch's result,
 * `"$fetch.rows.0.id"` a path into it (object keys and array indices), `"$$x"` the
 * literal string `$x`. References work at any depth of the args, and so do the computed
 * values `{"$param": "name"}` (a plan parameter) and `{"$expr": "..."}` (a PTC-Lisp
 * expression, see expressions.ts). Pure and zod-free: the workflow resolves references
 * and parameters right before a step runs; expressions are left for the worker.
 */
import type { Json } from './schema.ts';

/** Step ids appear in `$id.path` references, so they cannot contain `.` or `$`. */
export const STEP_ID = /^[A-Za-z0-9_][A-Za-z0-9_-]*$/;
/** Parameter names appear as `param/NAME` in expressions: letters, digits, _ and -. */
export const PARAM_NAME = STEP_ID;

export type Reference =
  | { kind: 'ref'; stepId: string; path: string[] }
  | { kind: 'literal'; value: string }
  | { kind: 'invalid'; message: string };

const ID = /^[A-Za-z0-9_][A-Za-z0-9_-]*$/;
const SEGMENT = /^[^.]+$/;

/** What a string arg means: a reference, an escaped literal, a malformed reference, or null (plain). */
export function parseReference(s: string): Reference | null {
  if (!s.startsWith('$')) return null;
  if (s.startsWith('$$')) return { kind: 'literal', value: s.slice(1) };
  const [stepId = '', ...path] = s.slice(1).split('.');
  if (!ID.test(stepId))
    return {
      kind: 'invalid',
      message: `${JSON.stringify(s)} is not a reference: after $ comes a step id (letters, digits, _ and -); write $$ for a literal $`,
    };
  if (path.some((p) => !SEGMENT.test(p)))
    return { kind: 'invalid', message: `${JSON.stringify(s)} has an empty path segment` };
  return { kind: 'ref', stepId, path };
}

export type Path = Array<string | number>;

export type Computed = { kind: 'expr'; source: string } | { kind: 'param'; name: string };

/** `{"$expr": string}` or `{"$param": string}` (exactly that one key), else null. */
export function computedOf(v: unknown): Computed | null {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
  const keys = Object.keys(v);
  if (keys.length !== 1) return null;
  const inner = (v as Record<string, unknown>)[keys[0]!];
  if (typeof inner !== 'string') return null;
  if (keys[0] === '$expr') return { kind: 'expr', source: inner };
  if (keys[0] === '$param') return { kind: 'param', name: inner };
  return null;
}

/** Every `$expr` and `$param` value inside a JSON value, with its path. */
export function computedIn(value: unknown, at: Path = []): Array<{ path: Path; computed: Computed }> {
  const computed = computedOf(value);
  if (computed) return [{ path: at, computed }];
  if (Array.isArray(value)) return value.flatMap((v, i) => computedIn(v, [...at, i]));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => computedIn(v, [...at, k]));
  return [];
}

/** Every `$` string inside a JSON value (references, literals and malformed ones) with its path. */
export function referencesIn(value: unknown, at: Path = []): Array<{ path: Path; ref: Reference }> {
  if (computedOf(value)) return [];
  if (typeof value === 'string') {
    const ref = parseReference(value);
    return ref ? [{ path: at, ref }] : [];
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => referencesIn(v, [...at, i]));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => referencesIn(v, [...at, k]));
  return [];
}

/** The step ids a value references. */
export function referencedSteps(value: unknown): Set<string> {
  const out = new Set<string>();
  for (const { ref } of referencesIn(value)) if (ref.kind === 'ref') out.add(ref.stepId);
  return out;
}

export type ResultOf = (stepId: string) => { found: true; value: Json } | { found: false };
export type Resolved = { ok: true; value: Json } | { ok: false; message: string; path: string };

export const pathText = (path: Path, root = 'args'): string =>
  root === 'compute' && path.length === 0 ? 'compute' : [root, ...path].join('.');

/** Where a step's references and computed values live: its args, an agent step's input, a question (`ask`), a compute step's expression. */
export type PartRoot = 'args' | 'input' | 'ask' | 'compute';

type StepParts = { args?: unknown; input?: unknown; agent?: unknown; ask?: unknown; compute?: string };

/** Whether a question computes its text or its answer's schema (`{"$expr": ...}` in it). */
export const askIsComputed = (step: Pick<StepParts, 'ask'>): boolean =>
  step.ask !== undefined && computedIn(step.ask).some((c) => c.computed.kind === 'expr');

/**
 * The part of a step resolved before it runs (references, parameters) and computed on the
 * worker (`$expr`): a tool step's args, an agent step's input, a question that computes
 * its text or schema, a compute step's expression (its value is the step's result). A
 * question without expressions is shown as written.
 */
export function computedPart(step: StepParts): { root: PartRoot; value: Json } {
  if (step.compute !== undefined) return { root: 'compute', value: { $expr: step.compute } };
  // a question as written computes nothing (its `when` aside): as before, an empty args part
  if (step.ask !== undefined)
    return askIsComputed(step) ? { root: 'ask', value: step.ask as Json } : { root: 'args', value: {} };
  if (step.agent !== undefined) return { root: 'input', value: (step.input ?? {}) as Json };
  return { root: 'args', value: (step.args ?? {}) as Json };
}

/**
 * Replaces every reference and `$param` by the value it names (`$expr` values stay as
 * they are); the first one that cannot be resolved fails.
 */
export function resolveReferences(
  value: Json,
  resultOf: ResultOf,
  root = 'args',
  params: Readonly<Record<string, Json>> = {},
): Resolved {
  const failure: { message: string; path: string }[] = [];
  const walk = (v: Json, at: Path): Json => {
    if (failure.length) return null;
    const computed = computedOf(v);
    if (computed?.kind === 'expr') return v;
    if (computed?.kind === 'param') {
      return Object.hasOwn(params, computed.name)
        ? params[computed.name]!
        : fail(pathText(at, root), `the plan has no parameter ${computed.name}`);
    }
    if (typeof v === 'string') return resolveString(v, at);
    if (Array.isArray(v)) return v.map((x, i) => walk(x, [...at, i]));
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, [...at, k])]));
    return v;
  };
  const resolveString = (s: string, at: Path): Json => {
    const ref = parseReference(s);
    if (!ref) return s;
    if (ref.kind === 'literal') return ref.value;
    const where = pathText(at, root);
    if (ref.kind === 'invalid') return fail(where, ref.message);
    const result = resultOf(ref.stepId);
    if (!result.found) return fail(where, `${s}: step ${ref.stepId} has no result (it did not complete)`);
    const got = follow(result.value, ref.path);
    return 'value' in got
      ? got.value
      : fail(where, `${s}: ${ref.stepId}'s result has no ${ref.path.slice(0, got.depth + 1).join('.')}${got.hint}`);
  };
  const fail = (path: string, message: string): Json => {
    failure.push({ path, message: `${path}: ${message}` });
    return null;
  };
  const out = walk(value, []);
  return failure.length ? { ok: false, ...failure[0]! } : { ok: true, value: out };
}

/** Follows a path into a value; on a miss, how deep it got and a hint about what is there. */
function follow(value: Json, path: string[]): { value: Json } | { depth: number; hint: string } {
  let v: Json = value;
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    if (Array.isArray(v)) {
      const n = Number(key);
      if (!Number.isInteger(n) || n < 0 || n >= v.length)
        return { depth: i, hint: ` (${path.slice(0, i).join('.') || 'the result'} has ${v.length} items)` };
      v = v[n]!;
    } else if (v !== null && typeof v === 'object' && Object.prototype.hasOwnProperty.call(v, key)) {
      v = v[key]!;
    } else {
      const keys =
        v !== null && typeof v === 'object'
          ? ` (keys: ${Object.keys(v).join(', ') || 'none'})`
          : ` (${path.slice(0, i).join('.') || 'the result'} is ${JSON.stringify(v)})`;
      return { depth: i, hint: keys };
    }
  }
  return { value: v };
}
