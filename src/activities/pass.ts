/**
 * One step of a Navigator pass inside the `runPass` activity: start or resume the pass
 * (src/navigator), then translate its result into the workflow's PassResponse.
 */
import { failure } from '../kernel/failures.ts';
import { sideEffectOf } from '../lisp/tools.ts';
import { type PassProgress, passOpening, resumePass, startPass, stepOfCall } from '../navigator/index.ts';
import type {
  InlineToolCall,
  Json,
  JournalRead,
  PassContext,
  PassOutcome,
  PassRequest,
  PassResponse,
  RecordedProgram,
  RecordedTurnResult,
} from '../workflows/mission/contract.ts';
import type { RegisteredAgent } from './agents.ts';
import { context as otelContext } from '@opentelemetry/api';
import { type SpanOwner, tracedAgent, tracedModel } from '../telemetry/spans.ts';
import { programEvaluator } from '../sandbox/index.ts';
import { type PackedState, packState, turnAnswers, unpackState } from '../navigator/state-packing.ts';
import type { TurnResult, TurnTrace } from '../navigator/pass-state.ts';
import { journalHash } from '../history/hash.ts';
import { canonicalJson } from '../lisp/json.ts';
import { parseInput } from '../navigator/agent.ts';
import { type ShapeMemory, passShapes } from '../navigator/shape-memory.ts';
import type { WaitingPrograms } from '../navigator/waiting-programs.ts';

/** What a worker keeps across passes and missions to spare model calls (issue 29). */
export interface WorkerMemory {
  /** result shapes of tools without output, shown on a mission's first pass */
  shapes?: ShapeMemory;
  /** the program a pass waited for a decision in, run first in the next pass */
  waiting?: WaitingPrograms;
  /** the mission (workflow id) this step belongs to: the key of `waiting` */
  mission?: string;
  /** a read inside the pass whose result is larger fails that call with `result_too_large` */
  maxResultBytes?: number;
}
import { diffJson } from '../kernel/json-patch.ts';
import { jsonBytes } from './recording.ts';
import { formatBytes } from '../payloads/offload-codec.ts';

export async function runPassStep(
  registered: RegisteredAgent,
  req: PassRequest,
  ctx: PassContext,
  onProgress?: (p: PassProgress) => void,
  owner?: SpanOwner,
  memory: WorkerMemory = {},
): Promise<PassResponse> {
  const journal = new Map(ctx.journal);
  // with tracing on, model answers and tool calls are spans under this pass's span
  const capped =
    memory.maxResultBytes === undefined
      ? registered
      : { ...registered, agent: cappedAgent(registered.agent, memory.maxResultBytes) };
  const entry = owner ? { ...capped, agent: tracedAgent(capped.agent, owner, otelContext.active()) } : capped;
  const model = owner ? tracedModel(entry.model(), owner) : entry.model();
  if (req.resume && ctx.passState === null) {
    throw failure('InvalidPassState', `pass ${req.pass} has no suspended state to resume`);
  }
  const evaluate = programEvaluator();
  const step = req.resume
    ? await resumePass({
        agent: entry.agent,
        state: unpackOrFail(entry, ctx),
        journal,
        effectResults: ctx.effectResults,
        model,
        evaluate,
        onProgress,
      })
    : await startPass({
        evaluate,
        agent: entry.agent,
        input: ctx.input,
        journal,
        summaries: ctx.summaries,
        runId: ctx.runId,
        model,
        lastError: ctx.lastError,
        effects: 'suspend',
        // shapes earlier missions on this worker saw, too: the opening then differs from the
        // one openingOf rebuilds, so a suspended state keeps its first message itself
        toolShapes: passShapes(memory.shapes, entry.agent, ctx.toolShapes),
        replay: memory.mission === undefined ? undefined : memory.waiting?.replayFor(memory.mission, req.pass),
        onProgress,
      });
  if (step.kind === 'effects') {
    // only what changed since the state this step read: history keeps each change once
    // effect results and the effect list stay out: the workflow holds both, and gives the results back
    const held = {
      ...step.state,
      effectResults: {},
      pending: step.state.pending && { ...step.state.pending, effects: [] },
    };
    const next = packState(held, { opening: openingOf(entry, held.input, ctx) }) as unknown as Json;
    const base = req.resume ? (ctx.passState as Json) : null;
    // an effect's id is its idempotency key: sent once (the workflow restores the id)
    const effects = step.effects.map(({ id, ...e }) => (id === e.idempotencyKey ? e : { id, ...e }));
    return { kind: 'effects', effects, patch: diffJson(base, next) ?? { o: {} }, journalRead: journalReadOf(ctx) };
  }
  memory.shapes?.learn(entry.agent, step.toolCalls);
  if (memory.mission !== undefined) memory.waiting?.remember(memory.mission, req.pass, step);
  const classes = new Map(entry.agent.tools.map((t) => [t.name, sideEffectOf(t)]));
  return {
    kind: 'done',
    outcome: outcomeOf(step.outcome),
    basedOnVersion: ctx.journalVersion,
    journalDelta: step.journalDelta,
    resets: step.resets,
    summaries: step.summaries,
    toolCalls: step.toolCalls
      .map((c, i): InlineToolCall => ({
        tool: c.tool,
        taskId: c.taskId,
        idempotencyKey: c.idempotencyKey,
        sideEffect: classes.get(c.tool) ?? 'external',
        ...(c.result !== undefined ? { result: c.result } : {}),
        ...(c.error !== undefined ? { error: c.error } : {}),
        // the step it ran in places it among the effects, when there were effects
        ...(step.stepStarts.length ? { step: stepOfCall(step.stepStarts, i) } : {}),
      }))
      .filter((c) => c.sideEffect !== 'external'),
    tokens: step.usage.inputTokens + step.usage.outputTokens,
    journalRead: journalReadOf(ctx),
    programs: recordPrograms(step.trace, req.resume ? (ctx.passState as unknown as PackedState) : null),
    ...programInput(entry, ctx),
  };
}

/**
 * The input the programs saw (`data/`), when the agent's schema made it differ from the
 * mission's (defaults, coercions): value replay runs the programs on it.
 */
function programInput(entry: RegisteredAgent, ctx: PassContext): { programInput?: Json } {
  try {
    const input = JSON.parse(JSON.stringify(parseInput(entry.agent, ctx.input) ?? {})) as Json;
    return canonicalJson(input) === canonicalJson(ctx.input ?? {}) ? {} : { programInput: input };
  } catch {
    return {};
  }
}

/**
 * The agent with every tool's result checked against the cap before the program sees it
 * (reads run inside the pass; effects are checked by their own activity): a larger one
 * fails that call, named, and nothing of it is sent to Temporal.
 */
function cappedAgent<A extends RegisteredAgent['agent']>(agent: A, maxBytes: number): A {
  const tools = agent.tools.map((tool) => ({
    ...tool,
    handler: async (args: never, ctx: never) => {
      const out = await tool.handler(args, ctx);
      const size = jsonBytes(out);
      if (size > maxBytes)
        throw new Error(
          `result_too_large: tool ${tool.name} returned ${formatBytes(size)}, over the ${formatBytes(maxBytes)} limit for one result (NAVIGATOR_MAX_RESULT_BYTES)`,
        );
      return out;
    },
  }));
  return { ...agent, tools };
}

/** The journal this step read, as the audit recomputes it from history. */
const journalReadOf = (ctx: PassContext): JournalRead => ({
  version: ctx.journalVersion,
  hash: journalHash(ctx.journal, 'key'),
  order: 'key',
});

/** Most bytes of program text one pass result records; later programs are marked cut. */
export const MAX_RECORDED_PROGRAM_BYTES = 32 * 1024;

/**
 * Every turn's program and what it gave, so the audit can run them again (value replay).
 * A program the suspended state in history already holds is not repeated.
 */
export function recordPrograms(
  trace: readonly TurnTrace[],
  suspended: PackedState | null,
  maxBytes = MAX_RECORDED_PROGRAM_BYTES,
): RecordedProgram[] {
  const inState = suspended ? turnAnswers(suspended).map((a) => a.program) : [];
  let bytes = 0;
  const out: RecordedProgram[] = [];
  for (const [i, t] of trace.entries()) {
    if (t.program === null) continue;
    const result = recordedResult(t.result);
    if (inState[i] === t.program) {
      out.push({ turn: t.turn, result });
      continue;
    }
    bytes += Buffer.byteLength(t.program);
    out.push(bytes <= maxBytes ? { turn: t.turn, code: t.program, result } : { turn: t.turn, cut: true, result });
  }
  return out;
}

/** A turn's result, small: returned and failed values are the outcome's, printed ones are cut to 200 characters. */
function recordedResult(r: TurnResult | null): RecordedTurnResult | null {
  if (!r) return null;
  if (r.status === 'ok') return { status: 'ok', value: r.value };
  if (r.status === 'error') return { status: 'error', error: `${r.error.type}: ${r.error.message}`.slice(0, 300) };
  if (r.status === 'no_code') return null;
  return { status: r.status };
}

/** The pass's first message as the workflow's context rebuilds it (undefined if it cannot). */
function openingOf(entry: RegisteredAgent, input: Record<string, Json>, ctx: PassContext): string | undefined {
  try {
    return passOpening({
      agent: entry.agent,
      input,
      summaries: ctx.summaries,
      toolShapes: ctx.toolShapes,
      lastError: ctx.lastError,
    });
  } catch {
    return undefined;
  }
}

function unpackOrFail(entry: RegisteredAgent, ctx: PassContext) {
  const packed = ctx.passState as unknown as PackedState;
  try {
    return unpackState(packed, { opening: openingOf(entry, packed.input, ctx) });
  } catch (err) {
    throw failure('InvalidPassState', (err as Error).message);
  }
}

interface NavigatorOutcome {
  status: 'return' | 'fail' | 'error';
  value?: Json;
  error?: { type: string; message: string; line?: number | null; column?: number | null };
}

function outcomeOf(o: NavigatorOutcome): PassOutcome {
  if (o.status === 'return') return { kind: 'return', value: o.value ?? null };
  if (o.status === 'fail') return { kind: 'fail', value: o.value ?? null };
  const e = o.error;
  const at = e?.line ? ` (line ${e.line}, column ${e.column})` : '';
  return { kind: 'error', message: e ? `${e.type}: ${e.message}${at}` : 'the pass ended in an error' };
}
