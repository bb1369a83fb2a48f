/**
 * Library mode: one pass in-process, with no Temporal. The application passes a journal
 * in and persists the one that comes back:
 *
 * ```ts
 * const step = await runNavigator(wireTransfer, { input: { recipient: 'bob', amount: 5000 }, journal, model });
 * saveJournal(step.journal);                // entries in commit order
 * if (step.status === 'waiting') ...        // the program returned {:status :waiting ...}
 * ```
 *
 * It drives the same step functions as the Temporal activity ({@link startPass},
 * {@link resumePass}). By default external tools run inline inside the program; with
 * `effects: 'suspend'` the program stops at each external call, runNavigator runs the
 * tool itself and resumes, exactly as the workflow does with activities.
 */
import { createHash } from 'node:crypto';
import type { EffectRequest } from '../lisp/api.ts';
import { canonicalJson, fromJson, toJson } from '../lisp/json.ts';
import type { Json } from '../lisp/tools.ts';
import type { ChatModel } from '../llm/model.ts';
import type { Agent, AnyAgent } from './agent.ts';
import { type JournalInput, type PassDone, type StartPassOptions, resumePass, startPass } from './pass.ts';
import { type EffectResult, type PassError, type PassState, toJournal } from './pass-state.ts';
import { isWaiting } from './turn.ts';
import { issuesText } from '../kernel/contract.ts';

export interface RunNavigatorOptions {
  input: unknown;
  /** the journal so far (Map, entries or object); `null` runs without a journal */
  journal?: JournalInput | null;
  summaries?: StartPassOptions['summaries'];
  model: ChatModel;
  /** mixed into idempotency keys @default `local-AGENT-HASH` of the agent name and input */
  runId?: string;
  lastError?: string | null;
  /** @default 'inline' */
  effects?: 'inline' | 'suspend';
  /** sees (and may replace) the state at every suspension, e.g. to serialise it */
  onSuspend?: (state: PassState, effects: EffectRequest[]) => PassState | Promise<PassState>;
  /** how programs are evaluated @default in-process (`runSandboxed` from src/sandbox isolates them) */
  evaluate?: StartPassOptions['evaluate'];
}

/** The result of one pass in library mode: the finished pass plus the whole journal. */
export interface PassResult extends Omit<PassDone, 'kind' | 'outcome' | 'stepStarts'> {
  /** `waiting`: the program returned `{:status :waiting ...}`; run again once decided */
  status: 'ok' | 'fail' | 'error' | 'waiting';
  /** the returned value, the `fail` value, or null after an error */
  value: Json;
  error?: PassError;
  /** the whole journal after the pass, as entries in commit order (`journalDelta` and
   *  `resets` are already applied to it) */
  journal: Array<[string, Json]>;
}

/** @deprecated the old name of {@link PassResult} ("step" now means a plan node only) */
export type Step = PassResult;

/** The default run id: stable for one agent and input, so retries share idempotency keys. */
export function defaultRunId(agent: Pick<Agent, 'name'>, input: unknown): string {
  let canonical: string;
  try {
    canonical = canonicalJson(JSON.parse(JSON.stringify(input ?? {})) as Json);
  } catch {
    canonical = String(input);
  }
  return `local-${agent.name}-${createHash('sha256').update(canonical).digest('hex').slice(0, 16)}`;
}

/** Applies a finished pass to a journal: resets first, then commits in order. */
export function applyDelta(
  journal: JournalInput | null | undefined,
  done: Pick<PassDone, 'journalDelta' | 'resets'>,
): Array<[string, Json]> {
  const j = toJournal(journal);
  for (const k of done.resets) j.delete(k);
  for (const [k, v] of done.journalDelta) {
    j.delete(k);
    j.set(k, v);
  }
  return [...j];
}

/** Runs an effect's tool in this process; failures become `{error}`. */
export async function runEffect(agent: AnyAgent, effect: EffectRequest): Promise<EffectResult> {
  const tool = agent.tools.find((t) => t.name === effect.tool);
  if (!tool) return { error: `agent ${agent.name} has no tool ${effect.tool}` };
  const args = tool.input.safeParse(effect.args);
  if (!args.success) return { error: `invalid arguments: ${issuesText(args.error, 'args')}` };
  try {
    const out = await tool.handler(args.data, {
      idempotencyKey: effect.idempotencyKey,
      taskId: effect.taskId,
      signal: new AbortController().signal,
    });
    return { ok: toJson(fromJson((out ?? null) as Json)) };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

export async function runNavigator(agent: AnyAgent, o: RunNavigatorOptions): Promise<PassResult> {
  const runId = o.runId ?? defaultRunId(agent, o.input);
  let step = await startPass({
    agent,
    input: o.input,
    journal: o.journal === undefined ? new Map() : o.journal,
    summaries: o.summaries,
    runId,
    model: o.model,
    lastError: o.lastError,
    effects: o.effects ?? 'inline',
    evaluate: o.evaluate,
  });
  while (step.kind === 'effects') {
    const state = o.onSuspend ? await o.onSuspend(step.state, step.effects) : step.state;
    const results: Record<string, EffectResult> = {};
    await Promise.all(step.effects.map(async (e) => (results[e.id] = await runEffect(agent, e))));
    step = await resumePass({
      agent,
      state,
      journal: o.journal ?? new Map(),
      effectResults: results,
      model: o.model,
      evaluate: o.evaluate,
    });
  }
  const { outcome } = step;
  const status: PassResult['status'] =
    outcome.status === 'return'
      ? isWaiting(outcome.value ?? null)
        ? 'waiting'
        : 'ok'
      : outcome.status === 'fail'
        ? 'fail'
        : 'error';
  return {
    status,
    value: outcome.value ?? null,
    ...(outcome.error ? { error: outcome.error } : {}),
    journal: o.journal === null ? [] : applyDelta(o.journal, step),
    journalDelta: step.journalDelta,
    resets: step.resets,
    summaries: step.summaries,
    trace: step.trace,
    usage: step.usage,
    toolCalls: step.toolCalls,
    warnings: step.warnings,
  };
}
