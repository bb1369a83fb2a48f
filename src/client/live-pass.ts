/**
 * Reading a running mission's pass live (issue 41): the `runPass` activity's last
 * heartbeat details (src/kernel/live-pass.ts) and the activities Temporal is retrying,
 * from DescribeWorkflowExecution's pending activities. One describe, no query: it needs no
 * worker to answer, and it never touches the mission's history.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { type LivePass, livePassOf } from '../kernel/live-pass.ts';
import { firstValue } from './decode.ts';

export type { LiveCall, LivePass } from '../kernel/live-pass.ts';

/** An activity Temporal is retrying: its attempt now and why the last one failed. */
export interface Retry {
  attempt: number;
  why: string;
}

/** What runs now: the pass (its heartbeat details), and the retried activities by id (`runPass` for the pass). */
export interface ActivitiesNow {
  live: LivePass | null;
  retries: Map<string, Retry>;
}

export async function activitiesNow(handle: WorkflowHandle): Promise<ActivitiesNow> {
  const pending = (await handle.describe()).raw.pendingActivities ?? [];
  const retries = new Map<string, Retry>();
  for (const a of pending) {
    const why = a.lastFailure?.message;
    if (!why || (a.attempt ?? 1) < 2) continue;
    retries.set(a.activityType?.name === 'runPass' ? 'runPass' : (a.activityId ?? ''), {
      attempt: a.attempt!,
      why: why.split('\n')[0]!,
    });
  }
  const payloads = pending.find((a) => a.activityType?.name === 'runPass')?.heartbeatDetails?.payloads;
  if (!payloads?.length) return { live: null, retries };
  return { live: livePassOf(await firstValue(handle.client.options.loadedDataConverter, payloads)), retries };
}

/** The running pass of a mission, or null when none runs (or it has not heartbeated yet). */
export async function livePass(handle: WorkflowHandle): Promise<LivePass | null> {
  return (await activitiesNow(handle)).live;
}
