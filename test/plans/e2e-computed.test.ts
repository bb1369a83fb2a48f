/**
 * Plans that compute and decide, end to end on the embedded server: a file edited with a
 * value computed by `$expr` from a step's result and a parameter (shown resolved to the
 * approver, recorded on the step, keyed by the idempotency key), steps run or skipped by
 * their `when`, parameters refused at start, an expression failing at run time. Every
 * plan that ran ends with `expectPlanAuditOk`.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { stepKey } from '../../src/activities/plans.ts';
import { PlanRejected } from '../../src/client/plan/client.ts';
import { awaiting, expectPlanAuditOk, stepOf, usePlanEnv, waitForPlan, type PlanEnv } from './plan-harness.ts';

const planEnvOf = usePlanEnv();
let env: PlanEnv;
beforeEach(() => {
  env = planEnvOf();
});

const T = { timeout: 120_000 };

const bumpPlan = (path: string) => ({
  params: { version: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+$' } },
  steps: [
    { id: 'read_pkg', description: 'read package.json', tool: 'read_file', args: { path } },
    {
      id: 'write_pkg',
      description: 'write the new version',
      tool: 'write_file',
      args: {
        path: '$read_pkg.path',
        content: { $expr: '(str/replace (:content step/read_pkg) "1.4.2" param/version)' },
      },
      dependsOn: ['read_pkg'],
      requiresApproval: true,
    },
  ],
});

describe('plans that compute and decide', () => {
  it(
    'edits a file with a computed value: the approver sees it resolved, the step records it, the key covers it',
    T,
    async () => {
      const path = join(mkdtempSync(join(tmpdir(), 'plan-computed-')), 'package.json');
      writeFileSync(path, '{"name": "demo", "version": "1.4.2"}\n');
      const plan = await env.startPlan({
        agent: 'lab',
        approve: true,
        document: bumpPlan(path),
        params: { version: '1.5.0' },
      });
      const gated = await waitForPlan(plan, awaiting('write_pkg'));
      const expected = { path, content: '{"name": "demo", "version": "1.5.0"}\n' };
      expect(gated.approvals).toEqual([
        expect.objectContaining({ stepId: 'write_pkg', tool: 'write_file', args: expected }),
      ]);
      expect(stepOf(gated, 'write_pkg').resolved).toEqual(expected);
      expect(gated.plan!.params).toEqual({ version: { schema: bumpPlan(path).params.version, value: '1.5.0' } });
      expect(readFileSync(path, 'utf8')).toContain('1.4.2');
      await plan.approveStep('write_pkg', { by: 'ana' });
      const summary = await plan.result();
      expect(summary.status).toBe('completed');
      expect(readFileSync(path, 'utf8')).toBe(expected.content);
      const ledger = await plan.ledger();
      expect(ledger.find((e) => e.stepId === 'write_pkg')).toMatchObject({
        status: 'completed',
        idempotencyKey: stepKey(plan.id, 'write_pkg', expected),
      });
      await expectPlanAuditOk(env, plan.id);
    },
  );

  it(
    'runs a step whose when is true, skips one whose when is false, and steps after the skipped one still run',
    T,
    async () => {
      const plan = await env.startPlan({
        agent: 'lab',
        approve: true,
        params: { mode: 'fast' },
        document: {
          params: { mode: { enum: ['fast', 'slow'] } },
          steps: [
            { id: 'check', description: 'what to do', tool: 'echo', args: { value: { mode: { $param: 'mode' } } } },
            {
              id: 'fast',
              description: 'the fast way',
              tool: 'echo',
              args: { value: 'fast' },
              dependsOn: ['check'],
              when: '(= (get-in step/check [:got :mode]) "fast")',
            },
            {
              id: 'slow',
              description: 'the slow way',
              tool: 'echo',
              args: { value: 'slow' },
              dependsOn: ['check'],
              when: '(= param/mode "slow")',
            },
            {
              id: 'after_slow',
              description: 'after the slow way',
              tool: 'echo',
              args: { value: 'after' },
              dependsOn: ['slow'],
            },
          ],
        },
      });
      const summary = await plan.result();
      expect(summary.status).toBe('completed');
      const view = await plan.status();
      expect(stepOf(view, 'check').result!.value).toEqual({ got: { mode: 'fast' } });
      expect(stepOf(view, 'fast')).toMatchObject({ status: 'completed', result: { ok: true, value: { got: 'fast' } } });
      expect(stepOf(view, 'slow')).toMatchObject({
        status: 'skipped',
        skippedBy: 'condition',
        reason: 'condition false',
      });
      expect(stepOf(view, 'slow').result).toBeUndefined();
      expect(stepOf(view, 'after_slow').status).toBe('completed');
      const ledger = await plan.ledger();
      expect(ledger.map((e) => e.stepId).sort()).toEqual(['after_slow', 'check', 'fast']);
      await expectPlanAuditOk(env, plan.id);
    },
  );

  it('refuses missing and ill-typed parameters at start, naming them', T, async () => {
    const doc = bumpPlan('/nonexistent');
    const missing = await env.startPlan({ agent: 'lab', document: doc }).catch((e) => e);
    expect(missing).toBeInstanceOf(PlanRejected);
    expect((missing as PlanRejected).problems).toEqual([
      expect.objectContaining({ code: 'missing_param', path: 'params.version' }),
    ]);
    const bad = await env.startPlan({ agent: 'lab', document: doc, params: { version: 'latest' } }).catch((e) => e);
    expect((bad as PlanRejected).problems).toEqual([
      expect.objectContaining({ code: 'invalid_param', path: 'params.version' }),
    ]);
    expect((bad as PlanRejected).message).toMatch(/parameter version = "latest" is invalid/);
  });

  it(
    'forEach runs the tool once per item, each its own activity and key; the result is the list; more than maxItems fails',
    T,
    async () => {
      const plan = await env.startPlan({
        agent: 'lab',
        approve: true,
        document: {
          steps: [
            { id: 'list', description: 'three items', tool: 'make_list', args: { n: 3 } },
            {
              id: 'each',
              description: 'echo each id',
              tool: 'echo',
              args: { value: { $expr: '(:id item)' }, label: 'same' },
              dependsOn: ['list'],
              forEach: '(:items step/list)',
            },
            {
              id: 'none',
              description: 'no items',
              tool: 'echo',
              args: { value: { $expr: 'item' } },
              dependsOn: ['list'],
              forEach: '(filter :missing (:items step/list))',
            },
            {
              id: 'too_many',
              description: 'over the limit',
              tool: 'echo',
              args: { value: 1 },
              dependsOn: ['list'],
              forEach: '(:items step/list)',
              maxItems: 2,
              critical: false,
            },
            {
              id: 'sum',
              description: 'use the list',
              tool: 'echo',
              args: { value: { $expr: '(count step/each)' } },
              dependsOn: ['each'],
            },
          ],
        },
      });
      const summary = await plan.result();
      expect(summary.status).toBe('completed_with_failures');
      const view = await plan.status();
      expect(stepOf(view, 'each').result!.value).toEqual([0, 1, 2].map((i) => ({ got: `item-${i}`, label: 'same' })));
      expect(stepOf(view, 'each').resolved).toEqual([0, 1, 2].map((i) => ({ value: `item-${i}`, label: 'same' })));
      expect(stepOf(view, 'none')).toMatchObject({ status: 'completed', result: { ok: true, value: [] } });
      expect(stepOf(view, 'sum').result!.value).toEqual({ got: 3 });
      expect(stepOf(view, 'too_many').status).toBe('failed');
      expect(stepOf(view, 'too_many').result!.error).toBe('step too_many forEach: gave 3 items, more than maxItems 2');
      const ledger = (await plan.ledger()).filter((e) => e.stepId === 'each');
      expect(ledger.map((e) => e.activity).sort()).toEqual([
        'step-each-1-item0',
        'step-each-1-item1',
        'step-each-1-item2',
      ]);
      expect(new Set(ledger.map((e) => e.idempotencyKey)).size).toBe(3);
      await expectPlanAuditOk(env, plan.id);
    },
  );

  it('an expression that fails at run time fails its step with the step, path and position', T, async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      approve: true,
      document: {
        steps: [
          { id: 'list', description: 'a list', tool: 'make_list', args: { n: 2 } },
          {
            id: 'bad',
            description: 'adds to a string',
            tool: 'echo',
            args: { value: { $expr: '(inc (:id (first (:items step/list))))' } },
            dependsOn: ['list'],
            critical: false,
          },
        ],
      },
    });
    const summary = await plan.result();
    expect(summary.status).toBe('completed_with_failures');
    const view = await plan.status();
    expect(stepOf(view, 'bad').status).toBe('failed');
    expect(stepOf(view, 'bad').result!.error).toMatch(/^step bad args\.value: line 1, column 1: /);
    expect((await plan.ledger()).map((e) => e.stepId)).toEqual(['list']);
    await expectPlanAuditOk(env, plan.id);
  });

  it(
    "a compute step runs no tool: its result is its expression's value, read by later steps as step/ID and $ID; audited",
    T,
    async () => {
      const plan = await env.startPlan({
        agent: 'lab',
        approve: true,
        document: {
          steps: [
            { id: 'list', description: 'a list', tool: 'make_list', args: { n: 3 } },
            {
              id: 'ids',
              description: 'the ids, upper-cased',
              compute: '(mapv #(str/upper-case (:id %)) (:items step/list))',
              dependsOn: ['list'],
            },
            {
              id: 'use',
              description: 'uses them',
              tool: 'echo',
              args: { value: '$ids', label: { $expr: '(str (count step/ids) " ids")' } },
              dependsOn: ['ids'],
            },
          ],
        },
      });
      expect((await plan.result()).status).toBe('completed');
      const view = await plan.status();
      expect(stepOf(view, 'ids')).toMatchObject({
        status: 'completed',
        requiresApproval: false,
        result: { ok: true, value: ['ITEM-0', 'ITEM-1', 'ITEM-2'] },
      });
      expect(stepOf(view, 'use').result!.value).toEqual({ got: ['ITEM-0', 'ITEM-1', 'ITEM-2'], label: '3 ids' });
      // no tool ran for the compute step
      expect((await plan.ledger()).map((e) => e.stepId).sort()).toEqual(['list', 'use']);
      await expectPlanAuditOk(env, plan.id);
    },
  );

  it("a compute step whose expression fails ends with the step and the expression's error", T, async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      approve: true,
      options: { onFailure: 'abort' },
      document: {
        steps: [
          { id: 'list', description: 'a list', tool: 'make_list', args: { n: 1 } },
          {
            id: 'bad',
            description: 'adds one to a string',
            compute: '(inc (:id (first (:items step/list))))',
            dependsOn: ['list'],
          },
        ],
      },
    });
    const failed = await plan.result().catch((e: Error) => e);
    expect(String(((failed as Error).cause as Error | undefined)?.message ?? (failed as Error).message)).toMatch(
      /critical step bad failed: step bad compute: line 1, column 1: .*inc/,
    );
    const view = await plan.status();
    expect(stepOf(view, 'bad')).toMatchObject({
      status: 'failed',
      result: { ok: false, error: expect.stringMatching(/^step bad compute: line 1, column 1: /) },
    });
    expect(view.error).toMatch(/step bad compute: line 1, column 1: /);
  });
});
