/**
 * The step limit (issue 38): a plan's step list may have at most `maxSteps` steps (plan
 * option, default 1000). Checked by validatePlan and everything that calls it (the
 * client before a start, the workflow's preparation from its own input, review edits and
 * recovery inserts), with one plan-wide problem that says how many steps there are, what
 * the limit is and how to raise it. A for-each step counts once, but its maxItems may not
 * be above the limit (its items start at once, as ready steps do).
 */
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildPlan } from '../../src/plans/build.ts';
import { applyEdit, applyRecovery } from '../../src/plans/edits.ts';
import { DEFAULT_MAX_STEPS } from '../../src/plans/limits.ts';
import { type Catalog, type Plan, PlanOptions } from '../../src/plans/schema.ts';
import { formatProblems, validatePlan } from '../../src/plans/validate.ts';
import { PLAN_WORKFLOW, PlanRejected, planInputOf } from '../../src/client/plan/client.ts';
import { resolvePlanOptions } from '../../src/workflows/plan/state.ts';
import { type PlanEnv, usePlanEnv, waitForPlan } from './plan-harness.ts';

const catalog: Catalog = {
  tools: new Map([['echo', { sideEffect: 'read_only', destructive: false, input: z.object({ value: z.unknown() }) }]]),
  agents: new Set(),
};

/** n steps, each using the result of the one before (a chain) */
const chain = (n: number, from = 0) =>
  Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return i === 0
      ? { id: 's0', description: 's0', tool: 'echo', args: { value: 0 } }
      : {
          id: `s${i}`,
          description: `s${i}`,
          tool: 'echo',
          args: { value: `$s${i - 1}.got` },
          dependsOn: [`s${i - 1}`],
        };
  });
const one = (id: string) => ({ id, description: id, tool: 'echo', args: { value: id } });

function built(steps: unknown[], maxSteps?: number): Plan {
  const b = buildPlan({ id: 'p', taskId: 't', steps, createdAt: '2026-01-01T00:00:00.000Z' }, catalog, { maxSteps });
  if (!b.ok) throw new Error(formatProblems(b.problems));
  return b.plan;
}

describe('validatePlan: the step limit', () => {
  it('refuses 1001 steps with one plan-wide problem: how many, the limit, how to raise it', () => {
    expect(DEFAULT_MAX_STEPS).toBe(1000);
    const problems = validatePlan(chain(1001), catalog);
    expect(problems).toEqual([{ code: 'too_many_steps', stepId: null, path: '', message: expect.any(String) }]);
    const message = problems[0]!.message;
    expect(message).toContain('the plan has 1001 steps, more than the limit of 1000');
    expect(message).toContain('maxSteps');
    expect(message).toContain('"options": {"maxSteps": 1001}');
    expect(formatProblems(problems)).toBe(`  - plan: ${message} [too_many_steps]`);
  });

  it('accepts 1000 steps (a chain, each using the one before)', () => {
    expect(validatePlan(chain(1000), catalog)).toEqual([]);
    expect(built(chain(1000)).steps).toHaveLength(1000);
  });

  it('a configured higher limit accepts more, and is the limit the problem names', () => {
    expect(validatePlan(chain(1500), catalog, [], { maxSteps: 2000 })).toEqual([]);
    expect(validatePlan(chain(2001), catalog, [], { maxSteps: 2000 })).toMatchObject([
      { code: 'too_many_steps', message: expect.stringContaining('2001 steps, more than the limit of 2000') },
    ]);
    expect(validatePlan(chain(3), catalog, [], { maxSteps: 2 })).toMatchObject([{ code: 'too_many_steps' }]);
    const b = buildPlan({ id: 'p', taskId: 't', steps: chain(1001), createdAt: 'x' }, catalog);
    expect(b).toMatchObject({ ok: false, problems: [{ code: 'too_many_steps' }] });
  });

  it('a for-each step counts once, but its maxItems may not be above the limit (its items start at once)', () => {
    const each = (maxItems?: number) => ({
      id: 'each',
      description: 'each',
      tool: 'echo',
      forEach: '(range 3)',
      args: { value: { $expr: 'item' } },
      ...(maxItems !== undefined ? { maxItems } : {}),
    });
    expect(validatePlan([...chain(999), each()], catalog)).toEqual([]);
    expect(validatePlan([each(1000)], catalog)).toEqual([]);
    const over = validatePlan([each(1001)], catalog);
    expect(over).toEqual([
      {
        code: 'too_many_steps',
        stepId: 'each',
        path: 'maxItems',
        message: expect.stringContaining("maxItems: 1001 is more than the plan's limit of 1000 steps"),
      },
    ]);
    expect(over[0]!.message).toContain('raise the plan option maxSteps');
    expect(validatePlan([each(5000)], catalog, [], { maxSteps: 5000 })).toEqual([]);
  });

  it('is a plan option: 1000 by default, resolved in the workflow the same way', () => {
    expect(PlanOptions.parse({}).maxSteps).toBe(1000);
    expect(PlanOptions.parse({ maxSteps: 2500 }).maxSteps).toBe(2500);
    expect(PlanOptions.safeParse({ maxSteps: 0 }).success).toBe(false);
    expect(resolvePlanOptions(undefined, undefined).maxSteps).toBe(1000);
    expect(resolvePlanOptions(undefined, { maxSteps: 1200 }).maxSteps).toBe(1200);
    expect(resolvePlanOptions({ maxSteps: 1500 }, { maxSteps: 1200 }).maxSteps).toBe(1500);
  });
});

describe('edits and recovery keep the plan within its limit', () => {
  const full = built(chain(1000));

  it('an added step past the limit is refused; one within it is accepted', () => {
    const add = applyEdit(full, { kind: 'add', step: one('extra') }, catalog);
    expect(add).toMatchObject({
      ok: false,
      problems: [
        { code: 'too_many_steps', message: expect.stringContaining('1001 steps, more than the limit of 1000') },
      ],
    });
    expect(applyEdit(full, { kind: 'add', step: one('extra') }, catalog, { maxSteps: 1001 })).toMatchObject({
      ok: true,
      plan: { version: 2 },
    });
    const shorter = applyEdit(full, { kind: 'remove', stepId: 's999' }, catalog);
    expect(shorter.ok).toBe(true);
    if (shorter.ok)
      expect(applyEdit(shorter.plan, { kind: 'add', step: one('extra') }, catalog)).toMatchObject({
        ok: true,
        plan: { steps: { length: 1000 } },
      });
  });

  it('a recovery that inserts steps past the limit is refused', () => {
    const failed: Plan = { ...full, steps: full.steps.map((s) => (s.id === 's999' ? { ...s, status: 'failed' } : s)) };
    const insert = applyRecovery(failed, 's999', { action: 'insert', steps: [one('fix')], before: 's999' }, catalog);
    expect(insert).toMatchObject({ ok: false, problems: [{ code: 'too_many_steps' }] });
    expect(applyRecovery(failed, 's999', { action: 'retry' }, catalog)).toMatchObject({ ok: true });
  });

  it('a plan already longer than the limit (recorded before it) may change, but not grow', () => {
    const long = built(chain(1200), 1200);
    expect(applyEdit(long, { kind: 'skip', stepId: 's1199' }, catalog)).toMatchObject({ ok: true });
    expect(applyEdit(long, { kind: 'add', step: one('extra') }, catalog)).toMatchObject({
      ok: false,
      problems: [
        { code: 'too_many_steps', message: expect.stringContaining('1201 steps, more than the limit of 1200') },
      ],
    });
  });
});

describe('the client refuses before a start', () => {
  it('a document past the limit is refused with the problem; its options or the caller’s raise it; the limit is recorded in the input', () => {
    const err = (() => {
      try {
        planInputOf({ agent: 'lab', taskQueue: 'q', document: { steps: chain(1001) } });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(PlanRejected);
    expect((err as PlanRejected).problems).toMatchObject([{ code: 'too_many_steps' }]);
    expect((err as PlanRejected).message).toContain('the plan has 1001 steps, more than the limit of 1000');
    expect(planInputOf({ agent: 'lab', taskQueue: 'q', document: { steps: chain(1000) } }).options).toMatchObject({
      maxSteps: 1000,
    });
    expect(
      planInputOf({ agent: 'lab', taskQueue: 'q', document: { steps: chain(1001), options: { maxSteps: 1001 } } })
        .options,
    ).toMatchObject({ maxSteps: 1001 });
    expect(
      planInputOf({ agent: 'lab', taskQueue: 'q', document: { steps: chain(1001) }, options: { maxSteps: 2000 } })
        .options,
    ).toMatchObject({ maxSteps: 2000 });
  });
});

describe('the workflow', () => {
  const planEnvOf = usePlanEnv();
  let env: PlanEnv;
  beforeEach(() => {
    env = planEnvOf();
  });
  const T = { timeout: 180_000 };
  const inReview = (v: { status: string }) => v.status === 'review';

  /** Starts the plan workflow with a raw input (no client checks), and waits for its failure. */
  async function failureOf(input: unknown): Promise<ApplicationFailure> {
    const handle = await env.client.workflow.start(PLAN_WORKFLOW, {
      taskQueue: env.taskQueue,
      workflowId: `limit-${process.pid}-${Math.random().toString(16).slice(2, 10)}`,
      args: [input],
    });
    const err = await handle.result().catch((e) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    return cause as ApplicationFailure;
  }

  it(
    'refuses a given plan past the limit from its own input: the default, or the maxSteps the input records',
    T,
    async () => {
      const byDefault = await failureOf({ agent: 'lab', document: { steps: chain(1001) } });
      expect(byDefault.type).toBe('InvalidPlan');
      expect(byDefault.message).toContain('the plan has 1001 steps, more than the limit of 1000');
      expect(byDefault.details?.[0]).toMatchObject([{ code: 'too_many_steps', stepId: null }]);
      const byOption = await failureOf({ agent: 'lab', document: { steps: chain(4) }, options: { maxSteps: 3 } });
      expect(byOption.message).toContain('the plan has 4 steps, more than the limit of 3');
      const byDocument = await failureOf({ agent: 'lab', document: { steps: chain(4), options: { maxSteps: 3 } } });
      expect(byDocument.message).toContain('the plan has 4 steps, more than the limit of 3');
    },
  );

  it(
    'in review, an added step past the limit is refused and changes nothing; a higher limit accepts it',
    T,
    async () => {
      const plan = await env.startPlan({ agent: 'lab', document: { steps: chain(1000) } });
      expect((await waitForPlan(plan, inReview)).plan!.steps).toHaveLength(1000);
      const refused = await plan.edit({ kind: 'add', step: one('extra') }).catch((e) => e);
      expect(refused).toBeInstanceOf(PlanRejected);
      expect((refused as PlanRejected).problems).toMatchObject([{ code: 'too_many_steps' }]);
      expect((refused as PlanRejected).message).toContain('the plan has 1001 steps, more than the limit of 1000');
      expect((await plan.status()).version).toBe(1);
      expect((await plan.edit({ kind: 'skip', stepId: 's999' })).version).toBe(2);
      await plan.cancel('test over');

      const roomier = await env.startPlan({
        agent: 'lab',
        document: { steps: chain(1001) },
        options: { maxSteps: 1002 },
      });
      expect((await waitForPlan(roomier, inReview)).plan!.steps).toHaveLength(1001);
      expect((await roomier.edit({ kind: 'add', step: one('extra') })).version).toBe(2);
      const past = await roomier.edit({ kind: 'add', step: one('more') }).catch((e) => e);
      expect((past as PlanRejected).problems).toMatchObject([
        { code: 'too_many_steps', message: expect.stringContaining('1003 steps, more than the limit of 1002') },
      ]);
      await roomier.cancel('test over');
    },
  );
});
