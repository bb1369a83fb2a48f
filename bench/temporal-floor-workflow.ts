/**
 * Temporal's own floor for `npm run bench -- temporal`: bare workflows (no Navigator code,
 * no interceptors). What their activities and workflow tasks cost is what any Temporal
 * application pays on the same server and worker.
 */
import * as wf from '@temporalio/workflow';

const { noop, work } = wf.proxyActivities<{ noop(): Promise<void>; work(ms: number): Promise<void> }>({
  startToCloseTimeout: '1 minute',
});

/** One no-op activity after another. */
export async function benchFloor(activities: number): Promise<void> {
  for (let i = 0; i < activities; i++) await noop();
}

/** N activities started at once from the first workflow task, each working `ms`: the floor of a plan's N ready steps. */
export async function benchFloorParallel(activities: number, ms: number): Promise<void> {
  await Promise.all(Array.from({ length: activities }, () => work(ms)));
}
