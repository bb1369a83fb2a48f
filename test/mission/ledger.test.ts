/**
 * The ledger as history has it: a mission that reads, charges and reads again lists the
 * calls in the order they ran (the pass's own reads are recorded when the pass ends, after
 * the effect they came before); a charge that failed once with a connection reset shows why
 * it was retried. Real worker and client; each test ends with an audit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ledgerQuery } from '../../src/workflows/mission/messages.ts';
import shopAgents, { chargeAttempts } from './fixtures/shop-agent.ts';
import { runCli } from '../cli/run-cli.ts';
import { missionEnv, type MissionEnv } from './harness.ts';

let m: MissionEnv;
beforeAll(async () => {
  m = await missionEnv();
  await m.startWorker(Object.values(shopAgents));
});
afterAll(async () => m?.shutdown());

const T = { timeout: 120_000 };

const cli = (...args: string[]) =>
  runCli(args, {
    ...process.env,
    TEMPORAL_ADDRESS: m.env.server.address,
    TEMPORAL_NAMESPACE: m.env.server.namespace,
    NAVIGATOR_TASK_QUEUE: m.taskQueue,
  });

function freshChargesFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'charges-')), 'charges.jsonl');
  process.env.SHOP_CHARGES_FILE = file;
  return file;
}

async function expectAuditOk(workflowId: string) {
  const report = await m.audit(workflowId);
  expect(report.problems).toEqual([]);
  expect(report.duplicateEffects).toEqual([]);
  expect(report.ok).toBe(true);
}

describe('the ledger', () => {
  it('lists a read, the effect after it and the read after that in the order they ran', T, async () => {
    const file = freshChargesFile();
    const handle = await m.start({ agent: 'shop', input: { order: 'o1' } });
    expect(await handle.result()).toEqual({ receipt: 'rc_ch_o1' });
    expect(chargeAttempts(file).map((a) => a.ok)).toEqual([false, true]);

    const ledger = await handle.query(ledgerQuery);
    expect(ledger.map((e) => [e.seq, e.tool])).toEqual([
      [1, 'find_order'],
      [2, 'charge'],
      [3, 'find_receipt'],
    ]);
    expect(ledger.map((e) => e.status)).toEqual(['completed', 'completed', 'completed']);
    await expectAuditOk(handle.workflowId);
  });

  it('keeps why an effect was retried: the first attempt failed with a connection reset', T, async () => {
    const file = freshChargesFile();
    const handle = await m.start({ agent: 'shop', input: { order: 'o2' } });
    expect(await handle.result()).toEqual({ receipt: 'rc_ch_o2' });
    // the service saw the failed attempt and the retry, under one idempotency key
    const attempts = chargeAttempts(file);
    expect(attempts.map((a) => a.ok)).toEqual([false, true]);
    expect(new Set(attempts.map((a) => a.key)).size).toBe(1);

    const charge = (await handle.query(ledgerQuery)).find((e) => e.tool === 'charge')!;
    expect(charge).toMatchObject({ status: 'completed', attempts: 2, result: { charge_id: 'ch_o2' } });
    expect(charge.failedAttempts).toEqual([
      {
        attempt: 1,
        type: 'ToolError',
        message: 'tool charge failed: read ECONNRESET (payments.example:443)',
        code: 'ECONNRESET',
        at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    ]);
    // reads that answered at once carry no failed attempts
    expect((await handle.query(ledgerQuery)).filter((e) => e.failedAttempts)).toHaveLength(1);

    // the CLI shows why: under the call in `ledger`, and in `status`
    const why = `attempt 1 failed at ${charge.failedAttempts![0]!.at!.slice(11, 19)}: ToolError: tool charge failed: read ECONNRESET (payments.example:443)`;
    const ledger = await cli('ledger', handle.workflowId);
    expect(ledger.code, ledger.stderr).toBe(0);
    expect(ledger.stdout).toContain(
      `#2 pass 1 charge [external] task charge attempts 2 via tool-1-charge → {"charge_id":"ch_o2"}\n    ${why}\n#3 pass 1 find_receipt`,
    );
    const status = await cli('status', handle.workflowId);
    expect(status.stdout).toContain(`Retried:\n  #2 charge (task charge): completed after 2 attempts\n    ${why}`);
    await expectAuditOk(handle.workflowId);
  });
});
