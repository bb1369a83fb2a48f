/**
 * The workflow checks its inputs by hand (guards.ts) so that zod stays out of the
 * workflow bundle; the zod schemas in contract.ts are the definition. Law: for any input,
 * a guard accepts exactly what its schema accepts, and produces the same value.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  ApprovalVerdict,
  CancelRequest,
  DecisionVerdict,
  JournalWrite,
  MissionInput,
  TaskReset,
} from '../../src/workflows/mission/contract.ts';
import {
  checkApprovalVerdict,
  checkCancel,
  checkDecision,
  checkJournalWrite,
  checkMissionInput,
  checkTaskReset,
  type Checked,
} from '../../src/workflows/mission/guards.ts';
import type { z } from 'zod';

const json = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)));
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const oddValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.integer(),
  fc.double(),
  fc.string(),
  fc.boolean(),
  json,
);
const positiveOrNot = fc.oneof(
  fc.integer({ min: 1, max: 10_000 }),
  fc.integer({ min: -5, max: 0 }),
  fc.double({ noNaN: false }),
  fc.string(),
  fc.constant(undefined),
);
const keyish = fc.oneof(fc.string({ maxLength: 8 }), fc.constant(''), fc.integer(), fc.constant(undefined));

function agree<T>(schema: z.ZodType, guard: (raw: unknown) => Checked<T>, raw: unknown): void {
  const z = schema.safeParse(raw);
  const g = guard(raw);
  expect(
    g.ok,
    `guard ${g.ok ? 'accepted' : 'rejected'} what zod ${z.success ? 'accepted' : 'rejected'}: ${JSON.stringify(raw)}`,
  ).toBe(z.success);
  if (g.ok && z.success) expect(g.value).toEqual(z.data);
}

const record = (fields: Record<string, fc.Arbitrary<unknown>>) =>
  fc.record(
    Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, maybe(v)])) as Record<string, fc.Arbitrary<unknown>>,
    { requiredKeys: [] },
  );

describe('workflow guards agree with the zod contract', () => {
  it('decide', () => {
    fc.assert(
      fc.property(fc.oneof(oddValue, record({ key: keyish, value: oddValue, by: oddValue, note: oddValue })), (raw) =>
        agree(DecisionVerdict, checkDecision, raw),
      ),
      { numRuns: 500 },
    );
  });

  it('approveEffect', () => {
    const verdict = record({
      key: keyish,
      approved: fc.oneof(fc.boolean(), oddValue),
      by: oddValue,
      note: oddValue,
      argsHash: oddValue,
    });
    fc.assert(
      fc.property(fc.oneof(oddValue, verdict), (raw) => agree(ApprovalVerdict, checkApprovalVerdict, raw)),
      { numRuns: 500 },
    );
  });

  it('writeJournal, resetTask, cancel', () => {
    fc.assert(
      fc.property(fc.oneof(oddValue, record({ key: keyish, value: oddValue })), (raw) =>
        agree(JournalWrite, checkJournalWrite, raw),
      ),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.oneof(oddValue, record({ key: keyish })), (raw) => agree(TaskReset, checkTaskReset, raw)),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.oneof(oddValue, record({ reason: oddValue })), (raw) => agree(CancelRequest, checkCancel, raw)),
      { numRuns: 300 },
    );
  });

  it('mission input, with the same defaults', () => {
    const options = record({
      maxPasses: positiveOrNot,
      continueAsNewAfterEvents: positiveOrNot,
      approval: record({ timeoutMs: positiveOrNot, onTimeout: fc.constantFrom('expiry_value', 'fail', 'later') }),
      budgets: record({
        wallClockMs: positiveOrNot,
        passes: positiveOrNot,
        toolCalls: positiveOrNot,
        tokens: positiveOrNot,
      }),
      timeouts: record({ passMs: positiveOrNot, toolMs: positiveOrNot, heartbeatMs: positiveOrNot }),
      statusSearchAttribute: fc.oneof(fc.constantFrom('NavigatorStatus', 'a_1', '1bad', 'has space', ''), fc.integer()),
    });
    const journal = fc.oneof(
      fc.array(fc.tuple(fc.string({ minLength: 1, maxLength: 6 }), json), { maxLength: 4 }),
      fc.array(fc.tuple(fc.constant(''), json), { maxLength: 2 }),
      fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 4 }),
      fc.constant('not a journal'),
    );
    const input = record({ agent: keyish, input: oddValue, journal, options, runId: keyish });
    fc.assert(
      fc.property(input, (raw) => agree(MissionInput, checkMissionInput, raw)),
      { numRuns: 3000 },
    );
  });
});
