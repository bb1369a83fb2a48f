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
import { MissionRejected, getMission } from '../../src/client/missions.ts';
import { createConsoleApp } from '../../src/console/server.ts';
import { DefinitionError, defineDecision, defineTool } from '../../src/navigator/index.ts';
import { z } from 'zod';
import { runCli } from '../cli/run-cli.ts';
import { missionEnv, waitForStatus, type MissionEnv } from '../mission/harness.ts';
import roleAgents, { financePayoutAgent, spendAgent } from './fixtures/roles-agents.ts';

describe('approvers in definitions', () => {
  it('are role names, at least one; they reach the workflow in the agent description', () => {
    const base = { name: 'd', description: 'x', key: () => 'k', values: z.enum(['approved', 'rejected']) };
    expect(() => defineDecision({ ...base, approvers: [] })).toThrow(/approvers: name at least one role/);
    expect(() => defineDecision({ ...base, approvers: ['fin ance'] })).toThrow(DefinitionError);
    expect(() => defineTool({ name: 't', description: 'x', input: z.object({}), approvers: ['a b'], handler: () => null })).toThrow(/approvers/);
    expect(describeAgent(spendAgent, { item: 'desk' }).decisions[0]!.approvers).toEqual(['finance']);
    expect(describeAgent(financePayoutAgent, { name: 'x', amount: 1 })).toMatchObject({ approvals: ['send_payout'], approvers: { send_payout: ['finance'] } });
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
const page = async (path: string, secret: string) => (await app.request(`${ORIGIN}${path}`, { headers: as(secret) })).text();
const csrfOf = (text: string) => /name="_csrf" value="([0-9a-f]+)"/.exec(text)![1]!;
const post = (path: string, secret: string, fields: Record<string, string>) =>
  app.request(`${ORIGIN}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN, ...as(secret) }, body: new URLSearchParams(fields).toString() });
const cli = (...args: string[]) =>
  runCli(args, { ...process.env, TEMPORAL_ADDRESS: m.env.server.address, TEMPORAL_NAMESPACE: m.env.server.namespace, NAVIGATOR_TASK_QUEUE: m.taskQueue, NAVIGATOR_USER: 'cli-user', NAVIGATOR_ROLE: '' });

async function expectAuditOk(workflowId: string) {
  const report = await m.audit(workflowId);
  expect(report.problems).toEqual([]);
  expect(report.ok).toBe(true);
}

describe('a decision only finance may make', () => {
  it('the workflow and the client refuse another role or none; finance decides and the role is recorded', T, async () => {
    const handle = await m.start({ agent: 'finance-spend', input: { item: 'desk' } });
    await waitForStatus(handle, (s) => s.status === 'waiting');
    const mission = getMission(m.client, handle.workflowId);
    await expect(mission.approve({ by: 'bob' })).rejects.toThrow(/decision spend_ok_desk may be decided only by finance: act with one of these roles/);
    // past the client's own check, the workflow's validator refuses it too
    await expect(mission.decide('spend_ok_desk', 'approved', { by: 'bob', role: 'ops' })).rejects.toThrow(MissionRejected);
    await expect(mission.decide('spend_ok_desk', 'approved', { by: 'bob' })).rejects.toThrow(/only by finance/);
    await mission.approve({ by: 'ana', role: 'finance', note: 'budgeted' });
    expect(await handle.result()).toEqual({ status: 'approved' });
    expect((await mission.decided()).map((d) => d.arg)).toEqual([{ key: 'spend_ok_desk', value: 'approved', by: 'ana', note: 'budgeted', role: 'finance' }]);
    expect((await mission.timeline()).map((l) => l.text).join('\n')).toContain('"role":"finance"');
    await expectAuditOk(handle.workflowId);
  });

  it('the console shows the card only to finance, refuses others with 403, and records the role', T, async () => {
    const handle = await m.start({ agent: 'finance-spend', input: { item: 'chair' } });
    await waitForStatus(handle, (s) => s.status === 'waiting');
    const url = `/missions/${handle.workflowId}`;
    const bobInbox = await page('/', BOB);
    expect(bobInbox).not.toContain(`action="${url}/decide"`);
    expect(bobInbox).toContain('You act as <strong>bob</strong> <small>(ops)</small>');
    const bobPage = await page(url, BOB);
    expect(bobPage).toMatch(/waits for finance; you act as <strong>bob<\/strong> \(ops\), so it is not yours to decide/);
    const refused = await post(`${url}/decide`, BOB, { _csrf: csrfOf(bobPage), key: 'spend_ok_chair', value: '"approved"' });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toMatch(/only by finance; you act as bob \(ops\)/);

    const anaInbox = await page('/', ANA);
    expect(anaInbox).toContain(`action="${url}/decide"`);
    expect((await post(`${url}/decide`, ANA, { _csrf: csrfOf(anaInbox), key: 'spend_ok_chair', value: '"approved"' })).status).toBe(303);
    expect(await handle.result()).toEqual({ status: 'approved' });
    expect(await page(url, ANA)).toContain('Approved by ana as finance');
    expect((await getMission(m.client, handle.workflowId).decided())[0]!.arg).toMatchObject({ by: 'ana', role: 'finance' });
  });
});

describe('an effect only finance may approve', () => {
  it('the CLI refuses it without the role, approves it with --role finance; the record and the ledger show the role', T, async () => {
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
    expect((await mission.status()).approvals).toEqual([expect.objectContaining({ outcome: 'approved', by: 'cli-user', role: 'finance', approvers: ['finance'] })]);
    expect((await cli('ledger', handle.workflowId)).stdout).toMatch(/send_payout \(task payout\) approved by cli-user as finance/);
    await expectAuditOk(handle.workflowId);
  });

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
    expect((await getMission(m.client, handle.workflowId).status()).approvals[0]).toMatchObject({ by: 'ana', role: 'finance' });
  });
});
