/** Activities: retries with heartbeat details, timeouts, non-retryable errors, cancel, ById RPCs. */
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../../src/devserver/testing.ts';
import * as activities from './fixtures/activities.ts';
import { asyncHello, cancellable, failsHard, heartbeatTimeout, hello, retrying, startToCloseTimeout } from './fixtures/workflows.ts';
import { eventsOfType, eventTypes, untilDescribed } from './helpers.ts';

const workflowsPath = fileURLToPath(new URL('./fixtures/workflows.ts', import.meta.url));
let env: TestEnv;

beforeAll(async () => {
  env = await createTestEnv({ workflowsPath, activities });
});
afterAll(async () => {
  await env?.shutdown();
});

const ACTIVITY_ROUND_TRIP = [
  'WorkflowExecutionStarted',
  'WorkflowTaskScheduled',
  'WorkflowTaskStarted',
  'WorkflowTaskCompleted',
  'ActivityTaskScheduled',
  'ActivityTaskStarted',
];

describe('activities', () => {
  it('keeps the summary on ActivityTaskScheduled', async () => {
    const handle = await env.client.workflow.start(hello, { taskQueue: env.taskQueue, workflowId: 'summary-1', args: ['x'] });
    await handle.result();
    const history = await handle.fetchHistory();
    const [scheduled] = eventsOfType(history, 'ActivityTaskScheduled');
    expect(Buffer.from(scheduled!.userMetadata!.summary!.data!).toString()).toBe('"say hello"');
  });

  it('retries a failing activity with backoff; attempt 3 sees the heartbeat details of attempt 2', async () => {
    const workflowId = 'retry-1';
    const handle = await env.client.workflow.start(retrying, { taskQueue: env.taskQueue, workflowId, args: ['k'] });
    expect(await handle.result()).toBe('attempt 3 saw k:attempt-2');
    const history = await handle.fetchHistory();
    expect(eventTypes(history)).toEqual([...ACTIVITY_ROUND_TRIP, 'ActivityTaskCompleted', 'WorkflowTaskScheduled', 'WorkflowTaskStarted', 'WorkflowTaskCompleted', 'WorkflowExecutionCompleted']);
    const started = eventsOfType(history, 'ActivityTaskStarted')[0]!.activityTaskStartedEventAttributes!;
    expect(started.attempt).toBe(3);
    expect(started.lastFailure?.message).toBe('attempt 2 failed');
    await env.replay([{ workflowId, history }]);
  });

  it('times out an activity that stops heartbeating', async () => {
    const workflowId = 'hb-timeout-1';
    const handle = await env.client.workflow.start(heartbeatTimeout, { taskQueue: env.taskQueue, workflowId });
    expect(await handle.result()).toBe('Activity task timed out: activity Heartbeat timeout');
    const history = await handle.fetchHistory();
    expect(eventTypes(history).slice(0, 7)).toEqual([...ACTIVITY_ROUND_TRIP, 'ActivityTaskTimedOut']);
    const timedOut = eventsOfType(history, 'ActivityTaskTimedOut')[0]!.activityTaskTimedOutEventAttributes!;
    expect(timedOut.failure?.timeoutFailureInfo?.timeoutType).toBe(4 /* HEARTBEAT */);
    await env.replay([{ workflowId, history }]);
  });

  it('retries start-to-close timeouts, then reports the last one', async () => {
    const workflowId = 'stc-timeout-1';
    const handle = await env.client.workflow.start(startToCloseTimeout, { taskQueue: env.taskQueue, workflowId });
    expect(await handle.result()).toBe('Activity task timed out: activity StartToClose timeout');
    const history = await handle.fetchHistory();
    expect(eventTypes(history).slice(0, 7)).toEqual([...ACTIVITY_ROUND_TRIP, 'ActivityTaskTimedOut']);
    expect(eventsOfType(history, 'ActivityTaskStarted')[0]!.activityTaskStartedEventAttributes!.attempt).toBe(2);
    await env.replay([{ workflowId, history }]);
  });

  it('does not retry a non-retryable failure', async () => {
    const workflowId = 'fatal-1';
    const handle = await env.client.workflow.start(failsHard, { taskQueue: env.taskQueue, workflowId });
    const err = await handle.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ActivityFailure);
    expect((cause as ActivityFailure).cause).toBeInstanceOf(ApplicationFailure);
    expect(((cause as ActivityFailure).cause as ApplicationFailure).type).toBe('Fatal');
    const history = await handle.fetchHistory();
    expect(eventTypes(history)).toEqual([...ACTIVITY_ROUND_TRIP, 'ActivityTaskFailed', 'WorkflowTaskScheduled', 'WorkflowTaskStarted', 'WorkflowTaskCompleted', 'WorkflowExecutionFailed']);
    await env.replay([{ workflowId, history }]);
  });

  it('cancels a workflow and its heartbeating activity', async () => {
    const workflowId = 'cancel-1';
    const handle = await env.client.workflow.start(cancellable, { taskQueue: env.taskQueue, workflowId });
    await untilDescribed(handle, (d) => d.raw.pendingActivities?.[0]?.lastHeartbeatTime != null);
    await handle.cancel();
    const err = await handle.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    const history = await handle.fetchHistory();
    const types = eventTypes(history);
    expect(types.slice(0, 8)).toEqual([
      ...ACTIVITY_ROUND_TRIP.slice(0, 5),
      'WorkflowExecutionCancelRequested',
      'WorkflowTaskScheduled',
      'WorkflowTaskStarted',
    ]);
    expect(types).toContain('ActivityTaskCancelRequested');
    expect(types[types.length - 1]).toBe('WorkflowExecutionCanceled');
    await env.replay([{ workflowId, history }]);
  });

  it('completes an activity by id', async () => {
    const workflowId = 'by-id-1';
    const handle = await env.client.workflow.start(asyncHello, { taskQueue: env.taskQueue, workflowId });
    await untilDescribed(handle, (d) => d.raw.pendingActivities?.[0]?.state === 2 /* STARTED */);
    await env.client.activity.heartbeat({ workflowId, activityId: 'async-1' }, 'beat');
    const described = await handle.describe();
    expect(described.raw.pendingActivities?.[0]?.heartbeatDetails?.payloads).toHaveLength(1);
    await env.client.activity.complete({ workflowId, activityId: 'async-1' }, 'done elsewhere');
    expect(await handle.result()).toBe('done elsewhere');
    const history = await handle.fetchHistory();
    expect(eventTypes(history)).toContain('ActivityTaskCompleted');
    await env.replay([{ workflowId, history }]);
  });
});
