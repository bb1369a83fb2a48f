/** Set-up and assertion helpers for the dev server suite. */
import { WorkflowFailedError, type WorkflowExecutionDescription, type WorkflowOptions } from '@temporalio/client';
import type { WithWorkflowArgs, Workflow } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, expect } from 'vitest';
import { createTestEnv, type TestEnv, type TestEnvOptions } from '../../src/devserver/testing.ts';
import * as activities from './fixtures/activities.ts';

type History = temporal.api.history.v1.IHistory;

export const workflowsPath = fileURLToPath(new URL('./fixtures/workflows.ts', import.meta.url));

/**
 * The calling file's test env on the fixture workflows and activities: created in beforeAll,
 * shut down in afterAll. The returned object stands for it from beforeAll on.
 */
export function useTestEnv(options: Omit<TestEnvOptions, 'workflowsPath' | 'activities'> = {}): TestEnv {
  let env: TestEnv | undefined;
  beforeAll(async () => {
    env = await createTestEnv({ workflowsPath, activities, ...options });
  });
  afterAll(async () => {
    await env?.shutdown();
  });
  return new Proxy({} as TestEnv, {
    get(_, key) {
      if (!env) throw new Error('the test env is created in beforeAll');
      return Reflect.get(env, key);
    },
  });
}

/** Starts a workflow, on the env's task queue unless the options name another. */
export function startWorkflow<T extends Workflow>(
  env: TestEnv,
  workflow: T,
  options: WithWorkflowArgs<T, Omit<WorkflowOptions, 'taskQueue'> & { taskQueue?: string }>,
) {
  return env.client.workflow.start(workflow, { taskQueue: env.taskQueue, ...options } as Parameters<
    typeof env.client.workflow.start<T>
  >[1]);
}

interface RunHandle {
  workflowId: string;
  fetchHistory(): Promise<History>;
}

/** Fetches the runs' histories and replays them together with the bundle (throws on nondeterminism). */
export async function fetchAndReplayAll(env: TestEnv, handles: RunHandle[]): Promise<History[]> {
  const histories = await Promise.all(handles.map((h) => h.fetchHistory()));
  await env.replay(histories.map((history, i) => ({ workflowId: handles[i]!.workflowId, history })));
  return histories;
}

/** Fetches the run's history, replays it with the bundle and returns it. */
export async function fetchAndReplay(env: TestEnv, handle: RunHandle): Promise<History> {
  const [history] = await fetchAndReplayAll(env, [handle]);
  return history!;
}

/** Awaits the run's result, checks that the run failed and returns the failure's cause. */
export async function failureCause(handle: { result(): Promise<unknown> }): Promise<Error | undefined> {
  const err = await handle.result().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  return (err as WorkflowFailedError).cause;
}

/** A workflow task that completes. */
export const WORKFLOW_TASK = ['WorkflowTaskScheduled', 'WorkflowTaskStarted', 'WorkflowTaskCompleted'];
/** A run's start and its first workflow task. */
export const FIRST_TASK = ['WorkflowExecutionStarted', ...WORKFLOW_TASK];
/** An activity that completes on its attempt. */
export const ACTIVITY = ['ActivityTaskScheduled', 'ActivityTaskStarted', 'ActivityTaskCompleted'];

/** Event types of a history without the EVENT_TYPE_ prefix, in PascalCase. */
export function eventTypes(history: History): string[] {
  return (history.events ?? []).map((e) => {
    const name = temporal.api.enums.v1.EventType[e.eventType!] as string;
    return name
      .replace('EVENT_TYPE_', '')
      .toLowerCase()
      .replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase());
  });
}

/** Checks that the history's event types are exactly `expected`, in order. */
export function expectEventTypes(history: History, expected: string[]): void {
  expect(eventTypes(history)).toEqual(expected);
}

export function eventsOfType(history: History, type: string): temporal.api.history.v1.IHistoryEvent[] {
  const types = eventTypes(history);
  return (history.events ?? []).filter((_, i) => types[i] === type);
}

/** Polls describe() until `ready` holds (no time bound: the test timeout is the bound). */
export async function untilDescribed(
  handle: { describe(): Promise<WorkflowExecutionDescription> },
  ready: (d: WorkflowExecutionDescription) => boolean,
): Promise<WorkflowExecutionDescription> {
  for (;;) {
    const d = await handle.describe();
    if (ready(d)) return d;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Polls `read` until its value deep-equals `expected`, and returns the last value for the
 * test to assert: for what a real server answers eventually, e.g. list and count (its
 * visibility store is updated after the change). No time bound: the test timeout is the bound.
 */
export async function untilEqual<T>(read: () => Promise<T>, expected: T): Promise<T> {
  for (;;) {
    const value = await read();
    if (isDeepStrictEqual(value, expected)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Waits until the run is idle with `eventType` handled: the event is in its history and the
 * history ends with a completed workflow task (nothing new since, no task pending). Not a
 * count of events: a signal sent right after the start lands before the first task on a
 * real server now and then, and that one task handles it (5 events instead of 8).
 */
export async function untilIdleAfter(
  handle: { fetchHistory(): Promise<History> },
  eventType: string,
): Promise<History> {
  for (;;) {
    const history = await handle.fetchHistory();
    const types = eventTypes(history);
    if (types.includes(eventType) && types.at(-1) === 'WorkflowTaskCompleted') return history;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits until a worker has started the run's workflow task. */
export function untilWorkflowTaskStarted(handle: {
  describe(): Promise<WorkflowExecutionDescription>;
}): Promise<WorkflowExecutionDescription> {
  return untilDescribed(handle, (d) => d.raw.pendingWorkflowTask?.state === 2 /* STARTED */);
}
