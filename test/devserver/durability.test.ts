/** `--db FILE`: a server restarted mid-run continues open workflows, timers included. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/devserver/index.ts';
import { startTestServer } from '../../src/devserver/testing.ts';
import { addSignal, counter, finishSignal, napThenGreet, totalQuery } from './fixtures/workflows.ts';
import {
  ACTIVITY,
  expectEventTypes,
  fetchAndReplayAll,
  FIRST_TASK,
  startWorkflow,
  untilDescribed,
  untilIdleAfter,
  useTestEnv,
  WORKFLOW_TASK,
} from './helpers.ts';

const db = join(mkdtempSync(join(tmpdir(), 'devserver-db-')), 'state.json');
let restarted: DevServer | undefined;
// Registered before the env's own hooks: after-all hooks run last-registered first, so the
// env (and its worker) shuts down before the restarted server does.
afterAll(async () => {
  await restarted?.shutdown();
});
const env = useTestEnv({ server: { db } });

describe('--db durability', () => {
  it('continues open workflows after a restart on the same file, timers included', async () => {
    const timed = await startWorkflow(env, napThenGreet, { workflowId: 'durable-timer-1', args: ['again', 1500] });
    const waiting = await startWorkflow(env, counter, { workflowId: 'durable-counter-1' });
    await waiting.signal(addSignal, 2);
    await untilDescribed(timed, (d) => d.historyLength >= 5); // TimerStarted written
    await untilIdleAfter(waiting, 'WorkflowExecutionSignaled');

    const port = Number(env.server.address.split(':')[1]);
    await env.server.shutdown();
    restarted = await startTestServer({ port, db });

    // The same worker and client reconnect to the restarted server.
    expect(await timed.result()).toBe('Hello, again!');
    expect(await waiting.query(totalQuery)).toBe(2);
    await waiting.signal(addSignal, 3);
    await waiting.signal(finishSignal);
    expect(await waiting.result()).toBe(5);

    const [history] = await fetchAndReplayAll(env, [timed, waiting]);
    expectEventTypes(history!, [
      ...FIRST_TASK,
      'TimerStarted',
      'TimerFired',
      ...WORKFLOW_TASK,
      ...ACTIVITY,
      ...WORKFLOW_TASK,
      'WorkflowExecutionCompleted',
    ]);
  });
});
