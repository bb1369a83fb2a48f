/**
 * Questions in a plan: a step `{"id": "pick", "ask": {"question": "...", "schema": {JSON
 * Schema}}}` waits for a person's answer, which becomes the step's result (`step/pick`,
 * `$pick`). The answer is checked against the schema (converted to zod, as plan
 * parameters are); a bad answer is refused with every reason, each with its path.
 */
import { zodOfJsonSchema } from '../mcp/json-schema.ts';
import type { AskSpec, Json } from './schema.ts';

export type AnswerChecked = { ok: true; value: Json } | { ok: false; message: string };

/** Why a question's schema cannot check answers, or null. */
export function askSchemaProblem(schema: Record<string, Json>): string | null {
  try {
    zodOfJsonSchema(schema);
    return null;
  } catch (err) {
    return `the answer's JSON Schema cannot be used: ${(err as Error).message}`;
  }
}

/** The answer as recorded, or why it is refused (`answer.env: Invalid option: ...`). */
export function checkAnswer(stepId: string, ask: AskSpec, value: unknown): AnswerChecked {
  let schema;
  try {
    schema = zodOfJsonSchema(ask.schema);
  } catch (err) {
    return { ok: false, message: `step ${stepId}: ${askSchemaProblem(ask.schema) ?? (err as Error).message}` };
  }
  if (value === undefined)
    return {
      ok: false,
      message: `step ${stepId}: no answer given (expected JSON matching ${JSON.stringify(ask.schema)})`,
    };
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: (parsed.data ?? null) as Json };
  const why = parsed.error.issues.map((i) => `${['answer', ...i.path.map(String)].join('.')}: ${i.message}`).join('; ');
  return {
    ok: false,
    message: `step ${stepId}: the answer ${short(value)} does not match the question's schema: ${why}`,
  };
}

const short = (v: unknown): string => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 200 ? `${s.slice(0, 197)}...` : s;
};
