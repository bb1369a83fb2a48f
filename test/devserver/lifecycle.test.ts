/** Start policies, timers, terminate, continue-as-new, describe, memo and search attributes, list/count. */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { TerminatedFailure, TimeoutType } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type Long from 'long';
import { describe, expect, it } from 'vitest';
import { testServerKind } from '../../src/devserver/testing.ts';
import {
  chain,
  counter,
  failing,
  failsTwice,
  finishSignal,
  hello,
  sleeper,
  tagged,
  unpickedActivity,
  waitsForever,
  withNexusOperation,
} from './fixtures/workflows.ts';
import {
  eventsOfType,
  eventTypes,
  expectEventTypes,
  failureCause,
  fetchAndReplay,
  fetchAndReplayAll,
  FIRST_TASK,
  startWorkflow,
  untilDescribed,
  untilEqual,
  useTestEnv,
  WORKFLOW_TASK,
} from './helpers.ts';

const env = useTestEnv({ server: { searchAttributes: { CustomKeywordField: 'KeywordList', Team: 'Keyword' } } });

describe('workflow lifecycle', () => {
  it('fires a durable timer', async () => {
    const handle = await startWorkflow(env, sleeper, { workflowId: 'timer-1', args: [200] });
    expect(await handle.result()).toBe('woke');
    expectEventTypes(await fetchAndReplay(env, handle), [
      ...FIRST_TASK,
      'TimerStarted',
      'TimerFired',
      ...WORKFLOW_TASK,
      'WorkflowExecutionCompleted',
    ]);
  });

  it('dedups starts by request id and enforces the id conflict and reuse policies', async () => {
    const workflowId = 'policy-1';
    const opts = { taskQueue: env.taskQueue, workflowId };
    const first = await env.client.workflow.start(counter, opts);
    await expect(env.client.workflow.start(counter, opts)).rejects.toBeInstanceOf(WorkflowExecutionAlreadyStartedError);
    const existing = await env.client.workflow.start(counter, { ...opts, workflowIdConflictPolicy: 'USE_EXISTING' });
    expect(existing.firstExecutionRunId).toBe(first.firstExecutionRunId);
    await first.signal(finishSignal);
    await first.result();
    await expect(
      env.client.workflow.start(counter, { ...opts, workflowIdReusePolicy: 'REJECT_DUPLICATE' }),
    ).rejects.toBeInstanceOf(WorkflowExecutionAlreadyStartedError);
    const again = await env.client.workflow.start(counter, opts);
    expect(again.firstExecutionRunId).not.toBe(first.firstExecutionRunId);
    const replaced = await env.client.workflow.start(counter, {
      ...opts,
      workflowIdConflictPolicy: 'TERMINATE_EXISTING',
    });
    expect((await env.client.workflow.getHandle(workflowId, again.firstExecutionRunId).describe()).status.name).toBe(
      'TERMINATED',
    );
    await replaced.terminate('done');
  });

  it('terminates a running workflow', async () => {
    const handle = await startWorkflow(env, waitsForever, { workflowId: 'terminate-1' });
    await untilDescribed(handle, (d) => d.historyLength >= 4);
    await handle.terminate('enough');
    expect(await failureCause(handle)).toBeInstanceOf(TerminatedFailure);
    const history = await fetchAndReplay(env, handle);
    expectEventTypes(history, [...FIRST_TASK, 'WorkflowExecutionTerminated']);
    expect(
      eventsOfType(history, 'WorkflowExecutionTerminated')[0]!.workflowExecutionTerminatedEventAttributes!.reason,
    ).toBe('enough');
  });

  it('follows a continue-as-new chain in result()', async () => {
    const workflowId = 'chain-1';
    const handle = await startWorkflow(env, chain, { workflowId, args: [3, 0] });
    expect(await handle.result()).toBe(6);
    const latest = env.client.workflow.getHandle(workflowId);
    expect((await latest.describe()).runId).not.toBe(handle.firstExecutionRunId);
    const [firstHistory, lastHistory] = await fetchAndReplayAll(env, [
      env.client.workflow.getHandle(workflowId, handle.firstExecutionRunId),
      latest,
    ]);
    expect(eventTypes(firstHistory!).at(-1)).toBe('WorkflowExecutionContinuedAsNew');
    const started = lastHistory!.events![0]!.workflowExecutionStartedEventAttributes!;
    expect(started.firstExecutionRunId).toBe(handle.firstExecutionRunId);
    expect(started.continuedExecutionRunId).toBeTruthy();
  });

  it('fails a workflow with its application failure', async () => {
    const handle = await startWorkflow(env, failing, { workflowId: 'failing-1' });
    expect((await failureCause(handle))?.message).toBe('workflow gave up');
    expect(eventTypes(await fetchAndReplay(env, handle)).at(-1)).toBe('WorkflowExecutionFailed');
  });

  it('retries a failed workflow under its retry policy and result() follows the attempts', async () => {
    const workflowId = 'wf-retry-1';
    const handle = await startWorkflow(env, failsTwice, {
      workflowId,
      retry: { initialInterval: '50ms', maximumAttempts: 5 },
    });
    expect(await handle.result()).toBe(3);
    const [first, last] = await fetchAndReplayAll(env, [
      env.client.workflow.getHandle(workflowId, handle.firstExecutionRunId),
      env.client.workflow.getHandle(workflowId),
    ]);
    const failed = eventsOfType(first!, 'WorkflowExecutionFailed')[0]!.workflowExecutionFailedEventAttributes!;
    expect(failed.retryState).toBe(1 /* IN_PROGRESS */);
    expect(failed.newExecutionRunId).toBeTruthy();
    const started = last!.events![0]!.workflowExecutionStartedEventAttributes!;
    expect(started.attempt).toBe(3);
    expect(started.continuedFailure?.message).toBe('attempt 2 failed');
  });

  it('keeps memo, search attributes and user metadata, and upserts them from the workflow', async () => {
    const handle = await startWorkflow(env, tagged, {
      workflowId: 'tagged-1',
      memo: { note: 'initial', owner: 'me' },
      searchAttributes: { Team: ['core'] },
      staticSummary: 'a tagged run',
      staticDetails: 'details here',
    });
    expect(await handle.result()).toBe('ok');
    const described = await handle.describe();
    expect(described.memo).toEqual({ note: 'updated', owner: 'me' });
    expect(described.searchAttributes).toMatchObject({ Team: ['core'], CustomKeywordField: ['tagged'] });
    expect(await described.staticSummary()).toBe('a tagged run');
    expect(await described.staticDetails()).toBe('details here');
    const types = eventTypes(await fetchAndReplay(env, handle));
    expect(types).toContain('UpsertWorkflowSearchAttributes');
    expect(types).toContain('WorkflowPropertiesModified');
  });

  it('rejects a start with an undefined search attribute', async () => {
    const err = await startWorkflow(env, hello, {
      workflowId: 'bad-sa',
      args: ['x'],
      searchAttributes: { Nope: ['x'] },
    }).catch((e: Error) => e);
    expect(((err as Error).cause as Error).message).toMatch(
      /Namespace default has no mapping defined for search attribute Nope/,
    );
  });

  // The embedded server's own limit: it has no Nexus. A real server schedules the operation
  // (and fails the task for the endpoint that does not exist: BadScheduleNexusOperationAttributes).
  it.skipIf(testServerKind() === 'temporal')('fails the workflow task naming an unsupported command', async () => {
    const handle = await startWorkflow(env, withNexusOperation, { workflowId: 'nexus-1' });
    const history = await (async () => {
      for (;;) {
        const h = await handle.fetchHistory();
        if (eventTypes(h).includes('WorkflowTaskFailed')) return h;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const failed = eventsOfType(history, 'WorkflowTaskFailed')[0]!.workflowTaskFailedEventAttributes!;
    expect(failed.failure?.message).toMatch(/COMMAND_TYPE_SCHEDULE_NEXUS_OPERATION is not supported/);
    await handle.terminate();
  });

  it('times out an activity no worker picks up as SCHEDULE_TO_START (it defaults to schedule-to-close)', async () => {
    const handle = await startWorkflow(env, unpickedActivity, { workflowId: 'unpicked-1' });
    expect(await handle.result()).toBe(`timeout ${TimeoutType.SCHEDULE_TO_START}`);
    await fetchAndReplay(env, handle);
  });

  it('lists and counts workflows with the visibility query subset', async () => {
    // One after the other: concurrent starts may reach the server in either order.
    for (const id of ['list-a', 'list-b'])
      await env.client.workflow.execute(hello, { taskQueue: env.taskQueue, workflowId: id, args: [id] });
    const running = await startWorkflow(env, waitsForever, {
      workflowId: 'list-c',
      searchAttributes: { Team: ['list'] },
    });
    const ids = async (query: string) => {
      const out: string[] = [];
      for await (const wf of env.client.workflow.list({ query })) out.push(wf.workflowId);
      return out;
    };
    // Visibility is eventually consistent on a real server: a start or close shows in
    // list and count a little later, so each read is polled until it has caught up.
    // The default order (no ORDER BY): running first, then the most recently closed.
    const listed = ['list-c', 'list-b', 'list-a'];
    expect(await untilEqual(() => ids("WorkflowId STARTS_WITH 'list-'"), listed)).toEqual(listed);
    expect(
      await untilEqual(() => ids("WorkflowType = 'hello' AND WorkflowId STARTS_WITH 'list-'"), ['list-b', 'list-a']),
    ).toEqual(['list-b', 'list-a']);
    expect(await untilEqual(() => ids("Team = 'list' AND ExecutionStatus = 'Running'"), ['list-c'])).toEqual([
      'list-c',
    ]);
    expect(
      await untilEqual(async () => (await env.client.workflow.count("WorkflowId STARTS_WITH 'list-'")).count, 3),
    ).toBe(3);
    const err = await ids('Nope = 1').catch((e: Error) => e);
    expect(((err as Error).cause as Error).message).toMatch(/invalid query/);
    // Real dev servers (SQLite visibility) refuse ORDER BY, and so does the embedded one.
    const ordered = await ids("WorkflowId STARTS_WITH 'list-' ORDER BY StartTime ASC").catch((e: Error) => e);
    expect(((ordered as Error).cause as Error).message).toBe(
      "3 INVALID_ARGUMENT: invalid query: operation is not supported: 'order by' clause",
    );
    await running.terminate();
    expect(await untilEqual(() => ids("WorkflowId = 'list-c' AND ExecutionStatus = 'Terminated'"), ['list-c'])).toEqual(
      ['list-c'],
    );
  });

  it('works with TestWorkflowEnvironment.createFromExistingServer', async () => {
    const testEnv = await TestWorkflowEnvironment.createFromExistingServer({ address: env.server.address });
    try {
      const result = await testEnv.client.workflow.execute(hello, {
        taskQueue: env.taskQueue,
        workflowId: 'testenv-1',
        args: ['env'],
      });
      expect(result).toBe('Hello, env!');
    } finally {
      await testEnv.teardown();
    }
  });
});

describe('namespaces and search attributes', () => {
  it('registers, describes and lists namespaces', async () => {
    const service = env.connection.workflowService;
    // A real server has no default retention: a namespace is registered with one.
    await expect(service.registerNamespace({ namespace: 'other' })).rejects.toThrow(
      '3 INVALID_ARGUMENT: A valid retention period is not set on request.',
    );
    await service.registerNamespace({
      namespace: 'other',
      // protobufjs encodes a plain number for an int64 field
      workflowExecutionRetentionPeriod: { seconds: (3 * 86_400) as unknown as Long },
    });
    const described = await service.describeNamespace({ namespace: 'other' });
    expect(described.namespaceInfo?.name).toBe('other');
    expect(Number(described.config?.workflowExecutionRetentionTtl?.seconds)).toBe(3 * 86_400);
    const listed = await service.listNamespaces({});
    // a real server lists its own temporal-system namespace too
    expect(listed.namespaces?.map((n) => n.namespaceInfo?.name)).toEqual(expect.arrayContaining(['default', 'other']));
    await expect(service.describeNamespace({ namespace: 'missing' })).rejects.toThrow(/not found/);
  });

  it('adds and lists custom search attributes through the OperatorService', async () => {
    const operator = env.connection.operatorService;
    const { INDEXED_VALUE_TYPE_INT: INT, INDEXED_VALUE_TYPE_KEYWORD: KEYWORD } = temporal.api.enums.v1.IndexedValueType;
    await operator.addSearchAttributes({ namespace: 'default', searchAttributes: { Priority: INT } });
    const listed = await operator.listSearchAttributes({ namespace: 'default' });
    expect(listed.customAttributes).toMatchObject({ Priority: INT, Team: KEYWORD });
    expect(listed.systemAttributes?.WorkflowType).toBe(KEYWORD);
  });

  it('delays the first workflow task by the start delay', async () => {
    const handle = await startWorkflow(env, hello, { workflowId: 'delayed-1', args: ['later'], startDelay: '300ms' });
    expect(await handle.result()).toBe('Hello, later!');
    const history = await fetchAndReplay(env, handle);
    expect(history.events![0]!.workflowExecutionStartedEventAttributes!.firstWorkflowTaskBackoff?.nanos).toBe(
      300_000_000,
    );
  });
});

describe('history fetch', () => {
  it('pages through history and long-polls for new events', async () => {
    const workflowId = 'history-1';
    const handle = await startWorkflow(env, counter, { workflowId });
    await untilDescribed(handle, (d) => d.historyLength >= 4 && d.raw.pendingWorkflowTask == null);
    const service = env.connection.workflowService;
    const execution = { workflowId };
    const paged: number[] = [];
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await service.getWorkflowExecutionHistory({
        namespace: 'default',
        execution,
        maximumPageSize: 3,
        nextPageToken,
      });
      paged.push(...page.history!.events!.map((e) => Number(e.eventId)));
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken);
    expect(paged).toEqual([1, 2, 3, 4]);

    // Long poll from the end: answered when the signal's events arrive.
    const end = await service.getWorkflowExecutionHistory({
      namespace: 'default',
      execution,
      waitNewEvent: true,
      maximumPageSize: 100,
    });
    const waiting = service.getWorkflowExecutionHistory({
      namespace: 'default',
      execution,
      waitNewEvent: true,
      nextPageToken: end.nextPageToken,
    });
    await handle.signal(finishSignal);
    const next = await waiting;
    expect(eventTypes(next.history!)[0]).toBe('WorkflowExecutionSignaled');
    expect(await handle.result()).toBe(0);
  });
});
