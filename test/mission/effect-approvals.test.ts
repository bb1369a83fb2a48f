/**
 * Approval gates on a mission's effects: an agent with `approvals: {external: true}` parks
 * each external call until a person approves or denies it (or its deadline passes). The
 * approval is bound to the exact args; a denial reaches the program as the tool's error;
 * every verdict is kept with who, when and the args' hash. Each test ends with an audit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowFailedError } from '@temporalio/client';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { valueHash } from '../../src/history/hash.ts';
import { auditChain } from '../../src/audit/mission/audit.ts';
import { fetchChain } from '../../src/history/fetch.ts';
import { NavigatorClient } from '../../src/client/index.ts';
import { MissionRejected, getMission } from '../../src/client/mission/client.ts';
import { createConsoleApp } from '../../src/console/server.ts';
import payoutAgents, { payouts } from './fixtures/payout-agent.ts';
import { runCli } from '../cli/run-cli.ts';
import { missionEnv, waitForStatus, type MissionEnv } from './harness.ts';

let m: MissionEnv;
beforeAll(async () => {
  m = await missionEnv();
  await m.startWorker(Object.values(payoutAgents));
});
afterAll(async () => m?.shutdown());

const T = { timeout: 120_000 };

function freshPayoutFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'payouts-')), 'payouts.jsonl');
  process.env.PAYOUT_FILE = file;
  return file;
}

async function expectAuditOk(workflowId: string) {
  const report = await m.audit(workflowId);
  if (!report.ok) console.log('AUDIT', JSON.stringify(report, null, 1).slice(0, 3000));
  expect(report.problems).toEqual([]);
  expect(report.duplicateEffects).toEqual([]);
  expect(report.replay.errors).toEqual([]);
  expect(report.ok).toBe(true);
}

const cli = (...args: string[]) =>
  runCli(args, {
    ...process.env,
    TEMPORAL_ADDRESS: m.env.server.address,
    TEMPORAL_NAMESPACE: m.env.server.namespace,
    NAVIGATOR_TASK_QUEUE: m.taskQueue,
    NAVIGATOR_USER: 'cli-user',
  });

const waitingEffect = (s: { effectApprovals?: unknown[] }) => (s.effectApprovals?.length ?? 0) > 0;

describe('approval gates on mission effects', () => {
  it('parks the external call until approved, then runs it once; the approval is recorded', T, async () => {
    const file = freshPayoutFile();
    const handle = await m.start({ agent: 'payout', input: { name: 'bob', amount: 40 } });
    const waiting = await waitForStatus(handle, waitingEffect);
    expect(waiting.status).toBe('waiting');
    expect(waiting.effectApprovals).toEqual([
      expect.objectContaining({ tool: 'send_payout', taskId: 'payout', args: { account: 'acct_bob', amount: 40 } }),
    ]);
    expect(payouts(file)).toEqual([]);

    const mission = getMission(m.client, handle.workflowId);
    await mission.approveEffect({ by: 'ana', note: 'fine' });
    expect(await handle.result()).toEqual({ status: 'sent', reference: 'payout_acct_bob_40' });
    expect(payouts(file)).toHaveLength(1);
    const done = await mission.status();
    expect(done.approvals).toEqual([
      expect.objectContaining({
        tool: 'send_payout',
        outcome: 'approved',
        by: 'ana',
        note: 'fine',
        argsHash: valueHash({ account: 'acct_bob', amount: 40 }),
      }),
    ]);
    expect(done.effectApprovals).toEqual([]);
    await expectAuditOk(handle.workflowId);

    // the same history with the approval turned into a denial: the payout ran unapproved
    const chain = await fetchChain(m.client, handle.workflowId);
    const accepted = chain[0]!.history.events!.find(
      (e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'approveEffect',
    )!;
    const payload =
      accepted.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest!.input!.args!.payloads![0]!;
    payload.data = new TextEncoder().encode(
      JSON.stringify({ ...JSON.parse(new TextDecoder().decode(payload.data!)), approved: false }),
    );
    const forged = await auditChain(chain, null, {
      workflowBundle: m.env.bundle,
      skipReplay: true,
      requireClosed: true,
    });
    expect(forged.ok).toBe(false);
    const scheduled = chain[0]!.history.events!.find(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool',
    )!;
    expect(forged.values.mismatches).toEqual([
      expect.objectContaining({
        check: 'approval',
        message: expect.stringContaining(
          "send_payout needs a person's approval, and no approval of these args came before it ran",
        ),
      }),
    ]);
    expect(forged.values.mismatches[0]!.sides[0]!.eventId).toBe(Number(scheduled.eventId));
  });

  it('a denial reaches the program as the tool error; nothing is paid', T, async () => {
    const file = freshPayoutFile();
    const handle = await m.start({ agent: 'payout', input: { name: 'cy', amount: 40 } });
    await waitForStatus(handle, waitingEffect);
    const mission = getMission(m.client, handle.workflowId);
    await mission.denyEffect('not this month', { by: 'bob' });
    expect(await handle.result()).toEqual({ status: 'not_sent' });
    expect(payouts(file)).toEqual([]);
    expect((await mission.status()).approvals).toEqual([
      expect.objectContaining({ outcome: 'denied', by: 'bob', note: 'not this month' }),
    ]);
    await expectAuditOk(handle.workflowId);
  });

  it('an approval holds for the args it was given: the same task with other args waits again', T, async () => {
    const file = freshPayoutFile();
    const handle = await m.start({ agent: 'payout-once', input: { name: 'dee', amount: 100 } });
    const mission = getMission(m.client, handle.workflowId);
    await waitForStatus(
      handle,
      (s) =>
        s.effectApprovals?.[0]?.args !== undefined && (s.effectApprovals[0].args as { amount: number }).amount === 100,
    );
    // a console page showing the 100, left open
    const navigator = new NavigatorClient({ client: m.client, taskQueue: m.taskQueue });
    const app = createConsoleApp({ navigator, user: 'bo', pollMs: 50, noAuth: true });
    const origin = 'http://localhost';
    const page = await (await app.request(`${origin}/missions/${handle.workflowId}`)).text();
    const [, action, form] = /<form method="post" action="([^"]*\/approve)" class="inline">([\s\S]*?)<\/form>/.exec(
      page,
    )!;
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(form!)![1]!;
    await mission.approveEffect({ by: 'ana' });
    // the service refuses 100 (over its limit); the next pass asks for the same task with 50
    const again = await waitForStatus(
      handle,
      (s) => (s.effectApprovals?.[0]?.args as { amount?: number } | undefined)?.amount === 50,
    );
    expect(again.effectApprovals[0]!.key).toBe((await mission.status()).approvals[0]!.key);
    // Approve on the page that showed 100 is not an approval of 50
    const stale = await app.request(`${origin}${action!}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams({ _csrf: field('_csrf'), argsHash: field('argsHash'), note: '' }).toString(),
    });
    expect(stale.status).toBe(400);
    expect(await stale.text()).toContain('now waits with other args than the ones shown');
    await expect(mission.denyEffect('no', { argsHash: field('argsHash') })).rejects.toThrow(
      /now waits with other args than the ones shown \(\{"account":"acct_dee","amount":50\}\)/,
    );
    expect((await mission.status()).effectApprovals).toHaveLength(1);
    await mission.approveEffect({ by: 'ana' });
    expect(await handle.result()).toEqual({ status: 'sent', reference: 'payout_acct_dee_50' });
    expect(payouts(file).map((p) => p.amount)).toEqual([50]);
    expect((await mission.status()).approvals.map((a) => [a.outcome, (a.args as { amount: number }).amount])).toEqual([
      ['approved', 100],
      ['approved', 50],
    ]);
    await expectAuditOk(handle.workflowId);
  });

  it('at the deadline: denied by default, or the mission fails with onTimeout fail', T, async () => {
    const file = freshPayoutFile();
    const denied = await m.start({
      agent: 'payout',
      input: { name: 'eve', amount: 40 },
      options: { approval: { timeoutMs: 1500 } },
    });
    expect(await denied.result()).toEqual({ status: 'not_sent' });
    const failed = await m.start({
      agent: 'payout',
      input: { name: 'fay', amount: 40 },
      options: { approval: { timeoutMs: 1500, onTimeout: 'fail' } },
    });
    const err = await failed.result().catch((e) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause?.message).toMatch(
      /no approval for send_payout \(task payout\) before the deadline/,
    );
    expect(payouts(file)).toEqual([]);
    expect((await getMission(m.client, denied.workflowId).status()).approvals).toEqual([
      expect.objectContaining({ outcome: 'expired', by: null }),
    ]);
    await expectAuditOk(denied.workflowId);
    await expectAuditOk(failed.workflowId);
  });

  it('from the CLI: status shows the whole args and the commands; effect deny and approve', T, async () => {
    const file = freshPayoutFile();
    const handle = await m.start({ agent: 'payout', input: { name: 'hal', amount: 40 } });
    await waitForStatus(handle, waitingEffect);
    const status = await cli('status', handle.workflowId);
    expect(status.stdout).toContain('effect waiting for approval: send_payout (task payout)');
    expect(status.stdout).toContain('"account": "acct_hal"');
    expect(status.stdout).toMatch(/npx navigator effect approve mission-\S+ [0-9a-f]{16,} --args-hash [0-9a-f]{16}\n/);
    // the printed deny command, bound to the args status showed
    const printed = /npx navigator effect deny (mission-\S+) ([0-9a-f]{16,}) --args-hash ([0-9a-f]{16}) --reason/.exec(
      status.stdout,
    )!;
    const otherArgs = await cli(
      'effect',
      'deny',
      printed[1]!,
      printed[2]!,
      '--args-hash',
      '0000000000000000',
      '--reason',
      'x',
    );
    expect(otherArgs.code).not.toBe(0);
    expect(otherArgs.stderr).toContain('now waits with other args than the ones shown');
    // the program line that asked for it, as the model wrote it
    expect(status.stdout).toContain(
      'asked for at line 2 of the program: p (task "payout" (tool/send_payout {:account (:id acct) :amount data/amount}))]',
    );
    const noReason = await cli('effect', 'deny', handle.workflowId);
    expect(noReason.code).not.toBe(0);
    const denied = await cli(
      'effect',
      'deny',
      printed[1]!,
      printed[2]!,
      '--args-hash',
      printed[3]!,
      '--reason',
      'wrong account',
    );
    expect(denied).toMatchObject({ code: 0 });
    expect(denied.stdout).toMatch(/^effect \S+ denied on mission-/);
    expect(await handle.result()).toEqual({ status: 'not_sent' });
    expect(payouts(file)).toEqual([]);
    const after = await cli('status', handle.workflowId);
    expect(after.stdout).toContain('send_payout (task payout) denied by cli-user');
    expect(after.stdout).toContain('wrong account');
    // a denied effect never ran: the ledger lists it among the approvals
    const ledger = await cli('ledger', handle.workflowId);
    expect(ledger.stdout).toMatch(
      /Approvals:\n {2}\d{4}-\d\d-\d\dT\S+ send_payout \(task payout\) denied by cli-user: wrong account, args hash [0-9a-f]{16}\n/,
    );
    const late = await cli('effect', 'approve', handle.workflowId);
    expect(late.code).not.toBe(0);
    expect(late.stderr).toMatch(/not running|completed|no effect/);
    await expectAuditOk(handle.workflowId);
  });

  it(
    'in the console: the inbox and the mission page show the waiting effect; Approve from the inbox runs it',
    T,
    async () => {
      const file = freshPayoutFile();
      const navigator = new NavigatorClient({ client: m.client, taskQueue: m.taskQueue });
      const app = createConsoleApp({
        navigator,
        user: 'ana',
        pollMs: 50,
        noAuth: true,
        agents: new Map(Object.values(payoutAgents).map((e) => [e.agent.name, e])),
      });
      const origin = 'http://localhost';
      const handle = await m.start({ agent: 'payout', input: { name: 'ivy', amount: 40 } });
      await waitForStatus(handle, waitingEffect);
      const inbox = await (await app.request(`${origin}/`)).text();
      expect(inbox).toContain('Mission effects to approve (1)');
      expect(inbox).toContain('Pays an amount in USD to an account. Irreversible.');
      expect(inbox).toContain('acct_ivy');
      expect(inbox).toContain('data-confirm=');
      // the program line that asked for it, among the engineer's details of the card
      expect(inbox).toContain('<dt>program line 2</dt><dd><code>p (task &quot;payout&quot;');
      const key = (await getMission(m.client, handle.workflowId).status()).effectApprovals[0]!.key;
      const page = await (await app.request(`${origin}/missions/${handle.workflowId}`)).text();
      expect(page).toContain(`/missions/${handle.workflowId}/effects/${key}/approve`);
      const list = await (await app.request(`${origin}/missions`)).text();
      expect(list).toContain('waiting for you');
      const csrf = /name="_csrf" value="([0-9a-f]+)"/.exec(inbox)![1]!;
      const res = await app.request(`${origin}/missions/${handle.workflowId}/effects/${key}/approve`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
        body: new URLSearchParams({ _csrf: csrf, note: 'ok' }).toString(),
      });
      expect(res.status).toBe(303);
      expect(await handle.result()).toEqual({ status: 'sent', reference: 'payout_acct_ivy_40' });
      expect(payouts(file)).toHaveLength(1);
      expect((await getMission(m.client, handle.workflowId).status()).approvals[0]).toMatchObject({
        outcome: 'approved',
        by: 'ana',
        note: 'ok',
      });
      const again = await app.request(`${origin}/missions/${handle.workflowId}/effects/${key}/deny`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
        body: new URLSearchParams({ _csrf: csrf, reason: 'late' }).toString(),
      });
      expect(again.status).toBe(400);
      await expectAuditOk(handle.workflowId);
    },
  );

  it('refuses a verdict for an effect that does not wait', T, async () => {
    freshPayoutFile();
    const handle = await m.start({ agent: 'payout', input: { name: 'gil', amount: 40 } });
    await waitForStatus(handle, waitingEffect);
    const mission = getMission(m.client, handle.workflowId);
    await expect(mission.approveEffect({ key: 'nosuch' })).rejects.toThrow(MissionRejected);
    const update = (await handle
      .executeUpdate('approveEffect', { args: [{ key: 'nosuch', approved: true }] })
      .catch((e) => e)) as Error & { cause?: Error };
    expect(String(update.cause?.message ?? update.message)).toMatch(/no effect "nosuch" waits for approval; waiting: /);
    await mission.approveEffect();
    expect(await handle.result()).toMatchObject({ status: 'sent' });
    await expectAuditOk(handle.workflowId);
  });
});
