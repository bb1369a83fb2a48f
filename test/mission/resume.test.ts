/**
 * Restarting a mission from its journal: a wire transfer that ran out of budget after
 * its manager approved is resumed as a new mission, which sends the wire without
 * preparing it again; the bank applied each operation once, and the audit of the new
 * mission follows the link to the old one. Running and completed missions are refused.
 * A mission stopped in the middle of a pass resumes with a pass that asks again for an
 * effect completed before the stop: the carried ledger answers it (no second charge), and
 * the value replay of the audit answers it from that ledger too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MissionRejected, NavigatorClient } from '../../src/client/index.ts';
import { appliedOperations } from '../../examples/wire-transfer/index.ts';
import { auditChain } from '../../src/audit/mission/audit.ts';
import { fetchChain } from '../../src/history/fetch.ts';
import { type Agent, defineAgent, defineTool } from '../../src/navigator/index.ts';
import { repeatingModel } from '../../bench/agents/mission-agents.ts';
import { type MissionEnv, freshBankFile, missionEnv, waitForStatus } from './harness.ts';

/** charges made (the worker runs in this process): one per call of the tool */
const charges: string[] = [];
const chargeCard = defineTool({
  name: 'charge_card',
  description: 'Charges an order. Irreversible.',
  input: z.object({ order: z.string() }),
  output: z.object({ charge_id: z.string() }),
  sideEffect: 'external',
  handler: ({ order }) => (charges.push(order), { charge_id: `ch_${order}_${charges.length}` }),
});
const shipOrder = defineTool({
  name: 'ship_order',
  description: 'Ships a charged order.',
  input: z.object({ order: z.string(), charge: z.string() }),
  output: z.object({ shipment: z.string() }),
  sideEffect: 'external',
  handler: ({ order, charge }) => ({ shipment: `sh_${order}_${charge}` }),
});
const shipAgent = defineAgent({
  name: 'resume-charge-ship',
  prompt: 'Charge order {{order}}, then ship it.',
  input: z.object({ order: z.string() }),
  output: z.object({ charge: z.string(), shipment: z.string() }),
  tools: [chargeCard, shipOrder],
  approvals: { tools: ['ship_order'] },
  limits: { maxTurns: 2 },
});
const shipProgram = `
(let [c (task "charge" (tool/charge_card {:order data/order}))
      s (task "ship" (tool/ship_order {:order data/order :charge (:charge_id c)}))]
  (return {:charge (:charge_id c) :shipment (:shipment s)}))`;

let m: MissionEnv;
let navigator: NavigatorClient;
beforeAll(async () => {
  m = await missionEnv();
  await m.startWorker([{ agent: shipAgent as unknown as Agent, model: repeatingModel(shipProgram) }]);
  navigator = new NavigatorClient({ client: m.client, taskQueue: m.taskQueue });
}, 60_000);
afterAll(() => m?.shutdown());

describe('navigator resume', () => {
  it('a mission out of budget resumes from its journal: nothing runs twice, the audit follows the link', async () => {
    const bank = freshBankFile();
    const old = await navigator.start(
      'wire-transfer',
      { recipient: 'bob', amount: 5000 },
      { options: { budgets: { passes: 1 }, timeouts: { heartbeatMs: 3000 } } },
    );
    await waitForStatus(old.workflow, (s) => s.status === 'waiting');
    await old.approve({ by: 'ana' });
    expect(await old.result()).toMatchObject({ status: 'budget_exhausted' });
    expect(appliedOperations(bank).map((r) => r.operation)).toEqual(['prepare_wire', 'request_approval']);

    const resumed = await navigator.resume(old.id, { options: { budgets: { passes: 3 } } });
    expect(await resumed.result()).toMatchObject({ status: 'sent' });
    expect(appliedOperations(bank).map((r) => r.operation)).toEqual([
      'prepare_wire',
      'request_approval',
      'execute_wire',
    ]);
    expect((await resumed.status()).resumedFrom).toMatchObject({ workflowId: old.id });
    expect((await resumed.journal()).entries.map(([k]) => k)).toEqual([
      'prepare_wire_bob_5000',
      'request_approval_bob_5000',
      'manager_decision_bob_5000',
      'execute_wire_bob_5000',
    ]);

    const audit = await resumed.audit({ workflowBundle: m.env.bundle });
    expect(audit.ok, JSON.stringify(audit.problems)).toBe(true);
    expect(audit.resumedFrom).toMatchObject({ workflowId: old.id, journalMatches: true });
  }, 120_000);

  it('a pass resumed after a stop asks again for an effect completed before it: the carried ledger answers it, and so does the audit', async () => {
    charges.length = 0;
    const old = await m.start({ agent: 'resume-charge-ship', input: { order: 'o7' } });
    // the pass charged, then waits for the approval of the shipment: stop it there
    await waitForStatus(old, (s) => (s.effectApprovals?.length ?? 0) > 0);
    expect(charges).toEqual(['o7']);
    await old.terminate('stopped mid-pass');

    const resumed = await navigator.resume(old.workflowId);
    await waitForStatus(resumed.workflow, (s) => (s.effectApprovals?.length ?? 0) > 0);
    await resumed.approveEffect({ by: 'ana' });
    expect(await resumed.result()).toEqual({ charge: 'ch_o7_1', shipment: 'sh_o7_ch_o7_1' });
    // the charge was asked for again and answered from the ledger: it ran once
    expect(charges).toEqual(['o7']);
    const ledger = await resumed.ledger();
    expect(ledger.filter((e) => e.tool === 'charge_card')).toHaveLength(1);

    const audit = await resumed.audit({ workflowBundle: m.env.bundle });
    if (!audit.ok)
      console.log(
        'AUDIT',
        JSON.stringify(
          { problems: audit.problems, values: audit.values, valueReplay: audit.valueReplay },
          null,
          1,
        ).slice(0, 4000),
      );
    expect(audit.valueReplay.mismatches).toEqual([]);
    expect(audit.valueReplay.passes.map((p) => p.status)).toEqual(['ok']);
    expect(audit.ok).toBe(true);

    // the carried ledger's charge edited in the resumed mission's start: the replay commits and ships another charge
    const chain = await fetchChain(m.client, resumed.id);
    const payload = chain[0]!.history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
    const input = JSON.parse(new TextDecoder().decode(payload.data!));
    const entry = input.carried.ledger.find((e: { tool: string }) => e.tool === 'charge_card');
    entry.result = { charge_id: 'ch_forged' };
    payload.data = new TextEncoder().encode(JSON.stringify(input));
    const forged = await auditChain(chain, null, {
      workflowBundle: m.env.bundle,
      skipReplay: true,
      requireClosed: true,
    });
    expect(forged.ok).toBe(false);
    const messages = forged.valueReplay.mismatches.map((x) => x.message).join('\n');
    expect(messages).toContain('ch_forged');
    expect(messages).toMatch(/requests ship_order/);
  }, 120_000);

  it('a cancelled mission resumes too; running and completed ones are refused', async () => {
    freshBankFile();
    const running = await navigator.start(
      'wire-transfer',
      { recipient: 'cy', amount: 10 },
      { options: { timeouts: { heartbeatMs: 3000 } } },
    );
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
