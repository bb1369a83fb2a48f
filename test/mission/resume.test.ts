/**
 * Restarting a mission from its journal: a wire transfer that ran out of budget after
 * its manager approved is resumed as a new mission, which sends the wire without
 * preparing it again; the bank applied each operation once, and the audit of the new
 * mission follows the link to the old one. Running and completed missions are refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MissionRejected, NavigatorClient } from '../../src/client/index.ts';
import { appliedOperations } from '../../examples/wire-transfer/index.ts';
import { type MissionEnv, freshBankFile, missionEnv, waitForStatus } from './harness.ts';

let m: MissionEnv;
let navigator: NavigatorClient;
beforeAll(async () => {
  m = await missionEnv();
  await m.startWorker();
  navigator = new NavigatorClient({ client: m.client, taskQueue: m.taskQueue });
}, 60_000);
afterAll(() => m?.shutdown());

describe('navigator resume', () => {
  it('a mission out of budget resumes from its journal: nothing runs twice, the audit follows the link', async () => {
    const bank = freshBankFile();
    const old = await navigator.start('wire-transfer', { recipient: 'bob', amount: 5000 }, { options: { budgets: { passes: 1 }, timeouts: { heartbeatMs: 3000 } } });
    await waitForStatus(old.workflow, (s) => s.status === 'waiting');
    await old.approve({ by: 'ana' });
    expect(await old.result()).toMatchObject({ status: 'budget_exhausted' });
    expect(appliedOperations(bank).map((r) => r.operation)).toEqual(['prepare_wire', 'request_approval']);

    const resumed = await navigator.resume(old.id, { options: { budgets: { passes: 3 } } });
    expect(await resumed.result()).toMatchObject({ status: 'sent' });
    expect(appliedOperations(bank).map((r) => r.operation)).toEqual(['prepare_wire', 'request_approval', 'execute_wire']);
    expect((await resumed.status()).resumedFrom).toMatchObject({ workflowId: old.id });
    expect((await resumed.journal()).entries.map(([k]) => k)).toEqual(['prepare_wire_bob_5000', 'request_approval_bob_5000', 'manager_decision_bob_5000', 'execute_wire_bob_5000']);

    const audit = await resumed.audit({ workflowBundle: m.env.bundle });
    expect(audit.ok, JSON.stringify(audit.problems)).toBe(true);
    expect(audit.resumedFrom).toMatchObject({ workflowId: old.id, journalMatches: true });
  }, 120_000);

  it('a cancelled mission resumes too; running and completed ones are refused', async () => {
    freshBankFile();
    const running = await navigator.start('wire-transfer', { recipient: 'cy', amount: 10 }, { options: { timeouts: { heartbeatMs: 3000 } } });
    await waitForStatus(running.workflow, (s) => s.status === 'waiting');
    await expect(navigator.resume(running.id)).rejects.toThrow(MissionRejected);
    await expect(navigator.resume(running.id)).rejects.toThrow(/still running/);
    await running.cancel('stop for now');
    await expect(running.result()).rejects.toThrow();
    const again = await navigator.resume(running.id, { id: `${running.id}-again` });
    await waitForStatus(again.workflow, (s) => s.status === 'waiting');
    expect((await again.journal()).entries.map(([k]) => k)).toEqual(['prepare_wire_cy_10', 'request_approval_cy_10']);
    await again.approve();
    expect(await again.result()).toMatchObject({ status: 'sent' });
    await expect(navigator.resume(again.id)).rejects.toThrow(/completed: nothing to resume/);
  }, 120_000);
});
