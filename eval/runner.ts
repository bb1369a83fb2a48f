/**
 * Runs evaluation cases as real missions on the embedded Temporal server: one worker for
 * a suite, as one long-running worker serves many missions, given each case's agent and
 * the model under test before its mission starts; decisions given as a person would
 * (through the validated `decide` update), then the checker and an audit of the history.
 */
import { WorkflowFailedError } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { createActivities } from '../src/activities/index.ts';
import type { RegisteredAgent } from '../src/activities/agents.ts';
import { type AuditReport, auditMission } from '../src/audit/mission/audit.ts';
import type { TestEnv } from '../src/devserver/testing.ts';
import type { ChatModel } from '../src/llm/model.ts';
import type { Json } from '../src/lisp/tools.ts';
import { ShapeMemory } from '../src/navigator/shape-memory.ts';
import type { WaitingPrograms } from '../src/navigator/waiting-programs.ts';
import { approveEffectUpdate, decideUpdate, statusQuery, summariesQuery } from '../src/workflows/mission/messages.ts';
import { resumeMission } from '../src/client/mission/resume.ts';
import type { EvalCase, Verdict } from './case.ts';

export interface RunResult {
  case: string;
  run: number;
  correct: boolean;
  why: string | null;
  passes: number;
  modelCalls: number;
  /** input + output tokens */
  tokens: number;
  inputTokens: number;
  outputTokens: number;
  durationMs: number;
  audit: boolean;
  /** how many times the mission waited for effects to be approved (effects approved together count once) */
  approvalRounds?: number;
  /** the model's answers, in call order (kept for a live run's recording) */
  answers?: string[];
}

/** A model that counts its calls and tokens. */
export function counted(inner: ChatModel) {
  const stats = { calls: 0, tokens: 0, inputTokens: 0, outputTokens: 0, answers: [] as string[] };
  const model: ChatModel = {
    id: inner.id,
    async generate(req) {
      stats.calls++;
      const res = await inner.generate(req);
      stats.tokens += res.usage.inputTokens + res.usage.outputTokens;
      stats.inputTokens += res.usage.inputTokens;
      stats.outputTokens += res.usage.outputTokens;
      stats.answers.push(res.text);
      return res;
    },
  };
  return { model, stats };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface WorkerOptions {
  /** the worker's memory of result shapes, shared by the missions of a suite as one long-running worker's is; none: each mission starts with an empty one */
  shapeMemory?: ShapeMemory;
  /** false: the next pass after a decision always asks the model (no program run again) */
  waitingPrograms?: WaitingPrograms | false;
}

/** The suite's worker: the agents it serves are set per case. */
export interface CaseWorker {
  agents: Map<string, RegisteredAgent>;
  /** called before each mission: a suite without shared memory forgets the shapes */
  beforeCase(): void;
  shutdown(): Promise<void>;
}

export async function startCaseWorker(env: TestEnv, opts: WorkerOptions = {}): Promise<CaseWorker> {
  const agents: CaseWorker['agents'] = new Map();
  const shapeMemory = opts.shapeMemory ?? new ShapeMemory();
  const worker: Worker = await env.createWorker({
    activities: createActivities({ agents, client: env.client, shapeMemory, waitingPrograms: opts.waitingPrograms }),
  });
  const running = worker.run();
  return {
    agents,
    beforeCase: () => {
      if (!opts.shapeMemory) shapeMemory.clear();
    },
    shutdown: async () => {
      worker.shutdown();
      await running.catch(() => undefined);
    },
  };
}

/** Everything an audit found wrong, in words. */
export function auditProblems(a: AuditReport): string[] {
  return [
    ...a.problems,
    ...a.journal.differences.map((d) => `journal: ${d}`),
    ...a.duplicateEffects.map((d) => `${d.tool} ${d.taskId ?? d.idempotencyKey} completed ${d.completions} times`),
    ...a.replay.errors.map((e) => `replay: ${e}`),
    ...a.values.mismatches.map((m) => `values: ${m.message}`),
    ...a.valueReplay.mismatches.map((m) => `value replay: ${m.message}`),
  ];
}

export interface CaseOptions {
  /** the model for this one mission: every pass of it asks the same instance */
  model: ChatModel;
  run: number;
  /** give up on a mission after this long @default 10 minutes */
  timeoutMs?: number;
}

export async function runCase(env: TestEnv, worker: CaseWorker, c: EvalCase, opts: CaseOptions): Promise<RunResult> {
  const started = performance.now();
  const made = c.make();
  const { model, stats } = counted(opts.model);
  worker.beforeCase();
  worker.agents.set(made.agent.name, { agent: made.agent, model: () => model });
  const workflowId = `eval-${c.name}-${opts.run}-${Date.now().toString(36)}`;
  const base = {
    case: c.name,
    run: opts.run,
    modelCalls: 0,
    tokens: 0,
    inputTokens: 0,
    outputTokens: 0,
    passes: 0,
    audit: false,
  };
  const counts = () => ({
    modelCalls: stats.calls,
    tokens: stats.tokens,
    inputTokens: stats.inputTokens,
    outputTokens: stats.outputTokens,
    answers: stats.answers,
  });
  try {
    let handle = await env.client.workflow.start('navigatorMission', {
      taskQueue: env.taskQueue,
      workflowId,
      args: [
        {
          agent: made.agent.name,
          input: made.input,
          ...(made.journal ? { journal: made.journal } : {}),
          options: { maxPasses: 4 },
        },
      ],
    });
    const deadline = Date.now() + (opts.timeoutMs ?? 600_000);
    const decided = new Set<string>();
    const verdicts = new Set<string>();
    const approvals: Array<{ tool: string; args: Json; approved: boolean }> = [];
    let approvalRounds = 0;
    let crashed = false;
    let closed: { result: Json | null; failure: string | null } | null = null;
    while (!closed) {
      if (Date.now() > deadline) throw new Error(`no end within ${opts.timeoutMs ?? 600_000} ms`);
      if (made.crashWhen && !crashed && made.crashWhen(made.effects)) {
        // the worker fleet is lost mid-mission: terminated, then resumed from its journal
        crashed = true;
        await handle.terminate('eval: the mission is lost mid-way and resumed');
        handle = (await resumeMission(env.client, handle.workflowId, { id: `${workflowId}-resumed` }))
          .workflow as typeof handle;
        continue;
      }
      const d = await handle.describe();
      if (d.status.name !== 'RUNNING') {
        closed = await handle.result().then(
          (result) => ({ result: result as Json, failure: null }),
          (err) => ({
            result: null,
            failure: err instanceof WorkflowFailedError ? String(err.cause?.message ?? err.message) : String(err),
          }),
        );
        break;
      }
      const status = await handle.query(statusQuery).catch(() => null);
      const waiting = (status?.effectApprovals ?? []).filter((a) => !verdicts.has(a.key));
      if (waiting.length) {
        if (!made.approve)
          throw new Error(
            `the mission waits for approval of ${waiting.map((a) => a.tool).join(', ')} and the case gives no verdicts`,
          );
        approvalRounds++;
        for (const a of waiting) {
          const v = made.approve({ tool: a.tool, args: a.args as Json });
          await handle.executeUpdate(approveEffectUpdate, {
            args: [{ key: a.key, approved: v === true, by: 'eval', ...(v === true ? {} : { note: v }) }],
          });
          verdicts.add(a.key);
          approvals.push({ tool: a.tool, args: a.args as Json, approved: v === true });
        }
      }
      const key = status?.status === 'waiting' ? status.pending?.key : undefined;
      if (key && !decided.has(key)) {
        if (!made.decide) throw new Error(`the mission waits for ${key} and the case gives no decision`);
        await handle.executeUpdate(decideUpdate, { args: [{ key, value: made.decide(key), by: 'eval' }] });
        decided.add(key);
      }
      await sleep(100);
    }
    const summaries = await handle.query(summariesQuery).catch(() => ({}));
    const finalStatus = await handle.query(statusQuery).catch(() => null);
    const verdict: Verdict = c.check({ ...closed, effects: made.effects, summaries, approvals });
    const audit = await auditMission(env.client, handle.workflowId, {
      workflowBundle: env.bundle,
      replayer: env.replayer,
    });
    return {
      ...base,
      correct: verdict.ok && audit.ok,
      why: !verdict.ok ? verdict.why : audit.ok ? null : `audit: ${auditProblems(audit).join('; ')}`,
      passes: finalStatus?.passes ?? 0,
      ...counts(),
      durationMs: performance.now() - started,
      audit: audit.ok,
      approvalRounds,
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
