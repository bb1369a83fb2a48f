/**
 * The capabilities the server advertises, against the decisions below and, for those
 * advertised true that the SDK can observe, against what the server does.
 *
 * On a real server (NAVIGATOR_TEST_SERVER=temporal) only the behaviour runs: the decisions,
 * the list of unimplemented RPCs and poll completion at worker shutdown are the embedded
 * server's own (a real 1.29 dev server advertises other flags, nexus and eager start among
 * them, implements those RPCs, and does not advertise workerPollCompleteOnShutdown).
 */
import { status } from '@grpc/grpc-js';
import { defaultPayloadConverter } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { root } from '../../src/devserver/proto.ts';
import { testServerKind } from '../../src/devserver/testing.ts';
import { startGrpcRecorder } from './fixtures/grpc-recorder.ts';
import { asyncHello, counter, finishSignal, hello, retrying, setLimit, tagged } from './fixtures/workflows.ts';
import { eventsOfType, failureCause, startWorkflow, untilDescribed, untilEqual, useTestEnv } from './helpers.ts';

const env = useTestEnv({ server: { searchAttributes: { CustomKeywordField: 'Keyword' } } });

/** GetSystemInfo's decisions (the behaviour behind supportsSchedules: schedules.test.ts). */
const SYSTEM: Record<string, boolean> = {
  signalAndQueryHeader: true,
  supportsSchedules: true,
  internalErrorDifferentiation: true,
  activityFailureIncludeHeartbeat: true,
  encodedFailureAttributes: true,
  buildIdBasedVersioning: true,
  upsertMemo: true,
  eagerWorkflowStart: false,
  sdkMetadata: true,
  countGroupByExecutionStatus: true,
  nexus: false,
  serverScaledDeployments: false,
  serverScaledProviderCloudRun: false,
};

/** DescribeNamespace's decisions. */
const NAMESPACE: Record<string, boolean> = {
  eagerWorkflowStart: false,
  syncUpdate: true,
  asyncUpdate: true,
  workerHeartbeats: false,
  reportedProblemsSearchAttribute: false,
  workflowPause: false,
  standaloneActivities: false,
  workerPollCompleteOnShutdown: true,
  pollerAutoscaling: false,
  workerCommands: false,
  standaloneNexusOperation: false,
  workflowUpdateCallbacks: false,
  pollerAutoscalingAutoEnroll: false,
  workflowTaskCompletionPagination: false,
  standaloneActivityStartDelay: false,
  standaloneActivityBatchOperations: false,
  standaloneActivityOperatorCommands: false,
};

/** The proto's capability flags, so a flag added by a newer SDK fails until decided. */
function flagsOf(typeName: string, except: string[] = []): string[] {
  return root
    .lookupType(typeName)
    .fieldsArray.map((f) => f.name)
    .filter((name) => !except.includes(name))
    .sort();
}

/** The advertised value of each flag, as the client decoded it. */
function advertised(capabilities: object | null | undefined, flags: string[]): Record<string, boolean> {
  return Object.fromEntries(flags.map((flag) => [flag, Boolean((capabilities as Record<string, unknown>)?.[flag])]));
}

const id = (prefix: string) => `${prefix}-${randomUUID()}`;

interface CallError extends Error {
  code?: number;
  details?: string;
}

/** The error a call that must fail rejects with. */
function rejection(call: Promise<unknown>): Promise<CallError> {
  return call.then(
    () => {
      throw new Error('the call succeeded');
    },
    (err: unknown) => err as CallError,
  );
}

const embeddedOnly = testServerKind() === 'temporal';

describe.skipIf(embeddedOnly)('advertised capabilities', () => {
  it('GetSystemInfo advertises exactly the decided system capabilities', async () => {
    const flags = flagsOf('temporal.api.workflowservice.v1.GetSystemInfoResponse.Capabilities');
    expect(Object.keys(SYSTEM).sort()).toEqual(flags);
    const { capabilities } = await env.connection.workflowService.getSystemInfo({});
    expect(advertised(capabilities, flags)).toEqual(SYSTEM);
  });

  it('DescribeNamespace advertises exactly the decided namespace capabilities', async () => {
    const flags = flagsOf('temporal.api.namespace.v1.NamespaceInfo.Capabilities');
    expect(Object.keys(NAMESPACE).sort()).toEqual(flags);
    const { namespaceInfo } = await env.connection.workflowService.describeNamespace({
      namespace: env.server.namespace,
    });
    expect(advertised(namespaceInfo?.capabilities, flags)).toEqual(NAMESPACE);
  });
});

describe.skipIf(embeddedOnly)('unimplemented RPCs', () => {
  const MESSAGE = 'WorkflowService.ResetWorkflowExecution is not implemented by the embedded navigator dev server';

  it('answer UNIMPLEMENTED naming the RPC, and the client passes the message on', async () => {
    const err = await rejection(
      env.connection.workflowService.resetWorkflowExecution({
        namespace: env.server.namespace,
        workflowExecution: { workflowId: 'any' },
      }),
    );
    expect(err.code).toBe(status.UNIMPLEMENTED);
    expect(err.details).toBe(MESSAGE);
    expect(err.message).toContain(MESSAGE);
  });

  it('reach the caller of a high-level client API as the cause', async () => {
    const err = await rejection(env.client.taskQueue.getBuildIdCompatability(env.taskQueue));
    expect((err.cause as CallError).details).toBe(
      'WorkflowService.GetWorkerBuildIdCompatibility is not implemented by the embedded navigator dev server',
    );
  });
});

describe('behaviour behind the capabilities advertised true', () => {
  it('signalAndQueryHeader: a signal header is kept in history', async () => {
    const handle = await startWorkflow(env, counter, { workflowId: id('cap-header') });
    const header = { fields: { trace: defaultPayloadConverter.toPayload('abc') } };
    await env.connection.workflowService.signalWorkflowExecution({
      namespace: env.server.namespace,
      workflowExecution: { workflowId: handle.workflowId },
      signalName: 'finish',
      header,
    });
    await handle.result();
    const [signaled] = eventsOfType(await handle.fetchHistory(), 'WorkflowExecutionSignaled');
    const trace = signaled!.workflowExecutionSignaledEventAttributes!.header!.fields!.trace!;
    expect(defaultPayloadConverter.fromPayload(trace)).toBe('abc');
  });

  it('activityFailureIncludeHeartbeat: the next attempt sees the heartbeat of the failed one', async () => {
    const handle = await startWorkflow(env, retrying, { workflowId: id('cap-heartbeat'), args: ['k'] });
    expect(await handle.result()).toBe('attempt 3 saw k:attempt-2');
  });

  it('encodedFailureAttributes: an encoded failure crosses the server intact', async () => {
    const handle = await startWorkflow(env, asyncHello, { workflowId: id('cap-encoded') });
    await untilDescribed(handle, (d) => d.raw.pendingActivities?.[0]?.state === 2 /* STARTED */);
    // What a failure converter with encodeCommonAttributes sends: the message only inside.
    const encodedAttributes = defaultPayloadConverter.toPayload({ message: 'kept secret', stack_trace: '' });
    await env.connection.workflowService.respondActivityTaskFailedById({
      namespace: env.server.namespace,
      workflowId: handle.workflowId,
      activityId: 'async-1',
      failure: {
        message: 'Encoded failure',
        encodedAttributes,
        applicationFailureInfo: { type: 'Secret', nonRetryable: true },
      },
    });
    const cause = (await failureCause(handle)) as { cause?: Error } | undefined;
    expect(cause?.cause?.message).toBe('kept secret');
    const [failed] = eventsOfType(await handle.fetchHistory(), 'ActivityTaskFailed');
    const failure = failed!.activityTaskFailedEventAttributes!.failure!;
    expect(failure.message).toBe('Encoded failure');
    expect(defaultPayloadConverter.fromPayload(failure.encodedAttributes!)).toMatchObject({ message: 'kept secret' });
  });

  it('upsertMemo and countGroupByExecutionStatus: the memo is updated and counts come grouped', async () => {
    const handle = await startWorkflow(env, tagged, { workflowId: id('cap-memo'), memo: { note: 'initial' } });
    await handle.result();
    expect((await handle.describe()).memo).toEqual({ note: 'updated' });
    // visibility on a real server catches up with the close a moment later
    const count = async () =>
      (await env.client.workflow.count(`WorkflowId = '${handle.workflowId}' GROUP BY ExecutionStatus`)).groups;
    expect(await untilEqual(count, [{ count: 1, groupValues: [['Completed']] }])).toEqual([
      { count: 1, groupValues: [['Completed']] },
    ]);
  });

  it('sdkMetadata: workflow task completions keep what the SDK recorded', async () => {
    const handle = await startWorkflow(env, hello, { workflowId: id('cap-sdk-metadata'), args: ['you'] });
    await handle.result();
    const completed = eventsOfType(await handle.fetchHistory(), 'WorkflowTaskCompleted');
    const metadata = completed.map((e) => e.workflowTaskCompletedEventAttributes?.sdkMetadata);
    expect(metadata.some((m) => m?.sdkName || m?.coreUsedFlags?.length || m?.langUsedFlags?.length)).toBe(true);
  });

  it("buildIdBasedVersioning: the worker's build id is stamped on its task started and completed events", async () => {
    const taskQueue = id('cap-build-id');
    const worker = await env.createWorker({ taskQueue, buildId: 'cap-build-1' });
    const handle = await startWorkflow(env, hello, { workflowId: id('cap-build-id'), taskQueue, args: ['b'] });
    expect(await worker.runUntil(handle.result())).toBe('Hello, b!');
    const history = await handle.fetchHistory();
    const stamped = [
      ...eventsOfType(history, 'WorkflowTaskStarted').map((e) => e.workflowTaskStartedEventAttributes!),
      ...eventsOfType(history, 'WorkflowTaskCompleted').map((e) => e.workflowTaskCompletedEventAttributes!),
      ...eventsOfType(history, 'ActivityTaskStarted').map((e) => e.activityTaskStartedEventAttributes!),
    ];
    expect(stamped).toHaveLength(5);
    for (const attributes of stamped) expect(attributes.workerVersion?.buildId).toBe('cap-build-1');
    // the SDK sends the stamp instead of a binary checksum
    for (const e of eventsOfType(history, 'WorkflowTaskCompleted'))
      expect(e.workflowTaskCompletedEventAttributes!.binaryChecksum ?? '').toBe('');
  });

  it('syncUpdate and asyncUpdate: an update is awaited to completion, or accepted and polled', async () => {
    const handle = await startWorkflow(env, counter, { workflowId: id('cap-update') });
    expect(await handle.executeUpdate(setLimit, { args: [5] })).toBe(100);
    const update = await handle.startUpdate(setLimit, { args: [7], waitForStage: 'ACCEPTED' });
    expect(await update.result()).toBe(5);
    await handle.signal(finishSignal);
    await handle.result();
  });
});

describe('long polls', () => {
  it("refuse a task poll without a deadline, in the real server's words", async () => {
    const service = env.connection.workflowService;
    const request = { namespace: env.server.namespace, taskQueue: { name: id('cap-no-deadline') } };
    for (const err of [
      await rejection(service.pollWorkflowTaskQueue(request)),
      await rejection(service.pollActivityTaskQueue(request)),
    ]) {
      expect(err.code).toBe(status.INVALID_ARGUMENT);
      expect(err.details).toBe('Context timeout is not set.');
    }
  });
});

describe.skipIf(embeddedOnly)('workerPollCompleteOnShutdown', () => {
  // A long poll needs a deadline (a real server refuses one without); this one outlasts the test.
  const poll = (taskQueue: string, workerInstanceKey?: string) =>
    env.client.withDeadline(Date.now() + 60_000, () =>
      env.connection.workflowService.pollWorkflowTaskQueue({
        namespace: env.server.namespace,
        taskQueue: { name: taskQueue },
        identity: 'capabilities-test',
        workerInstanceKey,
      }),
    );

  it('answers a shut-down worker its waiting polls empty, refuses its later ones, and keeps the task', async () => {
    const taskQueue = id('cap-shutdown-raw');
    const workerInstanceKey = randomUUID();
    const waiting = [poll(taskQueue, workerInstanceKey), poll(taskQueue, workerInstanceKey)];
    await env.connection.workflowService.shutdownWorker({
      namespace: env.server.namespace,
      workerInstanceKey,
      taskQueue,
    });
    // A task arriving now would go to a poll still waiting; answered polls leave it queued.
    const handle = await startWorkflow(env, hello, { workflowId: id('cap-shutdown-raw'), taskQueue, args: ['x'] });
    for (const response of await Promise.all(waiting)) expect(response.taskToken?.length ?? 0).toBe(0);
    expect((await poll(taskQueue, workerInstanceKey)).taskToken?.length ?? 0).toBe(0);
    const other = await poll(taskQueue, randomUUID());
    expect(other.workflowExecution?.workflowId).toBe(handle.workflowId);
    await handle.terminate();
  });

  it('lets a real worker finish its polls at shutdown: answered empty by the server, none cut', async () => {
    const recorder = await startGrpcRecorder(env.server.address);
    const connection = await NativeConnection.connect({ address: recorder.address });
    try {
      const taskQueue = id('cap-shutdown-worker');
      const worker = await env.createWorker({ connection, taskQueue });
      const running = worker.run();
      expect(
        await startWorkflow(env, hello, { workflowId: id('cap-before'), taskQueue, args: ['a'] }).then((h) =>
          h.result(),
        ),
      ).toBe('Hello, a!');
      worker.shutdown();
      await recorder.shutdownAnswered;
      // Any poll of that worker still waiting would take this task.
      const after = await startWorkflow(env, hello, { workflowId: id('cap-after'), taskQueue, args: ['b'] });
      await running;
      const polls = recorder.calls.filter((c) => c.method.startsWith('Poll'));
      expect(polls.filter((c) => c.outcome !== 'answered')).toEqual([]);
      expect(polls.filter((c) => c.afterShutdown && c.responseBytes !== 0)).toEqual([]);
      expect(polls.some((c) => c.afterShutdown)).toBe(true);
      const next = await env.createWorker({ taskQueue });
      expect(await next.runUntil(after.result())).toBe('Hello, b!');
    } finally {
      await connection.close();
      await recorder.close();
    }
  });
});
