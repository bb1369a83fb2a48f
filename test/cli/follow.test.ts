/**
 * `run`/`watch` follow a mission through its queries and describe; these fake the handle
 * to pin down the readings that lost output: a status of "failed" read just before the
 * workflow closed, effects that finished just before the end, a watch started after a
 * decision.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { WorkflowHandle } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { activitiesNow, describeNow, follow } from '../../src/cli/mission/follow.ts';
import { closedLine } from '../../src/cli/plan/view.ts';
import { describeSettled, reasonOf, settle } from '../../src/cli/mission/view.ts';
import type { LedgerEntry, StatusView } from '../../src/workflows/mission/contract.ts';

interface Reading {
  /** the workflow's execution status this poll (RUNNING until it closes) */
  execution?: 'RUNNING' | 'COMPLETED' | 'FAILED';
  status: Partial<StatusView>;
  ledger?: LedgerEntry[];
  result?: unknown;
  failure?: Error;
}

/**
 * A handle that answers each poll from the next reading: a poll begins when follow or
 * settle reads the execution status of a describe (the pass activity's describe reads
 * only its pending activities).
 */
function scripted(readings: Reading[]): WorkflowHandle {
  let i = -1;
  const now = () => readings[Math.min(i, readings.length - 1)]!;
  return {
    async describe() {
      return {
        get status() {
          i++;
          return { name: now().execution ?? 'RUNNING' };
        },
        raw: { pendingActivities: [] },
      };
    },
    async query(q: { name: string }) {
      const r = now();
      if (q.name === 'status') return { status: 'running', passes: 1, pending: null, journalSize: 0, ...r.status };
      return r.ledger ?? [];
    },
    async result() {
      const r = now();
      if (r.failure) throw r.failure;
      return r.result;
    },
  } as unknown as WorkflowHandle;
}

const effect = (seq: number, status: LedgerEntry['status'], pass = 1): LedgerEntry => ({
  seq,
  pass,
  taskId: `create_${seq}`,
  tool: 'create_account',
  sideEffect: 'external',
  idempotencyKey: `k${seq}`,
  status,
  attempts: 1,
  activity: `tool-${seq}`,
});

describe('following a mission', () => {
  it('a mission that fails at once: the reason, not a bare "failed" read before the close', async () => {
    const handle = scripted([
      { status: { status: 'failed', error: 'unknown agent "nosuch"' } },
      {
        execution: 'FAILED',
        status: { status: 'failed' },
        failure: new Error('unknown agent "nosuch"; this worker runs: wire-transfer'),
      },
    ]);
    const lines: string[] = [];
    const settled = await follow(handle, { write: (l) => lines.push(l), pollMs: 1, now: () => 't' });
    expect(settled.closed).toEqual({
      status: 'FAILED',
      failure: 'unknown agent "nosuch"; this worker runs: wire-transfer',
    });
    expect(describeSettled('m', settled)).toContain('reason: unknown agent "nosuch"');
    const viaSettle = await settle(
      scripted([
        { status: { status: 'completed' } },
        { execution: 'COMPLETED', status: { status: 'completed' }, result: { ok: 1 } },
      ]),
    );
    expect(viaSettle.closed).toEqual({ status: 'COMPLETED', result: { ok: 1 } });
  });

  it('effects that finish just before the mission ends are all shown', async () => {
    const handle = scripted([
      { status: {}, ledger: [effect(1, 'running')] },
      {
        execution: 'COMPLETED',
        status: { status: 'completed' },
        ledger: [1, 2, 3, 4].map((n) => effect(n, 'completed')),
        result: { created: 4 },
      },
    ]);
    const lines: string[] = [];
    await follow(handle, { write: (l) => lines.push(l), pollMs: 1, now: () => 't' });
    expect(lines).toEqual([
      't pass 1: running',
      't effect create_1 (tool create_account): running',
      ...[1, 2, 3, 4].map((n) => `t effect create_${n} (tool create_account): done`),
      't completed',
    ]);
  });

  it("watch after a decision lists the earlier pass's effects as earlier, not at the current time", async () => {
    const handle = scripted([
      { status: { passes: 2 }, ledger: [effect(1, 'completed'), effect(2, 'completed')] },
      { status: { passes: 2 }, ledger: [effect(1, 'completed'), effect(2, 'completed'), effect(3, 'completed', 2)] },
      {
        status: {
          status: 'waiting',
          passes: 2,
          pending: { key: 'next', allowed: null, since: 'x', deadline: null, onTimeout: null } as StatusView['pending'],
        },
      },
    ]);
    const lines: string[] = [];
    const settled = await follow(handle, { write: (l) => lines.push(l), pollMs: 1, now: () => '12:00:00' });
    expect(settled.status?.status).toBe('waiting');
    expect(lines).toEqual([
      'earlier effect create_1 (tool create_account): done',
      'earlier effect create_2 (tool create_account): done',
      '12:00:00 pass 2: running',
      '12:00:00 effect create_3 (tool create_account): done',
      '12:00:00 waiting for next',
    ]);
  });
});

describe('why an activity is retried', () => {
  it('shows, while it is retried, the attempt and the failure of the one before', async () => {
    const pendingActivities = [
      {
        activityId: 'tool-1-create_account',
        activityType: { name: 'runTool' },
        attempt: 2,
        lastFailure: { message: 'tool create_account failed: HTTP 503 Service Unavailable\n  at ...' },
      },
      {
        activityId: '3',
        activityType: { name: 'runPass' },
        attempt: 3,
        lastFailure: { message: 'model m: HTTP 503 (gave up after 4 attempts)' },
      },
      { activityId: 'tool-2-x', activityType: { name: 'runTool' }, attempt: 1 },
    ];
    const handle = { describe: async () => ({ raw: { pendingActivities } }) } as unknown as WorkflowHandle;
    const { pass, retries } = await activitiesNow(handle);
    expect(pass).toBeNull();
    expect([...retries.keys()]).toEqual(['tool-1-create_account', 'runPass']);
    const lines = describeNow(
      { status: 'running', passes: 2, pending: null, journalSize: 0 } as unknown as StatusView,
      null,
      [effect(1, 'running')].map((e) => ({ ...e, activity: 'tool-1-create_account' })),
      retries,
    );
    expect(lines).toEqual([
      'pass 2: retrying, attempt 3, the last one failed: model m: HTTP 503 (gave up after 4 attempts)',
      'pass 2: running',
      'effect create_1 (tool create_account): retrying, attempt 2, the last one failed: tool create_account failed: HTTP 503 Service Unavailable',
      'effect create_1 (tool create_account): running',
    ]);
    expect(
      describeNow({ status: 'completed', passes: 2 } as unknown as StatusView, null, [
        { ...effect(1, 'completed'), attempts: 2 },
      ]),
    ).toContain('effect create_1 (tool create_account): done (2 attempts)');
    // once it is done, the ledger keeps why it was retried
    const failedAttempts = [
      {
        attempt: 1,
        type: 'ToolError',
        message: 'tool create_account failed: HTTP 503 Service Unavailable',
        at: '2026-11-26T12:00:01.000Z',
      },
    ];
    expect(
      describeNow({ status: 'completed', passes: 2 } as unknown as StatusView, null, [
        { ...effect(1, 'completed'), attempts: 2, failedAttempts },
      ]),
    ).toContain(
      'effect create_1 (tool create_account): done (2 attempts; attempt 1 failed at 12:00:01: ToolError: tool create_account failed: HTTP 503 Service Unavailable)',
    );
  });
});

describe('a long follow', () => {
  it('leaves no abort listener behind per poll (MaxListenersExceededWarning after 11 polls)', async () => {
    const waiting = {
      status: 'waiting',
      pending: { key: 'k', allowed: null, since: 'x', deadline: null, onTimeout: null },
    } as Partial<StatusView>;
    const handle = scripted([...Array.from({ length: 30 }, () => ({ status: {} })), { status: waiting }]);
    const stop = new AbortController();
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    await follow(handle, { write: () => undefined, pollMs: 1, signal: stop.signal });
    process.off('warning', onWarning);
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });
});

describe('failure reasons', () => {
  it('go through "Activity task failed" to what went wrong', () => {
    const inner = ApplicationFailure.nonRetryable(
      'unknown agent "nosuch"; this worker runs: workspace',
      'UnknownAgent',
    );
    const wrapped = new ActivityFailure(
      'Activity task failed',
      'describeAgent',
      '1',
      RetryState.NON_RETRYABLE_FAILURE,
      'w',
      inner,
    );
    expect(reasonOf(wrapped)).toBe('unknown agent "nosuch"; this worker runs: workspace');
  });

  it('a failed plan says "plan failed" once', () => {
    expect(closedLine({ status: 'FAILED', failure: 'plan failed: step b failed' })).toBe('plan failed: step b failed');
    expect(closedLine({ status: 'FAILED', failure: 'step b failed' })).toBe('plan failed: step b failed');
    expect(closedLine({ status: 'FAILED', failure: 'plan cancelled: changed my mind' })).toBe(
      'plan cancelled: changed my mind',
    );
    expect(closedLine({ status: 'COMPLETED', result: 1 })).toBe('plan completed');
  });
});
