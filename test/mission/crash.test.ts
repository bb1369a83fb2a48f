/**
 * Crash safety: a worker process is killed with SIGKILL mid-run, a new one is started,
 * and every side effect still happens exactly once (asserted from the fake bank's file).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readBank } from '../../examples/wire-transfer/bank.ts';
import { getMission } from '../../src/client/mission/client.ts';
import { readerOf } from '../../src/history/reader.ts';
import { decideUpdate, journalQuery, ledgerQuery } from '../../src/workflows/mission/messages.ts';
import { payouts } from './fixtures/payout-agent.ts';
import { eventually, freshBankFile, missionEnv, until, waitForStatus, type MissionEnv } from './harness.ts';

const KEY = 'manager_decision_bob_5000';
const wire = { agent: 'wire-transfer', input: { recipient: 'bob', amount: 5000 } };
const fixture = join(process.cwd(), 'test/mission/fixtures/slow-agents.ts');

let m: MissionEnv;
beforeAll(async () => {
  m = await missionEnv();
});
afterEach(async () => m?.killWorkers());
afterAll(async () => m?.shutdown());

function childEnv(bank: string, markers: string, extra: Record<string, string> = {}) {
  return { NAVIGATOR_AGENTS: fixture, WIRE_TRANSFER_BANK_FILE: bank, MARKER_DIR: markers, ...extra };
}

function applied(bank: string, op: string) {
  return readBank(bank).filter((r) => r.operation === op && r.outcome === 'applied');
}

async function expectAuditOk(workflowId: string) {
  const report = await m.audit(workflowId);
  expect(report.journal.differences).toEqual([]);
  expect(report.duplicateEffects).toEqual([]);
  expect(report.replay.errors).toEqual([]);
  expect(report.problems).toEqual([]);
  expect(report.ok).toBe(true);
}

describe('a worker killed with SIGKILL', () => {
  it('mid execute_wire: the new worker finishes and the wire is sent exactly once', { timeout: 180_000 }, async () => {
    const bank = freshBankFile();
    const markers = mkdtempSync(join(tmpdir(), 'markers-'));
    const first = m.spawnWorker(childEnv(bank, markers, { STALL_MS: '60000' }));
    const handle = await m.start(wire);
    await waitForStatus(handle, (s) => s.status === 'waiting');
    await handle.executeUpdate(decideUpdate, { args: [{ key: KEY, value: 'approved' }] });
    await eventually(() => existsSync(join(markers, 'execute_wire.marker')), 60_000, 'execute_wire to run');
    first.kill('SIGKILL');

    m.spawnWorker(childEnv(bank, markers));
    expect(await handle.result()).toMatchObject({ status: 'sent' });
    expect(applied(bank, 'execute_wire')).toHaveLength(1);
    // the retry reached the bank again with the same key and was deduplicated
    expect(
      readBank(bank).filter((r) => r.operation === 'execute_wire' && r.outcome === 'deduplicated').length,
    ).toBeGreaterThanOrEqual(1);
    const { entries } = await handle.query(journalQuery);
    expect(entries.map(([k]) => k)).toEqual([
      'prepare_wire_bob_5000',
      'request_approval_bob_5000',
      KEY,
      'execute_wire_bob_5000',
    ]);
    // the ledger says why the wire was retried: the killed attempt left no error
    const wireCall = (await handle.query(ledgerQuery)).find((e) => e.tool === 'execute_wire')!;
    expect(wireCall).toMatchObject({
      status: 'completed',
      attempts: 2,
      failedAttempts: [{ attempt: 1, type: 'NoRecord' }],
    });
    await expectAuditOk(handle.workflowId);
  });

  it(
    'while a pass is evaluating: the pass runs again elsewhere and nothing happens twice',
    { timeout: 180_000 },
    async () => {
      const bank = freshBankFile();
      const markers = mkdtempSync(join(tmpdir(), 'markers-'));
      const first = m.spawnWorker(childEnv(bank, markers, { SLOW_PASS_MS: '60000' }));
      const handle = await m.start(wire);
      await eventually(() => existsSync(join(markers, 'pass-1.marker')), 60_000, 'the first pass to call the model');
      first.kill('SIGKILL');

      m.spawnWorker(childEnv(bank, markers));
      await waitForStatus(handle, (s) => s.status === 'waiting', 120_000);
      await handle.executeUpdate(decideUpdate, { args: [{ key: KEY, value: 'approved' }] });
      expect(await handle.result()).toMatchObject({ status: 'sent' });
      for (const op of ['prepare_wire', 'request_approval', 'execute_wire']) expect(applied(bank, op)).toHaveLength(1);
      await expectAuditOk(handle.workflowId);
    },
  );

  it(
    'while an effect waits for approval: a new worker takes the approval and the effect runs once',
    { timeout: 180_000 },
    async () => {
      const payoutFile = join(mkdtempSync(join(tmpdir(), 'payouts-')), 'payouts.jsonl');
      const agents = {
        NAVIGATOR_AGENTS: join(process.cwd(), 'test/mission/fixtures/payout-agent.ts'),
        PAYOUT_FILE: payoutFile,
      };
      const first = m.spawnWorker(agents);
      const handle = await m.start({ agent: 'payout', input: { name: 'bob', amount: 40 } });
      await waitForStatus(handle, (s) => (s.effectApprovals?.length ?? 0) > 0, 120_000);
      first.kill('SIGKILL');

      const next = m.spawnWorker(agents);
      // the new worker polls (its identity is pid@host): the client's approveEffect reads what
      // waits with a query first, which the server must now hand to this worker, not to the
      // sticky queue of the killed one (issue 44)
      await until(
        () => readerOf(m.client.workflow).pollers(m.taskQueue),
        (seen) => seen.some((p) => p.identity.startsWith(`${next.pid}@`)),
        120_000,
        'the new worker to poll',
      );
      await getMission(m.client, handle.workflowId).approveEffect({ by: 'ana' });
      expect(await handle.result()).toEqual({ status: 'sent', reference: 'payout_acct_bob_40' });
      expect(payouts(payoutFile)).toHaveLength(1);
      await expectAuditOk(handle.workflowId);
    },
  );
});
