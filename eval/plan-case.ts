/**
 * Plan cases: the agent's model plans a request (the planner prompt, src/plans/planner.ts),
 * the plan runs as a real planExecution workflow, and a person approves it, approves each
 * step that waits, and answers its questions. Checked from the tools' recorded effects
 * and the steps' results, then audited against history. Model calls are the planner's
 * (and any recovery's): one per plan when the planner writes a usable plan in one go.
 */
import type { Json } from '../src/lisp/tools.ts';
import type { Agent } from '../src/navigator/index.ts';
import { auditPlan } from '../src/audit/plan/audit.ts';
import { startPlan } from '../src/client/plan/client.ts';
import type { TestEnv } from '../src/devserver/testing.ts';
import type { ChatModel } from '../src/llm/model.ts';
import type { Plan, PlanStatus } from '../src/plans/schema.ts';
import type { Effect, Verdict } from './case.ts';
import type { CaseOptions, CaseWorker, RunResult } from './runner.ts';

export interface PlanOutcome {
  status: PlanStatus | 'broken';
  plan: Plan | null;
  error: string | null;
  effects: readonly Effect[];
  /** the questions the plan asked, with the answers given */
  questions: ReadonlyArray<{ stepId: string; question: string; schema: Json; answer: Json }>;
}

export interface PlanRun {
  agent: Agent;
  request: string;
  context?: Json;
  effects: Effect[];
  /** the person's answer to a question (given its JSON Schema) */
  answer?: (q: { question: string; schema: Record<string, Json> }) => Json;
  /** a person's verdict on a step waiting for approval: true approves, a string denies */
  approve?: (step: { stepId: string; tool: string | null; args: Json }) => true | string;
}

export interface PlanEvalCase {
  kind: 'plan';
  name: string;
  what: string;
  make(): PlanRun;
  check(outcome: PlanOutcome): Verdict;
}

const FINAL: ReadonlySet<string> = new Set(['completed', 'completed_with_failures', 'failed', 'cancelled']);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * What a person who wants `value` answers to a question with this JSON Schema: the option
 * naming it when the schema lists options (the first option when none does: the plan
 * offered no way to say it), the value itself when any string goes, put in the first
 * property of an object.
 */
export function answerFor(value: string, schema: Record<string, Json>): Json {
  const options = (schema.enum ??
    (Array.isArray(schema.oneOf) ? (schema.oneOf as Array<Record<string, Json>>).map((o) => o.const) : undefined)) as
    Json[] | undefined;
  if (Array.isArray(options) && options.length) {
    return options.find((o) => typeof o === 'string' && o.toLowerCase().includes(value.toLowerCase())) ?? options[0]!;
  }
  if (schema.type === 'object' && schema.properties && typeof schema.properties === 'object') {
    const props = schema.properties as Record<string, Record<string, Json>>;
    const required = (schema.required as string[] | undefined) ?? [];
    const key = required[0] ?? Object.keys(props)[0];
    if (key) return { [key]: answerFor(value, props[key] ?? {}) };
  }
  if (schema.type === 'array') return [answerFor(value, (schema.items as Record<string, Json>) ?? {})];
  return value;
}

export async function runPlanCase(
  env: TestEnv,
  worker: CaseWorker,
  c: PlanEvalCase,
  opts: CaseOptions & {
    counted: (m: ChatModel) => {
      model: ChatModel;
      stats: { calls: number; tokens: number; inputTokens: number; outputTokens: number; answers: string[] };
    };
  },
): Promise<RunResult> {
  const started = performance.now();
  const made = c.make();
  const { model, stats } = opts.counted(opts.model);
  worker.beforeCase();
  worker.agents.set(made.agent.name, { agent: made.agent, model: () => model });
  const id = `eval-${c.name}-${opts.run}-${Date.now().toString(36)}`;
  const counts = () => ({
    modelCalls: stats.calls,
    tokens: stats.tokens,
    inputTokens: stats.inputTokens,
    outputTokens: stats.outputTokens,
    answers: stats.answers,
  });
  const base = { case: c.name, run: opts.run, passes: 0, audit: false };
  const questions: Array<{ stepId: string; question: string; schema: Json; answer: Json }> = [];
  try {
    const handle = await startPlan(env.client, {
      id,
      agent: made.agent.name,
      request: made.request,
      ...(made.context !== undefined ? { context: made.context } : {}),
      taskQueue: env.taskQueue,
    });
    const deadline = Date.now() + (opts.timeoutMs ?? 600_000);
    const approved = new Set<string>();
    const answered = new Set<string>();
    let approvedPlan = false;
    for (;;) {
      if (Date.now() > deadline) throw new Error(`no end within ${opts.timeoutMs ?? 600_000} ms`);
      const v = await handle.status().catch(() => null);
      if (v && FINAL.has(v.status)) break;
      if (v?.status === 'review' && !approvedPlan) {
        await handle.approve({ by: 'eval' });
        approvedPlan = true;
      }
      for (const a of v?.approvals ?? []) {
        const key = `${a.stepId}#${a.item ?? ''}`;
        if (approved.has(key)) continue;
        approved.add(key);
        const verdict = made.approve
          ? made.approve({ stepId: a.stepId, tool: a.tool ?? null, args: a.args as Json })
          : true;
        const item = a.item ?? undefined;
        if (verdict === true)
          await handle.approveStep(a.stepId, { by: 'eval', ...(item !== undefined ? { item } : {}) });
        else await handle.denyStep(a.stepId, { by: 'eval', reason: verdict, ...(item !== undefined ? { item } : {}) });
      }
      for (const q of v?.questions ?? []) {
        if (answered.has(q.stepId)) continue;
        answered.add(q.stepId);
        const answer = made.answer ? made.answer({ question: q.question, schema: q.schema }) : null;
        questions.push({ stepId: q.stepId, question: q.question, schema: q.schema, answer });
        await handle.answer(q.stepId, answer, { by: 'eval' }).catch((err: Error) => {
          questions.at(-1)!.answer = { refused: err.message };
        });
      }
      await sleep(100);
    }
    const view = await handle.status();
    const verdict = c.check({
      status: view.status,
      plan: view.plan,
      error: view.error,
      effects: made.effects,
      questions,
    });
    const audit = await auditPlan(env.client, id, { workflowBundle: env.bundle, replayer: env.replayer });
    return {
      ...base,
      correct: verdict.ok && audit.ok,
      why: !verdict.ok ? verdict.why : audit.ok ? null : `audit: ${audit.problems.join('; ')}`,
      passes: 0,
      ...counts(),
      durationMs: performance.now() - started,
      audit: audit.ok,
    };
  } catch (err) {
    return {
      ...base,
      correct: false,
      why: `the run broke: ${(err as Error).message}`,
      ...counts(),
      durationMs: performance.now() - started,
    };
  }
}

/** The result of a plan step, or undefined. */
export const stepResult = (o: PlanOutcome, id: string): Json | undefined =>
  o.plan?.steps.find((s) => s.id === id)?.result?.value;
