/**
 * Review and recovery end to end: the plan waits in review, edits are validated (a cycle
 * or bad args are refused and change nothing), every version is kept; after approval,
 * failed critical steps are recovered by the model (retry, skip, insert, abort).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { WorkflowFailedError } from '@temporalio/client';
import { NavigatorClient } from '../../src/client/navigator-client.ts';
import { PLAN_WORKFLOW, PlanRejected } from '../../src/client/plan/client.ts';
import { expectPlanAuditOk, stepOf, usePlanEnv, waitForPlan, type PlanEnv } from './plan-harness.ts';

const planEnvOf = usePlanEnv();
let env: PlanEnv;
beforeEach(() => {
  env = planEnvOf();
});

const T = { timeout: 120_000 };
const inReview = (v: { status: string }) => v.status === 'review';

describe('review', () => {
  it('plans keep a status search attribute, so they can be listed by status', T, async () => {
    const options = { statusSearchAttribute: 'NavigatorStatus' };
    const steps = [{ id: 'only', description: 'one', tool: 'echo', args: { value: 1 } }];
    const waiting = await env.startPlan({ agent: 'lab', document: { steps }, options });
    const done = await env.startPlan({ agent: 'lab', approve: true, document: { steps }, options });
    await waitForPlan(waiting, inReview);
    await done.result();
    const navigator = new NavigatorClient({ client: env.client });
    const listed = async (status: string) =>
      (await navigator.list({ kind: 'plans', query: `NavigatorStatus = '${status}'` })).map((w) => w.workflowId);
    await expect.poll(() => listed('review'), { timeout: 30_000 }).toContain(waiting.id);
    expect(await listed('review')).not.toContain(done.id);
    await expect.poll(() => listed('completed'), { timeout: 30_000 }).toContain(done.id);
    await waiting.cancel('test over');
    await waiting.result().catch(() => null);
    await expect.poll(() => listed('cancelled'), { timeout: 30_000 }).toContain(waiting.id);
    await expectPlanAuditOk(env, done.id);
  });

  it('a plan input with a bad field is refused with its path, before anything runs', T, async () => {
    const handle = await env.client.workflow.start(PLAN_WORKFLOW, {
      taskQueue: env.taskQueue,
      workflowId: `bad-input-${Date.now()}`,
      args: [
        {
          agent: 'lab',
          document: { steps: [{ id: 'a', tool: 'echo' }] },
          options: { onFailure: 'later', timeouts: { stepMs: -1 } },
        },
      ],
    });
    const err = await handle.result().catch((e) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const message = (err as WorkflowFailedError).cause?.message ?? '';
    expect(message).toMatch(/^invalid plan input: /);
    expect(message).toContain('options.onFailure: expected "ask" or "abort" or "continue"');
    expect(message).toContain('options.timeouts.stepMs: expected a positive integer');
  });

  it('keeps the plan in review; edits are validated, versioned, and refused edits change nothing', T, async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      document: {
        steps: [
          { id: 'first', description: 'one', tool: 'echo', args: { value: 1 } },
          { id: 'second', description: 'two', tool: 'echo', args: { value: '$first.got' }, dependsOn: ['first'] },
        ],
      },
    });
    const review = await waitForPlan(plan, inReview);
    expect(review.version).toBe(1);

    const cycle = await plan.edit({ kind: 'edit', stepId: 'first', dependsOn: ['second'] }).catch((e) => e);
    expect(cycle).toBeInstanceOf(PlanRejected);
    expect((cycle as PlanRejected).problems.map((p) => p.code)).toContain('cycle');
    expect((cycle as PlanRejected).message).toMatch(/first -> second -> first|second -> first -> second/);

    const badArgs = await plan.edit({ kind: 'edit', stepId: 'first', args: { value: 1, label: 5 } }).catch((e) => e);
    expect(badArgs).toBeInstanceOf(PlanRejected);
    expect((badArgs as PlanRejected).problems).toEqual([
      expect.objectContaining({ code: 'invalid_args', stepId: 'first', path: 'args.label' }),
    ]);
    expect((await plan.status()).version).toBe(1);

    await expect(plan.edit({ kind: 'remove', stepId: 'first' })).rejects.toThrow(/second/);
    expect(
      (await plan.edit({ kind: 'edit', stepId: 'first', args: { value: 7 }, description: 'seven' }, { by: 'ana' }))
        .version,
    ).toBe(2);
    expect(
      (await plan.edit({ kind: 'add', step: { id: 'third', description: 'three', tool: 'echo', args: { value: 3 } } }))
        .version,
    ).toBe(3);
    expect((await plan.edit({ kind: 'skip', stepId: 'third' })).version).toBe(4);
    const versions = await plan.versions();
    expect(versions.map((v) => v.version)).toEqual([1, 2, 3, 4]);
    expect(versions[1]).toMatchObject({ by: 'ana' });

    await plan.approve();
    await expect(plan.edit({ kind: 'skip', stepId: 'second' })).rejects.toThrow(/only in review/);
    const summary = await plan.result();
    expect(summary.status).toBe('completed');
    const view = await plan.status();
    expect(stepOf(view, 'second').result!.value).toEqual({ got: 7 });
    expect(stepOf(view, 'third')).toMatchObject({ status: 'skipped', skippedBy: 'reviewer' });
    await expectPlanAuditOk(env, plan.id);
  });

  it('is cancelled from review', T, async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      document: { steps: [{ id: 'only', description: 'x', tool: 'echo', args: { value: 1 } }] },
    });
    await waitForPlan(plan, inReview);
    await plan.cancel('changed my mind');
    const err = await plan.result().catch((e) => e);
    expect((err as WorkflowFailedError).cause?.message).toMatch(/plan cancelled: changed my mind/);
    expect((await plan.status()).status).toBe('cancelled');
    await expectPlanAuditOk(env, plan.id);
  });

  it('refuses an invalid plan document before anything runs', T, async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      document: { steps: [{ id: 'a', description: 'x', tool: 'nope', args: {} }] },
    });
    const err = await plan.result().catch((e) => e);
    expect((err as WorkflowFailedError).cause?.message).toMatch(/unknown_tool|nope/);
  });
});

describe('recovery by the model', () => {
  const failing = (id: string, extra: object = {}) => ({
    id,
    description: `fails: ${id}`,
    tool: 'needs_flag',
    args: { flag: false },
    retry: { maxAttempts: 1 },
    ...extra,
  });

  it('retry with new args: the step completes and the recovery is a new version', T, async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      approve: true,
      document: {
        steps: [
          failing('rec_retry'),
          {
            id: 'after',
            description: 'after',
            tool: 'echo',
            args: { value: '$rec_retry.flag' },
            dependsOn: ['rec_retry'],
          },
        ],
      },
    });
    const summary = await plan.result();
    expect(summary.status).toBe('completed');
    const view = await plan.status();
    expect(stepOf(view, 'rec_retry')).toMatchObject({ status: 'completed', args: { flag: true } });
    expect(stepOf(view, 'after').result!.value).toEqual({ got: true });
    const versions = await plan.versions();
    expect(versions.at(-1)!.change).toMatch(/recovery of rec_retry/);
    await expectPlanAuditOk(env, plan.id);
  });

  it('skip: the step is skipped and a dependent that does not use its result runs', T, async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      approve: true,
      document: {
        steps: [
          failing('rec_skip'),
          { id: 'after', description: 'after', tool: 'echo', args: { value: 1 }, dependsOn: ['rec_skip'] },
        ],
      },
    });
    const summary = await plan.result();
    expect(summary.status).toBe('completed');
    const view = await plan.status();
    expect(stepOf(view, 'rec_skip')).toMatchObject({ status: 'skipped', skippedBy: 'recovery' });
    expect(stepOf(view, 'after').status).toBe('completed');
    await expectPlanAuditOk(env, plan.id);
  });

  it('insert: new steps run first, then the failed step again', T, async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      approve: true,
      document: {
        steps: [
          {
            id: 'rec_insert',
            description: 'needs the widget',
            tool: 'check_ready',
            args: { name: 'widget' },
            retry: { maxAttempts: 1 },
          },
        ],
      },
    });
    const summary = await plan.result();
    expect(summary.status).toBe('completed');
    const view = await plan.status();
    expect(view.plan!.steps.map((s) => s.id)).toEqual(['prepare_it', 'rec_insert']);
    expect(stepOf(view, 'rec_insert')).toMatchObject({ status: 'completed', dependsOn: ['prepare_it'] });
    await expectPlanAuditOk(env, plan.id);
  });

  it("abort: the plan fails with the model's reason", T, async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      approve: true,
      document: {
        steps: [
          failing('rec_abort'),
          { id: 'other', description: 'x', tool: 'echo', args: { value: 1 }, dependsOn: ['rec_abort'] },
        ],
      },
    });
    const err = await plan.result().catch((e) => e);
    expect((err as WorkflowFailedError).cause?.message).toMatch(/cannot be fixed/);
    const view = await plan.status();
    expect(view.status).toBe('failed');
    expect(stepOf(view, 'rec_abort').status).toBe('failed');
    await expectPlanAuditOk(env, plan.id);
  });
});
