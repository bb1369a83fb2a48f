/**
 * Pieces of one turn: its kind, how a returned value is shaped and checked against the
 * agent's output schema (the waiting idiom bypasses the schema), and errors and tool
 * calls in the form the outcome and the trace carry them.
 */
import type { ToolCallRecord } from '../lisp/api.ts';
import { PtcError } from '../lisp/errors.ts';
import { fromJson, keyShapeOf, toJson, toToolArgs } from '../lisp/json.ts';
import type { Json } from '../lisp/tools.ts';
import { type Value, isMap } from '../lisp/values.ts';
import type { Agent } from './agent.ts';
import type { PassError, TraceToolCall, TurnKind } from './pass-state.ts';
import { validateJson } from '../lisp/validate.ts';

/** Kind of turn `turn` (1-based) under the agent's limits (reference §6.2). */
export function turnKind(turn: number, maxTurns: number): TurnKind {
  const workLeft = maxTurns - turn + 1;
  if (workLeft <= 0) return 'retry';
  if (workLeft <= 1) return 'must_return';
  return 'normal';
}

/** `{:status :waiting ...}`: the program waits for an external decision. */
export function isWaiting(v: Json): boolean {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && v.status === 'waiting';
}

export type Shaped = { ok: true; value: Json; waiting: boolean } | { ok: false; value: Json; problems: string[] };

/** JSON of a value, or the text of why it has none. */
export function jsonOf(v: Value): { ok: true; value: Json } | { ok: false; message: string } {
  try {
    return { ok: true, value: toJson(v) };
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * A returned value made JSON (map keys respelled `-`↔`_` where the output schema has
 * the other spelling) and validated against the output schema. A waiting value is
 * accepted as it is.
 */
export function shapeReturn(agent: Pick<Agent, 'output'>, v: Value): Shaped {
  const j = jsonOf(v);
  if (!j.ok) return { ok: false, value: null, problems: [`(root): ${j.message}`] };
  if (isWaiting(j.value)) return { ok: true, value: j.value, waiting: true };
  let shaped: Json = j.value;
  if (isMap(v)) {
    try {
      shaped = toToolArgs(v, keyShapeOf(agent.output));
    } catch {
      shaped = j.value;
    }
  }
  const checked = validateJson(agent.output, shaped);
  if (!checked.ok) return { ok: false, value: shaped, problems: checked.problems };
  const out = checked.value === undefined ? null : (JSON.parse(JSON.stringify(checked.value)) as Json);
  return { ok: true, value: out, waiting: false };
}

/** The same for a JSON value (the fallback keeps turn values as JSON). */
export const shapeJson = (agent: Pick<Agent, 'output'>, j: Json): Shaped => shapeReturn(agent, fromJson(j));

export function passError(e: PtcError | PassError): PassError {
  if (e instanceof PtcError) {
    // a limit says which: `fuel limit: evaluation used more than 1000000 steps`
    const limit = e.code === 'limit_exceeded' && typeof e.details?.limit === 'string' ? e.details.limit : null;
    const message =
      limit && !/\blimit\b/i.test(e.message) ? `${limit.replace('_', ' ')} limit: ${e.message}` : e.message;
    return { type: e.code, message, line: e.line ?? null, column: e.column ?? null, hint: e.hint ?? null };
  }
  return e;
}

export const simpleError = (type: string, message: string, hint: string | null = null): PassError => ({
  type,
  message,
  line: null,
  column: null,
  hint,
});

/** `data/fail` after an error turn. */
export function failData(e: PassError): Json {
  return { reason: e.type, message: e.message, line: e.line, column: e.column, ...(e.hint ? { hint: e.hint } : {}) };
}

export function traceCall(c: ToolCallRecord): TraceToolCall {
  return {
    tool: c.tool,
    args: c.args,
    taskId: c.taskId,
    idempotencyKey: c.idempotencyKey,
    ...(c.result !== undefined ? { result: c.result } : {}),
    ...(c.error !== undefined ? { error: c.error } : {}),
  };
}
