/** `--db FILE`: a server restarted mid-run continues open workflows, timers included. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DevServer, startDevServer } from '../../src/devserver/index.ts';
import { createTestEnv, type TestEnv } from '../../src/devserver/testing.ts';
import * as activities from './fixtures/activities.ts';
import { addSignal, counter, finishSignal, napThenGreet, totalQuery } from './fixtures/workflows.ts';
import { eventTypes, untilDescribed } from './helpers.ts';

const workflowsPath = fileURLToPath(new URL('./fixtures/workflows.ts', import.meta.url));
const db = join(mkdtempSync(join(tmpdir(), 'devserver-db-')), 'state.json');
let env: TestEnv;
let restarted: DevServer | undefined;

beforeAll(async () => {
  env = await createTestEnv({ workflowsPath, activities, server: { db } });
});
afterAll(async () => {
  await env?.shutdown();
  await restarted?.shutdown();
});

describe('--db durability', () => {
  it('continues open workflows after a restart on the same file, timers included', async () => {
    const timerWorkflowId = 'durable-timer-1';
    const timed = await env.client.workflow.start(napThenGreet, {
      taskQueue: env.taskQueue,
      workflowId: timerWorkflowId,
      args: ['again', 1500],
    });
    const waiting = await env.client.workflow.start(counter, { taskQueue: env.taskQueue, workflowId: 'durable-counter-1' });
    await waiting.signal(addSignal, 2);
    await untilDescribed(timed, (d) => d.historyLength >= 5); // TimerStarted written
    await untilDescribed(waiting, (d) => d.historyLength >= 8 && d.raw.pendingWorkflowTask == null);

    const port = Number(env.server.address.split(':')[1]);
    await env.server.shutdown();
    restarted = await startDevServer({ port, db });

    // The same worker and client reconnect to the restarted server.
    expect(await timed.result()).toBe('Hello, again!');
    expect(await waiting.query(totalQuery)).toBe(2);
    await waiting.signal(addSignal, 3);
    await waiting.signal(finishSignal);
    expect(await waiting.result()).toBe(5);

    const history = await timed.fetchHistory();
    expect(eventTypes(history)).toEqual([
      'WorkflowExecutionStarted',
      'WorkflowTaskScheduled',
      'WorkflowTaskStarted',
      'WorkflowTaskCompleted',
      'TimerStarted',
      'TimerFired',
      'WorkflowTaskScheduled',
      'WorkflowTaskStarted',
      'WorkflowTaskCompleted',
      'ActivityTaskScheduled',
      'ActivityTaskStarted',
      'ActivityTaskCompleted',
      'WorkflowTaskScheduled',
      'WorkflowTaskStarted',
      'WorkflowTaskCompleted',
      'WorkflowExecutionCompleted',
    ]);
    await env.replay([
      { workflowId: timerWorkflowId, history },
      { workflowId: 'durable-counter-1', history: await waiting.fetchHistory() },
    ]);
  });
});
