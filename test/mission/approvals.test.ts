import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { appliedOperations } from '../../examples/wire-transfer/bank.ts';
import {
  cancelUpdate,
  decideSignal,
  decideUpdate,
  journalQuery,
  ledgerQuery,
  pendingQuery,
  progressQuery,
} from '../../src/workflows/mission/messages.ts';
import { answersFile, wireTransfer } from '../../examples/wire-transfer/agent.ts';
import { createScriptedModel } from '../../src/llm/index.ts';
import type { ChatModel } from '../../src/llm/model.ts';
import type { Agent } from '../../src/navigator/index.ts';
import { freshBankFile, missionEnv, until, waitForStatus, type MissionEnv } from './harness.ts';

/** The first model call of the gated agent waits until the test opens the gate. */
let openGate: () => void = () => undefined;
let gate = new Promise<void>((r) => (openGate = r));
let gatedCalls = 0;
const gatedAgent = {
  agent: { ...wireTransfer, name: 'wire-transfer-gated' } as unknown as Agent,
  model: (): ChatModel => {
    const inner = createScriptedModel(answersFile);
    return {
      id: inner.id,
      async generate(req) {
        if (gatedCalls++ === 0) await gate;
        return inner.generate(req);
      },
    };
  },
};

const wire = { agent: 'wire-transfer', input: { recipient: 'bob', amount: 5000 } };
const KEY = 'manager_decision_bob_5000';

let m: MissionEnv;
beforeAll(async () => {
  m = await missionEnv();
  await m.startWorker([gatedAgent]);
});
afterAll(async () => m?.shutdown());

async function expectAuditOk(workflowId: string) {
  const report = await m.audit(workflowId);
  expect(report.journal.differences).toEqual([]);
  expect(report.duplicateEffects).toEqual([]);
  expect(report.replay.errors).toEqual([]);
  expect(report.problems).toEqual([]);
  expect(report.ok).toBe(true);
  return report;
}

describe('wire-transfer mission on the dev server', () => {
  it('waits for the manager, then sends the wire exactly once when approved', async () => {
    const bank = freshBankFile();
    const handle = await m.start(wire);
    const waiting = await waitForStatus(handle, (s) => s.status === 'waiting');
    expect(waiting.pending?.key).toBe(KEY);
    expect(waiting.pending?.allowed).toEqual(['approved', 'rejected']);
    expect(await handle.query(pendingQuery)).toMatchObject({ key: KEY });

    await handle.executeUpdate(decideUpdate, { args: [{ key: KEY, value: 'approved', by: 'manager' }] });
    const result = (await handle.result()) as { status: string; hold_id: string; reference: string };
    expect(result.status).toBe('sent');

    const { entries } = await handle.query(journalQuery);
    expect(entries.map(([k]) => k)).toEqual([
      'prepare_wire_bob_5000',
      'request_approval_bob_5000',
      KEY,
      'execute_wire_bob_5000',
    ]);
    expect(appliedOperations(bank).map((r) => r.operation)).toEqual([
      'prepare_wire',
      'request_approval',
      'execute_wire',
    ]);

    const ledger = await handle.query(ledgerQuery);
    const wireCall = ledger.find((e) => e.tool === 'execute_wire')!;
    expect(wireCall).toMatchObject({ sideEffect: 'external', status: 'completed', taskId: 'execute_wire_bob_5000' });
    expect(wireCall.activity).toMatch(/^tool-/);
    expect(await handle.query(progressQuery)).toContain('- [x] `finish`');

    const report = await expectAuditOk(handle.workflowId);
    const byKey = new Map(report.provenance.map((p) => [p.key, p]));
    expect(byKey.get(KEY)?.source).toBe('decide update');
    expect(byKey.get('execute_wire_bob_5000')?.source).toMatch(/^pass \d+$/);
  });

  it('releases the hold when the manager rejects', async () => {
    const bank = freshBankFile();
    const handle = await m.start(wire);
    await waitForStatus(handle, (s) => s.status === 'waiting');
    await handle.executeUpdate(decideUpdate, { args: [{ key: KEY, value: 'rejected' }] });
    expect(await handle.result()).toMatchObject({ status: 'cancelled' });
    expect(appliedOperations(bank).map((r) => r.operation)).toEqual([
      'prepare_wire',
      'request_approval',
      'cancel_hold',
    ]);
    await expectAuditOk(handle.workflowId);
  });

  it('rejects an invalid decision in the update validator and records a bad signal as rejected', async () => {
    freshBankFile();
    const handle = await m.start(wire);
    await waitForStatus(handle, (s) => s.status === 'waiting');
    const bad = handle.executeUpdate(decideUpdate, { args: [{ key: KEY, value: 'maybe' }] });
    await expect(bad).rejects.toBeInstanceOf(WorkflowUpdateFailedError);
    await expect(
      handle.executeUpdate(decideUpdate, { args: [{ key: 'manager_decision_eve_1', value: 'approved' }] }),
    ).rejects.toThrow();
    await handle.signal(decideSignal, { key: KEY, value: 42 });
    const status = await waitForStatus(handle, (s) => s.rejectedSignals.length === 1);
    expect(status.rejectedSignals[0]!.reason).toContain('not allowed');
    expect(status.status).toBe('waiting');
    expect((await handle.query(journalQuery)).entries.map(([k]) => k)).not.toContain(KEY);
    await handle.executeUpdate(decideUpdate, { args: [{ key: KEY, value: 'approved' }] });
    expect(await handle.result()).toMatchObject({ status: 'sent' });
    await expectAuditOk(handle.workflowId);
  });

  it('applies the expiry value when nobody decides before the deadline', async () => {
    const bank = freshBankFile();
    const handle = await m.start({ ...wire, options: { approval: { timeoutMs: 1500 } } });
    const waiting = await waitForStatus(handle, (s) => s.status === 'waiting');
    expect(waiting.pending?.deadline).not.toBeNull();
    expect(await handle.result()).toMatchObject({ status: 'cancelled' });
    expect(appliedOperations(bank).map((r) => r.operation)).toContain('cancel_hold');
    await expectAuditOk(handle.workflowId);
  });

  it('fails the mission at the deadline when told to', async () => {
    freshBankFile();
    const handle = await m.start({ ...wire, options: { approval: { timeoutMs: 1000, onTimeout: 'fail' } } });
    const err = await handle.result().catch((e) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect(String(err.cause?.message)).toContain(`no decision for ${KEY}`);
  });

  it('takes a decision written while the pass that asks for it is still running', async () => {
    const bank = freshBankFile();
    const handle = await m.start({ agent: 'wire-transfer-gated', input: wire.input });
    await waitForStatus(handle, (s) => s.status === 'running' && s.passes === 1);
    await handle.signal(decideSignal, { key: KEY, value: 'approved', by: 'early manager' });
    await waitForStatus(handle, (s) => s.journalSize === 1);
    openGate();
    expect(await handle.result()).toMatchObject({ status: 'sent' });
    expect(appliedOperations(bank).map((r) => r.operation)).toEqual([
      'prepare_wire',
      'request_approval',
      'execute_wire',
    ]);
    const { entries } = await handle.query(journalQuery);
    expect(Object.fromEntries(entries)[KEY]).toBe('approved');
    await expectAuditOk(handle.workflowId);
    gate = new Promise<void>((r) => (openGate = r));
  });

  it('stops cleanly with a summary when a budget runs out', async () => {
    const bank = freshBankFile();
    const handle = await m.start({ ...wire, options: { budgets: { passes: 1 } } });
    await waitForStatus(handle, (s) => s.status === 'waiting');
    await handle.executeUpdate(decideUpdate, { args: [{ key: KEY, value: 'approved' }] });
    const result = (await handle.result()) as {
      status: string;
      reason: string;
      done: { passes: number; completedTasks: string[] };
    };
    expect(result.status).toBe('budget_exhausted');
    expect(result.reason).toBe('pass budget of 1 used');
    expect(result.done.passes).toBe(1);
    expect(result.done.completedTasks).toEqual(['prepare_wire_bob_5000', 'request_approval_bob_5000', KEY]);
    expect(appliedOperations(bank).map((r) => r.operation)).not.toContain('execute_wire');
    await expectAuditOk(handle.workflowId);
  });

  it('cancels a waiting mission through the cancel update', async () => {
    freshBankFile();
    const handle = await m.start(wire);
    await waitForStatus(handle, (s) => s.status === 'waiting');
    await handle.executeUpdate(cancelUpdate, { args: [{ reason: 'customer withdrew' }] });
    const err = await handle.result().catch((e) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect(String(err.cause?.message)).toBe('mission cancelled: customer withdrew');
    await expectAuditOk(handle.workflowId);
  });

  it('keeps the status search attribute current when asked to', async () => {
    freshBankFile();
    const handle = await m.start({ ...wire, options: { statusSearchAttribute: 'NavigatorStatus' } });
    await waitForStatus(handle, (s) => s.status === 'waiting');
    const ids = async (status: string) => {
      const out: string[] = [];
      for await (const w of m.client.workflow.list({ query: `NavigatorStatus = '${status}'` })) out.push(w.workflowId);
      return out;
    };
    const id = handle.workflowId;
    expect(
      await until(
        () => ids('waiting'),
        (x) => x.includes(id),
      ),
    ).toContain(id);
    await handle.executeUpdate(decideUpdate, { args: [{ key: KEY, value: 'approved' }] });
    await handle.result();
    expect(
      await until(
        () => ids('completed'),
        (x) => x.includes(id),
      ),
    ).toContain(id);
    expect(
      await until(
        () => ids('waiting'),
        (x) => !x.includes(id),
      ),
    ).not.toContain(id);
    await expectAuditOk(handle.workflowId);
  });

  it('continues as new mid-mission and the audit spans the chain', async () => {
    const bank = freshBankFile();
    const handle = await m.start({ ...wire, options: { continueAsNewAfterEvents: 10 } });
    await waitForStatus(handle, (s) => s.status === 'waiting');
    await handle.executeUpdate(decideUpdate, { args: [{ key: KEY, value: 'approved' }] });
    expect(await handle.result()).toMatchObject({ status: 'sent' });
    expect(appliedOperations(bank).filter((r) => r.operation === 'execute_wire')).toHaveLength(1);
    const report = await expectAuditOk(handle.workflowId);
    expect(report.runs.length).toBeGreaterThan(1);
  });
});
