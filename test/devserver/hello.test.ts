import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { createTestEnv, type TestEnv } from '../../src/devserver/testing.ts';
import * as activities from './fixtures/activities.ts';
import { hello } from './fixtures/workflows.ts';
import { eventTypes } from './helpers.ts';

const workflowsPath = fileURLToPath(new URL('./fixtures/workflows.ts', import.meta.url));
let env: TestEnv;

beforeAll(async () => {
  env = await createTestEnv({ workflowsPath, activities });
});
afterAll(async () => {
  await env?.shutdown();
});

describe('hello world', () => {
  it('runs a one-activity workflow and its history replays', async () => {
    const handle = await env.client.workflow.start(hello, { taskQueue: env.taskQueue, workflowId: 'hello-1', args: ['Temporal'] });
    expect(await handle.result()).toBe('Hello, Temporal!');
    const history = await handle.fetchHistory();
    expect(eventTypes(history)).toEqual([
      'WorkflowExecutionStarted',
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
    await env.replay([{ workflowId: 'hello-1', history }]);
  });
});
