/**
 * The plan executor end to end on the embedded server: parallel steps, `$ref` values,
 * approval gates (approve, deny), retries, non-critical failures, progress, agent steps
 * as child missions. Every test ends with `auditPlan`.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { WorkflowFailedError } from '@temporalio/client';
import { lab } from './fixtures/lab-agents.ts';
import { renderPlan } from '../../src/cli/plan/view.ts';
import { awaiting, expectPlanAuditOk, stepOf, usePlanEnv, waitForPlan, type PlanEnv } from './plan-harness.ts';

const planEnvOf = usePlanEnv();
let env: PlanEnv;
beforeEach(() => {
  env = planEnvOf();
});

const T = { timeout: 120_000 };

describe('plan execution', () => {
  it('runs independent steps at the same time and passes $ref values at depth', T, async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      approve: true,
      document: {
        steps: [
          { id: 'slow_a', description: 'wait a', tool: 'sleep_echo', args: { ms: 800, value: { n: 1 } } },
          { id: 'slow_b', description: 'wait b', tool: 'sleep_echo', args: { ms: 800, value: 2 } },
          { id: 'list', description: 'make a list', tool: 'make_list', args: { n: 3 } },
          {
            id: 'use',
            description: 'use it',
            tool: 'echo',
            args: { value: { second: '$list.items.1.id', all: ['$list.items', '$$literal'], a: '$slow_a.value.n' } },
            dependsOn: ['list', 'slow_a'],
          },
        ],
      },
    });
    const summary = await plan.result();
    expect(summary.status).toBe('completed');
    expect(summary.counts.completed).toBe(4);
    const view = await plan.status();
    const a = stepOf(view, 'slow_a').result!.value as { startedAt: number; endedAt: number };
    const b = stepOf(view, 'slow_b').result!.value as { startedAt: number; endedAt: number };
    expect(a.startedAt).toBeLessThan(b.endedAt);
    expect(b.startedAt).toBeLessThan(a.endedAt);
    expect(stepOf(view, 'use').result!.value).toEqual({
      got: { second: 'item-1', all: [[{ id: 'item-0' }, { id: 'item-1' }, { id: 'item-2' }], '$literal'], a: 1 },
    });
    const ledger = await plan.ledger();
    expect(ledger.map((e) => e.stepId).sort()).toEqual(['list', 'slow_a', 'slow_b', 'use']);
    expect(ledger.every((e) => e.status === 'completed' && /^[0-9a-f]{64}$/.test(e.idempotencyKey))).toBe(true);
    await expectPlanAuditOk(env, plan.id);
  });

  it(
    'gates a destructive step: denied, it is skipped, its dependents are blocked and independent steps complete',
    T,
    async () => {
      const plan = await env.startPlan({
        agent: 'lab',
        approve: true,
        document: {
          steps: [
            { id: 'delete', description: 'delete the thing', tool: 'delete_thing', args: { name: 'x' } },
            {
              id: 'after_delete',
              description: 'report',
              tool: 'echo',
              args: { value: '$delete.deleted' },
              dependsOn: ['delete'],
            },
            { id: 'independent', description: 'unrelated', tool: 'echo', args: { value: 1 } },
          ],
        },
      });
      const waiting = await waitForPlan(plan, awaiting('delete'));
      expect(stepOf(waiting, 'delete')).toMatchObject({ status: 'awaiting_approval', requiresApproval: true });
      await expect(plan.approveStep('independent')).rejects.toThrow(/not awaiting approval/);
      await expect(plan.denyStep('nope')).rejects.toThrow(/no step "nope"/);
      await plan.denyStep('delete', { reason: 'not today', by: 'ana' });
      const summary = await plan.result();
      expect(summary.status).toBe('completed_with_failures');
      const view = await plan.status();
      expect(stepOf(view, 'delete')).toMatchObject({
        status: 'skipped',
        skippedBy: 'denial',
        reason: 'denied by ana: not today',
      });
      expect(stepOf(view, 'after_delete').status).toBe('blocked');
      expect(stepOf(view, 'after_delete').reason).toMatch(/delete/);
      expect(stepOf(view, 'independent').status).toBe('completed');
      await expectPlanAuditOk(env, plan.id);
    },
  );

  it(
    'an approved step runs; a flaky tool succeeds on retry; a non-critical failure lets the plan go on',
    T,
    async () => {
      const key = `flaky-${Date.now()}`;
      const plan = await env.startPlan({
        agent: 'lab',
        approve: true,
        document: {
          steps: [
            { id: 'pick', description: 'pick a name', tool: 'echo', args: { value: 'y' } },
            {
              id: 'delete',
              description: 'delete',
              tool: 'delete_thing',
              args: { name: '$pick.got' },
              dependsOn: ['pick'],
            },
            { id: 'flaky', description: 'flaky', tool: 'flaky', args: { key, failures: 2 }, retry: { maxAttempts: 4 } },
            {
              id: 'optional',
              description: 'may fail',
              tool: 'needs_flag',
              args: { flag: false },
              critical: false,
              retry: { maxAttempts: 1 },
            },
            {
              id: 'after_optional',
              description: 'needs optional',
              tool: 'echo',
              args: { value: 1 },
              dependsOn: ['optional'],
            },
          ],
        },
      });
      const gated = await waitForPlan(plan, awaiting('delete'));
      // the approver sees the args as they will run, references resolved
      expect(gated.approvals).toEqual([
        expect.objectContaining({ stepId: 'delete', tool: 'delete_thing', args: { name: 'y' }, deadline: null }),
      ]);
      await plan.approveStep('delete', { by: 'ana' });
      const summary = await plan.result();
      expect(summary.status).toBe('completed_with_failures');
      const view = await plan.status();
      expect(stepOf(view, 'delete')).toMatchObject({
        status: 'completed',
        result: { ok: true, value: { deleted: 'y' } },
      });
      expect(stepOf(view, 'flaky')).toMatchObject({ status: 'completed', result: { ok: true, attempts: 3 } });
      // why it was retried: each earlier attempt's error, in the step and in the ledger
      const failedAttempts = [1, 2].map((n) => ({
        attempt: n,
        type: 'ToolError',
        message: `tool flaky failed: flaky ${key}: transient failure ${n}`,
        at: expect.any(String),
      }));
      expect(stepOf(view, 'flaky').result!.failedAttempts).toEqual(failedAttempts);
      expect((await plan.ledger()).find((e) => e.stepId === 'flaky')!.failedAttempts).toEqual(failedAttempts);
      expect(renderPlan(view)).toContain(
        `attempt 2 failed at ${stepOf(view, 'flaky').result!.failedAttempts![1]!.at!.slice(11, 19)}: ToolError: tool flaky failed: flaky ${key}: transient failure 2`,
      );
      expect(stepOf(view, 'optional')).toMatchObject({ status: 'failed', result: { ok: false, attempts: 1 } });
      expect(stepOf(view, 'optional').result!.error).toMatch(/the flag is off/);
      expect(stepOf(view, 'after_optional').status).toBe('blocked');
      await expectPlanAuditOk(env, plan.id);
    },
  );

  it('reports tool progress through heartbeats into the progress query', T, async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      approve: true,
      document: { steps: [{ id: 'long', description: 'long work', tool: 'long_task', args: { steps: 3, ms: 300 } }] },
    });
    await plan.result();
    const progress = await plan.progress();
    const reported = progress.events
      .filter((e) => e.stepId === 'long' && e.progress !== undefined)
      .map((e) => e.progress);
    expect(reported.at(-1)).toBe(100);
    expect(progress.events.some((e) => e.logs?.includes('step 3 of 3'))).toBe(true);
    expect(progress.events.map((e) => e.status)).toEqual(expect.arrayContaining(['ready', 'running', 'completed']));
    expect(progress.counts.completed).toBe(1);
    await expectPlanAuditOk(env, plan.id);
  });

  it('runs an agent step as a child mission and uses its result', T, async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      approve: true,
      document: {
        steps: [
          { id: 'add', description: 'add in a mission', agent: 'lab-child', input: { a: 2, b: 3 } },
          {
            id: 'report',
            description: 'report the sum',
            tool: 'echo',
            args: { value: '$add.sum' },
            dependsOn: ['add'],
          },
          {
            id: 'bad_add',
            description: 'a mission that fails',
            agent: 'lab-child',
            input: { a: -1, b: 0 },
            critical: false,
          },
        ],
      },
    });
    const summary = await plan.result();
    expect(summary.status).toBe('completed_with_failures');
    const view = await plan.status();
    expect(stepOf(view, 'add').result!.value).toEqual({ sum: 5 });
    expect(stepOf(view, 'report').result!.value).toEqual({ got: 5 });
    expect(stepOf(view, 'bad_add').status).toBe('failed');
    expect(stepOf(view, 'bad_add').result!.error).toMatch(/negative/);
    const report = await expectPlanAuditOk(env, plan.id);
    expect(report.children.map((c) => c.workflowId)).toEqual([`${plan.id}--add-1`]);
    const child = await env.client.workflow.getHandle(`${plan.id}--add-1`).describe();
    expect(child.status.name).toBe('COMPLETED');
  });

  it('a step whose service refused the request (ToolRejected) is not retried', T, async () => {
    const key = `refused-${Date.now()}`;
    const plan = await env.startPlan({
      agent: 'lab',
      approve: true,
      options: { onFailure: 'continue' },
      document: {
        steps: [{ id: 'ask_service', description: 'refused', tool: 'refuse', args: { key }, critical: false }],
      },
    });
    await plan.result();
    const view = await plan.status();
    expect(stepOf(view, 'ask_service').status).toBe('failed');
    expect(stepOf(view, 'ask_service').result!.error).toMatch(/rejected the call: .*refused the request/);
    const entry = (await plan.ledger()).find((e) => e.stepId === 'ask_service')!;
    expect(entry.attempts).toBe(1);
    expect(lab.attempts.get(key)).toBe(1);
    await expectPlanAuditOk(env, plan.id);
  });

  it('fails the plan when a critical step fails under onFailure abort, and stops scheduling', T, async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      approve: true,
      options: { onFailure: 'abort' },
      document: {
        steps: [
          { id: 'broken', description: 'fails', tool: 'needs_flag', args: { flag: false }, retry: { maxAttempts: 1 } },
          { id: 'next', description: 'after', tool: 'echo', args: { value: 1 }, dependsOn: ['broken'] },
        ],
      },
    });
    const err = await plan.result().catch((e) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause?.message).toMatch(/critical step broken failed/);
    const view = await plan.status();
    expect(view.status).toBe('failed');
    expect(stepOf(view, 'next').status).toBe('blocked');
    await expectPlanAuditOk(env, plan.id);
  });

  it('cancelled while running: the running step stops, a waiting step is skipped, nothing new starts', T, async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      approve: true,
      document: {
        steps: [
          { id: 'long', description: 'long', tool: 'sleep_echo', args: { ms: 30_000, value: 1 } },
          { id: 'gate', description: 'gated', tool: 'delete_thing', args: { name: 'z' } },
          { id: 'after', description: 'after long', tool: 'echo', args: { value: 1 }, dependsOn: ['long'] },
        ],
      },
    });
    await waitForPlan(plan, (v) => awaiting('gate')(v) && stepOf(v, 'long').status === 'running');
    await plan.cancel('stop now');
    const err = await plan.result().catch((e) => e);
    expect((err as WorkflowFailedError).cause?.message).toMatch(/plan cancelled: stop now/);
    const view = await plan.status();
    expect(view.status).toBe('cancelled');
    expect(stepOf(view, 'long').status).toBe('failed');
    expect(stepOf(view, 'gate')).toMatchObject({ status: 'skipped' });
    expect(['skipped', 'blocked']).toContain(stepOf(view, 'after').status);
    expect(view.approvals).toEqual([]);
    await expectPlanAuditOk(env, plan.id);
  });
});
