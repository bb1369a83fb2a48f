/**
 * `validatePlan`: every problem of a plan at once, each as data `{code, stepId, path,
 * message}`, so a planner, an editor or a CLI user sees all of them in one go. Args are
 * checked against the tool's zod schema as written; a value that is a `$` reference is
 * only known at run time, so problems at or below it are left to the check right before
 * the step runs.
 *
 * A step list longer than the limit (`maxSteps`, default 1000) is refused with that one
 * problem and no others: checking it further is the work the limit is there to spare. A
 * for-each step's `maxItems` may not be above it either (src/plans/limits.ts says why).
 */
import { z } from 'zod';
import { analyze } from '../lisp/analyzer/index.ts';
import { PtcError } from '../lisp/errors.ts';
import { read } from '../lisp/reader/index.ts';
import { PLAN_NAMESPACES, expressionNames, stepExpressions } from './expressions.ts';
import { DEFAULT_MAX_STEPS, tooManyItemsProblem, tooManyStepsProblem } from './limits.ts';
import { askSchemaProblem } from './questions.ts';
import { computedIn, computedPart, pathText, referencesIn } from './references.ts';
import { type Catalog, type PlanProblem, StepSpec } from './schema.ts';

type Spec = z.output<typeof StepSpec>;

export interface ValidateOptions {
  /** most steps the plan may have (its `maxSteps` option) @default DEFAULT_MAX_STEPS (1000) */
  maxSteps?: number;
}

/** `params`: the names of the plan's declared parameters (what `param/NAME` may read). */
export function validatePlan(
  steps: readonly unknown[],
  catalog: Catalog,
  params: readonly string[] = [],
  options: ValidateOptions = {},
): PlanProblem[] {
  const limit = options.maxSteps ?? DEFAULT_MAX_STEPS;
  if (steps.length > limit) return [tooManyStepsProblem(steps.length, limit)];
  const problems: PlanProblem[] = [];
  const specs: Array<{ spec: Spec; index: number }> = [];
  steps.forEach((raw, index) => {
    const parsed = StepSpec.safeParse(raw);
    if (parsed.success) return void specs.push({ spec: parsed.data, index });
    const stepId = idOf(raw);
    for (const issue of parsed.error.issues)
      problems.push({
        code: 'invalid_step',
        stepId,
        path: issue.path.join('.'),
        message: `${issue.path.join('.') || 'step'}: ${issue.message}`,
      });
    if (stepId !== null)
      specs.push({ spec: { id: stepId, description: '', dependsOn: dependsOnOf(raw), critical: true }, index });
  });
  const ids = new Map<string, number>();
  for (const { spec, index } of specs) {
    if (ids.has(spec.id))
      problems.push({
        code: 'duplicate_id',
        stepId: spec.id,
        path: 'id',
        message: `step id ${spec.id} is used by steps ${ids.get(spec.id)! + 1} and ${index + 1}`,
      });
    else ids.set(spec.id, index);
  }
  for (const { spec } of specs) problems.push(...toolProblems(spec, catalog), ...dependencyProblems(spec, ids));
  for (const { spec } of specs)
    if (spec.forEach !== undefined && spec.maxItems !== undefined && spec.maxItems > limit)
      problems.push(tooManyItemsProblem(spec.id, spec.maxItems, limit));
  problems.push(
    ...cycleProblems(
      specs.map((s) => s.spec),
      ids,
    ),
  );
  problems.push(
    ...referenceProblems(
      specs.map((s) => s.spec),
      ids,
      new Set(params),
    ),
  );
  const order = (p: PlanProblem) => (p.stepId !== null ? (ids.get(p.stepId) ?? -1) : -1);
  return problems
    .map((p, i) => ({ p, i }))
    .sort((a, b) => order(a.p) - order(b.p) || a.i - b.i)
    .map(({ p }) => p);
}

const idOf = (raw: unknown): string | null => {
  const id = (raw as { id?: unknown } | null)?.id;
  return typeof id === 'string' && id !== '' ? id : null;
};

const dependsOnOf = (raw: unknown): string[] => {
  const d = (raw as { dependsOn?: unknown } | null)?.dependsOn;
  return Array.isArray(d) ? d.filter((x): x is string => typeof x === 'string') : [];
};

function toolProblems(spec: Spec, catalog: Catalog): PlanProblem[] {
  if (spec.compute !== undefined) return [];
  if (spec.ask !== undefined) {
    // a schema with computed parts is checked once they are computed, before the question is asked
    if (computedIn(spec.ask.schema).some((c) => c.computed.kind === 'expr')) return [];
    const problem = askSchemaProblem(spec.ask.schema);
    return problem
      ? [{ code: 'invalid_question', stepId: spec.id, path: 'ask.schema', message: `ask.schema: ${problem}` }]
      : [];
  }
  if (spec.agent !== undefined) {
    if (!catalog.agents.has(spec.agent))
      return [
        {
          code: 'unknown_agent',
          stepId: spec.id,
          path: 'agent',
          message: `unknown agent ${spec.agent}; known agents: ${[...catalog.agents].join(', ') || 'none'}`,
        },
      ];
    const input = catalog.agentInputs?.get(spec.agent);
    return input
      ? [
          ...unknownKeys(spec.id, spec.input ?? {}, input, `agent ${spec.agent}`),
          ...argProblems(spec.id, spec.input ?? {}, input, 'input'),
        ]
      : [];
  }
  if (spec.tool === undefined) return [];
  const tool = catalog.tools.get(spec.tool);
  if (!tool)
    return [
      {
        code: 'unknown_tool',
        stepId: spec.id,
        path: 'tool',
        message: `unknown tool ${spec.tool}; known tools: ${[...catalog.tools.keys()].join(', ') || 'none'}`,
      },
    ];
  if (!tool.input) return [];
  return argProblems(spec.id, spec.args ?? {}, tool.input);
}

/**
 * Keys the schema's object does not have: a mission's input schema strips them, so the
 * agent would run without what the plan meant to give it.
 */
function unknownKeys(stepId: string, value: Record<string, unknown>, schema: z.ZodType, who: string): PlanProblem[] {
  if (!(schema instanceof z.ZodObject)) return [];
  const known = Object.keys(schema.shape);
  return Object.keys(value)
    .filter((k) => !known.includes(k))
    .map((k) => ({
      code: 'invalid_args' as const,
      stepId,
      path: `input.${k}`,
      message: `input.${k}: ${who} takes no ${k} (its input: ${known.join(', ') || 'none'})`,
    }));
}

/** zod issues of the args (or input) as written, except where a `$` reference stands. */
function argProblems(stepId: string, args: Record<string, unknown>, schema: z.ZodType, root = 'args'): PlanProblem[] {
  const parsed = schema.safeParse(args);
  if (parsed.success) return [];
  const refPaths = [
    ...referencesIn(args)
      .filter((r) => r.ref.kind === 'ref')
      .map((r) => r.path.map(String)),
    ...computedIn(args).map((c) => c.path.map(String)),
  ];
  const underRef = (path: string[]) =>
    refPaths.some((r) => r.length <= path.length && r.every((seg, i) => seg === path[i]));
  return parsed.error.issues
    .filter((i) => !underRef(i.path.map(String)))
    .map((i) => {
      const path = pathText(i.path as Array<string | number>, root);
      return { code: 'invalid_args' as const, stepId, path, message: `${path}: ${i.message}` };
    });
}

function dependencyProblems(spec: Spec, ids: Map<string, number>): PlanProblem[] {
  const out: PlanProblem[] = [];
  spec.dependsOn.forEach((d, i) => {
    const path = `dependsOn.${i}`;
    if (d === spec.id)
      out.push({ code: 'self_dependency', stepId: spec.id, path, message: `step ${spec.id} depends on itself` });
    else if (!ids.has(d))
      out.push({
        code: 'unknown_dependency',
        stepId: spec.id,
        path,
        message: `step ${spec.id} depends on ${d}, which is not in the plan`,
      });
  });
  return out;
}

/** Each distinct cycle once, named from its first step in plan order: `a -> b -> a`. */
function cycleProblems(specs: Spec[], ids: Map<string, number>): PlanProblem[] {
  const deps = dependencyMap(specs, (s) => s.dependsOn.filter((d) => ids.has(d) && d !== s.id));
  const state = new Map<string, 'visiting' | 'done'>();
  const seen = new Set<string>();
  const out: PlanProblem[] = [];
  const visit = (id: string, stack: string[]) => {
    state.set(id, 'visiting');
    for (const d of deps.get(id) ?? []) {
      if (state.get(d) === 'visiting') {
        const cycle = stack.slice(stack.indexOf(d));
        const start = cycle.reduce((a, b) => (ids.get(a)! <= ids.get(b)! ? a : b));
        const rotated = [...cycle.slice(cycle.indexOf(start)), ...cycle.slice(0, cycle.indexOf(start))];
        const key = rotated.join('\u0000');
        if (!seen.has(key)) {
          seen.add(key);
          const text = [...rotated, start].join(' -> ');
          out.push({
            code: 'cycle',
            stepId: start,
            path: 'dependsOn',
            message: `dependency cycle: ${text} (each step depends on the next)`,
          });
        }
      } else if (state.get(d) !== 'done') {
        visit(d, [...stack, d]);
      }
    }
    state.set(id, 'done');
  };
  for (const s of specs) if (!state.has(s.id)) visit(s.id, [s.id]);
  return out;
}

/**
 * Malformed `$` strings, references to unknown steps, references that would race, and in
 * expressions the same plus syntax errors and unknown parameters.
 */
function referenceProblems(specs: Spec[], ids: Map<string, number>, params: ReadonlySet<string>): PlanProblem[] {
  const deps = dependencyMap(specs, (s) => s.dependsOn);
  const out: PlanProblem[] = [];
  for (const s of specs) {
    const { root, value } = computedPart(s);
    const ancestors = transitiveDeps(s.id, deps);
    out.push(...expressionProblems(s, ids, ancestors, params));
    for (const { path, ref } of referencesIn(value)) {
      const where = pathText(path, root);
      if (ref.kind === 'invalid')
        out.push({ code: 'invalid_reference', stepId: s.id, path: where, message: `${where}: ${ref.message}` });
      if (ref.kind !== 'ref') continue;
      if (!ids.has(ref.stepId))
        out.push({
          code: 'invalid_reference',
          stepId: s.id,
          path: where,
          message: `${where}: references $${ref.stepId}, which is not in the plan`,
        });
      else if (!ancestors.has(ref.stepId)) {
        out.push({
          code: 'reference_not_a_dependency',
          stepId: s.id,
          path: where,
          message: `${where}: uses the result of ${ref.stepId}, which is not among its dependencies (add it to dependsOn)`,
        });
      }
    }
  }
  return out;
}

/** Each expression of a step: read and analysed, the steps and parameters it names. */
function expressionProblems(
  s: Spec,
  ids: Map<string, number>,
  ancestors: Set<string>,
  params: ReadonlySet<string>,
): PlanProblem[] {
  const out: PlanProblem[] = [];
  const { root, value } = computedPart(s);
  const unknownParam = (where: string, name: string) =>
    out.push({
      code: 'unknown_param',
      stepId: s.id,
      path: where,
      message: `${where}: uses parameter ${name}, which the plan does not declare (declared: ${[...params].join(', ') || 'none'})`,
    });
  for (const { path, computed } of computedIn(value)) {
    if (computed.kind === 'param' && !params.has(computed.name)) unknownParam(pathText(path, root), computed.name);
  }
  for (const { path, source } of stepExpressions(s)) {
    // `item` is bound in the args of a forEach step (not in its when or forEach)
    const syntax = expressionError(source, s.forEach !== undefined && path !== 'when' && path !== 'forEach');
    if (syntax) {
      out.push({ code: 'invalid_expression', stepId: s.id, path, message: `${path}: ${syntax}` });
      continue;
    }
    const names = expressionNames(source);
    for (const id of names.steps) {
      if (!ids.has(id))
        out.push({
          code: 'unknown_dependency',
          stepId: s.id,
          path,
          message: `${path}: reads step/${id}, which is not in the plan`,
        });
      else if (!ancestors.has(id))
        out.push({
          code: 'reference_not_a_dependency',
          stepId: s.id,
          path,
          message: `${path}: reads step/${id}, which is not among its dependencies (add it to dependsOn)`,
        });
    }
    for (const name of names.params) if (!params.has(name)) unknownParam(path, name);
  }
  return out;
}

/** Why an expression cannot run, located (`line 1, column 9: ...`), or null. */
function expressionError(source: string, withItem: boolean): string | null {
  try {
    const forms = read(source);
    if (forms.length !== 1) return `an expression is exactly one form (found ${forms.length})`;
    analyze(forms, {
      source,
      tools: new Map(),
      journal: null,
      dataNamespaces: PLAN_NAMESPACES,
      globals: withItem ? ['item'] : [],
    });
    return null;
  } catch (err) {
    if (!(err instanceof PtcError)) throw err;
    const at = err.span ? `line ${err.span.line}, column ${err.span.col}: ` : '';
    const hint = planHint(err) ?? err.hint;
    return `${at}${err.message}${hint ? ` (${hint})` : ''}`;
  }
}

/** The analyzer's hints speak of programs; in a plan, what an expression can name. */
function planHint(err: PtcError): string | undefined {
  if (err.code === 'unknown_namespace')
    return 'a plan expression reads step/ID and param/NAME, and the core namespaces str/, set/, Math/';
  if (err.code === 'unbound_var' && /: item$/.test(err.message))
    return 'item is bound only in the args of a forEach step';
  return undefined;
}

/** Dependencies by step id; steps sharing an id (a duplicate_id problem) pool theirs. */
function dependencyMap(specs: Spec[], of: (s: Spec) => string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const s of specs) out.set(s.id, [...(out.get(s.id) ?? []), ...of(s)]);
  return out;
}

function transitiveDeps(id: string, deps: Map<string, string[]>): Set<string> {
  const out = new Set<string>();
  const todo = [...(deps.get(id) ?? [])];
  while (todo.length) {
    const d = todo.pop()!;
    if (out.has(d) || d === id) continue;
    out.add(d);
    todo.push(...(deps.get(d) ?? []));
  }
  return out;
}

/** One line per problem: `write_config args.path: ... [invalid_args]`. */
export function formatProblems(problems: readonly PlanProblem[]): string {
  return problems
    .map(
      (p) =>
        `  - ${p.stepId ?? 'plan'}${p.path && !p.message.startsWith(p.path) ? ` ${p.path}` : ''}: ${p.message} [${p.code}]`,
    )
    .join('\n');
}
