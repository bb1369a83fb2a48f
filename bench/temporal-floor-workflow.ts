/**
 * Temporal's own floor for `npm run bench -- temporal`: a bare workflow (no Navigator code,
 * no interceptors) that runs one no-op activity after another. What its activities and
 * workflow tasks cost is what any Temporal application pays on the same server and worker.
 */
import * as wf from '@temporalio/workflow';

const { noop } = wf.proxyActivities<{ noop(): Promise<void> }>({ startToCloseTimeout: '1 minute' });

export async function benchFloor(activities: number): Promise<void> {
  for (let i = 0; i < activities; i++) await noop();
}
