/**
 * Step approvals through the shared approval gate (src/workflows/approval-gate.ts) end to
 * end on the embedded server: every verdict is recorded (who, when, note, args hash) and
 * carried in the status view; each item of a for-each step waits for its own approval and
 * none runs before all are approved; a denial means what the plan's `onDenial` says
 * (block, ask: the model revises the step and it asks again, abort). Each ends with the
 * history audit.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { WorkflowFailedError } from '@temporalio/client';
import { valueHash } from '../../src/history/hash.ts';
import { endState, renderPlan } from '../../src/cli/plan/view.ts';
import { stepApprovalLine } from '../../src/cli/approval-view.ts';
import { awaiting, expectPlanAuditOk, stepOf, usePlanEnv, waitForPlan, type PlanEnv } from './plan-harness.ts';

const planEnvOf = usePlanEnv();
let env: PlanEnv;
beforeEach(() => {
  env = planEnvOf();
});

const T = { timeout: 120_000 };
const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

describe('step approvals', () => {
  it('records each verdict with who, when, the note and the args hash; plan show lists them', T, async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      approve: true,
      document: {
        steps: [
          { id: 'keep', description: 'delete a', tool: 'delete_thing', args: { name: 'a' } },
          { id: 'drop', description: 'delete b', tool: 'delete_thing', args: { name: 'b' } },
        ],
      },
    });
    const waiting = await waitForPlan(plan, (v) => v.approvals.length === 2);
    expect(waiting.approvals.map((a) => [a.key, a.item, a.args])).toEqual([
      ['keep', null, { name: 'a' }],
      ['drop', null, { name: 'b' }],
    ]);
    // the whole args are shown where a person decides
    expect(plain(renderPlan(waiting))).toContain(
      'waiting for approval: keep (delete_thing)\n      {\n        "name": "a"\n      }',
    );
    // an approval given on other args than the ones waiting (a page shown before a retry with new args) is refused
    await expect(plan.approveStep('keep', { by: 'ana', argsHash: valueHash({ name: 'b' }) })).rejects.toThrow(
      /step keep now waits with other args than the ones shown \(\{"name":"a"\}\)/,
    );
    await plan.approveStep('keep', { by: 'ana', note: 'checked', argsHash: valueHash({ name: 'a' }) });
    await expect(plan.approveStep('keep')).rejects.toThrow(/not awaiting approval/);
    await plan.denyStep('drop', { by: 'bo', reason: 'still needed' });
    const summary = await plan.result();
    // nothing depends on the denied step: the plan completes, and says what it left out
    expect(summary.status).toBe('completed');
    const view = await plan.status();
    expect(view.approvalRecords).toEqual([
      expect.objectContaining({
        key: 'keep',
        stepId: 'keep',
        item: null,
        tool: 'delete_thing',
        args: { name: 'a' },
        outcome: 'approved',
        by: 'ana',
        note: 'checked',
        argsHash: valueHash({ name: 'a' }),
      }),
      expect.objectContaining({
        key: 'drop',
        stepId: 'drop',
        item: null,
        args: { name: 'b' },
        outcome: 'denied',
        by: 'bo',
        note: 'still needed',
        argsHash: null,
      }),
    ]);
    expect(Date.parse(view.approvalRecords[0]!.at)).toBeGreaterThan(0);
    const shown = plain(renderPlan(view));
    expect(shown).toContain(`keep (delete_thing) approved by ana: checked, args hash ${valueHash({ name: 'a' })}`);
    expect(shown).toContain('drop (delete_thing) denied by bo: still needed');
    expect(plain(stepApprovalLine(view.approvalRecords[1]!))).toMatch(
      /^\d{4}-\d\d-\d\dT.* drop \(delete_thing\) denied by bo: still needed$/,
    );
    const end = endState(view, { status: 'COMPLETED', failure: null } as never);
    expect(end.exitCode).toBe(0);
    expect(plain(end.lines.join('\n'))).toBe(
      'plan completed: 1 of 2 step(s) done (skipped: drop, denied by bo: still needed)',
    );
    await expectPlanAuditOk(env, plan.id);
  });

  it(
    'warns the person approving a step whose goal another denial already blocked (plan show, the approval itself)',
    T,
    async () => {
      const plan = await env.startPlan({
        agent: 'lab',
        approve: true,
        document: {
          steps: [
            { id: 'old_a', description: 'delete a', tool: 'delete_thing', args: { name: 'a' } },
            { id: 'old_b', description: 'delete b', tool: 'delete_thing', args: { name: 'b' } },
            {
              id: 'done',
              description: 'say so',
              tool: 'echo',
              args: { value: 'both gone' },
              dependsOn: ['old_a', 'old_b'],
            },
          ],
        },
      });
      await waitForPlan(plan, (v) => v.approvals.length === 2);
      expect(plain(renderPlan(await plan.status()))).not.toContain('warning');
      await plan.denyStep('old_b', { by: 'bo', reason: 'keep b' });
      const view = await waitForPlan(plan, (v) => stepOf(v, 'done').status === 'blocked');
      expect(plain(renderPlan(view))).toContain(
        'warning: approving old_a cannot complete what it leads to: done can no longer run (depends on old_b, which was denied by bo: keep b)',
      );
      await plan.approveStep('old_a', { by: 'ana' });
      const summary = await plan.result();
      expect(summary.status).toBe('completed_with_failures');
      await expectPlanAuditOk(env, plan.id);
    },
  );

  it(
    'each item of a for-each step waits for its own approval; none runs before every item is approved',
    T,
    async () => {
      const plan = await env.startPlan({
        agent: 'lab',
        approve: true,
        document: {
          steps: [
            {
              id: 'del',
              description: 'delete each',
              tool: 'delete_thing',
              forEach: '["a" "b" "c"]',
              args: { name: { $expr: 'item' } },
            },
          ],
        },
      });
      const waiting = await waitForPlan(plan, (v) => v.approvals.length === 3);
      expect(waiting.approvals.map((a) => [a.key, a.item, a.args])).toEqual([
        ['del[0]', 0, { name: 'a' }],
        ['del[1]', 1, { name: 'b' }],
        ['del[2]', 2, { name: 'c' }],
      ]);
      expect(plain(renderPlan(waiting))).toContain('approve-step');
      expect(plain(renderPlan(waiting))).toContain(
        `approve-step ${plan.id} del --item 2 --args-hash ${valueHash(waiting.approvals[2]!.args)} --by NAME`,
      );
      await expect(plan.approveStep('del')).rejects.toThrow(
        /waits for an approval of each item: name one \(waiting: items 0, 1, 2\)/,
      );
      await expect(plan.approveStep('del', { item: 7 })).rejects.toThrow(
        /item 7 of step del is awaiting_approval, not awaiting approval/,
      );
      await plan.approveStep('del', { item: 0, by: 'ana' });
      await plan.approveStep('del', { item: 2, by: 'ana' });
      await expect(plan.approveStep('del', { item: 0 })).rejects.toThrow(/not awaiting approval/);
      const partly = await waitForPlan(plan, (v) => v.approvals.length === 1);
      expect(partly.approvals[0]!.key).toBe('del[1]');
      expect(stepOf(partly, 'del').status).toBe('awaiting_approval');
      expect(await plan.ledger()).toEqual([]);
      await plan.approveStep('del', { item: 1, by: 'bo' });
      const summary = await plan.result();
      expect(summary.status).toBe('completed');
      const view = await plan.status();
      expect(stepOf(view, 'del').result!.value).toEqual([{ deleted: 'a' }, { deleted: 'b' }, { deleted: 'c' }]);
      expect(view.approvalRecords.map((r) => [r.key, r.outcome, r.by, r.argsHash])).toEqual([
        ['del[0]', 'approved', 'ana', valueHash({ name: 'a' })],
        ['del[2]', 'approved', 'ana', valueHash({ name: 'c' })],
        ['del[1]', 'approved', 'bo', valueHash({ name: 'b' })],
      ]);
      await expectPlanAuditOk(env, plan.id);
    },
  );

  it('a denied item stops the whole for-each step before any item runs (onDenial: block)', T, async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      approve: true,
      document: {
        steps: [
          {
            id: 'del',
            description: 'delete each',
            tool: 'delete_thing',
            forEach: '["a" "b"]',
            args: { name: { $expr: 'item' } },
          },
          { id: 'after', description: 'report', tool: 'echo', args: { value: '$del' }, dependsOn: ['del'] },
        ],
      },
    });
    await waitForPlan(plan, (v) => v.approvals.length === 2);
    await plan.approveStep('del', { item: 0 });
    await plan.denyStep('del', { item: 1, by: 'ana', reason: 'b stays' });
    const summary = await plan.result();
    expect(summary.status).toBe('completed_with_failures');
    const view = await plan.status();
    expect(stepOf(view, 'del')).toMatchObject({
      status: 'skipped',
      skippedBy: 'denial',
      reason: 'denied by ana: b stays (item 1)',
    });
    expect(stepOf(view, 'after').status).toBe('blocked');
    expect(await plan.ledger()).toEqual([]);
    await expectPlanAuditOk(env, plan.id);
  });

  it(
    'onDenial ask: the model revises the denied step from the reason, it asks again, and runs once approved',
    T,
    async () => {
      const plan = await env.startPlan({
        agent: 'lab',
        approve: true,
        options: { onDenial: 'ask' },
        document: {
          steps: [{ id: 'den_ask', description: 'delete the old thing', tool: 'delete_thing', args: { name: 'x' } }],
        },
      });
      await waitForPlan(plan, awaiting('den_ask'));
      await plan.denyStep('den_ask', { by: 'ana', reason: 'delete y, not x' });
      const again = await waitForPlan(plan, (v) =>
        v.approvals.some((a) => a.stepId === 'den_ask' && (a.args as { name: string }).name === 'y'),
      );
      expect(stepOf(again, 'den_ask')).toMatchObject({ status: 'awaiting_approval', args: { name: 'y' } });
      await plan.approveStep('den_ask', { by: 'ana' });
      const summary = await plan.result();
      expect(summary.status).toBe('completed');
      const view = await plan.status();
      expect(stepOf(view, 'den_ask').result!.value).toEqual({ deleted: 'y' });
      expect(view.approvalRecords.map((r) => [r.outcome, r.args])).toEqual([
        ['denied', { name: 'x' }],
        ['approved', { name: 'y' }],
      ]);
      expect((await plan.versions()).at(-1)!.change).toMatch(/recovery of den_ask/);
      expect((await plan.ledger()).map((e) => e.stepId)).toEqual(['den_ask']);
      await expectPlanAuditOk(env, plan.id);
    },
  );

  it('onDenial abort: a denial stops the plan, which fails with the reason', T, async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      approve: true,
      options: { onDenial: 'abort' },
      document: {
        steps: [
          { id: 'gate', description: 'delete', tool: 'delete_thing', args: { name: 'x' } },
          { id: 'later', description: 'after', tool: 'echo', args: { value: 1 }, dependsOn: ['gate'] },
        ],
      },
    });
    await waitForPlan(plan, awaiting('gate'));
    await plan.denyStep('gate', { by: 'ana', reason: 'no' });
    const err = await plan.result().catch((e) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const view = await plan.status();
    expect(view.status).toBe('failed');
    expect(stepOf(view, 'gate')).toMatchObject({ status: 'skipped', skippedBy: 'denial' });
    expect(stepOf(view, 'later').status).not.toBe('completed');
    expect(JSON.stringify((err as WorkflowFailedError).cause?.message)).toMatch(
      /gate was denied by ana: no; the plan stops \(onDenial: abort\)/,
    );
    await expectPlanAuditOk(env, plan.id);
  });
});
