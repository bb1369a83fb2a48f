/**
 * Child workflows and commands that reach other workflows, as the real server writes
 * them: StartChildWorkflowExecution (initiated, then started or start-failed in the
 * parent; the child's started event names its parent and root), the child's close
 * reported to the parent, parent-close policies, and RequestCancel / Signal
 * ExternalWorkflowExecution. Events about other workflows are written after the
 * completion's own command events, as they would arrive later on a real cluster.
 */
import { type CommandContext, commandMetadata } from './command-context.ts';
import type { Engine } from './engine.ts';
import { appendNew, newEvent, record } from './history.ts';
import { cancelRun, createRun, normalizeTimeouts, signalRun, terminateRun } from './lifecycle.ts';
import { RUNNING, type ChildLink, type RunState } from './model.ts';
import { durationMs, type Msg } from './proto.ts';
import { scheduleWorkflowTask } from './workflow-task-schedule.ts';

const execution = (run: { workflowId: string; runId: string }) => ({ workflowId: run.workflowId, runId: run.runId });

export function startChildFromCommand(ctx: CommandContext, a: Msg, command: Msg): void {
  const { engine, run: parent } = ctx;
  const namespace: string = a.namespace || parent.namespace;
  const attributes = {
    ...a,
    namespace,
    taskQueue: a.taskQueue?.name ? a.taskQueue : { name: parent.taskQueue, kind: 'TASK_QUEUE_KIND_NORMAL' },
  };
  const initiatedEventId = appendNew(
    parent,
    'StartChildWorkflowExecutionInitiated',
    { ...attributes, workflowTaskCompletedEventId: ctx.completedEventId },
    commandMetadata(command),
  );
  ctx.deferred.push(() => startChild(engine, parent, attributes, initiatedEventId, ctx.completedEventId));
  ctx.needsTask = true;
}

function startChild(
  engine: Engine,
  parent: RunState,
  a: Msg,
  initiatedEventId: number,
  completedEventId: number,
): void {
  const ns = engine.namespace(a.namespace);
  const existing = engine.currentRun(ns.name, a.workflowId);
  const reuse: string = a.workflowIdReusePolicy ?? '';
  if (existing && (existing.status === RUNNING || reuse === 'WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE')) {
    record(parent, [
      newEvent('StartChildWorkflowExecutionFailed', {
        namespace: a.namespace,
        workflowId: a.workflowId,
        workflowType: a.workflowType,
        cause: 'START_CHILD_WORKFLOW_EXECUTION_FAILED_CAUSE_WORKFLOW_ALREADY_EXISTS',
        control: a.control,
        initiatedEventId,
        workflowTaskCompletedEventId: completedEventId,
      }),
    ]);
    return;
  }
  const parentNs = engine.namespace(parent.namespace);
  const root = parent.parent?.root ?? execution(parent);
  const child = createRun(engine, ns, {
    workflowId: a.workflowId,
    workflowType: a.workflowType?.name ?? '',
    taskQueue: a.taskQueue.name,
    input: a.input,
    header: a.header,
    ...normalizeTimeouts(
      durationMs(a.workflowExecutionTimeout),
      durationMs(a.workflowRunTimeout),
      durationMs(a.workflowTaskTimeout),
    ),
    memo: a.memo,
    searchAttributes: a.searchAttributes,
    retryPolicy: a.retryPolicy,
    priority: a.priority,
    parent: {
      namespace: parentNs.name,
      namespaceId: parentNs.id,
      workflowId: parent.workflowId,
      runId: parent.runId,
      initiatedEventId,
      root,
    },
  });
  scheduleWorkflowTask(engine, child);
  engine.touch(child);
  const startedEventId = parent.events.length + 1;
  record(parent, [
    newEvent('ChildWorkflowExecutionStarted', {
      namespace: a.namespace,
      initiatedEventId,
      workflowExecution: execution(child),
      workflowType: a.workflowType,
      header: a.header,
    }),
  ]);
  const link: ChildLink = {
    namespace: a.namespace,
    workflowId: child.workflowId,
    runId: child.runId,
    workflowType: child.workflowType,
    initiatedEventId,
    startedEventId,
    parentClosePolicy: a.parentClosePolicy || 'PARENT_CLOSE_POLICY_TERMINATE',
  };
  parent.children = { ...parent.children, [String(initiatedEventId)]: link };
}

const CHILD_CLOSE_EVENTS: Record<string, string> = {
  WorkflowExecutionCompleted: 'ChildWorkflowExecutionCompleted',
  WorkflowExecutionFailed: 'ChildWorkflowExecutionFailed',
  WorkflowExecutionCanceled: 'ChildWorkflowExecutionCanceled',
  WorkflowExecutionTerminated: 'ChildWorkflowExecutionTerminated',
  WorkflowExecutionTimedOut: 'ChildWorkflowExecutionTimedOut',
};

/**
 * After a run closed: a child whose chain ended tells its parent; a parent applies the
 * parent-close policy to the children still open (continue-as-new counts as a close).
 */
export function onRunClosed(engine: Engine, run: RunState, eventType: string, attributes: Msg): void {
  if (run.parent && !run.newRunId) reportToParent(engine, run, eventType, attributes);
  applyParentClosePolicies(engine, run);
}

function reportToParent(engine: Engine, child: RunState, eventType: string, attributes: Msg): void {
  const link = child.parent!;
  const parent = engine.state.runs[`${link.namespace}|${link.workflowId}|${link.runId}`];
  const childEvent = CHILD_CLOSE_EVENTS[eventType];
  if (!parent || parent.status !== RUNNING || !childEvent) return;
  const entry = parent.children?.[String(link.initiatedEventId)];
  if (!entry) return;
  delete parent.children![String(link.initiatedEventId)];
  record(parent, [
    newEvent(childEvent, {
      ...(attributes.result !== undefined ? { result: attributes.result } : {}),
      ...(attributes.failure !== undefined ? { failure: attributes.failure } : {}),
      ...(attributes.details !== undefined ? { details: attributes.details } : {}),
      ...(attributes.retryState !== undefined ? { retryState: attributes.retryState } : {}),
      namespace: entry.namespace,
      workflowExecution: execution(child),
      workflowType: { name: entry.workflowType },
      initiatedEventId: entry.initiatedEventId,
      startedEventId: entry.startedEventId,
    }),
  ]);
  scheduleWorkflowTask(engine, parent);
  engine.touch(parent);
}

function applyParentClosePolicies(engine: Engine, parent: RunState): void {
  const open = Object.values(parent.children ?? {});
  parent.children = {};
  for (const link of open) {
    const child = engine.currentRun(link.namespace, link.workflowId);
    if (!child || child.status !== RUNNING || child.firstRunId !== firstRunOf(engine, link)) continue;
    if (link.parentClosePolicy === 'PARENT_CLOSE_POLICY_ABANDON') continue;
    if (link.parentClosePolicy === 'PARENT_CLOSE_POLICY_REQUEST_CANCEL')
      cancelRun(engine, child, { cause: 'by parent close policy', identity: 'navigator-dev-server' });
    else terminateRun(engine, child, 'by parent close policy', undefined, 'navigator-dev-server');
  }
}

function firstRunOf(engine: Engine, link: ChildLink): string | undefined {
  return engine.state.runs[`${link.namespace}|${link.workflowId}|${link.runId}`]?.firstRunId;
}

// --- other workflows -----------------------------------------------------------------

/** The target of an external command, if it is running (and of the right run). */
function target(engine: Engine, namespace: string, e: Msg | undefined): RunState | undefined {
  const run = e?.runId
    ? engine.state.runs[`${namespace}|${e.workflowId}|${e.runId}`]
    : engine.currentRun(namespace, e?.workflowId ?? '');
  return run?.status === RUNNING ? run : undefined;
}

interface ExternalCommand {
  /** `RequestCancel` or `Signal`: names the initiated and failed events */
  verb: 'RequestCancel' | 'Signal';
  failedCause: string;
  execution: Msg;
  initiated: Msg;
  /** acts on the running target; returns the parent's success event [type, attributes] */
  reach: (target: RunState, initiatedEventId: number) => [string, Msg];
}

/** The shared shape of commands that reach another workflow: initiated, then reached or failed. */
function externalCommand(ctx: CommandContext, a: Msg, command: Msg, c: ExternalCommand): void {
  const { engine, run } = ctx;
  const namespace: string = a.namespace || run.namespace;
  const initiatedEventId = appendNew(
    run,
    `${c.verb}ExternalWorkflowExecutionInitiated`,
    {
      namespace,
      workflowExecution: c.execution,
      ...c.initiated,
      control: a.control,
      childWorkflowOnly: a.childWorkflowOnly,
      workflowTaskCompletedEventId: ctx.completedEventId,
    },
    commandMetadata(command),
  );
  ctx.needsTask = true;
  ctx.deferred.push(() => {
    const other = target(engine, namespace, c.execution);
    if (!other) {
      const failed = {
        cause: c.failedCause,
        workflowTaskCompletedEventId: ctx.completedEventId,
        namespace,
        workflowExecution: c.execution,
        initiatedEventId,
        control: a.control,
      };
      return record(run, [newEvent(`${c.verb}ExternalWorkflowExecutionFailed`, failed)]);
    }
    const [type, attributes] = c.reach(other, initiatedEventId);
    record(run, [newEvent(type, { initiatedEventId, namespace, workflowExecution: execution(other), ...attributes })]);
  });
}

export function cancelExternalFromCommand(ctx: CommandContext, a: Msg, command: Msg): void {
  externalCommand(ctx, a, command, {
    verb: 'RequestCancel',
    failedCause: 'CANCEL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND',
    execution: a.workflowExecution ?? { workflowId: a.workflowId, runId: a.runId },
    initiated: { reason: a.reason },
    reach: (other, initiatedEventId) => {
      cancelRun(ctx.engine, other, {
        cause: a.reason,
        externalInitiatedEventId: initiatedEventId,
        externalWorkflowExecution: execution(ctx.run),
      });
      return ['ExternalWorkflowExecutionCancelRequested', {}];
    },
  });
}

export function signalExternalFromCommand(ctx: CommandContext, a: Msg, command: Msg): void {
  externalCommand(ctx, a, command, {
    verb: 'Signal',
    failedCause: 'SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND',
    execution: a.execution ?? a.workflowExecution,
    initiated: { signalName: a.signalName, input: a.input, header: a.header },
    reach: (other) => {
      signalRun(ctx.engine, other, {
        signalName: a.signalName,
        input: a.input,
        identity: 'navigator-dev-server',
        header: a.header,
        externalWorkflowExecution: execution(ctx.run),
      });
      return ['ExternalWorkflowExecutionSignaled', { control: a.control }];
    },
  });
}

/** PendingChildExecutionInfo for DescribeWorkflowExecution. */
export function describeChildren(run: RunState): Msg[] {
  return Object.values(run.children ?? {}).map((c) => ({
    workflowId: c.workflowId,
    runId: c.runId,
    workflowTypeName: c.workflowType,
    initiatedId: c.initiatedEventId,
    parentClosePolicy: c.parentClosePolicy,
  }));
}
