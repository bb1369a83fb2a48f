/** Signals, queries (all three delivery paths), updates and signal-with-start. */
import { WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { addSignal, busyCounter, busySum, counter, finishSignal, setLimit, totalQuery } from './fixtures/workflows.ts';
import {
  eventsOfType,
  eventTypes,
  expectEventTypes,
  fetchAndReplay,
  FIRST_TASK,
  startWorkflow,
  untilIdleAfter,
  untilWorkflowTaskStarted,
  useTestEnv,
  WORKFLOW_TASK,
} from './helpers.ts';

const env = useTestEnv();

describe('signals and queries', () => {
  it('buffers signals and defers a query that arrive while a workflow task runs', async () => {
    const handle = await startWorkflow(env, busyCounter, { workflowId: 'busy-1', args: [3_000_000] });
    await untilWorkflowTaskStarted(handle);
    await handle.signal(addSignal, 1);
    await handle.signal(addSignal, 2);
    const total = await handle.query(totalQuery); // deferred until the running task ends
    expect(total).toBe(3);
    await handle.signal(finishSignal);
    expect(await handle.result()).toBe(3);
    expectEventTypes(await fetchAndReplay(env, handle), [
      ...FIRST_TASK,
      'WorkflowExecutionSignaled',
      'WorkflowExecutionSignaled',
      ...WORKFLOW_TASK,
      'WorkflowExecutionSignaled',
      ...WORKFLOW_TASK,
      'WorkflowExecutionCompleted',
    ]);
  });

  it('rejects a completion that would drop a signal (UnhandledCommand) and completes after seeing it', async () => {
    const handle = await startWorkflow(env, busySum, { workflowId: 'unhandled-1', args: [3_000_000] });
    await untilWorkflowTaskStarted(handle);
    await handle.signal(addSignal, 5);
    expect(await handle.result()).toBe(5);
    const history = await fetchAndReplay(env, handle);
    expectEventTypes(history, [
      'WorkflowExecutionStarted',
      'WorkflowTaskScheduled',
      'WorkflowTaskStarted',
      'WorkflowTaskFailed',
      'WorkflowExecutionSignaled',
      ...WORKFLOW_TASK,
      'WorkflowExecutionCompleted',
    ]);
    const failed = eventsOfType(history, 'WorkflowTaskFailed')[0]!.workflowTaskFailedEventAttributes!;
    expect(failed.cause).toBe(1 /* UNHANDLED_COMMAND */);
  });

  it('answers many concurrent queries of one idle workflow, one legacy query task at a time', async () => {
    const handle = await startWorkflow(env, counter, { workflowId: 'idle-many' });
    await handle.signal(addSignal, 3);
    await untilIdleAfter(handle, 'WorkflowExecutionSignaled');
    // each query is given its own deadline: a stalled one fails instead of waiting 10 s for a retry
    const answers = await env.client.withDeadline(Date.now() + 5000, () =>
      Promise.all(Array.from({ length: 8 }, () => handle.query(totalQuery))),
    );
    expect(answers).toEqual(Array(8).fill(3));
    await handle.signal(finishSignal);
    await handle.result();
  });

  it('answers legacy queries on an idle and on a closed workflow', async () => {
    const handle = await startWorkflow(env, counter, { workflowId: 'idle-1' });
    await handle.signal(addSignal, 5);
    await untilIdleAfter(handle, 'WorkflowExecutionSignaled');
    expect(await handle.query(totalQuery)).toBe(5);
    await handle.signal(finishSignal);
    expect(await handle.result()).toBe(5);
    expect(await handle.query(totalQuery)).toBe(5);
    await fetchAndReplay(env, handle);
  });

  it('starts with a signal, and signals a running workflow with signal-with-start', async () => {
    const workflowId = 'sws-1';
    const signalWithStart = (n: number) =>
      env.client.workflow.signalWithStart(counter, {
        taskQueue: env.taskQueue,
        workflowId,
        signal: addSignal,
        signalArgs: [n],
      });
    const first = await signalWithStart(7);
    const second = await signalWithStart(3);
    expect(second.signaledRunId).toBe(first.signaledRunId);
    await first.signal(finishSignal);
    expect(await first.result()).toBe(10);
    const history = await fetchAndReplay(env, first);
    expect(eventTypes(history).slice(0, 3)).toEqual([
      'WorkflowExecutionStarted',
      'WorkflowExecutionSignaled',
      'WorkflowTaskScheduled',
    ]);
  });
});

describe('updates', () => {
  it('rejects an update in its validator without an event and records an accepted one', async () => {
    const handle = await startWorkflow(env, counter, { workflowId: 'update-1' });
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
    const types = eventTypes(await fetchAndReplay(env, handle));
    expect(types.filter((t) => t === 'WorkflowExecutionUpdateAccepted')).toHaveLength(2);
    expect(types.filter((t) => t === 'WorkflowExecutionUpdateCompleted')).toHaveLength(2);
    expect(types.slice(0, 5)).toEqual([...FIRST_TASK, 'WorkflowTaskScheduled']);
  });

  it('writes nothing for a task that only rejected an update (a speculative task), and carries on after it', async () => {
    const handle = await startWorkflow(env, counter, { workflowId: 'update-speculative' });
    expect(await handle.query(totalQuery)).toBe(0);
    const before = eventTypes(await handle.fetchHistory());
    await expect(handle.executeUpdate(setLimit, { args: [-1] })).rejects.toBeInstanceOf(WorkflowUpdateFailedError);
    await expect(handle.executeUpdate(setLimit, { args: [-2] })).rejects.toBeInstanceOf(WorkflowUpdateFailedError);
    expect(eventTypes(await handle.fetchHistory())).toEqual(before);
    await handle.signal(addSignal, 5);
    expect(await handle.executeUpdate(setLimit, { args: [7] })).toBe(100);
    await handle.signal(finishSignal);
    expect(await handle.result()).toBe(5);
    const types = eventTypes(await fetchAndReplay(env, handle));
    expect(types).not.toContain('WorkflowTaskFailed');
    expect(types.filter((t) => t === 'WorkflowExecutionUpdateAccepted')).toHaveLength(1);
  });

  it('starts a workflow and updates it in one call (update-with-start)', async () => {
    const startWorkflowOperation = new WithStartWorkflowOperation(counter, {
      taskQueue: env.taskQueue,
      workflowId: 'uws-1',
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    expect(await env.client.workflow.executeUpdateWithStart(setLimit, { args: [9], startWorkflowOperation })).toBe(100);
    const handle = await startWorkflowOperation.workflowHandle();
    await handle.signal(addSignal, 20);
    await handle.signal(finishSignal);
    expect(await handle.result()).toBe(9);
    expect(eventTypes(await fetchAndReplay(env, handle))).toContain('WorkflowExecutionUpdateCompleted');
  });
});
