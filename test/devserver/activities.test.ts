/** Activities: retries with heartbeat details, timeouts, non-retryable errors, cancel, ById RPCs. */
import { ActivityFailure, ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import {
  asyncHello,
  cancellable,
  failsHard,
  heartbeatTimeout,
  hello,
  retrying,
  startToCloseTimeout,
} from './fixtures/workflows.ts';
import {
  eventsOfType,
  eventTypes,
  expectEventTypes,
  failureCause,
  fetchAndReplay,
  FIRST_TASK,
  startWorkflow,
  untilDescribed,
  useTestEnv,
  WORKFLOW_TASK,
} from './helpers.ts';

const env = useTestEnv();

/** Up to the activity's start: what follows differs per test. */
const ACTIVITY_ROUND_TRIP = [...FIRST_TASK, 'ActivityTaskScheduled', 'ActivityTaskStarted'];

describe('activities', () => {
  it('keeps the summary on ActivityTaskScheduled', async () => {
    const handle = await startWorkflow(env, hello, { workflowId: 'summary-1', args: ['x'] });
    await handle.result();
    const history = await handle.fetchHistory();
    const [scheduled] = eventsOfType(history, 'ActivityTaskScheduled');
    expect(Buffer.from(scheduled!.userMetadata!.summary!.data!).toString()).toBe('"say hello"');
  });

  it('retries a failing activity with backoff; attempt 3 sees the heartbeat details of attempt 2', async () => {
    const handle = await startWorkflow(env, retrying, { workflowId: 'retry-1', args: ['k'] });
    expect(await handle.result()).toBe('attempt 3 saw k:attempt-2');
    const history = await fetchAndReplay(env, handle);
    expectEventTypes(history, [
      ...ACTIVITY_ROUND_TRIP,
      'ActivityTaskCompleted',
      ...WORKFLOW_TASK,
      'WorkflowExecutionCompleted',
    ]);
    const started = eventsOfType(history, 'ActivityTaskStarted')[0]!.activityTaskStartedEventAttributes!;
    expect(started.attempt).toBe(3);
    expect(started.lastFailure?.message).toBe('attempt 2 failed');
  });

  it('times out an activity that stops heartbeating', async () => {
    const handle = await startWorkflow(env, heartbeatTimeout, { workflowId: 'hb-timeout-1' });
    expect(await handle.result()).toBe('Activity task timed out: activity Heartbeat timeout');
    const history = await fetchAndReplay(env, handle);
    expect(eventTypes(history).slice(0, 7)).toEqual([...ACTIVITY_ROUND_TRIP, 'ActivityTaskTimedOut']);
    const timedOut = eventsOfType(history, 'ActivityTaskTimedOut')[0]!.activityTaskTimedOutEventAttributes!;
    expect(timedOut.failure?.timeoutFailureInfo?.timeoutType).toBe(4 /* HEARTBEAT */);
  });

  it('retries start-to-close timeouts, then reports the last one', async () => {
    const handle = await startWorkflow(env, startToCloseTimeout, { workflowId: 'stc-timeout-1' });
    expect(await handle.result()).toBe('Activity task timed out: activity StartToClose timeout');
    const history = await fetchAndReplay(env, handle);
    expect(eventTypes(history).slice(0, 7)).toEqual([...ACTIVITY_ROUND_TRIP, 'ActivityTaskTimedOut']);
    expect(eventsOfType(history, 'ActivityTaskStarted')[0]!.activityTaskStartedEventAttributes!.attempt).toBe(2);
  });

  it('does not retry a non-retryable failure', async () => {
    const handle = await startWorkflow(env, failsHard, { workflowId: 'fatal-1' });
    const cause = await failureCause(handle);
    expect(cause).toBeInstanceOf(ActivityFailure);
    expect((cause as ActivityFailure).cause).toBeInstanceOf(ApplicationFailure);
    expect(((cause as ActivityFailure).cause as ApplicationFailure).type).toBe('Fatal');
    expectEventTypes(await fetchAndReplay(env, handle), [
      ...ACTIVITY_ROUND_TRIP,
      'ActivityTaskFailed',
      ...WORKFLOW_TASK,
      'WorkflowExecutionFailed',
    ]);
  });

  it('cancels a workflow and its heartbeating activity', async () => {
    const handle = await startWorkflow(env, cancellable, { workflowId: 'cancel-1' });
    await untilDescribed(handle, (d) => d.raw.pendingActivities?.[0]?.lastHeartbeatTime != null);
    await handle.cancel();
    expect(await failureCause(handle)).toBeInstanceOf(CancelledFailure);
    const types = eventTypes(await fetchAndReplay(env, handle));
    expect(types.slice(0, 8)).toEqual([
      ...ACTIVITY_ROUND_TRIP.slice(0, 5),
      'WorkflowExecutionCancelRequested',
      'WorkflowTaskScheduled',
      'WorkflowTaskStarted',
    ]);
    expect(types).toContain('ActivityTaskCancelRequested');
    expect(types[types.length - 1]).toBe('WorkflowExecutionCanceled');
  });

  it('completes an activity by id', async () => {
    const workflowId = 'by-id-1';
    const handle = await startWorkflow(env, asyncHello, { workflowId });
    await untilDescribed(handle, (d) => d.raw.pendingActivities?.[0]?.state === 2 /* STARTED */);
    await env.client.activity.heartbeat({ workflowId, activityId: 'async-1' }, 'beat');
    const described = await handle.describe();
    expect(described.raw.pendingActivities?.[0]?.heartbeatDetails?.payloads).toHaveLength(1);
    await env.client.activity.complete({ workflowId, activityId: 'async-1' }, 'done elsewhere');
    expect(await handle.result()).toBe('done elsewhere');
    expect(eventTypes(await fetchAndReplay(env, handle))).toContain('ActivityTaskCompleted');
  });
});
