/**
 * Computed values in a plan: `{"$expr": "<PTC-Lisp>"}` anywhere in a step's args,
 * `{"$param": "name"}` for a plan parameter, and a step's `when` condition. In an
 * expression `step/ID` is the result of step ID, `param/NAME` a plan parameter, `item`
 * the current for-each item. This module finds them and the names they use; it only
 * reads (the PTC-Lisp reader is pure and zod-free, so the workflow's scheduler uses it),
 * evaluation happens on the worker (src/activities/plans.ts).
 */
import { read } from '../lisp/reader/index.ts';
import type { Form } from '../lisp/form.ts';
import { type Path, computedIn, computedOf, computedPart, referencedSteps } from './references.ts';
import type { Json } from './schema.ts';

/** The namespaces an expression reads from the plan: `step/ID` and `param/NAME`. */
export const PLAN_NAMESPACES = ['step', 'param'] as const;

/** The value with every `$expr` replaced by what `valueAt` gives for its path. */
export function substituteExpressions(value: Json, valueAt: (path: Path) => Json, at: Path = []): Json {
  const computed = computedOf(value);
  if (computed?.kind === 'expr') return valueAt(at);
  if (Array.isArray(value)) return value.map((v, i) => substituteExpressions(v, valueAt, [...at, i]));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, substituteExpressions(v, valueAt, [...at, k])]),
    );
  return value;
}

export interface ExpressionNames {
  steps: Set<string>;
  params: Set<string>;
}

const namesCache = new Map<string, ExpressionNames>();

/** The `step/` and `param/` names an expression uses (none when it does not read). */
export function expressionNames(source: string): ExpressionNames {
  const cached = namesCache.get(source);
  if (cached) return cached;
  const out: ExpressionNames = { steps: new Set(), params: new Set() };
  try {
    for (const f of read(source)) collect(f, out);
  } catch {
    // a syntax error: validatePlan reports it, and such an expression uses nothing
  }
  if (namesCache.size > 1000) namesCache.clear();
  namesCache.set(source, out);
  return out;
}

function collect(f: Form, out: ExpressionNames): void {
  if (f.kind === 'symbol') {
    if (f.ns === 'step') out.steps.add(f.name);
    else if (f.ns === 'param') out.params.add(f.name);
    return;
  }
  if ('items' in f) for (const c of f.items) collect(c, out);
}

type WithExpressions = {
  when?: string;
  forEach?: string;
  args?: unknown;
  input?: unknown;
  agent?: unknown;
  ask?: unknown;
  compute?: string;
};

const pathOf = (root: string, path: Path): string =>
  root === 'compute' && path.length === 0 ? 'compute' : [root, ...path].join('.');

/** Most items a forEach may give when the step does not say. */
export const DEFAULT_MAX_ITEMS = 100;

/** Where a step keeps expressions: its `when`, its `forEach` and every `$expr` of its args or input. */
export function stepExpressions(step: WithExpressions): Array<{ path: string; source: string }> {
  const part =
    step.agent === undefined && step.input !== undefined && step.args === undefined
      ? { root: 'input', value: step.input as Json }
      : computedPart(step);
  const inArgs = computedIn(part.value).flatMap(({ path, computed }) =>
    computed.kind === 'expr' ? [{ path: pathOf(part.root, path), source: computed.source }] : [],
  );
  return [
    ...(step.when !== undefined ? [{ path: 'when', source: step.when }] : []),
    ...(step.forEach !== undefined ? [{ path: 'forEach', source: step.forEach }] : []),
    ...inArgs,
  ];
}

/** The steps whose results a step's expressions read. */
export function stepsReadBy(step: WithExpressions): Set<string> {
  const out = new Set<string>();
  for (const e of stepExpressions(step)) for (const id of expressionNames(e.source).steps) out.add(id);
  return out;
}

/** The steps whose results a step uses: `$ref` strings and `step/` in its expressions. */
export function resultsUsedBy(step: WithExpressions): Set<string> {
  return new Set([
    ...referencedSteps([step.args ?? null, step.input ?? null, computedPart(step).value]),
    ...stepsReadBy(step),
  ]);
}

/** Whether a step needs the worker before it runs (a condition or a computed arg). */
export const needsEvaluation = (step: WithExpressions): boolean => stepExpressions(step).length > 0;

/** Parameter values by name (what `param/NAME` and `$param` read). */
export const paramValues = (params: Readonly<Record<string, { value: Json }>> | undefined): Record<string, Json> =>
  Object.fromEntries(Object.entries(params ?? {}).map(([k, p]) => [k, p.value]));

/** Clojure truth: everything but nil and false. */
export const truthy = (v: Json): boolean => v !== null && v !== false;
