/**
 * The JSON-serialisable state of a suspended or running pass, and the conversions
 * between it and the interpreter's live values: the user namespace and the `*1 *2 *3`
 * history as re-readable PTC-Lisp source, the pass-local journal delta and its merge
 * with the host's journal.
 *
 * Every program of a pass starts from this state (the namespace is read back from its
 * source before every program, also in-process), so a pass resumed in a fresh process
 * behaves exactly like an uninterrupted one.
 */
import { deserializeNamespace, serializeNamespace } from '../lisp/index.ts';
import type { EffectRequest, Journal, Namespace, ToolCallRecord, Warning } from '../lisp/api.ts';
import { canonicalJson } from '../lisp/json.ts';
import { valueSource as lispValueSource } from '../lisp/printer/index.ts';
import type { Json, ToolDef } from '../lisp/tools.ts';
import type { ChatMessage } from '../llm/model.ts';
import {
  FnValue,
  Keyword,
  LazySeq,
  PList,
  Regex,
  type Value,
  isMap,
  isSet,
  isVector,
  iterate,
  list,
  map as pmap,
  set as pset,
  vec,
} from '../lisp/values.ts';

export const PASS_STATE_VERSION = 1;

/** `normal`; `must_return` when one work turn is left; `retry` after the work turns. */
export type TurnKind = 'normal' | 'must_return' | 'retry';

import type { EffectResult } from '../kernel/contract.ts';
export type { EffectResult };

export interface PassUsage {
  inputTokens: number;
  outputTokens: number;
  /** LLM turns taken */
  turns: number;
  llmRequests: number;
  /** the pass ended through the last-expression fallback */
  fallbackUsed: boolean;
}

/** An error as the outcome and the trace carry it. */
export interface PassError {
  type: string;
  message: string;
  line: number | null;
  column: number | null;
  hint: string | null;
}

/** A tool call as the trace keeps it (no timings, so traces compare equal across runs). */
export type TraceToolCall = Omit<ToolCallRecord, 'durationMs'>;

export type TurnResult =
  | { status: 'ok'; value: string }
  | { status: 'return'; value: Json }
  | { status: 'invalid_return'; value: Json; problems: string[] }
  | { status: 'fail'; value: Json }
  | { status: 'error'; error: PassError }
  | { status: 'no_code'; error: PassError };

/** One LLM turn of a pass. */
export interface TurnTrace {
  turn: number;
  kind: TurnKind;
  /** the model's raw answer */
  response: string;
  /** the extracted program (null when the answer had none) */
  program: string | null;
  result: TurnResult | null;
  prints: string[];
  toolCalls: TraceToolCall[];
  /** effect suspensions this turn's program went through */
  suspensions: number;
  /** the user message sent back (null after the last turn) */
  feedback: string | null;
  usage: { inputTokens: number; outputTokens: number };
}

/** A program waiting for the results of its effects. */
export interface PendingProgram {
  code: string;
  turnKind: TurnKind;
  effects: EffectRequest[];
  /** index in `toolCalls` of this program's first call: its inline results are reused on resume */
  callsFrom?: number;
}

export interface PassState {
  v: typeof PASS_STATE_VERSION;
  agent: string;
  runId: string;
  /** the validated input: the `data/` context */
  input: Record<string, Json>;
  effects: 'inline' | 'suspend';
  /** false when the pass runs without a journal (tasks uncached) */
  journalActive: boolean;
  messages: ChatMessage[];
  /** turns started so far */
  turn: number;
  /** `def`s as re-readable source */
  namespace: Record<string, string>;
  /** `*1 *2 *3` as re-readable source, `*1` first */
  history: string[];
  /** step-done summaries: those the pass started with plus this pass's */
  summaries: Record<string, string>;
  /** commits of this pass, in commit order */
  delta: Array<[string, Json]>;
  /** keys removed by task-reset and not committed again */
  resets: string[];
  /** `data/fail` for the next program: the previous turn's error */
  lastFail: Json;
  /** the latest non-nil value of a turn that ended normally, for the fallback */
  fallback: { value: Json } | null;
  pending: PendingProgram | null;
  /** results of this pass's effects so far, by effect id */
  effectResults: Record<string, EffectResult>;
  toolCalls: ToolCallRecord[];
  /**
   * Where each step after a suspension starts in `toolCalls`: the calls from
   * `stepStarts[n-1]` ran after the nth batch of effects (absent in states from before it).
   */
  stepStarts?: number[];
  trace: TurnTrace[];
  usage: PassUsage;
  warnings: Warning[];
}

/**
 * The step of the pass the `index`th tool call ran in: 0 before any effects, n after the
 * nth batch of effects (the host ran the effects between two steps).
 */
export const stepOfCall = (stepStarts: readonly number[], index: number): number =>
  stepStarts.filter((start) => start <= index).length;

/** A state that cannot be resumed (wrong agent, wrong version, nothing pending). */
export class PassStateError extends Error {
  override readonly name = 'PassStateError';
}

export function checkState(state: unknown, agentName: string): PassState {
  const s = state as PassState | null;
  if (!s || typeof s !== 'object' || s.v !== PASS_STATE_VERSION) {
    throw new PassStateError(`not a pass state of version ${PASS_STATE_VERSION}`);
  }
  if (s.agent !== agentName)
    throw new PassStateError(`the pass state belongs to agent "${s.agent}", not "${agentName}"`);
  if (!s.pending) throw new PassStateError('the pass state has no suspended program to resume');
  return s;
}

// ---------------------------------------------------------------- journal

/** The host's journal as a Map, from a Map, entries or a plain object. */
export function toJournal(
  j: Journal | ReadonlyArray<readonly [string, Json]> | Readonly<Record<string, Json>> | null | undefined,
): Journal {
  if (!j) return new Map();
  if (j instanceof Map) return new Map(j);
  if (Array.isArray(j)) return new Map(j as Array<[string, Json]>);
  return new Map(Object.entries(j as Record<string, Json>));
}

/** Host journal + this pass's resets and commits: what the next program sees. */
export function mergedJournal(host: Journal, st: Pick<PassState, 'delta' | 'resets'>): Journal {
  const out = new Map(host);
  for (const k of st.resets) out.delete(k);
  for (const [k, v] of st.delta) out.set(k, v);
  return out;
}

/** Records the commits and resets a program made (journal before → after) in the state. */
export function recordJournalChanges(st: PassState, before: Journal, after: Journal | null): void {
  if (!after) return;
  const delta = new Map(st.delta);
  const resets = new Set(st.resets);
  for (const k of before.keys()) {
    if (!after.has(k)) {
      delta.delete(k);
      resets.add(k);
    }
  }
  for (const [k, v] of after) {
    const had = before.has(k);
    // an entry the program did not touch is the same value (printing every entry twice per program was most of a replay's time)
    if (had && (before.get(k) === v || canonicalJson(before.get(k)!) === canonicalJson(v))) continue;
    delta.delete(k);
    delta.set(k, v);
    resets.delete(k);
  }
  st.delta = [...delta];
  st.resets = [...resets];
}

// ---------------------------------------------------------------- values as source

/** Largest collection kept between programs. */
const MAX_ITEMS = 100_000;

/**
 * Source text that evaluates to `v` (the interpreter's `valueSource`: lists as
 * `(list ...)`), at most {@link MAX_ITEMS} items per collection.
 */
export const valueSource = (v: Value): string => lispValueSource(v, { maxItems: MAX_ITEMS });

/** The namespace as a record of re-readable source (`serializeNamespace`). */
export const namespaceSource = (ns: Namespace): Record<string, string> =>
  serializeNamespace(ns, { maxItems: MAX_ITEMS });

/**
 * Reads a namespace record back (`deserializeNamespace`) with the agent's tools known
 * (functions may call tools and refer to each other). An entry that does not read or
 * evaluate is dropped with a warning (entries that depend on it go too) rather than
 * failing the pass.
 */
export async function readNamespace(
  rec: Record<string, string>,
  warnings: Warning[],
  tools: readonly ToolDef[] = [],
): Promise<Namespace> {
  return deserializeNamespace(rec, {
    tools,
    onError: (name, e) =>
      warnings.push({
        code: 'namespace_entry_dropped',
        message: `${name} could not be kept for the next program: ${e.message}`,
      }),
  });
}

/** `*1 *2 *3` source → values (`*1` first). */
export async function readHistory(
  sources: readonly string[],
  warnings: Warning[],
  tools: readonly ToolDef[] = [],
): Promise<Value[]> {
  const rec: Record<string, string> = {};
  sources.forEach((s, i) => (rec[`h${i + 1}`] = s));
  const ns = await readNamespace(rec, warnings, tools);
  return sources.map((_, i) => ns.get(`h${i + 1}`) ?? null);
}

// ---------------------------------------------------------------- history truncation

/** Serialised size a `*1` value is cut to (reference: about 1 KB). */
export const HISTORY_VALUE_CHARS = 1024;

/**
 * A value cut to about `budget` printed characters: strings get `...`, collections keep
 * a prefix of their items (each cut in turn). Functions and small values are unchanged.
 */
export function truncateValue(v: Value, budget = HISTORY_VALUE_CHARS): Value {
  if (typeof v === 'string') return v.length > budget ? `${v.slice(0, Math.max(budget - 3, 0))}...` : v;
  if (v === null || typeof v !== 'object' || v instanceof FnValue || v instanceof Keyword || v instanceof Regex)
    return v;
  let printed: string;
  try {
    printed = valueSource(v);
  } catch {
    printed = '';
  }
  if (printed && printed.length <= budget) return v;
  const keep = <T>(xs: Iterable<T>, size: (x: T) => number, cut: (x: T, left: number) => T): T[] => {
    const out: T[] = [];
    let used = 2;
    for (const x of xs) {
      const left = budget - used;
      if (left <= 4) break;
      const n = size(x);
      if (n + 1 <= left) {
        out.push(x);
        used += n + 1;
      } else {
        out.push(cut(x, left));
        break;
      }
    }
    return out;
  };
  const itemSize = (x: Value) => {
    try {
      return valueSource(x).length;
    } catch {
      return budget;
    }
  };
  if (isMap(v)) {
    const entries = keep(
      [...v] as Array<[Value, Value]>,
      ([k, x]) => itemSize(k) + 1 + itemSize(x),
      ([k, x], left): [Value, Value] => [k, truncateValue(x, left - itemSize(k) - 1)],
    );
    return pmap(entries);
  }
  const seq = isVector(v) || isSet(v) || v instanceof PList || v instanceof LazySeq ? iterate(v as never) : null;
  if (!seq) return v;
  const items = keep(seq, itemSize, (x, left) => truncateValue(x, left));
  if (isSet(v)) return pset(items);
  if (isVector(v)) return vec(items);
  return list(items);
}
