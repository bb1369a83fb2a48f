/**
 * A pass: one Navigator invocation, turns until `(return v)`, `(fail v)`, the turn limit
 * (with the last-expression fallback) or a budget stop. It is a step function over
 * JSON-serialisable {@link PassState}, so that it can stop at external effects, cross an
 * activity or process boundary, and continue:
 *
 * ```ts
 * let step = await startPass({ agent, input, journal, summaries, runId, model, effects: 'suspend' });
 * while (step.kind === 'effects') {
 *   const results = await runElsewhere(step.effects);           // { [effect.id]: {ok} | {error} }
 *   step = await resumePass({ agent, state: JSON.parse(JSON.stringify(step.state)), journal, effectResults: results, model });
 * }
 * // step.outcome, step.journalDelta, step.resets, step.summaries, step.trace, step.usage
 * ```
 *
 * `resumePass` re-runs the suspended program (no new LLM call) against the host journal
 * merged with this pass's own commits, with the effect results supplied; tasks committed
 * before the suspension are hits, and the effect calls get their results.
 */
import { run } from '../lisp/index.ts';
import type { EffectRequest, Journal, RunOptions, RunResult, ToolCallRecord, Warning } from '../lisp/api.ts';
import type { Json, ToolDef } from '../lisp/tools.ts';
import { type ChatModel, LlmError } from '../llm/model.ts';
import { type AnyAgent, InputError, effectToolsOf, parseInput, resolveDecisions } from './agent.ts';
import { cut, ednOfJson } from '../lisp/printer/edn.ts';
import type { ContextResult } from './prompt/firstMessage.ts';
import { extractCode, fencedProgram } from './extract.ts';
import { tryFallback } from './fallback.ts';
import {
  type EffectResult,
  PASS_STATE_VERSION,
  type PassError,
  type PassState,
  type PassUsage,
  type TurnKind,
  type TurnTrace,
  checkState,
  mergedJournal,
  namespaceSource,
  readHistory,
  readNamespace,
  recordJournalChanges,
  toJournal,
  truncateValue,
  valueSource,
} from './pass-state.ts';
import {
  errorFeedback,
  firstUserMessage,
  normalFeedback,
  renderError,
  returnFeedback,
  staticSystemPrompt,
  systemPrompt,
} from './prompt/index.ts';
import { zodTypeText } from './schema.ts';
import { DefinitionError } from './tool.ts';
import { failData, jsonOf, passError, shapeReturn, simpleError, traceCall, turnKind } from './turn.ts';
import { prStrLimited } from '../lisp/printer/index.ts';

export type JournalInput = Journal | ReadonlyArray<readonly [string, Json]> | Readonly<Record<string, Json>>;

/** How a pass ended, as the library returns it (the workflow's wire form is PassOutcome in workflows/mission/contract.ts). */
export interface PassEnd {
  status: 'return' | 'fail' | 'error';
  /** the returned (validated) value or the `fail` value */
  value?: Json;
  error?: PassError;
}

export interface StartPassOptions {
  agent: AnyAgent;
  /** the agent input (validated with the agent's input schema) */
  input: unknown;
  /** the host's journal; `null` runs without one (tasks uncached, `journal_inactive`) */
  journal: JournalInput | null | undefined;
  /** step-done summaries of earlier passes */
  summaries?: ReadonlyMap<string, string> | Readonly<Record<string, string>> | null;
  /** mixed into every idempotency key */
  runId: string;
  model: ChatModel;
  /** the previous pass ended in this error: shown to the model in the first message */
  lastError?: string | null;
  /** `suspend`: `external` tools become effects the host runs; `inline` (default) runs all */
  effects?: 'inline' | 'suspend';
  /** how programs are evaluated @default the interpreter's `run`, in this thread (see src/sandbox) */
  evaluate?: Evaluate;
  /** told what the pass is doing (a host shows it live, e.g. in heartbeat details) */
  onProgress?: (p: PassProgress) => void;
  /** result shapes learned from earlier calls, by tool: shown for tools without an `output` schema */
  toolShapes?: Readonly<Record<string, string>>;
  /**
   * A program to run as the first turn instead of asking the model: the one the previous
   * pass waited for a decision in (see waiting-programs.ts). It takes a turn of the budget;
   * when it does not end the pass, the model continues from it.
   */
  replay?: string;
}

/** Evaluates one program; `run` in-process, or `runSandboxed` in a thread stopped from outside. */
export type Evaluate = (source: string, options: RunOptions) => Promise<RunResult>;

export interface ResumePassOptions {
  agent: AnyAgent;
  state: PassState;
  /** the host's journal, without this pass's commits (the state carries those) */
  journal: JournalInput | null | undefined;
  /** results of this pass's effects by effect id (those of earlier resumes may be repeated) */
  effectResults: Readonly<Record<string, EffectResult>>;
  model: ChatModel;
  /** how programs are evaluated @default `run`, in this thread */
  evaluate?: Evaluate;
  onProgress?: (p: PassProgress) => void;
}

/** What a pass is doing: waiting for the model's answer on a turn, or running its program. */
export type PassProgress =
  | { phase: 'model'; turn: number; outputTokens?: number; /** the answer so far, while it streams */ text?: string }
  | { phase: 'program'; turn: number; /** the program it runs */ program?: string };

export interface PassEffects {
  kind: 'effects';
  /** external tool calls to run, each with its task id, validated args and idempotency key */
  effects: EffectRequest[];
  state: PassState;
  /** tools the pass ran itself so far (cumulative) */
  toolCalls: ToolCallRecord[];
  usage: PassUsage;
}

export interface PassDone {
  kind: 'done';
  outcome: PassEnd;
  /** commits of this pass in commit order (new or changed keys) */
  journalDelta: Array<[string, Json]>;
  /** keys removed by task-reset and not committed again */
  resets: string[];
  /** all summaries: those the pass started with plus its own */
  summaries: Record<string, string>;
  trace: TurnTrace[];
  usage: PassUsage;
  /** every tool call of the pass, inline ones and answered effects */
  toolCalls: ToolCallRecord[];
  /** where each step after a suspension starts in `toolCalls` (stepOfCall in pass-state.ts) */
  stepStarts: number[];
  warnings: Warning[];
}

export type PassStep = PassEffects | PassDone;

interface Ctx {
  agent: AnyAgent;
  host: Journal;
  model: ChatModel;
  staticPrompt: string;
  evaluate: Evaluate;
  progress: (p: PassProgress) => void;
}

const noProgress = (): void => undefined;

const summaryRecord = (s: StartPassOptions['summaries']): Record<string, string> =>
  !s ? {} : s instanceof Map ? Object.fromEntries(s) : { ...(s as Record<string, string>) };

const zeroUsage = (): PassUsage => ({ inputTokens: 0, outputTokens: 0, turns: 0, llmRequests: 0, fallbackUsed: false });

/** Starts a pass: builds the first message and runs turns until done or suspended. */
export async function startPass(o: StartPassOptions): Promise<PassStep> {
  const { agent } = o;
  const st: PassState = {
    v: PASS_STATE_VERSION,
    agent: agent.name,
    runId: o.runId,
    input: {},
    effects: o.effects ?? 'inline',
    journalActive: o.journal !== null,
    messages: [],
    turn: 0,
    namespace: {},
    history: [],
    summaries: summaryRecord(o.summaries),
    delta: [],
    resets: [],
    lastFail: null,
    fallback: null,
    pending: null,
    effectResults: {},
    toolCalls: [],
    trace: [],
    usage: zeroUsage(),
    warnings: [],
  };
  const ctx: Ctx = {
    agent,
    host: toJournal(o.journal),
    model: o.model,
    staticPrompt: staticSystemPrompt(),
    evaluate: o.evaluate ?? run,
    progress: o.onProgress ?? noProgress,
  };
  let first: string;
  try {
    const input = parseInput(agent, o.input) as Record<string, unknown>;
    st.input = JSON.parse(JSON.stringify(input)) as Record<string, Json>;
    const context = await readContext(ctx, input, st.runId);
    first = passOpening({
      agent,
      input: st.input,
      summaries: st.summaries,
      toolShapes: o.toolShapes,
      lastError: o.lastError,
      context,
    });
  } catch (e) {
    if (e instanceof InputError || e instanceof DefinitionError) {
      return done(st, {
        status: 'error',
        error: simpleError(e instanceof InputError ? 'invalid_input' : 'invalid_agent', e.message),
      });
    }
    throw e;
  }
  st.messages.push({ role: 'user', content: first });
  if (o.replay) {
    const step = await replayTurn(ctx, st, o.replay);
    if (step) return step;
  }
  return loop(ctx, st);
}

/** Runs a program the model wrote in an earlier pass as this pass's turn, without a model call. */
async function replayTurn(ctx: Ctx, st: PassState, code: string): Promise<PassStep | null> {
  const turn = st.turn + 1;
  const kind = turnKind(turn, ctx.agent.limits.maxTurns);
  st.turn = turn;
  st.usage.turns = turn;
  const response = fencedProgram(code);
  st.trace.push({
    turn,
    kind,
    response,
    program: code,
    result: null,
    prints: [],
    toolCalls: [],
    suspensions: 0,
    feedback: null,
    usage: { inputTokens: 0, outputTokens: 0 },
  });
  st.messages.push({ role: 'assistant', content: response });
  ctx.progress({ phase: 'program', turn, program: code });
  return execute(ctx, st, code, kind);
}

/**
 * The first user message of a pass, from the validated input and what the pass starts
 * with: a function of these alone, so a host that keeps them can rebuild it.
 */
export function passOpening(o: {
  agent: AnyAgent;
  input: Record<string, Json>;
  summaries: Readonly<Record<string, string>>;
  toolShapes?: Readonly<Record<string, string>>;
  lastError?: string | null;
  /** the agent's context reads as this pass made them (a host rebuilding the opening has none: the state then keeps the message) */
  context?: readonly ContextResult[];
}): string {
  const first = firstUserMessage({
    agent: o.agent,
    input: o.input,
    decisions: resolveDecisions(o.agent, o.input),
    summaries: o.summaries,
    toolShapes: o.toolShapes,
    context: o.context,
  });
  return o.lastError ? `${first}\n\n${previousError(o.lastError)}` : first;
}

/**
 * The agent's context reads (AgentSpec.contextReads), made before the first turn: each a
 * one-call program of its read-only tool, evaluated as the pass's programs are; what it
 * returned (or its error) goes into the first message.
 */
async function readContext(ctx: Ctx, input: Record<string, unknown>, runId: string): Promise<ContextResult[]> {
  const reads = ctx.agent.contextReads ?? [];
  const out: ContextResult[] = [];
  for (const r of reads) {
    let call = `(tool/${r.tool})`;
    try {
      const args = (typeof r.args === 'function' ? r.args(input) : r.args) ?? {};
      call = Object.keys(args).length ? `(tool/${r.tool} ${ednOfJson(args as Json, { keywordKeys: true })})` : call;
      const { limits } = ctx.agent;
      const res = await ctx.evaluate(call, {
        tools: [...ctx.agent.tools] as ToolDef[],
        journal: null,
        limits: { timeoutMs: limits.timeoutMs, fuel: limits.fuel, maxToolCalls: 1 },
        runId,
      });
      out.push(
        res.status === 'ok'
          ? { call, value: prStrLimited(res.value, 200_000) }
          : {
              call,
              error: res.status === 'error' ? renderError(passError(res.error)).replace(/^Error: /, '') : res.status,
            },
      );
    } catch (e) {
      out.push({ call, error: e instanceof Error ? e.message : String(e) });
    }
  }
  return out;
}

/** The first-message section telling the model the previous pass ended in an error. */
export function previousError(message: string): string {
  return [
    '## Previous pass',
    'The previous pass of this mission ended in an error:',
    renderError({ message }),
    'Tasks it completed are in the Mission Log and are not run again. Continue from there and avoid the error.',
  ].join('\n');
}

/** Continues a suspended pass with the results of its effects. */
export async function resumePass(o: ResumePassOptions): Promise<PassStep> {
  // a private copy: the caller's state object is never changed
  const st = checkState(JSON.parse(JSON.stringify(o.state)) as unknown, o.agent.name);
  for (const [id, r] of Object.entries(o.effectResults ?? {})) st.effectResults[id] = r;
  const ctx: Ctx = {
    agent: o.agent,
    host: toJournal(o.journal),
    model: o.model,
    staticPrompt: staticSystemPrompt(),
    evaluate: o.evaluate ?? run,
    progress: o.onProgress ?? noProgress,
  };
  const pending = st.pending!;
  ctx.progress({ phase: 'program', turn: st.turn, program: pending.code });
  const step = await execute(ctx, st, pending.code, pending.turnKind);
  return step ?? loop(ctx, st);
}

// ---------------------------------------------------------------- the loop

async function loop(ctx: Ctx, st: PassState): Promise<PassStep> {
  const { maxTurns, retryTurns, maxTokens } = ctx.agent.limits;
  for (;;) {
    if (st.turn >= maxTurns + retryTurns) return exhausted(ctx, st);
    const used = st.usage.inputTokens + st.usage.outputTokens;
    if (maxTokens !== undefined && used >= maxTokens) {
      return done(st, {
        status: 'error',
        error: simpleError('token_budget_exceeded', `the pass used ${used} tokens, its budget is ${maxTokens}`),
      });
    }
    const turn = st.turn + 1;
    const kind = turnKind(turn, maxTurns);
    const system = systemPrompt(ctx.staticPrompt, st.journalActive ? mergedJournal(ctx.host, st) : null);
    let answer: { text: string; usage: { inputTokens: number; outputTokens: number } };
    try {
      ctx.progress({ phase: 'model', turn });
      answer = await ctx.model.generate({
        system,
        messages: st.messages,
        onProgress: (outputTokens, text) =>
          ctx.progress({ phase: 'model', turn, outputTokens, ...(text !== undefined ? { text } : {}) }),
      });
    } catch (e) {
      // a transport failure (network, 5xx, 429, timeout) is not the program's fault: the
      // host retries the pass; only a failure no retry can mend ends it in an error
      if (e instanceof LlmError && e.retryable) throw e;
      const message = e instanceof Error ? e.message : String(e);
      return done(st, {
        status: 'error',
        error: simpleError('llm_error', `LLM call failed (${ctx.model.id}): ${message}`),
      });
    }
    st.turn = turn;
    st.usage.turns = turn;
    st.usage.llmRequests++;
    st.usage.inputTokens += answer.usage.inputTokens;
    st.usage.outputTokens += answer.usage.outputTokens;
    const trace: TurnTrace = {
      turn,
      kind,
      response: answer.text,
      program: null,
      result: null,
      prints: [],
      toolCalls: [],
      suspensions: 0,
      feedback: null,
      usage: { inputTokens: answer.usage.inputTokens, outputTokens: answer.usage.outputTokens },
    };
    st.trace.push(trace);
    const ex = extractCode(answer.text);
    if (!ex.ok) {
      st.messages.push({ role: 'assistant', content: cut(answer.text.trim() || '(empty answer)', 2000) });
      const error = simpleError(ex.reason === 'no_code' ? 'no_code' : 'multiple_code_blocks', ex.message);
      trace.result = { status: 'no_code', error };
      feedback(ctx, st, errorFeedback({ error, ...counts(ctx, st) }));
      continue;
    }
    trace.program = ex.code;
    st.messages.push({ role: 'assistant', content: fencedProgram(ex.code) });
    ctx.progress({ phase: 'program', turn, program: ex.code });
    const step = await execute(ctx, st, ex.code, kind);
    if (step) return step;
  }
}

const counts = (ctx: Ctx, st: PassState) => ({
  next: st.turn + 1,
  maxTurns: ctx.agent.limits.maxTurns,
  retryTurns: ctx.agent.limits.retryTurns,
});

/** Sends feedback when another turn follows (after the last turn there is nobody to read it). */
function feedback(ctx: Ctx, st: PassState, text: string): void {
  if (st.turn >= ctx.agent.limits.maxTurns + ctx.agent.limits.retryTurns) return;
  st.messages.push({ role: 'user', content: text });
  st.trace[st.trace.length - 1]!.feedback = text;
}

/**
 * Results of the inline tool calls that succeeded while this program was evaluated
 * before, by idempotency key: when it is evaluated again after its effects, reads answer
 * from here instead of running again (a read whose answer changed could send the program
 * down another branch mid-pass). A new turn's program runs its reads anew.
 */
function inlineResultsOf(calls: readonly ToolCallRecord[], effects: ReadonlySet<string>): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const c of calls) if (c.result !== undefined && !effects.has(c.tool)) out.set(c.idempotencyKey, c.result);
  return out;
}

function addWarnings(st: PassState, ws: readonly Warning[]): void {
  for (const w of ws) {
    if (!st.warnings.some((x) => x.code === w.code && x.message === w.message))
      st.warnings.push({ code: w.code, message: w.message });
  }
}

/**
 * Runs (or re-runs) the program of the current turn. Returns a step when the pass stops
 * (effects or done), `null` when the loop goes on to the next turn.
 */
async function execute(ctx: Ctx, st: PassState, code: string, kind: TurnKind): Promise<PassStep | null> {
  const { agent } = ctx;
  const trace = st.trace[st.trace.length - 1]!;
  const before = st.journalActive ? mergedJournal(ctx.host, st) : null;
  const warnings: Warning[] = [];
  const tools = [...agent.tools] as ToolDef[];
  const namespace = await readNamespace(st.namespace, warnings, tools);
  const history = await readHistory(st.history, warnings, tools);
  addWarnings(st, warnings);
  const okResults = new Map<string, Json>();
  const errors = new Map<string, string>();
  for (const [id, r] of Object.entries(st.effectResults)) {
    if ('ok' in r) okResults.set(id, r.ok);
    else errors.set(id, r.error);
  }
  const resuming = st.pending?.code === code;
  const callsFrom = resuming ? (st.pending!.callsFrom ?? st.toolCalls.length) : st.toolCalls.length;
  const effects = effectToolsOf({ tools: agent.tools, approvals: agent.approvals ?? {} });
  const inlineResults = resuming ? inlineResultsOf(st.toolCalls.slice(callsFrom), effects) : new Map<string, Json>();
  const res = await ctx.evaluate(code, {
    context: { ...st.input, ...(st.lastFail !== null ? { fail: st.lastFail } : {}) },
    tools,
    journal: before ? new Map(before) : null,
    summaries: new Map(Object.entries(st.summaries)),
    namespace,
    history,
    limits: {
      timeoutMs: agent.limits.timeoutMs,
      fuel: agent.limits.fuel,
      maxToolCalls: agent.limits.maxToolCalls ?? Infinity,
    },
    runId: st.runId,
    ...(st.effects === 'suspend'
      ? {
          effects: {
            runId: st.runId,
            isEffect: (t: ToolDef) => effects.has(t.name),
            results: okResults,
            errors,
            inlineResults,
          },
        }
      : {}),
  });
  if (before) recordJournalChanges(st, before, res.journal);
  addWarnings(st, res.warnings);

  // inline calls really ran (again, when a program is re-run); an effect answered from
  // its result is recorded once, however often the program is re-run
  const calls = res.toolCalls.filter(
    (c) => !st.toolCalls.some((x) => x.idempotencyKey === c.idempotencyKey && x.tool === c.tool),
  );
  st.toolCalls.push(...calls);
  trace.toolCalls.push(...calls.map(traceCall));

  if (res.status === 'suspended') {
    trace.suspensions++;
    st.stepStarts = [...(st.stepStarts ?? []), st.toolCalls.length];
    st.pending = { code, turnKind: kind, effects: res.effects, callsFrom };
    return { kind: 'effects', effects: res.effects, state: st, toolCalls: [...st.toolCalls], usage: { ...st.usage } };
  }

  st.pending = null;
  trace.prints = res.prints;

  switch (res.status) {
    case 'error':
      return errorTurn(ctx, st, passError(res.error), res.prints);
    case 'fail': {
      const j = jsonOf(res.value);
      const value: Json = j.ok ? j.value : prStrLimited(res.value, 2000);
      trace.result = { status: 'fail', value };
      return done(st, { status: 'fail', value });
    }
    case 'ok': {
      if (res.returned) {
        const shaped = shapeReturn(agent, res.value);
        if (shaped.ok) {
          st.summaries = Object.fromEntries(res.summaries);
          trace.result = { status: 'return', value: shaped.value };
          return done(st, { status: 'return', value: shaped.value });
        }
        // rejected: costs the turn; memory and journal stay, summaries are dropped
        keepNamespace(st, res.namespace);
        trace.result = { status: 'invalid_return', value: shaped.value, problems: shaped.problems };
        feedback(
          ctx,
          st,
          returnFeedback({
            expected: zodTypeText(agent.output),
            received: shaped.value,
            problems: shaped.problems,
            ...counts(ctx, st),
          }),
        );
        return null;
      }
      keepNamespace(st, res.namespace);
      st.summaries = Object.fromEntries(res.summaries);
      try {
        st.history = [valueSource(truncateValue(res.value)), ...st.history].slice(0, 3);
      } catch {
        st.history = ['nil', ...st.history].slice(0, 3);
      }
      if (res.value !== null) {
        const j = jsonOf(res.value);
        if (j.ok) st.fallback = { value: j.value };
      }
      st.lastFail = null;
      trace.result = { status: 'ok', value: prStrLimited(res.value, 200) };
      feedback(
        ctx,
        st,
        normalFeedback({
          prints: res.prints,
          stored: Object.keys(st.namespace),
          checklist: agent.checklist,
          summaries: st.summaries,
          ...counts(ctx, st),
        }),
      );
      return null;
    }
  }
}

function keepNamespace(st: PassState, ns: Parameters<typeof namespaceSource>[0]): void {
  try {
    st.namespace = namespaceSource(ns);
  } catch (e) {
    addWarnings(st, [
      { code: 'namespace_not_kept', message: `definitions of this turn could not be kept: ${(e as Error).message}` },
    ]);
  }
}

function errorTurn(ctx: Ctx, st: PassState, error: PassError, prints: readonly string[]): null {
  const trace = st.trace[st.trace.length - 1]!;
  trace.result = { status: 'error', error };
  st.lastFail = failData(error);
  feedback(ctx, st, errorFeedback({ error, prints, ...counts(ctx, st) }));
  return null;
}

function exhausted(ctx: Ctx, st: PassState): PassDone {
  const fb = tryFallback(ctx.agent, st);
  if (fb.ok) {
    st.usage.fallbackUsed = true;
    addWarnings(st, [
      { code: 'fallback_used', message: 'the turns ran out; the value of the last turn was taken as the result' },
    ]);
    return done(st, { status: 'return', value: fb.value });
  }
  const { maxTurns, retryTurns } = ctx.agent.limits;
  const more = retryTurns ? ` (and ${retryTurns} retry ${retryTurns === 1 ? 'turn' : 'turns'})` : '';
  // the turns ran out, but why: the last turn's own error names the cause (a tool's refusal, a limit)
  const last = st.trace.at(-1)?.result;
  if (last?.status === 'error' && endsWithCause(last.error)) {
    // a limit or a program the analyzer refused: that is the pass's error, not the turn count
    const { type, message, line, column, hint } = last.error;
    return done(st, {
      status: 'error',
      error: { type, message: `${message} (in turn ${st.turn}, the last of ${maxTurns}${more})`, line, column, hint },
    });
  }
  const cause = last?.status === 'error' ? `; the last turn ended in ${last.error.type}: ${last.error.message}` : '';
  return done(st, {
    status: 'error',
    error: simpleError(
      'max_turns_exceeded',
      `Exceeded max_turns limit of ${maxTurns}${more}${cause}`,
      `no result: ${fb.why}`,
    ),
  });
}

/**
 * Errors that say why a program could not run at all: a limit it hit (fuel, depth, time,
 * size) or the analyzer's refusal before it ran. A pass whose last turn ended in one ends
 * with that error (history, status and the mission's failure name it).
 */
export const CAUSE_ERRORS: ReadonlySet<string> = new Set([
  'limit_exceeded',
  'parse_error',
  'invalid_form',
  'invalid_arity',
  'invalid_placeholder',
  'invalid_where_form',
  'invalid_where_operator',
  'invalid_cond_form',
  'unbound_var',
  'unknown_tool',
  'unknown_namespace',
  'cannot_shadow_builtin',
]);

const endsWithCause = (e: PassError): boolean => CAUSE_ERRORS.has(e.type);

function done(st: PassState, outcome: PassEnd): PassDone {
  st.pending = null;
  return {
    kind: 'done',
    outcome,
    journalDelta: st.delta.map(([k, v]) => [k, v]),
    resets: [...st.resets],
    summaries: { ...st.summaries },
    trace: st.trace,
    usage: { ...st.usage },
    toolCalls: st.toolCalls,
    stepStarts: st.stepStarts ?? [],
    warnings: st.warnings,
  };
}
