/**
 * The plan workflow's input, checked by hand inside the sandbox like the mission's
 * (guards.ts says why zod stays out of the bundle). `PlanInput` in plan-contract.ts is
 * the definition; test/workflows/plan-guards.property.test.ts checks that this guard
 * accepts exactly what the schema accepts, and names the same paths.
 *
 * Options are kept as given, not defaulted: the caller's options and the document's are
 * merged field by field later (`resolvePlanOptions`), so a default here would override
 * what the document says.
 */
import { PARAM_NAME } from '../../plans/references.ts';
import { type Checked, Problems, isJson, isObj, isPositiveInt } from '../mission/guards.ts';
import type { ParsedPlanInput } from './state.ts';

type Obj = Record<string, unknown>;

const OPTION_FIELDS: Record<string, (p: Problems, path: string, v: unknown) => void> = {
  onFailure: oneOf('ask', 'abort', 'continue'),
  approvalTimeoutMs: positive,
  onApprovalTimeout: oneOf('deny', 'fail'),
  onDenial: oneOf('block', 'ask', 'abort'),
  budgets: strictObject({ wallClockMs: positive, toolCalls: positive }),
  maxRecoveries: positive,
  continueAsNewAfterEvents: positive,
  maxSteps: positive,
  timeouts: strictObject({ stepMs: positive, heartbeatMs: positive, modelMs: positive }),
  statusSearchAttribute: searchAttributeName,
};

export function checkPlanInput(raw: unknown): Checked<ParsedPlanInput> {
  const p = new Problems();
  if (!isObj(raw)) {
    p.add('input', 'expected an object');
    return p.check(raw as ParsedPlanInput);
  }
  if (typeof raw.agent !== 'string' || raw.agent === '') p.add('agent', 'expected a non-empty string');
  if (raw.request !== undefined && (typeof raw.request !== 'string' || raw.request === ''))
    p.add('request', 'expected a non-empty string');
  if (raw.context !== undefined && !isJson(raw.context)) p.add('context', 'expected JSON data');
  if (raw.document !== undefined) checkDocument(p, raw.document);
  if (raw.params !== undefined && !(isObj(raw.params) && Object.values(raw.params).every((v) => isJson(v))))
    p.add('params', 'expected an object of JSON values');
  if (raw.taskId !== undefined && (typeof raw.taskId !== 'string' || raw.taskId === ''))
    p.add('taskId', 'expected a non-empty string');
  if (raw.approve !== undefined && typeof raw.approve !== 'boolean') p.add('approve', 'expected true or false');
  if (raw.options !== undefined) strictObject(OPTION_FIELDS)(p, 'options', raw.options);
  if (raw.carried === undefined && raw.request === undefined && raw.document === undefined) {
    p.add('input', 'a plan needs a request (planner) or a document (given plan)', 'missing');
  }
  return p.check(raw as unknown as ParsedPlanInput);
}

function checkDocument(p: Problems, d: unknown): void {
  if (!isObj(d)) return p.add('document', 'expected an object');
  if (!Array.isArray(d.steps)) p.add('document.steps', 'expected an array');
  else if (d.steps.length === 0) p.add('document.steps', 'a plan needs at least one step', 'too_small');
  if (d.params !== undefined) checkParams(p, d.params);
  if (
    d.estimatedDuration !== undefined &&
    !(typeof d.estimatedDuration === 'number' && Number.isFinite(d.estimatedDuration) && d.estimatedDuration >= 0)
  ) {
    p.add('document.estimatedDuration', 'expected a number >= 0');
  }
  if (d.options !== undefined) strictObject(OPTION_FIELDS)(p, 'document.options', d.options);
}

function checkParams(p: Problems, params: unknown): void {
  if (!isObj(params)) return p.add('document.params', 'expected an object');
  for (const [name, schema] of Object.entries(params)) {
    if (!PARAM_NAME.test(name))
      p.add(`document.params.${name}`, 'a parameter name is letters, digits, _ and -', 'invalid_value');
    if (!isObj(schema) || !isJson(schema)) p.add(`document.params.${name}`, 'expected a JSON Schema object');
  }
}

function strictObject(fields: Record<string, (p: Problems, path: string, v: unknown) => void>) {
  return (p: Problems, path: string, v: unknown): void => {
    if (!isObj(v)) return p.add(path, 'expected an object');
    for (const [key, value] of Object.entries(v as Obj)) {
      // own fields only: `valueOf` or `constructor` must be unknown options, not Object's methods
      const check = Object.prototype.hasOwnProperty.call(fields, key) ? fields[key] : undefined;
      if (!check) p.add(`${path}.${key}`, 'unknown option', 'unrecognized_key');
      else if (value !== undefined) check(p, `${path}.${key}`, value);
    }
  };
}

function positive(p: Problems, path: string, v: unknown): void {
  if (!isPositiveInt(v)) p.add(path, 'expected a positive integer');
}

function oneOf(...allowed: string[]) {
  return (p: Problems, path: string, v: unknown): void => {
    if (typeof v !== 'string' || !allowed.includes(v))
      p.add(path, `expected ${allowed.map((a) => JSON.stringify(a)).join(' or ')}`, 'invalid_value');
  };
}

function searchAttributeName(p: Problems, path: string, v: unknown): void {
  if (typeof v !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(v))
    p.add(path, 'must be a search attribute name', 'invalid_value');
}
