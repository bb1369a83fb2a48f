/**
 * Cron workflows on the embedded server, as Temporal runs them: the schedule is on the
 * started event, the first task waits for the first time, each run closes ContinuedAsNew
 * (initiator CRON_SCHEDULE, backoff recorded) and the next keeps the first run id and
 * gets the previous result; a bad schedule is refused. Also the schedule parser.
 */
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { parseCron } from '../../src/devserver/cron.ts';
import { cronTick } from './fixtures/workflows.ts';
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
    ['@every 10s', '2026-11-24T04:30:20.000Z'],
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
    ['@every 1x', /invalid duration/],
    ['5-1 * * * *', /runs backwards/],
  ])('refuses %s', (spec, why) => {
    expect(() => parseCron(spec).next(at)).toThrow(why);
  });
});

describe('cron workflows', () => {
  it('start at the first time, continue as new after each run with the last result, keep the first run id', async () => {
    const handle = await startWorkflow(env, cronTick, { workflowId: `cron-${Date.now()}`, cronSchedule: '@every 1s' });
    const first = await handle.fetchHistory();
    const started = first.events![0]!.workflowExecutionStartedEventAttributes!;
    expect(started.cronSchedule).toBe('@every 1s');
    expect(Number(started.firstWorkflowTaskBackoff?.seconds ?? 0) * 1000 + (started.firstWorkflowTaskBackoff?.nanos ?? 0) / 1e6).toBeLessThanOrEqual(1000);
    const firstRunId = handle.firstExecutionRunId;

    // wait for the third run: the second has handed on its result
    let runs: string[] = [];
    for (let i = 0; i < 100 && runs.length < 3; i++) {
      await new Promise((r) => setTimeout(r, 200));
      runs = [];
      for await (const w of env.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` })) runs.push(w.runId);
    }
    expect(runs.length).toBeGreaterThanOrEqual(3);

    const firstRun = await env.client.workflow.getHandle(handle.workflowId, firstRunId).fetchHistory();
    const closed = eventsOfType(firstRun, 'WorkflowExecutionContinuedAsNew')[0]!.workflowExecutionContinuedAsNewEventAttributes!;
    expect(closed.initiator).toBe(temporal.api.enums.v1.ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_CRON_SCHEDULE);
    expect(closed.backoffStartInterval).toBeTruthy();
    const second = await env.client.workflow.getHandle(handle.workflowId, closed.newExecutionRunId!).fetchHistory();
    const s2 = second.events![0]!.workflowExecutionStartedEventAttributes!;
    expect(s2.firstExecutionRunId).toBe(firstRunId);
    expect(s2.cronSchedule).toBe('@every 1s');
    expect(s2.continuedExecutionRunId).toBe(firstRunId);
    const resultOf = (h: typeof first) => {
      const r = eventsOfType(h, 'WorkflowExecutionContinuedAsNew')[0]?.workflowExecutionContinuedAsNewEventAttributes?.lastCompletionResult;
      return r ? JSON.parse(Buffer.from(r.payloads![0]!.data!).toString()) : undefined;
    };
    expect([resultOf(firstRun), resultOf(second)]).toEqual([1, 2]);

    await env.client.workflow.getHandle(handle.workflowId).terminate('enough');
  }, 60_000);

  it('a bad schedule is refused at start', async () => {
    const err = (await startWorkflow(env, cronTick, { workflowId: `cron-bad-${Date.now()}`, cronSchedule: '61 * * * *' }).catch((e: unknown) => e)) as Error & { cause?: { details?: string } };
    expect(String(err.cause?.details ?? err.message)).toMatch(/invalid CronSchedule "61 \* \* \* \*": minute: "61" is not in 0-59/);
  });
});
