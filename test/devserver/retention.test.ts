/**
 * Retention on the embedded server: a closed workflow is deleted once the namespace's
 * retention has passed (here one second), a running one is kept, and the id is free again.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { hello, sleeper } from './fixtures/workflows.ts';
import { startWorkflow, useTestEnv } from './helpers.ts';

const env = useTestEnv({ server: { retentionDays: 1 / 86_400 } });

describe('retention', () => {
  it('deletes a closed workflow after the retention, keeps a running one, and frees the id', async () => {
    const done = await startWorkflow(env, hello, { workflowId: 'kept-briefly', args: ['ana'] });
    await done.result();
    const running = await startWorkflow(env, sleeper, { workflowId: 'still-running', args: [60_000] });
    let gone = false;
    for (let i = 0; i < 100 && !gone; i++) {
      await new Promise((r) => setTimeout(r, 200));
      gone = await done.describe().then(
        () => false,
        (e: unknown) => e instanceof WorkflowNotFoundError,
      );
    }
    expect(gone).toBe(true);
    expect((await running.describe()).status.name).toBe('RUNNING');
    const again = await startWorkflow(env, hello, { workflowId: 'kept-briefly', args: ['bo'] });
    expect(await again.result()).toMatch(/bo/);
    await running.terminate('test done');
  }, 60_000);
});
