/**
 * Laws of the plan core, checked on generated plans: resolving args without references
 * is the identity; a DAG validates and its ready set runs every step exactly once, never
 * before its dependencies; a back edge is reported as a cycle naming both ends; an edit
 * is all or nothing (version + 1, or the plan unchanged).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildPlan } from '../../src/plans/build.ts';
import { type PlanEdit, applyEdit } from '../../src/plans/edits.ts';
import { resolveReferences } from '../../src/plans/references.ts';
import { readySteps } from '../../src/plans/scheduler.ts';
import type { Catalog, Json, Plan } from '../../src/plans/schema.ts';
import { validatePlan } from '../../src/plans/validate.ts';

const catalog: Catalog = {
  tools: new Map([['echo', { sideEffect: 'read_only', destructive: false, input: z.object({ value: z.unknown() }) }]]),
  agents: new Set(),
};

const noDollar: fc.Arbitrary<Json> = fc
  .jsonValue()
  .map(
    (v) => JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'string' && x.startsWith('$') ? `_${x}` : x))) as Json,
  );

/** n steps; step i depends on a random subset of steps before it. */
const dag = fc.integer({ min: 1, max: 14 }).chain((n) =>
  fc.tuple(...Array.from({ length: n }, (_, i) => fc.subarray(Array.from({ length: i }, (_, j) => j)))).map((deps) =>
    deps.map((d, i) => ({
      id: `s${i}`,
      description: `step ${i}`,
      tool: 'echo',
      args: { value: i },
      dependsOn: d.map((j) => `s${j}`),
    })),
  ),
);

const build = (steps: unknown[]): Plan => {
  const built = buildPlan({ id: 'p', taskId: 'p', steps, createdAt: 't' }, catalog);
  if (!built.ok) throw new Error(JSON.stringify(built.problems));
  return built.plan;
};

describe('plan laws', () => {
  it('resolving args that hold no $ string is the identity', () => {
    fc.assert(
      fc.property(noDollar, (value) => {
        expect(resolveReferences(value, () => ({ found: false }))).toEqual({ ok: true, value });
      }),
    );
  });

  it('a DAG validates and the ready set completes every step once, after its dependencies', () => {
    fc.assert(
      fc.property(dag, (steps) => {
        expect(validatePlan(steps, catalog)).toEqual([]);
        let plan = build(steps);
        const finished: string[] = [];
        for (let round = 0; round <= steps.length; round++) {
          const ready = readySteps(plan);
          if (ready.length === 0) break;
          for (const id of ready) {
            const step = plan.steps.find((s) => s.id === id)!;
            for (const d of step.dependsOn) expect(finished).toContain(d);
          }
          finished.push(...ready);
          plan = {
            ...plan,
            steps: plan.steps.map((s) => (ready.includes(s.id) ? { ...s, status: 'completed' as const } : s)),
          };
        }
        expect([...finished].sort()).toEqual(steps.map((s) => s.id).sort());
      }),
    );
  });

  it('an edge back from a step to one that depends on it is a cycle naming both', () => {
    fc.assert(
      fc.property(
        dag.filter((steps) => steps.some((s) => s.dependsOn.length > 0)),
        fc.nat(),
        (steps, pick) => {
          const withDeps = steps.filter((s) => s.dependsOn.length > 0);
          const late = withDeps[pick % withDeps.length]!;
          const early = late.dependsOn[0]!;
          const cyclic = steps.map((s) => (s.id === early ? { ...s, dependsOn: [...s.dependsOn, late.id] } : s));
          const cycles = validatePlan(cyclic, catalog).filter((p) => p.code === 'cycle');
          expect(cycles.length).toBeGreaterThan(0);
          expect(cycles.some((c) => c.message.includes(early) && c.message.includes(late.id))).toBe(true);
        },
      ),
    );
  });

  it('an edit is all or nothing: version + 1, or the plan unchanged', () => {
    const base = build([
      { id: 'a', description: 'a', tool: 'echo', args: { value: 1 } },
      { id: 'b', description: 'b', tool: 'echo', args: { value: '$a.got' }, dependsOn: ['a'] },
      { id: 'c', description: 'c', tool: 'echo', args: { value: 3 } },
    ]);
    const ids = fc.constantFrom('a', 'b', 'c', 'zz');
    const edit: fc.Arbitrary<PlanEdit> = fc.oneof(
      fc.record({ kind: fc.constant('edit' as const), stepId: ids, dependsOn: fc.subarray(['a', 'b', 'c', 'zz']) }),
      fc.record({
        kind: fc.constant('edit' as const),
        stepId: ids,
        args: fc.oneof(
          fc.constant({ value: 1 }),
          fc.constant({ nope: 1 } as Record<string, Json>),
          fc.constant({ value: '$c.got' }),
        ),
      }),
      fc.record({ kind: fc.constant('skip' as const), stepId: ids }),
      fc.record({ kind: fc.constant('remove' as const), stepId: ids }),
      fc.record({
        kind: fc.constant('reorder' as const),
        order: fc.shuffledSubarray(['a', 'b', 'c'], { minLength: 2, maxLength: 3 }),
      }),
      fc.record({
        kind: fc.constant('add' as const),
        step: fc.record({
          id: ids,
          description: fc.constant('new'),
          tool: fc.constant('echo'),
          args: fc.constant({ value: 0 }),
          dependsOn: fc.subarray(['a', 'c']),
        }),
      }),
    );
    fc.assert(
      fc.property(edit, (e) => {
        const before = structuredClone(base);
        const out = applyEdit(base, e, catalog);
        expect(base).toEqual(before);
        if (out.ok) {
          expect(out.plan.version).toBe(base.version + 1);
          expect(validatePlan(out.plan.steps, catalog)).toEqual([]);
        } else {
          expect(out.problems.length).toBeGreaterThan(0);
        }
      }),
    );
  });
});
