/**
 * Value replay: PTC-Lisp is deterministic, so the audit runs every program a pass
 * recorded again, in turn order, as the pass ran them (src/navigator/pass.ts): on the
 * journal rebuilt from history, with the pass's namespace, `*1 *2 *3` and `data/fail`
 * carried from program to program, and every tool answered from the value history
 * recorded for its idempotency key (never called). The pass must then have requested
 * exactly the effects history shows it requested, with the same args, committed the same
 * journal entries and returned the same value.
 */
import { run } from '../../lisp/index.ts';
import type { Journal, RunResult } from '../../lisp/api.ts';
import type { KeyShape } from '../../lisp/json.ts';
import type { ToolDef } from '../../lisp/tools.ts';
import { prStrLimited } from '../../lisp/printer/index.ts';
import type { Value } from '../../lisp/values.ts';
import { z } from 'zod';
import {
  type PassState,
  mergedJournal,
  namespaceSource,
  readHistory,
  readNamespace,
  recordJournalChanges,
  truncateValue,
  valueSource,
} from '../../navigator/pass-state.ts';
import { type PackedState, turnAnswers } from '../../navigator/state-packing.ts';
import { failData, jsonOf, passError } from '../../navigator/turn.ts';
import type { Json, RecordedProgram } from '../../workflows/mission/contract.ts';
import {
  type PassRecord,
  type RecordedEffect,
  type ValueMismatch,
  type ValueSide,
  effectWhat,
  mismatch,
  same,
} from './values.ts';

export interface PassReplay {
  pass: number;
  runId: string;
  eventId: number;
  /**
   * `ok`: re-derived; `failed`; `not recorded` (history written before programs were);
   * `cut` (a program was left out for size); `limit` (a program stopped at a limit of the
   * agent's, fuel or time, which history does not hold: not replayed)
   */
  status: 'ok' | 'failed' | 'not recorded' | 'cut' | 'limit';
  programs: number;
}

export interface ValueReplay {
  ok: boolean;
  passes: PassReplay[];
  mismatches: ValueMismatch[];
}

/** Limits of a replayed program: generous, the pass's own limits are not in history. */
const REPLAY_LIMITS = { fuel: 50_000_000, timeoutMs: 60_000, maxToolCalls: Infinity };

/** What a replayed program did (prints, tool calls), for a reader of the pass (the console's pass view). */
export type ProgramObserver = (pass: PassRecord, program: RecordedProgram & { code: string }, res: RunResult) => void;

export async function replayPasses(
  passes: PassRecord[],
  effects: Map<string, RecordedEffect>,
  observe?: ProgramObserver,
): Promise<ValueReplay> {
  const out: PassReplay[] = [];
  const mismatches: ValueMismatch[] = [];
  for (const p of passes) {
    const r = await replayPass(p, effects, observe);
    out.push({ pass: p.pass, runId: p.runId, eventId: p.doneEventId, status: r.status, programs: r.programs });
    mismatches.push(...r.mismatches);
  }
  return { ok: mismatches.length === 0, passes: out, mismatches };
}

interface Replayed {
  status: PassReplay['status'];
  programs: number;
  mismatches: ValueMismatch[];
}

/** The programs of a pass with their code: from its result, or from its suspended state in history. */
function programsOf(p: PassRecord): Array<RecordedProgram & { code: string }> | 'not recorded' | 'cut' | 'limit' {
  const recorded = p.done.programs;
  if (!recorded) return 'not recorded';
  if (
    recorded.some(
      (r) => r.result?.status === 'error' && /^(limit_exceeded|tool_call_limit_exceeded):/.test(r.result.error),
    )
  )
    return 'limit';
  const inState = answersInState(p);
  const out: Array<RecordedProgram & { code: string }> = [];
  for (const r of recorded) {
    const code = programCode(r, inState);
    if (code === undefined) return 'cut';
    out.push({ ...r, code });
  }
  return out;
}

/** Each turn's model answer and program held by the pass's last suspended state (none when it never suspended). */
export const answersInState = (p: Pick<PassRecord, 'suspended'>) =>
  p.suspended ? turnAnswers(p.suspended as unknown as PackedState) : [];

/** A recorded program's code: in the pass result, else in its suspended state; undefined when left out for size. */
export const programCode = (r: RecordedProgram, inState: ReturnType<typeof answersInState>): string | undefined =>
  r.code ?? (r.cut ? undefined : (inState[r.turn - 1]?.program ?? undefined));

async function replayPass(
  p: PassRecord,
  latest: Map<string, RecordedEffect>,
  observe?: ProgramObserver,
): Promise<Replayed> {
  // what the pass's own effects gave wins over a later pass's outcome for the same key
  const effects = new Map([...latest, ...(p.outcomes ?? [])]);
  const programs = programsOf(p);
  if (!Array.isArray(programs)) return { status: programs, programs: 0, mismatches: [] };
  const doneSide = (what: string, value: Json): ValueSide => ({
    runId: p.runId,
    eventId: p.doneEventId,
    what: `pass ${p.pass} ${what}`,
    value,
  });
  const replaySide = (what: string, value: Json): ValueSide => ({
    runId: p.runId,
    eventId: p.startEventId,
    what: `replay of pass ${p.pass} (from event ${p.startEventId}, journal version ${p.journalVersion}) ${what}`,
    value,
  });
  const found: ValueMismatch[] = [];
  const tools = stubTools(p, effects);
  const st: Pick<PassState, 'delta' | 'resets'> = { delta: [], resets: [] };
  const host: Journal = new Map(p.journal);
  let namespace: Record<string, string> = {};
  let history: string[] = [];
  let summaries = { ...p.summaries };
  let lastFail: Json = null;
  const okResults = new Map<string, Json>();
  const errors = new Map<string, string>();
  for (const [key, e] of effects) {
    if ('ok' in e.result) okResults.set(key, e.result.ok);
    else errors.set(key, e.result.error);
  }
  const external = new Map<string, { tool: string; args: Json; taskId: string | null }>();
  const effectTools = new Set(p.effects);
  let last: RunResult | null = null;
  for (const prog of programs) {
    const before = mergedJournal(host, st);
    const warnings: Array<{ code: string; message: string }> = [];
    const res = await run(prog.code, {
      context: { ...(p.input as Record<string, Json>), ...(lastFail !== null ? { fail: lastFail } : {}) },
      tools,
      journal: new Map(before),
      summaries: new Map(Object.entries(summaries)),
      namespace: await readNamespace(namespace, warnings, tools),
      history: await readHistory(history, warnings, tools),
      limits: REPLAY_LIMITS,
      runId: p.keyRunId,
      effects: { runId: p.keyRunId, isEffect: (t) => effectTools.has(t.name), results: okResults, errors },
    });
    last = res;
    observe?.(p, prog, res);
    recordJournalChanges(st as PassState, before, res.journal);
    for (const c of res.toolCalls)
      if (effectTools.has(c.tool)) external.set(c.idempotencyKey, { tool: c.tool, args: c.args, taskId: c.taskId });
    if (res.status === 'suspended') {
      for (const e of res.effects) external.set(e.idempotencyKey, { tool: e.tool, args: e.args, taskId: e.taskId });
      break;
    }
    const mine = resultOf(res);
    if (prog.result && !sameResult(prog.result, mine)) {
      found.push(
        mismatch(
          'replay',
          doneSide(`turn ${prog.turn} program gave`, prog.result as Json),
          replaySide(`turn ${prog.turn} gives`, mine as Json),
        ),
      );
      break;
    }
    if (res.status === 'error') lastFail = failData(passError(res.error));
    // as the pass: a return keeps its summaries (one the output schema refused drops them)
    if (res.status === 'ok' && res.returned && prog.result?.status !== 'invalid_return')
      summaries = Object.fromEntries(res.summaries);
    if (res.status === 'ok' && res.returned && prog.result?.status === 'invalid_return')
      namespace = namespaceSource(res.namespace);
    if (res.status === 'ok' && !res.returned) {
      namespace = namespaceSource(res.namespace);
      summaries = Object.fromEntries(res.summaries);
      history = [valueSource(truncateValue(res.value)), ...history].slice(0, 3);
      lastFail = null;
    }
  }
  found.push(...checkEffects(p, external, doneSide, replaySide));
  if (found.length === 0) found.push(...checkEnd(p, { ...st, summaries }, last, effects, doneSide, replaySide));
  return { status: found.length ? 'failed' : 'ok', programs: programs.length, mismatches: found };
}

type ReplayResult = { status: string; value?: Json; error?: string };

function resultOf(res: RunResult): ReplayResult {
  if (res.status === 'error') {
    const e = passError(res.error);
    return { status: 'error', error: `${e.type}: ${e.message}`.slice(0, 300) };
  }
  if (res.status === 'fail') return { status: 'fail', value: jsonValue(res.value) };
  if (res.status === 'ok' && res.returned) return { status: 'return', value: jsonValue(res.value) };
  if (res.status === 'ok') return { status: 'ok', value: prStrLimited(res.value, 200) };
  return { status: res.status };
}

const jsonValue = (v: Value): Json => {
  const j = jsonOf(v);
  return j.ok ? j.value : prStrLimited(v, 2000);
};

function sameResult(recorded: NonNullable<RecordedProgram['result']>, mine: ReplayResult): boolean {
  if (recorded.status === 'invalid_return') return mine.status === 'return';
  if (recorded.status !== mine.status) return false;
  if (recorded.status === 'ok') return recorded.value === mine.value;
  if (recorded.status === 'error') return recorded.error === mine.error;
  return true;
}

/** The effects the replay requested are exactly those the pass requested, with the same args. */
function checkEffects(
  p: PassRecord,
  external: Map<string, { tool: string; args: Json; taskId: string | null }>,
  doneSide: (what: string, value: Json) => ValueSide,
  replaySide: (what: string, value: Json) => ValueSide,
): ValueMismatch[] {
  const out: ValueMismatch[] = [];
  for (const [key, mine] of external) {
    const asked = p.requested.get(key);
    const value = { tool: mine.tool, taskId: mine.taskId, args: mine.args };
    if (!asked) {
      const other = [...p.requested.values()].find((r) => r.tool === mine.tool && r.taskId === mine.taskId);
      const side: ValueSide = other
        ? {
            runId: other.runId,
            eventId: other.eventId,
            what: `pass ${p.pass} requested ${other.tool}`,
            value: { tool: other.tool, taskId: other.taskId, args: other.args },
          }
        : doneSide(
            'requested effects',
            [...p.requested.values()].map((r) => ({ tool: r.tool, taskId: r.taskId, args: r.args })),
          );
      out.push(
        mismatch(
          'replay',
          side,
          replaySide(`requests ${mine.tool}`, value),
          'the replay requests an effect the pass did not',
        ),
      );
      continue;
    }
    const recorded = { tool: asked.tool, taskId: asked.taskId, args: asked.args };
    if (!same(recorded, value))
      out.push(
        mismatch(
          'replay',
          {
            runId: asked.runId,
            eventId: asked.eventId,
            what: `pass ${p.pass} requested ${asked.tool}`,
            value: recorded,
          },
          replaySide(`requests ${mine.tool}`, value),
        ),
      );
  }
  for (const [key, asked] of p.requested) {
    if (external.has(key)) continue;
    out.push(
      mismatch(
        'replay',
        {
          runId: asked.runId,
          eventId: asked.eventId,
          what: `pass ${p.pass} requested ${asked.tool}`,
          value: { tool: asked.tool, taskId: asked.taskId, args: asked.args },
        },
        replaySide('requests', null),
        'the replay does not request this effect',
      ),
    );
  }
  return out;
}

/** The replay commits what the pass committed and returns what it returned. */
function checkEnd(
  p: PassRecord,
  st: Pick<PassState, 'delta' | 'resets' | 'summaries'>,
  last: RunResult | null,
  effects: Map<string, RecordedEffect>,
  doneSide: (what: string, value: Json) => ValueSide,
  replaySide: (what: string, value: Json) => ValueSide,
): ValueMismatch[] {
  const out: ValueMismatch[] = [];
  const recorded = new Map(p.done.journalDelta);
  const mine = new Map(st.delta);
  for (const key of new Set([...recorded.keys(), ...mine.keys()])) {
    if (recorded.has(key) && mine.has(key) && same(recorded.get(key), mine.get(key))) continue;
    // a task whose value came from an effect: the replay's side is that effect's result event
    const source = [...p.requested.entries()].find(([, r]) => r.taskId === key);
    const effect = source ? effects.get(source[0]) : undefined;
    const theirs = effect
      ? {
          runId: effect.runId,
          eventId: effect.eventId,
          what: `${effectWhat(effect)}, which the replay of pass ${p.pass} commits as ${key}`,
          value: mine.get(key) ?? null,
        }
      : replaySide(`commits ${key}`, mine.get(key) ?? null);
    out.push(
      mismatch(
        'replay',
        doneSide(`committed ${key}`, recorded.get(key) ?? null),
        theirs,
        mine.has(key) ? (recorded.has(key) ? 'differ' : 'the pass did not commit it') : 'the replay does not commit it',
      ),
    );
  }
  if (!same(p.done.summaries, st.summaries))
    out.push(mismatch('replay', doneSide('summaries', p.done.summaries), replaySide('summaries', st.summaries)));
  const o = p.done.outcome;
  if (last && (o.kind === 'return' || o.kind === 'fail')) {
    const r = resultOf(last);
    if (r.status !== o.kind && !(o.kind === 'return' && r.status === 'return')) {
      out.push(
        mismatch(
          'replay',
          doneSide(`ended with ${o.kind}`, o.value),
          replaySide(`ends with ${r.status}`, r.value ?? r.error ?? null),
        ),
      );
    } else if (!sameValue(o.value, r.value ?? null)) {
      out.push(
        mismatch(
          'replay',
          doneSide(`${o.kind === 'return' ? 'returned' : 'failed with'}`, o.value),
          replaySide(o.kind === 'return' ? 'returns' : 'fails with', r.value ?? null),
        ),
      );
    }
  }
  return out;
}

/** Equal up to the `-`/`_` spelling of map keys, which a pass adapts to its output schema. */
function sameValue(a: Json, b: Json): boolean {
  const norm = (v: Json): Json =>
    Array.isArray(v)
      ? v.map(norm)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k.replaceAll('-', '_'), norm(x)]))
        : v;
  return same(norm(a), norm(b));
}

/**
 * The pass's tools, answering from history: an inline call from the result the pass
 * recorded for its idempotency key, an effect from its `runTool` result or, as the workflow
 * did, from the ledger a resumed mission carried in (`effects` holds both, src/audit/mission/values.ts). The key spellings
 * of their args are those of the args history recorded (the tools' schemas are not in it).
 */
function stubTools(p: PassRecord, effects: Map<string, RecordedEffect>): ToolDef[] {
  const inline = new Map(p.done.toolCalls.map((c) => [c.idempotencyKey, c]));
  const shapes = new Map<string, KeyShape>();
  for (const r of p.requested.values()) shapes.set(r.tool, mergeShape(shapes.get(r.tool), r.args));
  return Object.entries(p.tools).map(([name, sideEffect]) => ({
    name,
    description: `${name} as recorded in history`,
    input: z.any(),
    sideEffect,
    keyShape: shapes.get(name) ?? null,
    handler: (_args: unknown, ctx: { idempotencyKey: string }) => {
      const call = inline.get(ctx.idempotencyKey);
      if (call?.error !== undefined) throw new Error(call.error);
      if (call) return call.result ?? null;
      const effect = effects.get(ctx.idempotencyKey);
      if (effect && 'ok' in effect.result) return effect.result.ok;
      throw new Error(`history records no result of ${name} for this call (key ${ctx.idempotencyKey.slice(0, 12)}…)`);
    },
  }));
}

function mergeShape(shape: KeyShape | undefined, args: Json): KeyShape {
  const out: KeyShape = shape ?? { keys: new Set(), fields: new Map() };
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return out;
  for (const [k, v] of Object.entries(args)) {
    out.keys.add(k);
    const inner = Array.isArray(v) ? v.find((x) => x !== null && typeof x === 'object' && !Array.isArray(x)) : v;
    if (inner !== null && typeof inner === 'object' && !Array.isArray(inner))
      out.fields.set(k, mergeShape(out.fields.get(k), inner));
  }
  return out;
}
