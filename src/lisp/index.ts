/**
 * PTC-Lisp: the sandboxed Clojure subset the Navigator's LLM writes.
 *
 * ```ts
 * import { run } from './lisp/index.ts';
 * const r = await run('(task "sum" (+ 1 2))', { journal: new Map() });
 * // r.status === 'ok', r.value === 3, r.journal → Map { 'sum' => 3 }
 * ```
 *
 * `run` chains reader → analyzer → evaluator. Evaluation is synchronous; asynchronous
 * tools are handled by deterministic re-execution (see `eval/index.ts`), and effects
 * the host runs elsewhere end the run with `status: 'suspended'`.
 * Semantics and deliberate differences: docs/language.md.
 * @module
 */
import { analyze } from './analyzer/index.ts';
import type { EffectRequest, Journal, Limits, Namespace, RunOptions, RunResult } from './api.ts';
import { PtcError, limitExceeded } from './errors.ts';
import { Evaluator, type CallEntry, type Outcome, type PendingEffect, type RunState } from './eval/index.ts';
import { type PrintOptions, valueSource } from './printer/index.ts';
import { read } from './reader/index.ts';
import type { ToolDef } from './tools.ts';
import { FnValue, type Value } from './values.ts';

export type {
  CallSite,
  EffectOptions,
  EffectRequest,
  Journal,
  Limits,
  Namespace,
  RunOptions,
  RunResult,
  ToolCallRecord,
  Warning,
} from './api.ts';
export { PtcError, ERROR_CODES, type ErrorCode, type LimitName } from './errors.ts';
export type { Json, ToolContext, ToolDef, SideEffectClass } from './tools.ts';
export type { Value } from './values.ts';
export { taskKey, callKey, errorText, resultToJson } from './eval/index.ts';

/** Limits used when {@link RunOptions.limits} leaves them out. */
export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  fuel: 1_000_000,
  timeoutMs: 5000,
  maxDepth: 512,
  maxCollectionSize: 1_000_000,
  maxOutputChars: 65_536,
  maxToolCalls: Infinity,
  maxRegexLength: 1000,
});

const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Runs one program. Never throws for anything the program does: every failure is a
 * `status: 'error'` result with a typed {@link PtcError}.
 */
export async function run(source: string, opts: RunOptions = {}): Promise<RunResult> {
  const t0 = performance.now();
  const limits: Limits = { ...DEFAULT_LIMITS, ...definedOnly(opts.limits ?? {}) };
  const journalIn: Journal | null = opts.journal ?? null;
  const summariesIn = opts.summaries ?? new Map<string, string>();
  const namespaceIn: Namespace = opts.namespace ?? new Map();
  const tools = new Map<string, ToolDef>((opts.tools ?? []).map((t) => [t.name, t]));

  const base = () => ({
    journal: journalIn === null ? null : new Map(journalIn),
    summaries: new Map(summariesIn),
    namespace: new Map(namespaceIn),
    prints: [] as string[],
    toolCalls: [],
    warnings: [],
    fuelUsed: 0,
    durationMs: performance.now() - t0,
  });

  let program;
  try {
    program = analyze(read(source), {
      source,
      globals: namespaceIn.keys(),
      tools,
      journal: journalIn,
      maxRegexLength: limits.maxRegexLength,
      ...(opts.dataNamespaces ? { dataNamespaces: opts.dataNamespaces } : {}),
    });
  } catch (e) {
    return { ...base(), status: 'error', error: asStaticError(e) };
  }

  const st: RunState = {
    program,
    limits,
    tools,
    context: opts.context ?? {},
    history: opts.history ?? [],
    runId: opts.effects?.runId ?? opts.runId ?? 'local',
    effects: opts.effects,
    journal: journalIn,
    summaries: summariesIn,
    namespace: namespaceIn,
    deadline: Date.now() + limits.timeoutMs,
    abort: new AbortController(),
    log: new Map(),
    ...(opts.onJournal ? { onJournal: opts.onJournal } : {}),
  };

  for (;;) {
    const ev = new Evaluator(st);
    const out: Outcome = ev.execute();
    if (ev.pendingCalls.length > 0) {
      const settled = await settle(ev.pendingCalls, st);
      if (!settled) {
        const error = limitExceeded(
          'timeout',
          `program exceeded the ${limits.timeoutMs} ms time limit while waiting for tools`,
        );
        return {
          ...common(ev, t0),
          toolCalls: [...ev.toolCalls, ...ev.pendingCalls.map((p) => ({ ...p.record, error: 'timeout' }))],
          summaries: new Map(summariesIn),
          namespace: new Map(namespaceIn),
          status: 'error',
          error,
        };
      }
      if (out.kind === 'suspend') continue;
    }
    switch (out.kind) {
      case 'suspend':
        if (ev.pendingEffects.length === 0) {
          // cannot happen: a suspension always carries a pending call or effect
          return {
            ...common(ev, t0),
            namespace: new Map(namespaceIn),
            status: 'error',
            error: new PtcError('tool_error', 'evaluation stopped without a pending tool call'),
          };
        }
        return {
          ...common(ev, t0),
          namespace: new Map(namespaceIn),
          status: 'suspended',
          effects: withCallText(ev.pendingEffects, source),
        };
      case 'ok':
        return { ...common(ev, t0), status: 'ok', value: out.value, returned: out.returned };
      case 'fail':
        return { ...common(ev, t0), namespace: new Map(namespaceIn), status: 'fail', value: out.value };
      case 'error':
        if (out.error.code === 'limit_exceeded' && out.error.details?.limit === 'timeout') st.abort.abort();
        return {
          ...common(ev, t0),
          summaries: new Map(summariesIn),
          namespace: new Map(namespaceIn),
          status: 'error',
          error: out.error,
        };
    }
  }
}

function common(ev: Evaluator, t0: number) {
  return {
    journal: ev.journal,
    summaries: ev.summaries,
    namespace: ev.namespace,
    prints: ev.prints,
    toolCalls: ev.toolCalls,
    warnings: ev.warnings,
    fuelUsed: ev.fuelUsed,
    durationMs: performance.now() - t0,
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Waits for every pending call, or until the deadline (then aborts them). */
async function settle(pending: CallEntry[], st: RunState): Promise<boolean> {
  const all = Promise.all(pending.map((p) => p.promise ?? Promise.resolve())).then(() => true);
  const remaining = st.deadline - Date.now();
  if (remaining > MAX_TIMER_MS) return all;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((res) => {
    timer = setTimeout(() => res(false), Math.max(remaining, 0));
  });
  const ok = await Promise.race([all, timeout]);
  clearTimeout(timer);
  if (!ok) st.abort.abort();
  return ok;
}

function asStaticError(e: unknown): PtcError {
  if (e instanceof PtcError) return e;
  if (e instanceof RangeError) return limitExceeded('depth', 'program is nested too deeply to analyze');
  return new PtcError('invalid_form', 'the program could not be analyzed', undefined, undefined, 'analyze');
}

// ---------------------------------------------------------------- namespace persistence

/**
 * The namespace as re-readable source, one entry per name: data as source that evaluates
 * to it (`{:a 1}`, lists as `(list 1 2)`; see `valueSource` in the printer), functions as
 * their source (`(let [y 1] (fn [x] (+ x y)))`, captured data written the same way).
 * @throws PtcError `limit_exceeded` when a collection has more than `maxItems` items
 *   (default 100 000), so an oversized value fails here rather than when read back
 */
export function serializeNamespace(ns: Namespace, options: PrintOptions = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, v] of ns) out[name] = v instanceof FnValue ? v.toSource() : valueSource(v, options);
  return out;
}

/** Options of {@link deserializeNamespace}. */
export interface DeserializeOptions {
  /** the tools the functions may call (checked as `run` checks them; unknown → `unknown_tool`) */
  tools?: readonly ToolDef[];
  /** limits for evaluating the entries (fuel is shared by all entries) */
  limits?: Partial<Limits>;
  /**
   * Called for an entry that does not read, analyze or evaluate, which is then left out
   * instead of failing the whole record; entries that refer to a left-out name are then
   * left out too (each reported once). Without it the first such entry throws.
   */
  onError?: (name: string, error: PtcError) => void;
  /**
   * Values already read from the same entries (same source, names and limits): taken as
   * they are, in the record's order, instead of read again (the sandbox keeps them per
   * thread). Every name still counts as defined for the entries that are read.
   */
  known?: ReadonlyMap<string, Value>;
}

/**
 * Reads back what {@link serializeNamespace} wrote. Each entry is read, analyzed (every
 * name of the record counts as defined, so functions may refer to each other; tool calls
 * are checked against `options.tools`) and evaluated.
 * @throws PtcError when an entry does not read or evaluate (unless `options.onError`)
 */
export async function deserializeNamespace(
  rec: Record<string, string>,
  options: DeserializeOptions = {},
): Promise<Namespace> {
  const limits: Limits = { ...DEFAULT_LIMITS, ...definedOnly(options.limits ?? {}) };
  const tools = new Map<string, ToolDef>((options.tools ?? []).map((t) => [t.name, t]));
  let names = Object.keys(rec);
  for (;;) {
    const ns: Namespace = new Map();
    const st: RunState = {
      program: { body: { kind: 'const', value: null, span: { offset: 0, length: 0, line: 1, col: 1 } }, frameSize: 0 },
      limits,
      tools,
      context: {},
      history: [],
      runId: 'local',
      journal: null,
      summaries: new Map(),
      namespace: ns,
      deadline: Date.now() + limits.timeoutMs,
      abort: new AbortController(),
      log: new Map(),
    };
    const ev = new Evaluator(st);
    const dropped = new Set<string>();
    for (const name of names) {
      const source = rec[name]!;
      let v: Value | undefined = options.known?.get(name);
      if (v !== undefined) {
        ev.namespace.set(name, v);
        ns.set(name, v);
        continue;
      }
      try {
        const program = analyze(read(source), { source, globals: names, tools, maxRegexLength: limits.maxRegexLength });
        v = ev.evalProgram(program);
      } catch (e) {
        const err = e instanceof PtcError ? e : new PtcError('type_error', 'entry could not be evaluated');
        if (!options.onError) {
          throw new PtcError(
            err.code,
            `namespace entry ${name}: ${err.message}`,
            err.span,
            err.hint,
            err.phase,
            err.details,
          );
        }
        options.onError(name, err);
        dropped.add(name);
        continue;
      }
      ev.namespace.set(name, v);
      ns.set(name, v);
    }
    if (dropped.size === 0) return ns;
    names = names.filter((n) => !dropped.has(n));
  }
}

/** Longest program line an effect request carries whole; a longer one is cut around the call, marked. */
const MAX_CALL_TEXT = 240;

/**
 * Each effect with the text of the program line it was asked for on (the evaluator knows
 * where the call is, not the source): what a person approving it reads.
 */
function withCallText(pending: readonly PendingEffect[], source: string): EffectRequest[] {
  const lines = source.split('\n');
  return pending.map(({ span, ...e }) => {
    const line = lines[span.line - 1] ?? '';
    if (line.length <= MAX_CALL_TEXT) return { ...e, call: { line: span.line, text: line.trim() } };
    const from = Math.max(0, span.col - 1 - 40);
    const to = Math.min(line.length, from + MAX_CALL_TEXT);
    return {
      ...e,
      call: {
        line: span.line,
        text: `${from > 0 ? '…' : ''}${line.slice(from, to).trim()}${to < line.length ? '…' : ''}`,
      },
    };
  });
}
