import { describe, expect, it } from 'vitest';
import { hello } from './fixtures/workflows.ts';
import {
  ACTIVITY,
  expectEventTypes,
  fetchAndReplay,
  FIRST_TASK,
  startWorkflow,
  useTestEnv,
  WORKFLOW_TASK,
} from './helpers.ts';

const env = useTestEnv();

describe('hello world', () => {
  it('runs a one-activity workflow and its history replays', async () => {
    const handle = await startWorkflow(env, hello, { workflowId: 'hello-1', args: ['Temporal'] });
    expect(await handle.result()).toBe('Hello, Temporal!');
    expectEventTypes(await fetchAndReplay(env, handle), [
      ...FIRST_TASK,
      ...ACTIVITY,
      ...WORKFLOW_TASK,
      'WorkflowExecutionCompleted',
    ]);
  });
});
