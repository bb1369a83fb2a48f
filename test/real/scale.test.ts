/**
 * Scale on the real server (`npm run test:real` only): three worker processes on one task
 * queue run 20 missions and 5 plans at once while 15 random workers are killed with SIGKILL
 * (each replaced at once). Every mission and plan completes, no external effect is applied
 * twice, and every audit passes.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBank } from '../../examples/wire-transfer/bank.ts';
import type { PlanHandle } from '../../src/client/plan/client.ts';
import { testServerKind } from '../../src/devserver/testing.ts';
import { decideUpdate } from '../../src/workflows/mission/messages.ts';
import { waitForStatus } from '../mission/harness.ts';
import { readCharges } from '../plans/fixtures/lab-agents.ts';
import { planEnv, type PlanEnv } from '../plans/plan-harness.ts';

const MISSIONS = 20;
const PLANS = 5;
const WORKERS = 3;
const KILLS = 15;

const dir = mkdtempSync(join(tmpdir(), 'scale-'));
const bank = join(dir, 'bank.jsonl');
const charges = join(dir, 'charges.jsonl');
const workerEnv = {
  NAVIGATOR_AGENTS: join(process.cwd(), 'test/real/fixtures/scale-agents.ts'),
  WIRE_TRANSFER_BANK_FILE: bank,
  PLAN_LAB_CHARGES: charges,
  JITTER_MS: '300',
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let env: PlanEnv;
beforeAll(async () => {
  env = await planEnv();
}, 120_000);
afterAll(async () => env?.shutdown());

/** Keeps WORKERS worker processes alive, killing a random one every 1-3 s, KILLS times. */
async function killRandomWorkers(workers: ChildProcess[], done: () => boolean): Promise<number> {
  let kills = 0;
  while (kills < KILLS && !done()) {
    await sleep(1000 + Math.random() * 2000);
    const i = Math.floor(Math.random() * workers.length);
    const victim = workers[i]!;
    await new Promise((r) => (victim.once('exit', r), victim.kill('SIGKILL')));
    kills++;
    workers[i] = env.spawnWorker(workerEnv);
  }
  return kills;
}

async function approveWhenWaiting(handle: WorkflowHandle, key: string): Promise<void> {
  await waitForStatus(handle, (s) => s.status === 'waiting', 300_000);
  await handle.executeUpdate(decideUpdate, { args: [{ key, value: 'approved', by: 'scale' }] });
}

async function approveWhenGated(plan: PlanHandle, step: string): Promise<void> {
  for (;;) {
    const view = await plan.status().catch(() => null);
    if (view?.approvals.some((a) => a.stepId === step)) return void (await plan.approveStep(step, { by: 'scale' }));
    await sleep(200);
  }
}

describe.runIf(testServerKind() === 'temporal')('on the real server', () => {
  it(
    `runs ${MISSIONS} missions and ${PLANS} plans on ${WORKERS} workers through ${KILLS} SIGKILLs, each effect once`,
    { timeout: 600_000 },
    async () => {
      const workers = Array.from({ length: WORKERS }, () => env.spawnWorker(workerEnv));
      const missions = await Promise.all(
        Array.from({ length: MISSIONS }, (_, i) =>
          env.start({ agent: 'wire-transfer', input: { recipient: `r${i}`, amount: 1000 + i } }, `scale-mission-${i}`),
        ),
      );
      const plans = await Promise.all(
        Array.from({ length: PLANS }, (_, i) =>
          env.startPlan({
            id: `scale-plan-${i}`,
            agent: 'lab',
            approve: true,
            document: {
              steps: [
                { id: 'charge', description: 'charge', tool: 'charge', args: { account: `acct-${i}`, amount: 10 + i } },
                {
                  id: 'receipt',
                  description: 'receipt',
                  tool: 'echo',
                  args: { value: '$charge.charge_id' },
                  dependsOn: ['charge'],
                },
              ],
            },
          }),
        ),
      );
      let finished = false;
      const killing = killRandomWorkers(workers, () => finished);
      const results = Promise.all([
        ...missions.map(
          async (h, i) => (await approveWhenWaiting(h, `manager_decision_r${i}_${1000 + i}`), h.result()),
        ),
        ...plans.map(async (p) => (await approveWhenGated(p, 'charge'), p.result())),
      ]).finally(() => (finished = true));
      const [outcomes, kills] = await Promise.all([results, killing]);
      expect(kills).toBeGreaterThan(0);

      for (const outcome of outcomes.slice(0, MISSIONS)) expect(outcome).toMatchObject({ status: 'sent' });
      for (const summary of outcomes.slice(MISSIONS)) expect(summary).toMatchObject({ status: 'completed' });

      const applied = readBank(bank).filter((r) => r.outcome === 'applied');
      for (const op of ['prepare_wire', 'request_approval', 'execute_wire']) {
        const keys = applied.filter((r) => r.operation === op).map((r) => r.idempotencyKey);
        expect(keys, op).toHaveLength(MISSIONS);
        expect(new Set(keys).size, op).toBe(MISSIONS);
      }
      const charged = readCharges(charges).filter((c) => c.outcome === 'applied');
      expect(charged.map((c) => c.account).sort()).toEqual(Array.from({ length: PLANS }, (_, i) => `acct-${i}`).sort());

      for (const h of missions) {
        const report = await env.audit(h.workflowId);
        expect({
          id: h.workflowId,
          problems: report.problems,
          duplicates: report.duplicateEffects,
          replay: report.replay.errors,
          ok: report.ok,
        }).toEqual({
          id: h.workflowId,
          problems: [],
          duplicates: [],
          replay: [],
          ok: true,
        });
      }
      for (const p of plans) {
        const report = await env.auditPlan(p.id);
        expect({ id: p.id, problems: report.problems, duplicates: report.duplicateEffects, ok: report.ok }).toEqual({
          id: p.id,
          problems: [],
          duplicates: [],
          ok: true,
        });
      }
      console.log(
        `scale: ${MISSIONS} missions, ${PLANS} plans, ${kills} SIGKILLs, ${readBank(bank).filter((r) => r.outcome === 'deduplicated').length} deduplicated retries`,
      );
    },
  );
});
