/**
 * Child workflows on the embedded server with the real SDK: results, failures,
 * cancellation, parent-close policies, duplicate ids and external signals. Every parent
 * and child history replays with the same bundle.
 */
import { fileURLToPath } from 'node:url';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../../src/devserver/testing.ts';
import * as wf from './fixtures/child-workflows.ts';
import { fetchAndReplayAll } from './helpers.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({
    workflowsPath: fileURLToPath(new URL('./fixtures/child-workflows.ts', import.meta.url)),
  });
});
afterAll(async () => env?.shutdown());

let seq = 0;
const id = (what: string) => `${what}-${process.pid}-${++seq}`;
const start = <A extends unknown[]>(fn: (...args: A) => Promise<unknown>, args: A, workflowId = id(fn.name)) =>
  env.client.workflow.start(fn as never, { taskQueue: env.taskQueue, workflowId, args } as never);

const eventTypes = (h: { events?: Array<{ eventType?: unknown }> | null }) =>
  (h.events ?? []).map((e) => temporal.api.enums.v1.EventType[e.eventType as number] ?? String(e.eventType));

describe('child workflows', () => {
  it('returns the child result to the parent; the child knows its parent; both replay', async () => {
    const parent = await start(wf.parentOf, [21]);
    expect(await parent.result()).toEqual({ doubled: 42, parent: parent.workflowId });
    const childHandle = env.client.workflow.getHandle(`${parent.workflowId}-child`);
    const described = await childHandle.describe();
    expect(described.parentExecution?.workflowId).toBe(parent.workflowId);
    const [parentHistory, childHistory] = await fetchAndReplayAll(env, [parent, childHandle]);
    const names = eventTypes(parentHistory!);
    expect(names.indexOf('EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED')).toBeGreaterThan(0);
    expect(names.indexOf('EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED')).toBeGreaterThan(
      names.indexOf('EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED'),
    );
    expect(names).toContain('EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED');
    const started = childHistory!.events![0]!.workflowExecutionStartedEventAttributes!;
    expect(started.parentWorkflowExecution?.workflowId).toBe(parent.workflowId);
    expect(Number(started.parentInitiatedEventId)).toBeGreaterThan(0);
  });

  it('surfaces a child failure in the parent as ChildWorkflowFailure with the cause', async () => {
    const parent = await start(wf.parentCatching, [-1]);
    expect(await parent.result()).toBe('ChildWorkflowFailure: negative: -1');
    const [history] = await fetchAndReplayAll(env, [parent]);
    expect(eventTypes(history!)).toContain('EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED');
  });

  it('cancels a child from the parent: the child ends cancelled and the parent sees it', async () => {
    const parent = await start(wf.parentCancelling, []);
    expect(await parent.result()).toBe('child result: cancelled');
    const childHandle = env.client.workflow.getHandle(`${parent.workflowId}-child`);
    const [history] = await fetchAndReplayAll(env, [parent, childHandle]);
    expect(eventTypes(history!)).toEqual(
      expect.arrayContaining([
        'EVENT_TYPE_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED',
        'EVENT_TYPE_EXTERNAL_WORKFLOW_EXECUTION_CANCEL_REQUESTED',
      ]),
    );
  });

  it.each([
    ['TERMINATE', 'TERMINATED'],
    ['REQUEST_CANCEL', 'COMPLETED'],
    ['ABANDON', 'RUNNING'],
  ] as const)('applies parent-close policy %s when the parent ends', async (policy, childStatus) => {
    const parent = await start(wf.parentLeaving, [policy]);
    const childId = (await parent.result()) as string;
    const childHandle = env.client.workflow.getHandle(childId);
    if (childStatus === 'COMPLETED') expect(await childHandle.result()).toBe('cancelled');
    // a real server applies the policy after the parent has closed: wait for it to land
    const status = async () => (await childHandle.describe()).status.name;
    if (childStatus === 'TERMINATED') await expect.poll(status, { timeout: 30_000 }).toBe(childStatus);
    else expect(await status()).toBe(childStatus);
    if (childStatus === 'RUNNING') await childHandle.terminate('test cleanup');
    await fetchAndReplayAll(env, [parent]);
  });

  it('fails to start a child whose id already runs', async () => {
    const running = await start(wf.waitingChild, [], id('busy'));
    const parent = await start(wf.parentDuplicate, [running.workflowId]);
    expect(await parent.result()).toBe('WorkflowExecutionAlreadyStartedError');
    await running.signal(wf.releaseSignal);
    await fetchAndReplayAll(env, [parent]);
  });

  it('signals another workflow by id, and fails clearly for a missing one', async () => {
    const waiting = await start(wf.waitingChild, [], id('target'));
    const parent = await start(wf.parentSignalling, [waiting.workflowId]);
    expect(await parent.result()).toMatch(/^missing: /);
    expect(await waiting.result()).toBe('released');
    await fetchAndReplayAll(env, [parent]);
  });
});
