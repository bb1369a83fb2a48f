/**
 * The programmatic client on a real worker and server: start the wire-transfer mission,
 * read what it waits for, get a bad decision refused with the validator's message,
 * approve, read the result and audit it; cancel another; list missions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MissionRejected, NavigatorClient } from '../../src/client/index.ts';
import { type MissionEnv, freshBankFile, missionEnv, until, waitForStatus } from '../mission/harness.ts';

let m: MissionEnv;
let navigator: NavigatorClient;
beforeAll(async () => {
  m = await missionEnv();
  await m.startWorker();
  navigator = new NavigatorClient({ client: m.client, taskQueue: m.taskQueue });
}, 60_000);
afterAll(() => m?.shutdown());

describe('NavigatorClient', () => {
  it('starts a mission, refuses a bad decision, approves, returns the result and audits', async () => {
    freshBankFile();
    const mission = await navigator.start(
      'wire-transfer',
      { recipient: 'bob', amount: 5000 },
      { options: { timeouts: { heartbeatMs: 3000 } } },
    );
    await waitForStatus(mission.workflow, (s) => s.status === 'waiting');
    expect(await mission.pending()).toMatchObject({
      key: 'manager_decision_bob_5000',
      allowed: ['approved', 'rejected'],
    });

    const refused = await mission.decide('manager_decision_bob_5000', 'maybe').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MissionRejected);
    expect((refused as Error).message).toMatch(/maybe/);
    expect((await mission.journal()).entries.map(([k]) => k)).not.toContain('manager_decision_bob_5000');

    expect(await mission.approve({ by: 'ana', note: 'checked' })).toEqual({
      key: 'manager_decision_bob_5000',
      value: 'approved',
    });
    expect(await mission.result()).toMatchObject({ status: 'sent' });
    expect((await mission.ledger()).some((e) => e.tool === 'execute_wire' && e.status === 'completed')).toBe(true);
    const audit = await mission.audit({ workflowBundle: m.env.bundle });
    expect(audit.ok, JSON.stringify(audit.problems)).toBe(true);

    // the closed mission's page in one query: the same as the six it stands for
    const overview = await mission.overview();
    const [status, journal, ledger, progress, summaries, decisions] = await Promise.all([
      mission.status(),
      mission.journal(),
      mission.ledger(),
      mission.progress(),
      mission.summaries(),
      mission.decisions(),
    ]);
    // (a query's clock is that of the task it replays to: the wall-clock budget used may differ)
    const clockless = (v: typeof status) => ({
      ...v,
      budgets: { ...v.budgets, used: { ...v.budgets.used, wallClockMs: 0 } },
    });
    expect({ ...overview, status: clockless(overview.status) }).toEqual({
      status: clockless(status),
      journal,
      ledger,
      progress,
      summaries,
      decisions,
    });
    expect(overview.status.status).toBe('completed');
    expect(overview.progress).toContain('Put a hold on the funds and ask a manager');
  }, 120_000);

  it('refuses an invalid mission before starting it, and approving a mission that waits for nothing', async () => {
    await expect(
      navigator.start('wire-transfer', { recipient: 'bob', amount: 5 }, { options: { maxPasses: -1 } }),
    ).rejects.toThrow(MissionRejected);
    freshBankFile();
    const mission = await navigator.start(
      'wire-transfer',
      { recipient: 'cy', amount: 10 },
      { options: { timeouts: { heartbeatMs: 3000 } } },
    );
    await waitForStatus(mission.workflow, (s) => s.status === 'waiting');
    await mission.approve();
    await mission.result();
    await expect(navigator.mission(mission.id).approve()).rejects.toThrow(/is not waiting for a decision/);
  }, 120_000);

  it('cancels a mission and lists missions newest first', async () => {
    freshBankFile();
    const mission = await navigator.start(
      'wire-transfer',
      { recipient: 'di', amount: 20 },
      { options: { timeouts: { heartbeatMs: 3000 } } },
    );
    await waitForStatus(mission.workflow, (s) => s.status === 'waiting');
    await mission.cancel('not needed');
    await expect(mission.result()).rejects.toThrow();
    expect((await mission.status()).status).toBe('cancelled');
    const listed = await until(
      () => navigator.list(),
      (l) => l.some((w) => w.workflowId === mission.id),
    );
    expect(listed.map((w) => w.workflowId)).toContain(mission.id);
  }, 120_000);
});
