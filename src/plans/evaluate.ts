/**
 * A step's computed parts, evaluated: its `when` condition, then its forEach list, then each
 * `$expr` of its args (or input), once per item with `item` bound. One implementation for
 * the activity that computes them (in the sandbox) and the audit that computes them again
 * from history (in process): both must give the same values and the same errors.
 */
import type { RunOptions, RunResult } from '../lisp/api.ts';
import { fromJson, toJson } from '../lisp/json.ts';
import { DEFAULT_MAX_ITEMS, PLAN_NAMESPACES, substituteExpressions, truthy } from './expressions.ts';
import { computedIn, pathText } from './references.ts';
import type { Json } from './schema.ts';
import { askSchemaProblem } from './questions.ts';

/** What a step's evaluation reads: its expressions and the values they may name. */
export interface StepEvaluation {
  stepId: string;
  when?: string;
  forEach?: string;
  maxItems?: number;
  /** args (or input) with references and parameters resolved, `$expr` values still to compute */
  args: Json;
  /** `args`, `input`, `ask` (a question's text and schema) or `compute` (a compute step): where the paths of expression errors start */
  root: 'args' | 'input' | 'ask' | 'compute';
  /** results of the steps the expressions read, by id */
  steps: Record<string, Json>;
  params: Record<string, Json>;
}

/** `skip` when the condition was falsy (args not computed); `each`: a forEach step's args, one per item. */
export type EvaluatedStep =
  { kind: 'skip'; condition: Json } | { kind: 'args'; args: Json } | { kind: 'each'; items: Json[] };

/** Runs one expression (the sandbox, or the interpreter in process). */
export type ExpressionRunner = (source: string, opts: RunOptions) => Promise<RunResult>;

/** Limits of one plan expression: small, since an expression only computes a value. */
export const EXPRESSION_LIMITS: NonNullable<RunOptions['limits']> = {
  fuel: 100_000,
  timeoutMs: 2000,
  maxToolCalls: 0,
  maxOutputChars: 0,
};

/** An expression of the step failed or gave no JSON value; `where` names the part (`when`, `forEach`, `item 2 args.path`). */
export class ExpressionError extends Error {
  override readonly name = 'ExpressionError';
  constructor(
    readonly stepId: string,
    readonly where: string,
    readonly reason: string,
  ) {
    super(`step ${stepId} ${where}: ${reason}`);
  }
}

/** The step's condition, list and computed args; an {@link ExpressionError} for the first expression that fails. */
export async function evaluateStep(req: StepEvaluation, run: ExpressionRunner): Promise<EvaluatedStep> {
  const context: Record<string, Json> = {
    ...Object.fromEntries(Object.entries(req.steps).map(([id, v]) => [`step/${id}`, v])),
    ...Object.fromEntries(Object.entries(req.params).map(([name, v]) => [`param/${name}`, v])),
  };
  const expression = (source: string, where: string, item?: Json) =>
    evaluateExpression(run, source, context, req.stepId, where, item);
  if (req.when !== undefined) {
    const condition = await expression(req.when, 'when');
    if (!truthy(condition)) return { kind: 'skip', condition };
  }
  if (req.forEach === undefined) {
    const args = await computeArgs(req, expression);
    if (req.root === 'ask') {
      // a computed question is checked as a written one is when the plan is validated
      const problem = computedAskProblem(args);
      if (problem) throw new ExpressionError(req.stepId, problem.where, problem.message);
    }
    return { kind: 'args', args };
  }
  const list = await expression(req.forEach, 'forEach');
  const max = req.maxItems ?? DEFAULT_MAX_ITEMS;
  if (!Array.isArray(list))
    throw new ExpressionError(
      req.stepId,
      'forEach',
      `expected a list, got ${list === null ? 'nil' : typeof list === 'object' ? 'a map' : JSON.stringify(list)}`,
    );
  if (list.length > max)
    throw new ExpressionError(req.stepId, 'forEach', `gave ${list.length} items, more than maxItems ${max}`);
  const items: Json[] = [];
  for (const [i, item] of list.entries()) items.push(await computeArgs(req, expression, { item, where: `item ${i}` }));
  return { kind: 'each', items };
}

type Expression = (source: string, where: string, item?: Json) => Promise<Json>;

/** What is wrong with a question once its expressions are computed: its text must be a string, its schema a JSON Schema. */
function computedAskProblem(ask: Json): { where: string; message: string } | null {
  const a = (ask ?? {}) as { question?: Json; schema?: Json };
  if (typeof a.question !== 'string' || a.question === '')
    return {
      where: 'ask.question',
      message: `the question must be a non-empty string, got ${JSON.stringify(a.question)}`,
    };
  if (a.schema === null || typeof a.schema !== 'object' || Array.isArray(a.schema))
    return { where: 'ask.schema', message: `the schema must be a JSON Schema object, got ${JSON.stringify(a.schema)}` };
  const problem = askSchemaProblem(a.schema);
  return problem ? { where: 'ask.schema', message: problem } : null;
}

/** The args with every `$expr` computed (`item` bound for a forEach item). */
async function computeArgs(
  req: StepEvaluation,
  expression: Expression,
  each?: { item: Json; where: string },
): Promise<Json> {
  const values = new Map<string, Json>();
  for (const { path, computed } of computedIn(req.args)) {
    if (computed.kind !== 'expr') continue;
    const where = `${each ? `${each.where} ` : ''}${pathText(path, req.root)}`;
    values.set(JSON.stringify(path), await expression(computed.source, where, each?.item));
  }
  return substituteExpressions(req.args, (path) => values.get(JSON.stringify(path)) ?? null);
}

/** One expression's value as JSON; an error, `fail`, a tool call or a value that is not JSON is an {@link ExpressionError}. */
async function evaluateExpression(
  run: ExpressionRunner,
  source: string,
  context: Record<string, Json>,
  stepId: string,
  where: string,
  item?: Json,
): Promise<Json> {
  const namespace = item === undefined ? undefined : new Map([['item', fromJson(item)]]);
  const result = await run(source, {
    context,
    dataNamespaces: [...PLAN_NAMESPACES],
    limits: EXPRESSION_LIMITS,
    journal: null,
    ...(namespace ? { namespace } : {}),
  });
  if (result.status === 'error') {
    const at = result.error.span ? `line ${result.error.span.line}, column ${result.error.span.col}: ` : '';
    throw new ExpressionError(stepId, where, `${at}${result.error.message}`);
  }
  if (result.status !== 'ok')
    throw new ExpressionError(
      stepId,
      where,
      result.status === 'fail' ? 'the expression called fail' : 'the expression called a tool',
    );
  try {
    return toJson(result.value);
  } catch (err) {
    throw new ExpressionError(stepId, where, `its value is not JSON: ${(err as Error).message}`);
  }
}
