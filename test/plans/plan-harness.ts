/**
 * End-to-end helpers for plans, on top of the mission harness (one dev server and one
 * workflow bundle per test file): start a plan through the client library, wait for a
 * state, and audit it against history.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { auditPlan, type PlanAuditReport } from '../../src/audit/plan/audit.ts';
import { type PlanHandle, type StartPlanOptions, startPlan } from '../../src/client/plan/client.ts';
import type { PlanStatusView } from '../../src/workflows/plan/contract.ts';
import { missionEnv, testTimeouts, type MissionEnv } from '../mission/harness.ts';
import labAgents from './fixtures/lab-agents.ts';

export interface PlanEnv extends MissionEnv {
  startPlan(opts: Omit<StartPlanOptions, 'taskQueue'>): Promise<PlanHandle>;
  auditPlan(id: string): Promise<PlanAuditReport>;
}

let seq = 0;

/** A mission env whose in-process worker also runs the lab agents. */
export async function planEnv(): Promise<PlanEnv> {
  const env = await missionEnv();
  return {
    ...env,
    startWorker: (extra = []) => env.startWorker([...Object.values(labAgents), ...extra]),
    startPlan(opts) {
      const options = {
        ...opts.options,
        timeouts: { heartbeatMs: testTimeouts.heartbeatMs, ...opts.options?.timeouts },
      };
      return startPlan(env.client, { id: `plan-${process.pid}-${++seq}`, ...opts, options, taskQueue: env.taskQueue });
    },
    auditPlan(id) {
      return auditPlan(env.client, id, { workflowBundle: env.env.bundle, replayer: env.env.replayer });
    },
  };
}

/** Polls the plan's status until `predicate` holds. */
export async function waitForPlan(
  plan: PlanHandle,
  predicate: (v: PlanStatusView) => boolean,
  timeoutMs = 60_000,
): Promise<PlanStatusView> {
  const deadline = Date.now() + timeoutMs;
  let last: PlanStatusView | null = null;
  while (Date.now() < deadline) {
    last = await plan.status().catch(() => null);
    if (last && predicate(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `plan ${plan.id} never reached the expected state; last: ${JSON.stringify(last?.plan?.steps.map((s) => [s.id, s.status]))} status ${last?.status}`,
  );
}

export const awaiting = (stepId: string) => (v: PlanStatusView) => v.approvals.some((a) => a.stepId === stepId);

export async function expectPlanAuditOk(env: PlanEnv, id: string): Promise<PlanAuditReport> {
  const report = await env.auditPlan(id);
  expect(report.problems).toEqual([]);
  expect(report.duplicateEffects).toEqual([]);
  expect(report.replay.errors).toEqual([]);
  expect(report.ok).toBe(true);
  return report;
}

export const stepOf = (v: PlanStatusView, id: string) => v.plan!.steps.find((s) => s.id === id)!;

/** One env per test file with an in-process worker running the example and lab agents. */
export function usePlanEnv(opts: { worker?: boolean } = {}): () => PlanEnv {
  let env: PlanEnv | undefined;
  beforeAll(async () => {
    env = await planEnv();
    if (opts.worker !== false) await env.startWorker();
  }, 120_000);
  afterAll(async () => env?.shutdown());
  return () => env!;
}
