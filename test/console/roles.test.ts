/**
 * Who may decide what (issue 39, part 4): a decision and a gated tool name their approvers
 * (`approvers: ['finance']`). The workflow refuses a verdict from another role (or none),
 * whoever sends it; the client and the CLI say the role they act with and the approval
 * record keeps it; the console shows the card only to those who may decide it and refuses
 * the others with 403, sending the role of whoever may. The timeline (and the audit) show
 * the role; each mission's audit passes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describe as describeAgent } from '../../src/activities/describe.ts';
import { NavigatorClient } from '../../src/client/index.ts';
import { MissionRejected, getMission } from '../../src/client/mission/client.ts';
import { createConsoleApp } from '../../src/console/server.ts';
import { DefinitionError, defineDecision, defineTool } from '../../src/navigator/index.ts';
import { z } from 'zod';
import { runCli } from '../cli/run-cli.ts';
import { missionEnv, waitForStatus, type MissionEnv } from '../mission/harness.ts';
import roleAgents, { financePayoutAgent, spendAgent } from './fixtures/roles-agents.ts';
import { PlanRejected, getPlan, startPlan } from '../../src/client/plan/client.ts';
import { approveStepUpdate } from '../../src/workflows/plan/messages.ts';
import { renderPlan } from '../../src/cli/plan/view.ts';
import { auditPlan } from '../../src/audit/plan/audit.ts';
import { waitForPlan } from '../plans/plan-harness.ts';

describe('approvers in definitions', () => {
  it('are role names, at least one; they reach the workflow in the agent description', () => {
    const base = { name: 'd', description: 'x', key: () => 'k', values: z.enum(['approved', 'rejected']) };
    expect(() => defineDecision({ ...base, approvers: [] })).toThrow(/approvers: name at least one role/);
    expect(() => defineDecision({ ...base, approvers: ['fin ance'] })).toThrow(DefinitionError);
    expect(() =>
      defineTool({ name: 't', description: 'x', input: z.object({}), approvers: ['a b'], handler: () => null }),
    ).toThrow(/approvers/);
    expect(describeAgent(spendAgent, { item: 'desk' }).decisions[0]!.approvers).toEqual(['finance']);
    expect(describeAgent(financePayoutAgent, { name: 'x', amount: 1 })).toMatchObject({
      approvals: ['send_payout'],
      approvers: { send_payout: ['finance'] },
    });
  });
});

let m: MissionEnv;
let navigator: NavigatorClient;
const ANA = 'ana-secret-0123456789';
const BOB = 'bob-secret-0123456789';
let app: ReturnType<typeof createConsoleApp>;
const ORIGIN = 'http://localhost';

beforeAll(async () => {
  m = await missionEnv();
  await m.startWorker(Object.values(roleAgents));
  navigator = new NavigatorClient({ client: m.client, taskQueue: m.taskQueue });
  app = createConsoleApp({ navigator, user: 'ops', token: `ana[finance]:${ANA},bob[ops]:${BOB}`, pollMs: 50 });
}, 120_000);
afterAll(async () => m?.shutdown());

const T = { timeout: 120_000 };
const as = (secret: string) => ({ authorization: `Bearer ${secret}` });
const page = async (path: string, secret: string) =>
  (await app.request(`${ORIGIN}${path}`, { headers: as(secret) })).text();
const csrfOf = (text: string) => /name="_csrf" value="([0-9a-f]+)"/.exec(text)![1]!;
const post = (path: string, secret: string, fields: Record<string, string>) =>
  app.request(`${ORIGIN}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN, ...as(secret) },
    body: new URLSearchParams(fields).toString(),
  });
const cliEnv = () => ({
  ...process.env,
  TEMPORAL_ADDRESS: m.env.server.address,
  TEMPORAL_NAMESPACE: m.env.server.namespace,
  NAVIGATOR_TASK_QUEUE: m.taskQueue,
  NAVIGATOR_USER: 'cli-user',
  NAVIGATOR_ROLE: '',
});
const cli = (...args: string[]) => runCli(args, cliEnv());

async function expectAuditOk(workflowId: string) {
  const report = await m.audit(workflowId);
  expect(report.problems).toEqual([]);
  expect(report.ok).toBe(true);
}

describe('a decision only finance may make', () => {
  it(
    'the workflow and the client refuse another role or none; finance decides and the role is recorded',
    T,
    async () => {
      const handle = await m.start({ agent: 'finance-spend', input: { item: 'desk' } });
      await waitForStatus(handle, (s) => s.status === 'waiting');
      const mission = getMission(m.client, handle.workflowId);
      await expect(mission.approve({ by: 'bob' })).rejects.toThrow(
        /decision spend_ok_desk may be decided only by finance: act with one of these roles/,
      );
      // past the client's own check, the workflow's validator refuses it too
      await expect(mission.decide('spend_ok_desk', 'approved', { by: 'bob', role: 'ops' })).rejects.toThrow(
        MissionRejected,
      );
      await expect(mission.decide('spend_ok_desk', 'approved', { by: 'bob' })).rejects.toThrow(/only by finance/);
      await mission.approve({ by: 'ana', role: 'finance', note: 'budgeted' });
      expect(await handle.result()).toEqual({ status: 'approved' });
      expect((await mission.decided()).map((d) => d.arg)).toEqual([
        { key: 'spend_ok_desk', value: 'approved', by: 'ana', note: 'budgeted', role: 'finance' },
      ]);
      expect((await mission.timeline()).map((l) => l.text).join('\n')).toContain('"role":"finance"');
      await expectAuditOk(handle.workflowId);
    },
  );

  it('the console shows the card only to finance, refuses others with 403, and records the role', T, async () => {
    const handle = await m.start({ agent: 'finance-spend', input: { item: 'chair' } });
    await waitForStatus(handle, (s) => s.status === 'waiting');
    const url = `/missions/${handle.workflowId}`;
    const bobInbox = await page('/', BOB);
    expect(bobInbox).not.toContain(`action="${url}/decide"`);
    expect(bobInbox).toContain('You act as <strong>bob</strong> <small>(ops)</small>');
    const bobPage = await page(url, BOB);
    expect(bobPage).toMatch(
      /waits for finance; you act as <strong>bob<\/strong> \(ops\), so it is not yours to decide/,
    );
    const refused = await post(`${url}/decide`, BOB, {
      _csrf: csrfOf(bobPage),
      key: 'spend_ok_chair',
      value: '"approved"',
    });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toMatch(/only by finance; you act as bob \(ops\)/);

    const anaInbox = await page('/', ANA);
    expect(anaInbox).toContain(`action="${url}/decide"`);
    expect(
      (await post(`${url}/decide`, ANA, { _csrf: csrfOf(anaInbox), key: 'spend_ok_chair', value: '"approved"' }))
        .status,
    ).toBe(303);
    expect(await handle.result()).toEqual({ status: 'approved' });
    expect(await page(url, ANA)).toContain('Approved by ana as finance');
    expect((await getMission(m.client, handle.workflowId).decided())[0]!.arg).toMatchObject({
      by: 'ana',
      role: 'finance',
    });
  });
});

describe('an effect only finance may approve', () => {
  it(
    'the CLI refuses it without the role, approves it with --role finance; the record and the ledger show the role',
    T,
    async () => {
      process.env.PAYOUT_FILE = `/tmp/roles-payouts-${Date.now()}.jsonl`;
      const handle = await m.start({ agent: 'finance-payout', input: { name: 'bob', amount: 40 } });
      const waiting = await waitForStatus(handle, (s) => (s.effectApprovals?.length ?? 0) > 0);
      expect(waiting.effectApprovals[0]).toMatchObject({ tool: 'send_payout', approvers: ['finance'] });
      const without = await cli('effect', 'approve', handle.workflowId);
      expect(without.code).not.toBe(0);
      expect(without.stderr).toMatch(/may be decided only by finance/);
      const wrong = await cli('effect', 'approve', handle.workflowId, '--role', 'ops');
      expect(wrong.stderr).toMatch(/only by finance, not by ops/);
      expect((await cli('effect', 'approve', handle.workflowId, '--role', 'finance')).code).toBe(0);
      expect(await handle.result()).toMatchObject({ status: 'sent' });
      const mission = getMission(m.client, handle.workflowId);
      expect((await mission.status()).approvals).toEqual([
        expect.objectContaining({ outcome: 'approved', by: 'cli-user', role: 'finance', approvers: ['finance'] }),
      ]);
      expect((await cli('ledger', handle.workflowId)).stdout).toMatch(
        /send_payout \(task payout\) approved by cli-user as finance/,
      );
      await expectAuditOk(handle.workflowId);
    },
  );

  it('the console: bob (ops) gets 403 and no card; ana (finance) approves', T, async () => {
    process.env.PAYOUT_FILE = `/tmp/roles-payouts-${Date.now()}.jsonl`;
    const handle = await m.start({ agent: 'finance-payout', input: { name: 'cy', amount: 30 } });
    const waiting = await waitForStatus(handle, (s) => (s.effectApprovals?.length ?? 0) > 0);
    const key = waiting.effectApprovals[0]!.key;
    const action = `/missions/${handle.workflowId}/effects/${encodeURIComponent(key)}/approve`;
    const bobPage = await page(`/missions/${handle.workflowId}`, BOB);
    expect(bobPage).not.toContain(`action="${action}"`);
    expect((await post(action, BOB, { _csrf: csrfOf(bobPage) })).status).toBe(403);
    const anaPage = await page('/', ANA);
    expect(anaPage).toContain(`action="${action}"`);
    expect((await post(action, ANA, { _csrf: csrfOf(anaPage) })).status).toBe(303);
    expect(await handle.result()).toMatchObject({ status: 'sent' });
    expect((await getMission(m.client, handle.workflowId).status()).approvals[0]).toMatchObject({
      by: 'ana',
      role: 'finance',
    });
  });
});

describe('a plan step only finance may approve', () => {
  const pay = (id: string, account: string, extra: Record<string, unknown> = {}) => ({
    id,
    description: `pay ${account}`,
    tool: 'send_payout',
    args: { account, amount: 10 },
    ...extra,
  });
  const startPayPlan = (id: string, steps: unknown[]) =>
    startPlan(m.client, {
      id: `${id}-${Date.now()}`,
      agent: 'finance-payout',
      approve: true,
      taskQueue: m.taskQueue,
      document: { steps } as never,
    });

  it(
    'the client and the CLI refuse it without the role (exit code 1); with it the step runs and the role is recorded',
    T,
    async () => {
      process.env.PAYOUT_FILE = `/tmp/roles-payouts-${Date.now()}.jsonl`;
      // the plan says the step needs no approval: its tool's approvers decide that it does
      const plan = await startPayPlan('roles-plan', [
        pay('pay_a', 'acct_a', { requiresApproval: false }),
        pay('pay_b', 'acct_b'),
      ]);
      const waiting = await waitForPlan(plan, (v) => v.approvals.length === 2);
      expect(waiting.approvals[0]).toMatchObject({ stepId: 'pay_a', tool: 'send_payout', approvers: ['finance'] });
      expect(renderPlan(waiting)).toContain(`approve-step ${plan.id} pay_a`);
      expect(renderPlan(waiting)).toMatch(/--role finance/);
      await expect(plan.approveStep('pay_a', { by: 'bob' })).rejects.toThrow(
        /step pay_a \(send_payout\) may be decided only by finance: act with one of these roles/,
      );
      await expect(plan.approveStep('pay_a', { by: 'bob', role: 'ops' })).rejects.toThrow(
        /only by finance, not by ops/,
      );
      await expect(plan.denyStep('pay_a', { by: 'bob', reason: 'no' })).rejects.toThrow(PlanRejected);
      // past the client's own check, the workflow's validator refuses it too
      await expect(
        plan.workflow.executeUpdate(approveStepUpdate, { args: [{ stepId: 'pay_a', by: 'bob', role: 'ops' }] }),
      ).rejects.toMatchObject({ cause: { message: expect.stringMatching(/only by finance, not by ops/) } });
      await expect(
        plan.workflow.executeUpdate(approveStepUpdate, { args: [{ stepId: 'pay_a', by: 'bob' }] }),
      ).rejects.toMatchObject({ cause: { message: expect.stringMatching(/only by finance: act with/) } });

      const without = await cli('plan', 'approve-step', plan.id, 'pay_a');
      expect(without.code).toBe(1);
      expect(without.stderr).toMatch(/step pay_a \(send_payout\) may be decided only by finance/);
      const denied = await cli('plan', 'deny-step', plan.id, 'pay_b', '--role', 'ops', '--reason', 'no');
      expect(denied.code).toBe(1);
      expect(denied.stderr).toMatch(/only by finance, not by ops/);
      expect((await cli('plan', 'approve-step', plan.id, 'pay_a', '--role', 'finance', '--by', 'cli-user')).code).toBe(
        0,
      );
      const envRole = await runCli(
        ['plan', 'deny-step', plan.id, 'pay_b', '--reason', 'not this month', '--by', 'cli-user'],
        { ...cliEnv(), NAVIGATOR_ROLE: 'finance' },
      );
      expect(envRole.code).toBe(0);
      expect((await plan.result()).status).toBe('completed');
      const view = await plan.status();
      expect(view.approvalRecords).toEqual([
        expect.objectContaining({
          key: 'pay_a',
          outcome: 'approved',
          by: 'cli-user',
          role: 'finance',
          approvers: ['finance'],
        }),
        expect.objectContaining({
          key: 'pay_b',
          outcome: 'denied',
          by: 'cli-user',
          role: 'finance',
          note: 'not this month',
        }),
      ]);
      expect(renderPlan(view)).toMatch(/pay_a \(send_payout\).*approved.* by cli-user as finance/);
      expect((await getPlan(m.client, plan.id).stepVerdicts()).map((v) => v.arg)).toEqual([
        expect.objectContaining({ stepId: 'pay_a', role: 'finance' }),
        expect.objectContaining({ stepId: 'pay_b', role: 'finance' }),
      ]);
      await expectPlanAudit(plan.id);
    },
  );

  it(
    'the console: bob (ops) sees no card and gets 403; ana (finance) approves and the role is recorded',
    T,
    async () => {
      process.env.PAYOUT_FILE = `/tmp/roles-payouts-${Date.now()}.jsonl`;
      const plan = await startPayPlan('roles-plan-console', [pay('pay_c', 'acct_c')]);
      await waitForPlan(plan, (v) => v.approvals.length === 1);
      const url = `/plans/${plan.id}`;
      const approve = `${url}/steps/pay_c/approve`;
      const bobInbox = await page('/', BOB);
      expect(bobInbox).not.toContain(`action="${approve}"`);
      const bobPage = await page(url, BOB);
      expect(bobPage).not.toContain(`action="${approve}"`);
      expect(bobPage).toMatch(
        /waits for finance; you act as <strong>bob<\/strong> \(ops\), so it is not yours to decide/,
      );
      // the CSRF token is the console's (any page with a form has it): the refusal is the role's
      const csrf = csrfOf(await page('/', ANA));
      const refused = await post(approve, BOB, { _csrf: csrf });
      expect(refused.status).toBe(403);
      expect(await refused.text()).toMatch(
        /step pay_c \(send_payout\) may be decided only by finance; you act as bob \(ops\)/,
      );
      expect((await post(`${url}/steps/pay_c/deny`, BOB, { _csrf: csrf, reason: 'no' })).status).toBe(403);

      const anaInbox = await page('/', ANA);
      expect(anaInbox).toContain(`action="${approve}"`);
      expect((await post(approve, ANA, { _csrf: csrfOf(anaInbox), note: 'ok' })).status).toBe(303);
      expect((await plan.result()).status).toBe('completed');
      expect((await plan.status()).approvalRecords[0]).toMatchObject({
        by: 'ana',
        role: 'finance',
        outcome: 'approved',
      });
      expect(await page(url, ANA)).toContain('approved by ana as finance');
      await expectPlanAudit(plan.id);
    },
  );
});

async function expectPlanAudit(id: string) {
  const report = await auditPlan(m.client, id, { workflowBundle: m.env.bundle, replayer: m.env.replayer });
  expect(report.problems).toEqual([]);
  expect(report.replay.errors).toEqual([]);
  expect(report.ok).toBe(true);
}
