import { describe, expect, it } from 'vitest';
import { MissionInput, type AgentDescription, type PassResponse } from '../../src/workflows/mission/contract.ts';
import { MissionState, deadlineOf, decisionProblem, expire, waitingKey } from '../../src/workflows/mission/state.ts';
import { PlanOptions } from '../../src/plans/schema.ts';
import { resolvePlanOptions } from '../../src/workflows/plan/state.ts';

type Done = Extract<PassResponse, { kind: 'done' }>;

const agent: AgentDescription = {
  name: 'wire',
  plan: [{ id: '1', description: 'one' }],
  decisions: [
    {
      key: 'manager_decision_bob_5000',
      description: 'd',
      allowed: ['approved', 'rejected'],
      approveValue: 'approved',
      rejectValue: 'rejected',
      timeoutMs: 1000,
      expiryValue: 'rejected',
    },
  ],
  tools: { execute_wire: 'external', lookup: 'read_only' },
};

function state(input: Record<string, unknown> = {}) {
  const s = new MissionState(MissionInput.parse({ agent: 'wire', ...input }), 'wf-1', 1000);
  s.agent = agent;
  return s;
}

function done(partial: Partial<Done>): Done {
  return {
    kind: 'done',
    outcome: { kind: 'return', value: null },
    basedOnVersion: 0,
    journalDelta: [],
    resets: [],
    summaries: {},
    toolCalls: [],
    tokens: 0,
    ...partial,
  };
}

describe('MissionInput', () => {
  it('fills nested defaults when no options are given', () => {
    const parsed = MissionInput.parse({ agent: 'a' });
    expect(parsed.options).toMatchObject({ maxPasses: 5, approval: {}, budgets: {}, continueAsNewAfterEvents: 2000 });
    expect(parsed.options.timeouts).toEqual({ passMs: 3_600_000, toolMs: 300_000, heartbeatMs: 5_000 });
  });

  it('has the heartbeat and tool timeouts of a plan: a crashed effect or step is retried 5 s after it died', () => {
    const mission = MissionInput.parse({ agent: 'a' }).options.timeouts;
    for (const plan of [PlanOptions.parse({}).timeouts, resolvePlanOptions(undefined, undefined).timeouts]) {
      expect(plan.heartbeatMs).toBe(mission.heartbeatMs);
      expect(plan.stepMs).toBe(mission.toolMs);
    }
    expect(mission.heartbeatMs).toBe(5_000);
  });

  it('rejects bad input with the path of each problem', () => {
    const r = MissionInput.safeParse({ agent: '', options: { maxPasses: 0 } });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join('.'))).toEqual(['agent', 'options.maxPasses']);
  });
});

describe('MissionState journal', () => {
  it('keeps commit order and applies resets before commits', () => {
    const s = state({
      journal: [
        ['a', 1],
        ['b', 2],
      ],
    });
    s.applyPass(
      done({
        basedOnVersion: s.journalVersion,
        resets: ['a'],
        journalDelta: [
          ['c', 3],
          ['a', 4],
        ],
      }),
    );
    expect(s.journalEntries()).toEqual([
      ['b', 2],
      ['c', 3],
      ['a', 4],
    ]);
  });

  it('a person writing a key during a pass wins over the pass commit of that key', () => {
    const s = state();
    const read = s.journalVersion;
    s.writeByPerson('manager_decision_bob_5000', 'approved');
    s.applyPass(
      done({
        basedOnVersion: read,
        journalDelta: [
          ['manager_decision_bob_5000', null],
          ['other', 1],
        ],
      }),
    );
    expect(Object.fromEntries(s.journalEntries())).toEqual({ manager_decision_bob_5000: 'approved', other: 1 });
  });

  it('a pass that read the person write may overwrite it', () => {
    const s = state();
    s.writeByPerson('k', 1);
    s.applyPass(done({ basedOnVersion: s.journalVersion, journalDelta: [['k', 2]] }));
    expect(s.journal.get('k')).toBe(2);
  });

  it('round-trips through continue-as-new', () => {
    const s = state({ journal: { a: 1 } });
    s.applyPass(done({ basedOnVersion: 1, journalDelta: [['b', 2]], summaries: { '1': 'x' }, tokens: 10 }));
    s.passes = 3;
    const next = new MissionState(MissionInput.parse({ agent: 'wire', carried: s.carry('run-1') }), 'wf-1', 5000);
    expect(next.journalEntries()).toEqual(s.journalEntries());
    expect(next.summaries).toEqual({ '1': 'x' });
    expect(next.passes).toBe(3);
    expect(next.tokens).toBe(10);
    expect(next.startedAtMs).toBe(1000);
    expect(next.chain).toEqual(['run-1']);
  });
});

describe('decisions', () => {
  it('accepts a known key with an allowed value', () => {
    expect(decisionProblem(state(), 'manager_decision_bob_5000', 'approved')).toBeNull();
  });

  it.each([
    ['manager_decision_eve_1', 'approved', 'unknown decision key'],
    ['manager_decision_bob_5000', 'maybe', 'not allowed'],
    ['manager_decision_bob_5000', 42, 'not allowed'],
  ])('rejects %s = %j', (key, value, message) => {
    expect(decisionProblem(state(), key, value)).toContain(message);
  });

  it('refuses decisions once the mission has finished', () => {
    const s = state();
    s.status = 'completed';
    expect(decisionProblem(s, 'manager_decision_bob_5000', 'approved')).toContain('completed');
  });

  it('reads the waiting key from a waiting return', () => {
    const s = state();
    expect(waitingKey(s, { status: 'waiting', decision: 'k1' })).toBe('k1');
    expect(waitingKey(s, { status: 'waiting' })).toBe('manager_decision_bob_5000');
    expect(waitingKey(s, { status: 'sent' })).toBeNull();
    expect(waitingKey(s, 'waiting')).toBeNull();
  });

  it('expires to the contract value unless the mission says fail', () => {
    const s = state();
    expect(deadlineOf(s, 'manager_decision_bob_5000')).toEqual({ timeoutMs: 1000, onTimeout: 'expiry_value' });
    expect(expire(s, 'manager_decision_bob_5000')).toBe(true);
    expect(s.journal.get('manager_decision_bob_5000')).toBe('rejected');
    const strict = state({ options: { approval: { onTimeout: 'fail', timeoutMs: 10 } } });
    expect(deadlineOf(strict, 'manager_decision_bob_5000')).toEqual({ timeoutMs: 10, onTimeout: 'fail' });
    expect(expire(strict, 'manager_decision_bob_5000')).toBe(false);
  });
});

describe('budgets and ledger', () => {
  it('names the first budget that ran out', () => {
    const s = state({ options: { budgets: { passes: 2, toolCalls: 5, wallClockMs: 10_000 } } });
    expect(s.exhaustedBudget(2000)).toBeNull();
    s.passes = 2;
    expect(s.exhaustedBudget(2000)).toBe('pass budget of 2 used');
    s.passes = 0;
    expect(s.exhaustedBudget(11_000)).toBe('wall-clock budget of 10000 ms used');
  });

  it('finds a completed effect by idempotency key so it never runs twice', () => {
    const s = state();
    const entry = s.startEffect(
      { id: 'k', taskId: 't', tool: 'execute_wire', args: {}, idempotencyKey: 'k' },
      'tool-1-t',
    );
    expect(s.completedEffect('k')).toBeUndefined();
    Object.assign(entry, { status: 'completed', result: { ok: true } });
    expect(s.completedEffect('k')?.result).toEqual({ ok: true });
    expect(s.toolCalls).toBe(1);
  });

  it("lists a pass's own calls among its effects in the order they ran, numbered in that order", () => {
    const s = state();
    s.ledger.push({
      seq: 1,
      pass: 0,
      taskId: null,
      tool: 'lookup',
      sideEffect: 'read_only',
      idempotencyKey: 'old',
      status: 'completed',
      attempts: 1,
      activity: 'pass-0',
    });
    s.beginPass();
    const effect = (key: string) =>
      s.startEffect(
        { id: key, taskId: key, tool: 'execute_wire', args: {}, idempotencyKey: key },
        `tool-${s.ledger.length + 1}-execute_wire`,
      );
    s.passStep = 1; // after the pass's first step: two effects at once
    effect('e1');
    effect('e2');
    s.passStep = 2;
    effect('e3');
    const read = (key: string, step?: number) => ({
      tool: 'lookup',
      taskId: null,
      idempotencyKey: key,
      sideEffect: 'read_only' as const,
      result: key,
      ...(step === undefined ? {} : { step }),
    });
    s.applyPass(done({ toolCalls: [read('r0', 0), read('r0b', 0), read('r1', 1), read('r2', 2)] }));
    expect(s.ledger.map((e) => [e.seq, e.idempotencyKey])).toEqual([
      [1, 'old'],
      [2, 'r0'],
      [3, 'r0b'],
      [4, 'e1'],
      [5, 'e2'],
      [6, 'r1'],
      [7, 'e3'],
      [8, 'r2'],
    ]);
    expect(s.toolCalls).toBe(7);

    // calls recorded before steps were (an older worker's pass result): after the effects
    s.beginPass();
    s.passStep = 1;
    effect('e4');
    s.applyPass(done({ toolCalls: [read('r3')] }));
    expect(s.ledger.slice(8).map((e) => [e.seq, e.idempotencyKey])).toEqual([
      [9, 'e4'],
      [10, 'r3'],
    ]);
  });
});
