/**
 * Plan parameters: declared in the plan document as `"params": {name: JSON Schema}`,
 * given when the plan starts (`--params JSON`), checked here with the schemas converted
 * to zod. A missing, ill-typed or undeclared value is a problem naming the parameter.
 */
import { zodOfJsonSchema } from '../mcp/json-schema.ts';
import type { Json, PlanParam, PlanProblem } from './schema.ts';
import { issuesText } from '../kernel/contract.ts';

export type ParamsChecked = { ok: true; params: Record<string, PlanParam> } | { ok: false; problems: PlanProblem[] };

/** The declared parameters with their values, or every problem of the given values. */
export function checkParams(
  declared: Record<string, Record<string, Json>>,
  given: Record<string, unknown>,
): ParamsChecked {
  const problems: PlanProblem[] = [];
  const params: Record<string, PlanParam> = {};
  for (const [name, schema] of Object.entries(declared)) {
    const path = `params.${name}`;
    let zod;
    try {
      zod = zodOfJsonSchema(schema);
    } catch (err) {
      problems.push({
        code: 'invalid_param',
        stepId: null,
        path,
        message: `parameter ${name}: its JSON Schema cannot be used: ${(err as Error).message}`,
      });
      continue;
    }
    const value = Object.hasOwn(given, name) ? given[name] : undefined;
    const parsed = zod.safeParse(value);
    if (parsed.success && parsed.data !== undefined) params[name] = { schema, value: parsed.data as Json };
    else if (value === undefined)
      problems.push({
        code: 'missing_param',
        stepId: null,
        path,
        message: `parameter ${name} is missing (the plan declares it: ${JSON.stringify(schema)})`,
      });
    else {
      const why = parsed.success ? 'no value' : issuesText(parsed.error, name, [name]);
      problems.push({
        code: 'invalid_param',
        stepId: null,
        path,
        message: `parameter ${name} = ${JSON.stringify(value)} is invalid: ${why}`,
      });
    }
  }
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(declared, name))
      problems.push({
        code: 'unknown_param',
        stepId: null,
        path: `params.${name}`,
        message: `parameter ${name} is given but the plan declares ${Object.keys(declared).join(', ') || 'no parameters'}`,
      });
  }
  return problems.length ? { ok: false, problems } : { ok: true, params };
}
