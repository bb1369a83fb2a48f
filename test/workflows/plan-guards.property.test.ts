/**
 * The plan workflow checks its input by hand (plan-guards.ts) so that zod stays out of
 * the workflow bundle; `PlanInput` (plan-contract.ts) is the definition. Law: for any
 * input, the guard accepts exactly what the schema accepts, and a refusal names the
 * field at fault.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PlanInput } from '../../src/workflows/plan/contract.ts';
import { checkPlanInput } from '../../src/workflows/plan/guards.ts';
import { problemsText } from '../../src/kernel/contract.ts';

const json = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)));
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const oddValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 4 }),
  fc.boolean(),
  json,
);
const positiveOrNot = fc.oneof(
  fc.integer({ min: 1, max: 10_000 }),
  fc.integer({ min: -5, max: 0 }),
  fc.double({ noNaN: false }),
  fc.string({ maxLength: 3 }),
  fc.constant(undefined),
);
const nonEmptyOrNot = fc.oneof(
  fc.string({ minLength: 1, maxLength: 8 }),
  fc.constant(''),
  fc.integer(),
  fc.constant(undefined),
);
const record = (fields: Record<string, fc.Arbitrary<unknown>>) =>
  fc.record(
    Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, maybe(v)])) as Record<string, fc.Arbitrary<unknown>>,
    { requiredKeys: [] },
  );

/** Mostly a valid value, sometimes an odd one: most inputs then fail on one field only. */
const usually = <T>(valid: fc.Arbitrary<T>, odd: fc.Arbitrary<unknown>) =>
  fc.oneof({ arbitrary: valid, weight: 6 }, { arbitrary: odd, weight: 1 });
const positive = usually(fc.integer({ min: 1, max: 10_000 }), positiveOrNot);
const options = usually(
  record({
    onFailure: usually(fc.constantFrom('ask', 'abort', 'continue'), fc.constantFrom('later', 1)),
    approvalTimeoutMs: positive,
    onApprovalTimeout: usually(fc.constantFrom('deny', 'fail'), fc.constantFrom('never', null)),
    budgets: usually(
      record({ wallClockMs: positive, toolCalls: positive }),
      fc.oneof(record({ tokens: positiveOrNot }), oddValue),
    ),
    maxRecoveries: positive,
    continueAsNewAfterEvents: positive,
    timeouts: usually(
      record({ stepMs: positive, heartbeatMs: positive, modelMs: positive }),
      fc.oneof(record({ passMs: positiveOrNot }), oddValue),
    ),
    statusSearchAttribute: usually(
      fc.constantFrom('NavigatorStatus', 'a_1'),
      fc.oneof(fc.constantFrom('1bad', 'has space', ''), fc.integer()),
    ),
  }),
  fc.oneof(record({ retries: positiveOrNot }), oddValue),
);
const step = fc.record({ id: fc.string({ maxLength: 4 }), tool: fc.constantFrom('read', 'write') });
const document = usually(
  record({
    steps: usually(fc.array(step, { minLength: 1, maxLength: 3 }), fc.oneof(fc.constant([]), oddValue)),
    params: usually(
      fc.dictionary(fc.constantFrom('version', 'x-1'), fc.constant({ type: 'string' }), { maxKeys: 2 }),
      fc.oneof(fc.dictionary(fc.constantFrom('a.b', ''), oddValue, { maxKeys: 1 }), oddValue),
    ),
    estimatedDuration: usually(
      fc.integer({ min: 0, max: 100 }),
      fc.oneof(fc.integer({ min: -3, max: -1 }), fc.double(), fc.string({ maxLength: 2 })),
    ),
    options,
  }),
  oddValue,
);
const input = usually(
  record({
    agent: usually(fc.string({ minLength: 1, maxLength: 8 }), nonEmptyOrNot),
    request: usually(fc.string({ minLength: 1, maxLength: 8 }), nonEmptyOrNot),
    context: usually(json, oddValue),
    document,
    params: usually(fc.dictionary(fc.string({ maxLength: 4 }), json, { maxKeys: 2 }), oddValue),
    taskId: usually(fc.string({ minLength: 1, maxLength: 8 }), nonEmptyOrNot),
    approve: usually(fc.boolean(), oddValue),
    options,
    carried: fc.oneof(fc.constant({ plan: null }), fc.constant(undefined)),
  }),
  oddValue,
);

describe('the plan input guard agrees with the zod contract', () => {
  it('accepts exactly what PlanInput accepts, and keeps the input as given', () => {
    fc.assert(
      fc.property(input, (raw) => {
        const z = PlanInput.safeParse(raw);
        const g = checkPlanInput(raw);
        expect(
          g.ok,
          `guard ${g.ok ? 'accepted' : 'rejected'} what zod ${z.success ? 'accepted' : 'rejected'}: ${JSON.stringify(raw)} (${g.ok ? '' : problemsText(g.problems)})`,
        ).toBe(z.success);
        if (g.ok) expect(g.value).toBe(raw);
      }),
      { numRuns: 3000 },
    );
  });

  it('names the field at fault, as zod does', () => {
    const cases: Array<[unknown, string]> = [
      [{ agent: 'workspace', request: 'x', options: { onFailure: 'later' } }, 'options.onFailure'],
      [{ agent: 'workspace', request: 'x', options: { timeouts: { stepMs: -1 } } }, 'options.timeouts.stepMs'],
      [{ agent: 'workspace', request: 'x', options: { retries: 3 } }, 'options.retries'],
      // a key that Object.prototype has is an unknown option too (fast-check found the guard calling valueOf)
      [{ agent: 'workspace', request: 'x', options: { budgets: { valueOf: {} } } }, 'options.budgets.valueOf'],
      [{ agent: 'workspace', request: 'x', options: { constructor: 1 } }, 'options.constructor'],
      [{ agent: 'workspace', document: { steps: [] } }, 'document.steps'],
      [{ agent: 'workspace', document: { steps: [{}], params: { 'a.b': { type: 'string' } } } }, 'document.params.a.b'],
      [{ agent: '', request: 'x' }, 'agent'],
      [{ agent: 'workspace' }, 'input'],
    ];
    for (const [raw, path] of cases) {
      const g = checkPlanInput(raw);
      expect(g.ok).toBe(false);
      if (!g.ok)
        expect(
          g.problems.some((p) => p.path === path && p.message !== '' && p.code !== ''),
          `${problemsText(g.problems)} names ${path}`,
        ).toBe(true);
      const z = PlanInput.safeParse(raw);
      expect(z.success).toBe(false);
    }
  });
});
