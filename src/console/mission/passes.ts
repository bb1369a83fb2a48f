/**
 * What the model did in each pass of a mission, read from Temporal history: every program
 * it wrote (from the pass results, or the pass's suspended state), the model's whole
 * answer where history holds it, what each program printed, its result or error, the tool
 * calls it made and the effects it requested with their outcomes.
 *
 * Pass results record programs and results, not prints: the prints are those of the
 * programs run again on the recorded values (the audit's value replay, which also checks
 * that this run gives the recorded results; the page says when it does not). A pass still
 * running shows its suspended state's own trace.
 */
import type { Client } from '@temporalio/client';
import { fetchChain } from '../../history/fetch.ts';
import { type OpenPassRecord, type PassRecord, checkValueLinks } from '../../audit/mission/values.ts';
import { type PassReplay, answersInState, programCode, replayPasses } from '../../audit/mission/value-replay.ts';
import type { RunResult, ToolCallRecord } from '../../lisp/api.ts';
import { prStr } from '../../lisp/printer/index.ts';
import type { Value } from '../../lisp/values.ts';
import type { PackedState } from '../../navigator/state-packing.ts';
import type { TraceToolCall, TurnResult } from '../../navigator/pass-state.ts';
import { jsonOf, passError } from '../../navigator/turn.ts';
import type {
  DecisionContract,
  EffectResult,
  Json,
  PassOutcome,
  RecordedTurnResult,
} from '../../workflows/mission/contract.ts';
import { waitingDecision } from '../../kernel/contract.ts';

/** One tool call of a program; `effect` for an external call (the workflow ran it as its own activity). */
export interface CallView {
  tool: string;
  sideEffect: string;
  taskId: string | null;
  key: string;
  args: Json;
  result?: Json;
  error?: string;
}

/** What a program ended with, in words a page can show. */
export type ProgramEnd =
  | { kind: 'value'; text: string; recordedOnly?: true }
  | { kind: 'return' | 'fail' | 'invalid_return'; value?: Json }
  | { kind: 'error'; message: string }
  | { kind: 'waiting'; what: string }
  | { kind: 'unknown' };

export interface ProgramView {
  turn: number;
  /** null: left out of history for size */
  code: string | null;
  /** the model's whole answer, when history holds it (a pass that stopped at effects keeps it) */
  answer: string | null;
  /** null: not known (the program was not run again) */
  prints: string[] | null;
  calls: CallView[] | null;
  end: ProgramEnd;
  /** the decision key this program's return asked a person for */
  asksDecision?: string;
}

export interface EffectView {
  key: string;
  tool: string;
  taskId: string | null;
  args: Json;
  /** absent: no outcome yet (waiting for approval, or running) */
  outcome?: EffectResult;
  /** the turn whose program requested it, when known */
  turn?: number;
}

export interface PassView {
  pass: number;
  state: 'done' | 'open';
  outcome?: PassOutcome;
  tokens?: number;
  programs: ProgramView[];
  /** why programs are missing: written before programs were recorded */
  unrecorded?: true;
  effects: EffectView[];
  /** the check of a re-run (done passes): ok, failed with messages, or why it did not run */
  replay?: { status: PassReplay['status']; problems: string[] };
}

/** Every pass of mission `id` (its whole continue-as-new chain), oldest first. */
export async function missionPasses(client: Client, id: string): Promise<PassView[]> {
  const links = checkValueLinks(await fetchChain(client, id));
  const observed = new Map<string, RunResult>();
  const replay = await replayPasses(links.passes, links.effects, (p, prog, res) =>
    observed.set(`${p.pass}:${prog.turn}`, res),
  );
  const views = links.passes.map((p) =>
    donePass(
      p,
      observed,
      replay.passes.find((r) => r.pass === p.pass && r.runId === p.runId),
      replayProblems(replay.mismatches, p.pass),
    ),
  );
  if (links.open) views.push(openPass(links.open));
  return views;
}

const replayProblems = (mismatches: ReadonlyArray<{ message: string }>, pass: number) =>
  mismatches.map((m) => m.message).filter((m) => m.includes(`pass ${pass} `));

function donePass(
  p: PassRecord,
  observed: ReadonlyMap<string, RunResult>,
  replayed: PassReplay | undefined,
  problems: string[],
): PassView {
  const inState = answersInState(p);
  const trace = stateTrace(p.suspended);
  const recorded = p.done.programs;
  const programs = (recorded ?? []).map((r, i): ProgramView => {
    const res = observed.get(`${p.pass}:${r.turn}`);
    const t = trace[r.turn - 1];
    const last = i === recorded!.length - 1;
    const view: ProgramView = {
      turn: r.turn,
      code: programCode(r, inState) ?? null,
      answer: inState[r.turn - 1]?.response ?? null,
      prints: res?.prints ?? t?.prints ?? null,
      calls: res
        ? res.toolCalls.map((c) => callView(c, p.tools))
        : t
          ? t.toolCalls.map((c) => callView(c, p.tools))
          : null,
      end: res ? runEnd(res) : recordedEnd(r.result),
    };
    const asked = last && p.done.outcome.kind === 'return' ? askedDecision(p.done.outcome.value, p.decisions) : null;
    return asked ? { ...view, asksDecision: asked } : view;
  });
  const turnOf = turnsOfCalls(programs);
  return {
    pass: p.pass,
    state: 'done',
    outcome: p.done.outcome,
    tokens: p.done.tokens,
    programs,
    ...(recorded ? {} : { unrecorded: true as const }),
    effects: effectsOf(p, turnOf),
    ...(replayed ? { replay: { status: replayed.status, problems } } : {}),
  };
}

/** A pass still running (or cut off as history ends): its suspended state's trace. */
function openPass(p: OpenPassRecord): PassView {
  const answers = answersInState(p);
  const trace = stateTrace(p.suspended);
  const programs = trace.map((t, i): ProgramView => ({
    turn: t.turn,
    code: answers[i]?.program ?? null,
    answer: answers[i]?.response ?? null,
    // a program waiting for effects is run again when their results arrive: its prints are known then
    prints: t.result ? t.prints : null,
    calls: t.toolCalls.map((c) => callView(c, p.tools)),
    end: t.result
      ? traceEnd(t.result)
      : { kind: 'waiting', what: 'the results of its effects (what it prints is shown once it has finished)' },
  }));
  const turnOf = turnsOfCalls(programs);
  const last = programs[programs.length - 1]?.turn;
  // an effect not among any turn's calls yet is one the last (pending) program waits for
  return {
    pass: p.pass,
    state: 'open',
    programs,
    effects: effectsOf(p, turnOf).map((e) => (e.turn === undefined && last !== undefined ? { ...e, turn: last } : e)),
  };
}

interface StateTurn {
  turn: number;
  prints: string[];
  toolCalls: TraceToolCall[];
  result: TurnResult | null;
}

/** The turns of a suspended state, each with its own tool calls (packing may keep them once, pass-wide). */
function stateTrace(suspended: Json | null): StateTurn[] {
  const s = suspended as unknown as PackedState | null;
  if (!s?.trace) return [];
  const counts = s.packing?.turnCalls;
  let from = 0;
  return s.trace.map((t, i) => {
    const n = counts?.[i];
    const calls = n === undefined ? t.toolCalls : s.toolCalls.slice(from, (from += n));
    return { turn: t.turn, prints: t.prints ?? [], toolCalls: calls, result: t.result };
  });
}

const callView = (c: TraceToolCall | ToolCallRecord, tools: Record<string, string>): CallView => ({
  tool: c.tool,
  sideEffect: tools[c.tool] ?? 'unknown',
  taskId: c.taskId,
  key: c.idempotencyKey,
  args: c.args,
  ...(c.result !== undefined ? { result: c.result } : {}),
  ...(c.error !== undefined ? { error: c.error } : {}),
});

function turnsOfCalls(programs: readonly ProgramView[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of programs) for (const c of p.calls ?? []) if (!out.has(c.key)) out.set(c.key, p.turn);
  return out;
}

function effectsOf(p: OpenPassRecord, turnOf: ReadonlyMap<string, number>): EffectView[] {
  return [...p.requested].map(([key, r]) => {
    const outcome = p.outcomes.get(key)?.result;
    const turn = turnOf.get(key);
    return {
      key,
      tool: r.tool,
      taskId: r.taskId,
      args: r.args,
      ...(outcome ? { outcome } : {}),
      ...(turn !== undefined ? { turn } : {}),
    };
  });
}

/** The decision a pass's return waits for, as the workflow reads it (null: not a wait). */
function askedDecision(value: Json, decisions: DecisionContract[]): string | null {
  return waitingDecision(value, decisions);
}

function runEnd(res: RunResult): ProgramEnd {
  if (res.status === 'error') {
    const e = passError(res.error);
    return {
      kind: 'error',
      message: `${e.type}: ${e.message}${e.line ? ` (line ${e.line}, column ${e.column})` : ''}`,
    };
  }
  if (res.status === 'suspended') return { kind: 'waiting', what: 'the results of its effects' };
  if (res.status === 'fail') return { kind: 'fail', value: jsonOr(res.value) };
  if (res.returned) return { kind: 'return', value: jsonOr(res.value) };
  return { kind: 'value', text: prStr(res.value) };
}

/** A value as JSON, or its printed form when it has none (a function, a var). */
const jsonOr = (v: Value): Json => {
  const j = jsonOf(v);
  return j.ok ? j.value : prStr(v);
};

function recordedEnd(r: RecordedTurnResult | null): ProgramEnd {
  if (!r) return { kind: 'unknown' };
  if (r.status === 'ok') return { kind: 'value', text: r.value, recordedOnly: true };
  if (r.status === 'error') return { kind: 'error', message: r.error };
  return { kind: r.status };
}

function traceEnd(r: TurnResult): ProgramEnd {
  if (r.status === 'ok') return { kind: 'value', text: r.value };
  if (r.status === 'error' || r.status === 'no_code')
    return { kind: 'error', message: `${r.error.type}: ${r.error.message}` };
  return { kind: r.status, value: r.value };
}
