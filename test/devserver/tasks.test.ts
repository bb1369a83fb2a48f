/** Workflow-task level behaviour: local activities (markers), timer cancel, task failures, run timeouts. */
import { TimeoutFailure } from '@temporalio/common';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  addSignal,
  broken,
  counter,
  finishBefore,
  finishSignal,
  localHello,
  totalQuery,
  waitsForever,
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

describe('workflow tasks', () => {
  it('records a local activity as a marker', async () => {
    const handle = await startWorkflow(env, localHello, { workflowId: 'local-1', args: ['local'] });
    expect(await handle.result()).toBe('Hello, local!');
    const types = eventTypes(await fetchAndReplay(env, handle));
    expect(types).toContain('MarkerRecorded');
    expect(types.at(-1)).toBe('WorkflowExecutionCompleted');
  });

  it('cancels a timer when the signal wins the race', async () => {
    const handle = await startWorkflow(env, finishBefore, { workflowId: 'timer-cancel-1', args: [60_000] });
    await untilDescribed(handle, (d) => d.historyLength >= 5);
    await handle.signal(finishSignal);
    expect(await handle.result()).toBe(true);
    expectEventTypes(await fetchAndReplay(env, handle), [
      ...FIRST_TASK,
      'TimerStarted',
      'WorkflowExecutionSignaled',
      ...WORKFLOW_TASK,
      'TimerCanceled',
      'WorkflowExecutionCompleted',
    ]);
  });

  it('records one WorkflowTaskFailed for a failing task and keeps later attempts out of history', async () => {
    const handle = await startWorkflow(env, broken, { workflowId: 'broken-1', workflowTaskTimeout: '1s' });
    const described = await untilDescribed(handle, (d) => (d.raw.pendingWorkflowTask?.attempt ?? 0) >= 3);
    expect(described.raw.pendingWorkflowTask?.attempt).toBeGreaterThanOrEqual(3);
    const history = await handle.fetchHistory();
    expectEventTypes(history, [
      'WorkflowExecutionStarted',
      'WorkflowTaskScheduled',
      'WorkflowTaskStarted',
      'WorkflowTaskFailed',
    ]);
    const failed = eventsOfType(history, 'WorkflowTaskFailed')[0]!.workflowTaskFailedEventAttributes!;
    expect(failed.failure?.message).toBe('bug in workflow code');
    await handle.terminate('cannot be fixed here');
  });

  it('times out a run after its run timeout', async () => {
    const handle = await startWorkflow(env, waitsForever, { workflowId: 'run-timeout-1', workflowRunTimeout: '500ms' });
    expect(await failureCause(handle)).toBeInstanceOf(TimeoutFailure);
    expect(eventTypes(await fetchAndReplay(env, handle)).at(-1)).toBe('WorkflowExecutionTimedOut');
  });

  it("hands a shut-down worker's sticky work to the next worker without a timeout", async () => {
    const taskQueue = `handoff-${randomUUID()}`;
    const first = await env.createWorker({ taskQueue });
    const handle = await first.runUntil(async () => {
      const h = await startWorkflow(env, counter, { taskQueue, workflowId: 'handoff-1' });
      await h.signal(addSignal, 1);
      expect(await h.query(totalQuery)).toBe(1);
      return h;
    });
    const second = await env.createWorker({ taskQueue });
    const result = await second.runUntil(async () => {
      await handle.signal(addSignal, 2);
      expect(await handle.query(totalQuery)).toBe(3);
      await handle.signal(finishSignal);
      return handle.result();
    });
    expect(result).toBe(3);
    expect(eventTypes(await fetchAndReplay(env, handle))).not.toContain('WorkflowTaskTimedOut');
  });
});
