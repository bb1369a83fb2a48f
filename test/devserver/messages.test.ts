/** Signals, queries (all three delivery paths), updates and signal-with-start. */
import { WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../../src/devserver/testing.ts';
import * as activities from './fixtures/activities.ts';
import { addSignal, busyCounter, busySum, counter, finishSignal, setLimit, totalQuery } from './fixtures/workflows.ts';
import { eventsOfType, eventTypes, untilDescribed } from './helpers.ts';

const workflowsPath = fileURLToPath(new URL('./fixtures/workflows.ts', import.meta.url));
let env: TestEnv;

beforeAll(async () => {
  env = await createTestEnv({ workflowsPath, activities });
});
afterAll(async () => {
  await env?.shutdown();
});

describe('signals and queries', () => {
  it('buffers signals and defers a query that arrive while a workflow task runs', async () => {
    const workflowId = 'busy-1';
    const handle = await env.client.workflow.start(busyCounter, { taskQueue: env.taskQueue, workflowId, args: [3_000_000] });
    await untilDescribed(handle, (d) => d.raw.pendingWorkflowTask?.state === 2 /* STARTED */);
    await handle.signal(addSignal, 1);
    await handle.signal(addSignal, 2);
    const total = await handle.query(totalQuery); // deferred until the running task ends
    expect(total).toBe(3);
    await handle.signal(finishSignal);
    expect(await handle.result()).toBe(3);
    const history = await handle.fetchHistory();
    expect(eventTypes(history)).toEqual([
      'WorkflowExecutionStarted',
      'WorkflowTaskScheduled',
      'WorkflowTaskStarted',
      'WorkflowTaskCompleted',
      'WorkflowExecutionSignaled',
      'WorkflowExecutionSignaled',
      'WorkflowTaskScheduled',
      'WorkflowTaskStarted',
      'WorkflowTaskCompleted',
      'WorkflowExecutionSignaled',
      'WorkflowTaskScheduled',
      'WorkflowTaskStarted',
      'WorkflowTaskCompleted',
      'WorkflowExecutionCompleted',
    ]);
    await env.replay([{ workflowId, history }]);
  });

  it('rejects a completion that would drop a signal (UnhandledCommand) and completes after seeing it', async () => {
    const workflowId = 'unhandled-1';
    const handle = await env.client.workflow.start(busySum, { taskQueue: env.taskQueue, workflowId, args: [3_000_000] });
    await untilDescribed(handle, (d) => d.raw.pendingWorkflowTask?.state === 2 /* STARTED */);
    await handle.signal(addSignal, 5);
    expect(await handle.result()).toBe(5);
    const history = await handle.fetchHistory();
    expect(eventTypes(history)).toEqual([
      'WorkflowExecutionStarted',
      'WorkflowTaskScheduled',
      'WorkflowTaskStarted',
      'WorkflowTaskFailed',
      'WorkflowExecutionSignaled',
      'WorkflowTaskScheduled',
      'WorkflowTaskStarted',
      'WorkflowTaskCompleted',
      'WorkflowExecutionCompleted',
    ]);
    const failed = eventsOfType(history, 'WorkflowTaskFailed')[0]!.workflowTaskFailedEventAttributes!;
    expect(failed.cause).toBe(1 /* UNHANDLED_COMMAND */);
    await env.replay([{ workflowId, history }]);
  });

  it('answers legacy queries on an idle and on a closed workflow', async () => {
    const workflowId = 'idle-1';
    const handle = await env.client.workflow.start(counter, { taskQueue: env.taskQueue, workflowId });
    await handle.signal(addSignal, 5);
    await untilDescribed(handle, (d) => d.raw.pendingWorkflowTask == null && d.historyLength >= 8);
    expect(await handle.query(totalQuery)).toBe(5);
    await handle.signal(finishSignal);
    expect(await handle.result()).toBe(5);
    expect(await handle.query(totalQuery)).toBe(5);
    const history = await handle.fetchHistory();
    await env.replay([{ workflowId, history }]);
  });

  it('starts with a signal, and signals a running workflow with signal-with-start', async () => {
    const workflowId = 'sws-1';
    const first = await env.client.workflow.signalWithStart(counter, {
      taskQueue: env.taskQueue,
      workflowId,
      signal: addSignal,
      signalArgs: [7],
    });
    const second = await env.client.workflow.signalWithStart(counter, {
      taskQueue: env.taskQueue,
      workflowId,
      signal: addSignal,
      signalArgs: [3],
    });
    expect(second.signaledRunId).toBe(first.signaledRunId);
    await first.signal(finishSignal);
    expect(await first.result()).toBe(10);
    const history = await first.fetchHistory();
    expect(eventTypes(history).slice(0, 3)).toEqual(['WorkflowExecutionStarted', 'WorkflowExecutionSignaled', 'WorkflowTaskScheduled']);
    await env.replay([{ workflowId, history }]);
  });
});

describe('updates', () => {
  it('rejects an update in its validator without an event and records an accepted one', async () => {
    const workflowId = 'update-1';
    const handle = await env.client.workflow.start(counter, { taskQueue: env.taskQueue, workflowId });
    const rejected = await handle.executeUpdate(setLimit, { args: [-1] }).catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(WorkflowUpdateFailedError);
    expect(((rejected as Error).cause as Error).message).toBe('limit must not be negative');
    expect(await handle.executeUpdate(setLimit, { args: [4], updateId: 'limit-4' })).toBe(100);
    // Same update id: the recorded outcome, not a second execution.
    expect(await handle.executeUpdate(setLimit, { args: [4], updateId: 'limit-4' })).toBe(100);
    const started = await handle.startUpdate(setLimit, { args: [6], waitForStage: 'ACCEPTED' });
    expect(await started.result()).toBe(4);
    await handle.signal(addSignal, 50);
    await handle.signal(finishSignal);
    expect(await handle.result()).toBe(6);
    const history = await handle.fetchHistory();
    const types = eventTypes(history);
    expect(types.filter((t) => t === 'WorkflowExecutionUpdateAccepted')).toHaveLength(2);
    expect(types.filter((t) => t === 'WorkflowExecutionUpdateCompleted')).toHaveLength(2);
    expect(types.slice(0, 5)).toEqual([
      'WorkflowExecutionStarted',
      'WorkflowTaskScheduled',
      'WorkflowTaskStarted',
      'WorkflowTaskCompleted',
      'WorkflowTaskScheduled',
    ]);
    await env.replay([{ workflowId, history }]);
  });

  it('starts a workflow and updates it in one call (update-with-start)', async () => {
    const workflowId = 'uws-1';
    const startWorkflowOperation = new WithStartWorkflowOperation(counter, {
      taskQueue: env.taskQueue,
      workflowId,
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    expect(await env.client.workflow.executeUpdateWithStart(setLimit, { args: [9], startWorkflowOperation })).toBe(100);
    const handle = await startWorkflowOperation.workflowHandle();
    await handle.signal(addSignal, 20);
    await handle.signal(finishSignal);
    expect(await handle.result()).toBe(9);
    const history = await handle.fetchHistory();
    expect(eventTypes(history)).toContain('WorkflowExecutionUpdateCompleted');
    await env.replay([{ workflowId, history }]);
  });
});
