/**
 * Crash safety of plans: the worker process is killed with SIGKILL while an external
 * step is running (after its side effect, before the activity completes); a new worker
 * finishes the plan and the charge is applied exactly once. The same for a forEach step
 * charging three accounts, each item its own activity and key: every account is charged
 * once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../mission/harness.ts';
import { readCharges } from './fixtures/lab-agents.ts';
import { awaiting, expectPlanAuditOk, planEnv, stepOf, waitForPlan, type PlanEnv } from './plan-harness.ts';

const fixture = join(process.cwd(), 'test/plans/fixtures/lab-agents.ts');

let env: PlanEnv;
beforeAll(async () => {
  env = await planEnv();
}, 120_000);
afterEach(async () => env?.killWorkers());
afterAll(async () => env?.shutdown());

describe('a plan worker killed with SIGKILL', () => {
  it(
    'during an external step: a new worker finishes the plan and the side effect is applied once',
    { timeout: 180_000 },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'plan-crash-'));
      const charges = join(dir, 'charges.jsonl');
      const childEnv = (extra: Record<string, string> = {}) => ({
        NAVIGATOR_AGENTS: fixture,
        PLAN_LAB_CHARGES: charges,
        MARKER_DIR: dir,
        ...extra,
      });
      const first = env.spawnWorker(childEnv({ STALL_MS: '60000' }));
      const plan = await env.startPlan({
        agent: 'lab',
        approve: true,
        document: {
          steps: [
            { id: 'charge', description: 'charge the customer', tool: 'charge', args: { account: 'acme', amount: 42 } },
            {
              id: 'receipt',
              description: 'receipt',
              tool: 'echo',
              args: { value: '$charge.charge_id' },
              dependsOn: ['charge'],
            },
          ],
        },
      });
      await waitForPlan(plan, awaiting('charge'));
      await plan.approveStep('charge', { by: 'ana' });
      await eventually(() => existsSync(join(dir, 'charge.marker')), 60_000, 'the charge to be applied');
      first.kill('SIGKILL');

      env.spawnWorker(childEnv());
      const summary = await plan.result();
      expect(summary.status).toBe('completed');
      const applied = readCharges(charges).filter((c) => c.outcome === 'applied');
      expect(applied).toHaveLength(1);
      expect(readCharges(charges).filter((c) => c.outcome === 'deduplicated').length).toBeGreaterThanOrEqual(1);
      const view = await plan.status();
      expect(stepOf(view, 'receipt').result!.value).toEqual({ got: `ch_${applied[0]!.key.slice(0, 8)}` });
      await expectPlanAuditOk(env, plan.id);
    },
  );

  it(
    'during a forEach of three charges: each item is applied once, with its own key',
    { timeout: 180_000 },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'plan-crash-each-'));
      const charges = join(dir, 'charges.jsonl');
      const childEnv = (extra: Record<string, string> = {}) => ({
        NAVIGATOR_AGENTS: fixture,
        PLAN_LAB_CHARGES: charges,
        MARKER_DIR: dir,
        ...extra,
      });
      const first = env.spawnWorker(childEnv({ STALL_MS: '60000' }));
      const accounts = ['acme', 'globex', 'initech'];
      const plan = await env.startPlan({
        agent: 'lab',
        approve: true,
        document: {
          steps: [
            { id: 'accounts', description: 'the accounts', tool: 'echo', args: { value: accounts } },
            {
              id: 'charge_all',
              description: 'charge each account',
              tool: 'charge',
              args: { account: { $expr: 'item' }, amount: 5 },
              dependsOn: ['accounts'],
              forEach: '(:got step/accounts)',
            },
          ],
        },
      });
      // each item waits for its own approval, with its own args
      const gated = await waitForPlan(
        plan,
        (v) => v.approvals.filter((a) => a.stepId === 'charge_all').length === accounts.length,
      );
      expect(gated.approvals.map((a) => [a.item, a.args])).toEqual(
        accounts.map((account, item) => [item, { account, amount: 5 }]),
      );
      for (const item of accounts.keys()) await plan.approveStep('charge_all', { by: 'ana', item });
      await eventually(() => existsSync(join(dir, 'charge.marker')), 60_000, 'a charge to be applied');
      first.kill('SIGKILL');
      const appliedBeforeKill = readCharges(charges).filter((c) => c.outcome === 'applied').length;
      expect(appliedBeforeKill).toBeGreaterThanOrEqual(1);

      env.spawnWorker(childEnv());
      const summary = await plan.result();
      expect(summary.status).toBe('completed');
      const applied = readCharges(charges).filter((c) => c.outcome === 'applied');
      expect(applied.map((c) => c.account).sort()).toEqual(accounts);
      expect(new Set(applied.map((c) => c.key)).size).toBe(3);
      expect(readCharges(charges).filter((c) => c.outcome === 'deduplicated').length).toBeGreaterThanOrEqual(
        appliedBeforeKill,
      );
      const view = await plan.status();
      expect((stepOf(view, 'charge_all').result!.value as Array<{ account: string }>).map((r) => r.account)).toEqual(
        accounts,
      );
      const ledger = (await plan.ledger()).filter((e) => e.stepId === 'charge_all');
      expect(ledger.map((e) => [e.activity, e.status])).toEqual(
        accounts.map((_, i) => [`step-charge_all-1-item${i}`, 'completed']),
      );
      expect(ledger.map((e) => e.idempotencyKey).sort()).toEqual(applied.map((c) => c.key).sort());
      await expectPlanAuditOk(env, plan.id);
    },
  );
});
