/**
 * Tool calls of a program: their arguments checked against the tool's schema, their
 * idempotency keys, and how a call is answered. In order: an effect (a tool the host
 * runs elsewhere) from the results handed in, or by suspending the run; a result
 * remembered from an earlier pass; the per-run call log (a re-evaluation after a
 * suspension meets the same call at the same call-site path); and only then the handler.
 * The evaluator (index.ts) evaluates the arguments, counts calls and names the call
 * site; everything after that is here.
 */
import { createHash } from 'node:crypto';
import type { ToolCallRecord } from '../api.ts';
import type { Span } from '../form.ts';
import { PtcError } from '../errors.ts';
import { canonicalJson, fromJson, keyShapeOf, toToolArgs, type KeyShape } from '../json.ts';
import type { Json, ToolDef } from '../tools.ts';
import { issueProblems } from '../validate.ts';
import { type Value, isKeyword, isMap, map as pmap, typeName } from '../values.ts';
import { SUSPEND } from './signals.ts';
import { toolFailure } from '../tool-failure.ts';
import type { Evaluator, RunState } from './index.ts';

/** One tool call known to the run, by call-site path. */
export interface CallEntry {
  tool: string;
  args: string;
  state: 'pending' | 'ok' | 'error';
  promise?: Promise<unknown>;
  result?: Json;
  error?: PtcError;
  record: ToolCallRecord;
  started: number;
}

/** A call with valid arguments, ready to be answered. */
export interface ToolCall {
  tool: ToolDef;
  /** the arguments as the schema parsed them (what the handler gets) */
  parsed: unknown;
  /** the same as JSON (what records and keys use) */
  args: Json;
  canonical: string;
  taskId: string | null;
  key: string;
  /** call-site path: the same call gets the same path when the program is evaluated again */
  path: string;
  span: Span;
}

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/** Idempotency key of a call inside `(task id ...)`: the n-th call gets `#n` (n ≥ 2). */
export function taskKey(runId: string, taskId: string, n: number): string {
  const base = sha256(`${runId}\u0000task\u0000${taskId}`);
  return n > 1 ? `${base}#${n}` : base;
}

/** Idempotency key of a call outside any task. */
export function callKey(runId: string, tool: string, argsCanonical: string): string {
  return sha256(`${runId}\u0000${tool}\u0000${argsCanonical}`);
}

/** A JS value from a tool handler as JSON (Dates become strings, functions vanish). */
export function resultToJson(r: unknown): Json {
  if (r === undefined || r === null) return null;
  if (typeof r === 'string' || typeof r === 'boolean') return r;
  if (typeof r === 'number') return Number.isFinite(r) ? r : null;
  const text = JSON.stringify(r);
  return text === undefined ? null : (JSON.parse(text) as Json);
}

export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message || e.name;
  if (typeof e === 'string') return e;
  try {
    return JSON.stringify(e) ?? 'unknown error';
  } catch {
    return 'unknown error';
  }
}

/** Text of a JS exception safe to show: no `undefined`, no `[object Object]`. */
export const safeText = (s: string): string => s.replace(/\bundefined\b/g, 'nil').replace(/\[object \w+\]/g, 'value');

/** `(tool/x)`, `(tool/x {:k v})` or `(tool/x :k v ...)` as one argument map. */
export function toolArgMap(name: string, argv: Value[], span: Span): Value {
  if (argv.length === 0) return pmap();
  if (argv.length === 1) {
    const argMap = argv[0]!;
    if (argMap !== null && !isMap(argMap)) {
      throw new PtcError(
        'invalid_tool_args',
        `tool/${name} takes named arguments, got a ${typeName(argMap)}`,
        span,
        `wrap arguments in a map: (tool/${name} {:key value})`,
      );
    }
    return argMap;
  }
  const entries: [Value, Value][] = [];
  for (let i = 0; i < argv.length; i += 2) {
    const k = argv[i]!;
    if (!isKeyword(k) && typeof k !== 'string') {
      throw new PtcError(
        'invalid_tool_args',
        `tool/${name}: argument names must be keywords, got ${typeName(k)}`,
        span,
      );
    }
    entries.push([k, argv[i + 1]!]);
  }
  return pmap(entries);
}

/** The argument map as JSON, checked against the tool's zod schema. */
export function validToolArgs(
  tool: ToolDef,
  argMap: Value,
  span: Span,
  maxItems: number,
): { parsed: unknown; args: Json; canonical: string } {
  let json: Json;
  try {
    json = toToolArgs(argMap, shapeOf(tool), { maxItems });
  } catch (e) {
    const msg = e instanceof PtcError ? e.message : safeText(errorText(e));
    throw new PtcError('invalid_tool_args', `tool/${tool.name}: ${msg}`, span);
  }
  const parsed = tool.input.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message, code: i.code }));
    const text = issueProblems(parsed.error.issues, json).join('; ').replaceAll('(root)', '(arguments)');
    throw new PtcError('invalid_tool_args', `tool/${tool.name}: ${text}`, span, undefined, 'eval', { issues });
  }
  const args = resultToJson(parsed.data);
  return { parsed: parsed.data, args, canonical: canonicalJson(args) };
}

const shapeCache = new WeakMap<object, KeyShape | null>();
function shapeOf(tool: ToolDef): KeyShape | undefined {
  if (tool.keyShape !== undefined) return tool.keyShape ?? undefined;
  const s = tool.input as unknown as object;
  let v = shapeCache.get(s);
  if (v === undefined) {
    v = keyShapeOf(tool.input) ?? null;
    shapeCache.set(s, v);
  }
  return v ?? undefined;
}

/**
 * Answers the call (see the module comment): its value, or throws the tool's error or
 * {@link SUSPEND} (with the call added to `ev.pendingEffects` or `ev.pendingCalls`).
 */
export function performToolCall(call: ToolCall, st: RunState, ev: Evaluator): Value {
  const { tool, args, taskId, key, span } = call;
  const fx = st.effects;
  if (fx && fx.isEffect(tool)) {
    const results = fx.results;
    if (results && results.has(key)) {
      const r = results.get(key)!;
      ev.toolCalls.push({ tool: tool.name, args, taskId, idempotencyKey: key, result: r, durationMs: 0 });
      return fromJson(r);
    }
    const failure = fx.errors?.get(key);
    if (failure !== undefined) {
      ev.toolCalls.push({ tool: tool.name, args, taskId, idempotencyKey: key, error: failure, durationMs: 0 });
      throw new PtcError('tool_error', `tool/${tool.name} failed: ${failure}`, span, undefined, 'eval', {
        failure: toolFailure(tool.name, failure),
      });
    }
    ev.pendingEffects.push({ id: key, taskId, tool: tool.name, args, idempotencyKey: key, span });
    throw SUSPEND;
  }

  const remembered = fx?.inlineResults?.get(key);
  if (remembered !== undefined) {
    ev.toolCalls.push({ tool: tool.name, args, taskId, idempotencyKey: key, result: remembered, durationMs: 0 });
    return fromJson(remembered);
  }

  const known = st.log.get(call.path);
  if (known) return answerFromLog(call, known, ev);
  return callHandler(call, st, ev);
}

/** A call this run has seen before (an earlier evaluation of the same program). */
function answerFromLog(call: ToolCall, known: CallEntry, ev: Evaluator): Value {
  if (known.tool !== call.tool.name || known.args !== call.canonical) {
    throw new PtcError(
      'tool_error',
      `tool/${call.tool.name}: the program made different tool calls when it was re-evaluated (is it deterministic?)`,
      call.span,
    );
  }
  if (known.state === 'pending') {
    ev.pendingCalls.push(known);
    throw SUSPEND;
  }
  ev.toolCalls.push(known.record);
  if (known.state === 'error') throw known.error!.withSpan(call.span);
  return fromJson(known.result!);
}

/** Runs the handler: a synchronous result is used at once, a promise suspends the run. */
function callHandler(call: ToolCall, st: RunState, ev: Evaluator): Value {
  const { tool, args, taskId, key, span } = call;
  const record: ToolCallRecord = { tool: tool.name, args, taskId, idempotencyKey: key, durationMs: 0 };
  const entry: CallEntry = { tool: tool.name, args: call.canonical, state: 'pending', record, started: Date.now() };
  st.log.set(call.path, entry);
  let r: unknown;
  try {
    r = tool.handler(call.parsed, { idempotencyKey: key, taskId, signal: st.abort.signal });
  } catch (e) {
    settleError(entry, e, tool.name);
    ev.toolCalls.push(record);
    throw entry.error!.withSpan(span);
  }
  if (isThenable(r)) {
    entry.promise = Promise.resolve(r).then(
      (v) => settleOk(entry, v, tool.name),
      (e) => settleError(entry, e, tool.name),
    );
    ev.pendingCalls.push(entry);
    throw SUSPEND;
  }
  settleOk(entry, r, tool.name);
  ev.toolCalls.push(record);
  if (entry.state === 'error') throw entry.error!.withSpan(span);
  return fromJson(entry.result!);
}

const isThenable = (x: unknown): x is Promise<unknown> =>
  x !== null &&
  (typeof x === 'object' || typeof x === 'function') &&
  typeof (x as { then?: unknown }).then === 'function';

function settleOk(entry: CallEntry, v: unknown, name: string): void {
  entry.record.durationMs = Date.now() - entry.started;
  try {
    entry.result = resultToJson(v);
    entry.state = 'ok';
    entry.record.result = entry.result;
  } catch (e) {
    settleError(entry, new Error(`returned a value that is not JSON (${safeText(errorText(e))})`), name);
  }
}

function settleError(entry: CallEntry, e: unknown, name: string): void {
  entry.record.durationMs = Date.now() - entry.started;
  const msg = safeText(errorText(e));
  entry.state = 'error';
  entry.error = new PtcError('tool_error', `tool/${name} failed: ${msg}`, undefined, undefined, 'eval', {
    failure: toolFailure(name, e instanceof Error && e.name === 'ToolRejected' ? e : msg),
  });
  entry.record.error = msg;
}
