/**
 * Dev server figures, with the real SDK worker and client in this process:
 *  - median latency of a warm one-activity workflow (start → result);
 *  - workflows per second with 100 concurrent starts of the same workflow.
 * Both share the process (and the 2 cores) with the worker's sdk-core threads and
 * workflow sandbox, which is what bounds them; the server itself is a small share.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createTestEnv } from '../src/devserver/testing.ts';
import * as activities from '../test/devserver/fixtures/activities.ts';
import { hello } from '../test/devserver/fixtures/workflows.ts';
import { type BenchRow, medianMs } from './types.ts';

const workflowsPath = fileURLToPath(new URL('../test/devserver/fixtures/workflows.ts', import.meta.url));
const CONCURRENT = 100;

export async function benchDevServer(): Promise<BenchRow[]> {
  const env = await createTestEnv({ workflowsPath, activities, worker: { maxCachedWorkflows: 1000 } });
  try {
    const runOne = () => env.client.workflow.execute(hello, { taskQueue: env.taskQueue, workflowId: randomUUID(), args: ['bench'] });
    const latency = await medianMs(runOne, 30, 5);
    const burst = () => Promise.all(Array.from({ length: CONCURRENT }, () => runOne()));
    const burstMs = await medianMs(burst, 3, 1);
    const perSecond = (CONCURRENT / burstMs) * 1000;
    return [
      { name: 'warm one-activity workflow, start → result', median_ms: latency, note: 'target < 40 ms' },
      {
        name: `${CONCURRENT} concurrent one-activity workflows`,
        median_ms: burstMs,
        note: `${perSecond.toFixed(0)} workflows/s (target > 100/s); worker, client and server share one process`,
      },
    ];
  } finally {
    await env.shutdown();
  }
}
