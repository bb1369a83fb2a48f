/**
 * Planning by the model end to end (recorded answers): a plan for a request, an invalid
 * answer sent back with its problems, a planner that never gives a valid plan,
 * regeneration with feedback; plus budgets, signals and continue-as-new of long plans.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { WorkflowFailedError } from '@temporalio/client';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approveStepSignal, denyStepSignal } from '../../src/workflows/plan/messages.ts';
import { fetchChain } from '../../src/history/fetch.ts';
import { awaiting, expectPlanAuditOk, stepOf, usePlanEnv, waitForPlan, type PlanEnv } from './plan-harness.ts';

const planEnvOf = usePlanEnv();
let env: PlanEnv;
beforeEach(() => {
  env = planEnvOf();
  process.env.WORKSPACE_DIR = mkdtempSync(join(tmpdir(), 'plan-ws-'));
});

const T = { timeout: 120_000 };
const inReview = (v: { status: string }) => v.status === 'review';

describe('planning', () => {
  it("plans a request with the agent's model, regenerates with feedback, runs the new version", T, async () => {
    const plan = await env.startPlan({
      agent: 'workspace',
      request: 'bump the version in config.json to 2.0.0 and keep a backup',
    });
    const review = await waitForPlan(plan, inReview);
    expect(review.plan!.steps.map((s) => s.id)).toEqual(['read_config', 'backup', 'write_config', 'verify']);
    expect(stepOf(review, 'write_config').requiresApproval).toBe(true);
    expect(stepOf(review, 'backup').requiresApproval).toBe(false);

    const ack = await plan.regenerate('also record the new version in a changelog', { by: 'ana' });
    expect(ack.version).toBe(2);
    const versions = await plan.versions();
    expect(versions.map((v) => v.change)).toEqual([
      'created by the planner',
      'regenerated with feedback: also record the new version in a changelog',
    ]);
    expect(versions[1]!.steps.map((s) => s.id)).toContain('changelog');

    await plan.approve();
    await waitForPlan(plan, awaiting('write_config'));
    await plan.approveStep('write_config');
    await waitForPlan(plan, awaiting('changelog'));
    await plan.approveStep('changelog');
    const summary = await plan.result();
    expect(summary).toMatchObject({ status: 'completed', version: 2, counts: { completed: 5 } });
    await expectPlanAuditOk(env, plan.id);
  });

  it('sends an invalid answer back with its problems and uses the corrected plan', T, async () => {
    const plan = await env.startPlan({ agent: 'lab', request: 'plan after one mistake' });
    const review = await waitForPlan(plan, inReview);
    expect(review.plan!.steps).toEqual([expect.objectContaining({ id: 'hello', tool: 'echo' })]);
    expect((await plan.versions())[0]!.change).toBe('created by the planner (attempt 2)');
    await plan.cancel();
  });

  it('fails the workflow with the problems when the planner gives no valid plan in 3 attempts', T, async () => {
    const plan = await env.startPlan({ agent: 'lab', request: 'a plan that never works' });
    const err = await plan.result().catch((e) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause?.message).toMatch(/no valid plan in 3 attempts[\s\S]*no JSON object/);
  });
});

describe('budgets, signals, long plans', () => {
  it('stops scheduling when the tool-call budget is used up', T, async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      approve: true,
      options: { budgets: { toolCalls: 1 } },
      document: {
        steps: [
          { id: 'one', description: '1', tool: 'echo', args: { value: 1 } },
          { id: 'two', description: '2', tool: 'echo', args: { value: 2 }, dependsOn: ['one'] },
        ],
      },
    });
    const err = await plan.result().catch((e) => e);
    expect((err as WorkflowFailedError).cause?.message).toMatch(/tool-call budget of 1 used up/);
    const view = await plan.status();
    expect(stepOf(view, 'one').status).toBe('completed');
    expect(stepOf(view, 'two').status).toBe('skipped');
    await expectPlanAuditOk(env, plan.id);
  });

  it('takes approvals by signal; a bad signal is recorded as rejected and changes nothing', T, async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      approve: true,
      document: {
        steps: [
          { id: 'gate_a', description: 'a', tool: 'delete_thing', args: { name: 'a' } },
          { id: 'gate_b', description: 'b', tool: 'delete_thing', args: { name: 'b' } },
        ],
      },
    });
    await waitForPlan(plan, (v) => v.approvals.length === 2);
    await plan.workflow.signal(approveStepSignal, { stepId: 'nope' });
    await plan.workflow.signal(approveStepSignal, { stepId: 'gate_a', by: 'ana' });
    await plan.workflow.signal(denyStepSignal, { stepId: 'gate_b', reason: 'keep b' });
    const summary = await plan.result();
    expect(summary.status).toBe('completed');
    const view = await plan.status();
    expect(stepOf(view, 'gate_a').status).toBe('completed');
    expect(stepOf(view, 'gate_b')).toMatchObject({ status: 'skipped', reason: 'denied: keep b' });
    expect(view.rejectedSignals).toEqual([{ signal: 'approveStep', reason: expect.stringMatching(/no step "nope"/) }]);
    await expectPlanAuditOk(env, plan.id);
  });

  it('continues as new when history grows, carrying the plan, versions and ledger', T, async () => {
    const steps: Array<{
      id: string;
      description: string;
      tool: string;
      args: Record<string, unknown>;
      dependsOn: string[];
    }> = Array.from({ length: 12 }, (_, i) => ({
      id: `s${i}`,
      description: `step ${i}`,
      tool: 'echo',
      args: { value: i },
      dependsOn: i ? [`s${i - 1}`] : [],
    }));
    steps.push({
      id: 'last',
      description: 'uses the first',
      tool: 'echo',
      args: { value: '$s0.got' },
      dependsOn: ['s11'],
    });
    const plan = await env.startPlan({
      agent: 'lab',
      approve: true,
      options: { continueAsNewAfterEvents: 40 },
      document: { steps },
    });
    const summary = await plan.result();
    expect(summary).toMatchObject({ status: 'completed', counts: { completed: 13 } });
    const chain = await fetchChain(env.client, plan.id);
    expect(chain.length).toBeGreaterThan(1);
    const view = await plan.status();
    expect(stepOf(view, 'last').result!.value).toEqual({ got: 0 });
    expect((await plan.ledger()).map((e) => e.stepId)).toEqual([...steps.map((s) => s.id)]);
    const report = await expectPlanAuditOk(env, plan.id);
    expect(report.runs).toHaveLength(chain.length);
  });

  it(
    'a plan whose history grows long only with its last steps ends in that run: nothing is carried into a new one',
    T,
    async () => {
      const steps = Array.from({ length: 12 }, (_, i) => ({
        id: `p${i}`,
        description: `step ${i}`,
        tool: 'echo',
        args: { value: i },
      }));
      const plan = await env.startPlan({
        agent: 'lab',
        approve: true,
        options: { continueAsNewAfterEvents: 40 },
        document: { steps },
      });
      expect(await plan.result()).toMatchObject({ status: 'completed', counts: { completed: 12 } });
      const chain = await fetchChain(env.client, plan.id);
      expect(chain).toHaveLength(1);
      expect(chain[0]!.history.events!.length).toBeGreaterThan(40);
      await expectPlanAuditOk(env, plan.id);
    },
  );

  it('an approval deadline denies the step (onApprovalTimeout deny) or fails the plan (fail)', T, async () => {
    const gate = { id: 'gate', description: 'gated', tool: 'delete_thing', args: { name: 'g' } };
    const other = { id: 'other', description: 'independent', tool: 'echo', args: { value: 1 } };
    const denied = await env.startPlan({
      agent: 'lab',
      approve: true,
      options: { approvalTimeoutMs: 300 },
      document: { steps: [gate, other] },
    });
    expect((await denied.result()).status).toBe('completed');
    expect(stepOf(await denied.status(), 'gate')).toMatchObject({
      status: 'skipped',
      skippedBy: 'denial',
      reason: 'denied: no approval before the deadline',
    });
    await expectPlanAuditOk(env, denied.id);

    const failed = await env.startPlan({
      agent: 'lab',
      approve: true,
      options: { approvalTimeoutMs: 300, onApprovalTimeout: 'fail' },
      document: { steps: [gate] },
    });
    const err = await failed.result().catch((e) => e);
    expect((err as WorkflowFailedError).cause?.message).toMatch(/no approval for step gate before its deadline/);
  });

  it('onFailure continue: a critical failure lets independent steps finish, then the plan fails', T, async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      approve: true,
      options: { onFailure: 'continue' },
      document: {
        steps: [
          { id: 'broken', description: 'fails', tool: 'needs_flag', args: { flag: false }, retry: { maxAttempts: 1 } },
          { id: 'slow', description: 'independent', tool: 'sleep_echo', args: { ms: 300, value: 1 } },
        ],
      },
    });
    const err = await plan.result().catch((e) => e);
    expect((err as WorkflowFailedError).cause?.message).toMatch(
      /plan failed: critical step broken failed: .*the flag is off/,
    );
    const view = await plan.status();
    expect(stepOf(view, 'slow').status).toBe('completed');
    expect(stepOf(view, 'broken').status).toBe('failed');
    await expectPlanAuditOk(env, plan.id);
  });
});
