/** Workflow-task level behaviour: local activities (markers), timer cancel, task failures, run timeouts. */
import { WorkflowFailedError } from '@temporalio/client';
import { TimeoutFailure } from '@temporalio/common';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../../src/devserver/testing.ts';
import * as activities from './fixtures/activities.ts';
import { addSignal, broken, counter, finishBefore, finishSignal, localHello, totalQuery, waitsForever } from './fixtures/workflows.ts';
import { randomUUID } from 'node:crypto';
import { eventsOfType, eventTypes, untilDescribed } from './helpers.ts';

const workflowsPath = fileURLToPath(new URL('./fixtures/workflows.ts', import.meta.url));
let env: TestEnv;

beforeAll(async () => {
  env = await createTestEnv({ workflowsPath, activities });
});
afterAll(async () => {
  await env?.shutdown();
});

describe('workflow tasks', () => {
  it('records a local activity as a marker', async () => {
    const workflowId = 'local-1';
    const handle = await env.client.workflow.start(localHello, { taskQueue: env.taskQueue, workflowId, args: ['local'] });
    expect(await handle.result()).toBe('Hello, local!');
    const history = await handle.fetchHistory();
    expect(eventTypes(history)).toContain('MarkerRecorded');
    expect(eventTypes(history).at(-1)).toBe('WorkflowExecutionCompleted');
    await env.replay([{ workflowId, history }]);
  });

  it('cancels a timer when the signal wins the race', async () => {
    const workflowId = 'timer-cancel-1';
    const handle = await env.client.workflow.start(finishBefore, { taskQueue: env.taskQueue, workflowId, args: [60_000] });
    await untilDescribed(handle, (d) => d.historyLength >= 5);
    await handle.signal(finishSignal);
    expect(await handle.result()).toBe(true);
    const history = await handle.fetchHistory();
    expect(eventTypes(history)).toEqual([
      'WorkflowExecutionStarted',
      'WorkflowTaskScheduled',
      'WorkflowTaskStarted',
      'WorkflowTaskCompleted',
      'TimerStarted',
      'WorkflowExecutionSignaled',
      'WorkflowTaskScheduled',
      'WorkflowTaskStarted',
      'WorkflowTaskCompleted',
      'TimerCanceled',
      'WorkflowExecutionCompleted',
    ]);
    await env.replay([{ workflowId, history }]);
  });

  it('records one WorkflowTaskFailed for a failing task and keeps later attempts out of history', async () => {
    const workflowId = 'broken-1';
    const handle = await env.client.workflow.start(broken, { taskQueue: env.taskQueue, workflowId, workflowTaskTimeout: '1s' });
    const described = await untilDescribed(handle, (d) => (d.raw.pendingWorkflowTask?.attempt ?? 0) >= 3);
    expect(described.raw.pendingWorkflowTask?.attempt).toBeGreaterThanOrEqual(3);
    const history = await handle.fetchHistory();
    expect(eventTypes(history)).toEqual(['WorkflowExecutionStarted', 'WorkflowTaskScheduled', 'WorkflowTaskStarted', 'WorkflowTaskFailed']);
    const failed = eventsOfType(history, 'WorkflowTaskFailed')[0]!.workflowTaskFailedEventAttributes!;
    expect(failed.failure?.message).toBe('bug in workflow code');
    await handle.terminate('cannot be fixed here');
  });

  it('times out a run after its run timeout', async () => {
    const workflowId = 'run-timeout-1';
    const handle = await env.client.workflow.start(waitsForever, { taskQueue: env.taskQueue, workflowId, workflowRunTimeout: '500ms' });
    const err = await handle.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(TimeoutFailure);
    const history = await handle.fetchHistory();
    expect(eventTypes(history).at(-1)).toBe('WorkflowExecutionTimedOut');
    await env.replay([{ workflowId, history }]);
  });

  it("hands a shut-down worker's sticky work to the next worker without a timeout", async () => {
    const taskQueue = `handoff-${randomUUID()}`;
    const workflowId = 'handoff-1';
    const first = await env.createWorker({ taskQueue });
    const handle = await first.runUntil(async () => {
      const h = await env.client.workflow.start(counter, { taskQueue, workflowId });
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
    const history = await handle.fetchHistory();
    expect(eventTypes(history)).not.toContain('WorkflowTaskTimedOut');
    await env.replay([{ workflowId, history }]);
  });
});
