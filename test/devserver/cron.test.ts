/**
 * Cron workflows as Temporal runs them, on either server: the schedule is on the started
 * event (initiator CRON_SCHEDULE), the first task waits for the first time, each run closes
 * with its own event (completed, or failed) naming the next run, which keeps the first run
 * id and gets the result (or the failure) of the last; a bad schedule is refused in the real
 * server's words. Also the schedule parser (robfig/cron's reading) and the backoff.
 */
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { parseCron } from '../../src/devserver/cron.ts';
import { cronDelayMs } from '../../src/devserver/lifecycle.ts';
import { cronTick, failing } from './fixtures/workflows.ts';
import { eventsOfType, startWorkflow, useTestEnv } from './helpers.ts';

const env = useTestEnv();
const at = Date.UTC(2026, 10, 24, 4, 30, 15);
const next = (spec: string, from = at) => new Date(parseCron(spec).next(from)).toISOString();

describe('cron schedules', () => {
  it.each([
    ['*/15 * * * *', '2026-11-24T04:45:00.000Z'],
    ['0 9 * * MON-FRI', '2026-11-24T09:00:00.000Z'],
    ['0 9 * * SAT,SUN', '2026-11-28T09:00:00.000Z'],
    ['@daily', '2026-11-25T00:00:00.000Z'],
    ['@hourly', '2026-11-24T05:00:00.000Z'],
    ['@every 10s', '2026-11-24T04:30:25.000Z'], // from the time asked about, as robfig's Every
    ['30 4 24 11 *', '2027-11-24T04:30:00.000Z'],
    ['0 0 1 JAN *', '2027-01-01T00:00:00.000Z'],
    ['0 12 13 * 5', '2026-11-27T12:00:00.000Z'],
  ])('%s fires next at %s', (spec, expected) => {
    expect(next(spec)).toBe(expected);
  });

  it.each([
    ['* * * *', /expected 5 fields/],
    ['61 * * * *', /minute: "61" is not in 0-59/],
    ['0 0 31 2 *', /never fires/],
    ['@every 1x', /time: unknown unit "x" in duration "1x"/],
    ['5-1 * * * *', /runs backwards/],
    ['0 9 * * 7', /day of week: "7" is not in 0-6/],
    ['0 9 * * * 2028', /expected 5 fields/],
  ])('refuses %s', (spec, why) => {
    expect(() => parseCron(spec).next(at)).toThrow(why);
  });

  it('waits for the first time not before now after the last scheduled time, in whole seconds', () => {
    expect(cronDelayMs('*/15 * * * *', at, at)).toBe(14 * 60_000 + 45_000);
    expect(cronDelayMs('@every 1s', at + 250, at + 250)).toBe(1000);
    // a run scheduled at `at` that ended 2.5 hours later: the next of at + 1h, 2h, 3h
    expect(cronDelayMs('@every 1h', at, at + 9_000_000)).toBe(1_800_000);
    // not yet at the scheduled time: that time
    expect(cronDelayMs('@hourly', at + 5000, at)).toBe(5000);
  });
});

const CRON_SCHEDULE = temporal.api.enums.v1.ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_CRON_SCHEDULE;
type History = Awaited<ReturnType<ReturnType<typeof env.client.workflow.getHandle>['fetchHistory']>>;
const ms = (d: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(d?.seconds ?? 0) * 1000 + (d?.nanos ?? 0) / 1e6;
const decoded = (p: { payloads?: Array<{ data?: Uint8Array | null }> | null } | null | undefined) =>
  p?.payloads?.[0]?.data ? JSON.parse(Buffer.from(p.payloads[0].data).toString()) : undefined;

/** The run's history once it has closed (polled: no time bound, the test timeout is the bound). */
async function closedHistory(workflowId: string, runId: string): Promise<History> {
  for (;;) {
    const d = await env.client.workflow.getHandle(workflowId, runId).describe();
    if (d.status.name !== 'RUNNING') return env.client.workflow.getHandle(workflowId, runId).fetchHistory();
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('cron workflows', () => {
  it('start at the first time, complete each run naming the next, which gets the last result and keeps the first run id', async () => {
    const handle = await startWorkflow(env, cronTick, { workflowId: `cron-${Date.now()}`, cronSchedule: '@every 1s' });
    const first = await handle.fetchHistory();
    const started = first.events![0]!.workflowExecutionStartedEventAttributes!;
    expect(started.cronSchedule).toBe('@every 1s');
    expect(started.initiator).toBe(CRON_SCHEDULE);
    expect(started.continuedExecutionRunId).toBeFalsy();
    expect(ms(started.firstWorkflowTaskBackoff)).toBe(1000);
    const firstRunId = handle.firstExecutionRunId;

    // the first run completes (not ContinuedAsNew) and names the second
    const firstRun = await closedHistory(handle.workflowId, firstRunId);
    const completed = eventsOfType(firstRun, 'WorkflowExecutionCompleted')[0]!
      .workflowExecutionCompletedEventAttributes!;
    expect(eventsOfType(firstRun, 'WorkflowExecutionContinuedAsNew')).toEqual([]);
    expect(decoded(completed.result)).toBe(1);
    expect(completed.newExecutionRunId).toBeTruthy();
    expect((await env.client.workflow.getHandle(handle.workflowId, firstRunId).describe()).status.name).toBe(
      'COMPLETED',
    );

    const second = await closedHistory(handle.workflowId, completed.newExecutionRunId!);
    const s2 = second.events![0]!.workflowExecutionStartedEventAttributes!;
    expect(s2).toMatchObject({
      firstExecutionRunId: firstRunId,
      continuedExecutionRunId: firstRunId,
      cronSchedule: '@every 1s',
      initiator: CRON_SCHEDULE,
      attempt: 1,
    });
    expect(decoded(s2.lastCompletionResult)).toBe(1);
    expect(ms(s2.firstWorkflowTaskBackoff)).toBeGreaterThan(0);
    const completed2 = eventsOfType(second, 'WorkflowExecutionCompleted')[0]!
      .workflowExecutionCompletedEventAttributes!;
    expect(decoded(completed2.result)).toBe(2);
    expect(completed2.newExecutionRunId).toBeTruthy();

    const runs: string[] = [];
    for await (const w of env.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` }))
      runs.push(w.runId);
    expect(runs).toEqual(expect.arrayContaining([firstRunId, completed.newExecutionRunId]));

    await env.client.workflow.getHandle(handle.workflowId).terminate('enough');
  }, 60_000);

  it('a failed run closes Failed naming the next, which gets the failure', async () => {
    const handle = await startWorkflow(env, failing, {
      workflowId: `cron-failing-${Date.now()}`,
      cronSchedule: '@every 1s',
    });
    const firstRun = await closedHistory(handle.workflowId, handle.firstExecutionRunId);
    const failed = eventsOfType(firstRun, 'WorkflowExecutionFailed')[0]!.workflowExecutionFailedEventAttributes!;
    expect(failed.failure?.message).toBe('workflow gave up');
    expect(failed.retryState).toBe(temporal.api.enums.v1.RetryState.RETRY_STATE_RETRY_POLICY_NOT_SET);
    expect(failed.newExecutionRunId).toBeTruthy();
    expect(
      (await env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).describe()).status.name,
    ).toBe('FAILED');

    const second = await env.client.workflow.getHandle(handle.workflowId, failed.newExecutionRunId!).fetchHistory();
    const s2 = second.events![0]!.workflowExecutionStartedEventAttributes!;
    expect(s2).toMatchObject({
      firstExecutionRunId: handle.firstExecutionRunId,
      continuedExecutionRunId: handle.firstExecutionRunId,
      initiator: CRON_SCHEDULE,
    });
    expect(s2.continuedFailure?.message).toBe('workflow gave up');
    expect(s2.lastCompletionResult ?? undefined).toBeUndefined();

    await env.client.workflow.getHandle(handle.workflowId).terminate('enough');
  }, 60_000);

  it.each([
    ['61 * * * *', 'invalid CronSchedule.'],
    ['0 9 * *', 'invalid CronSchedule.'],
    ['0 0 31 2 *', 'invalid CronSchedule, no time can be found to satisfy the schedule'],
  ])('a bad schedule %s is refused at start', async (cronSchedule, message) => {
    const err = (await startWorkflow(env, cronTick, { workflowId: `cron-bad-${Date.now()}`, cronSchedule }).catch(
      (e: unknown) => e,
    )) as Error & { cause?: { details?: string } };
    expect(err.cause?.details).toBe(message);
  });
});
