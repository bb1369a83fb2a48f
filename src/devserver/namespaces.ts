/**
 * Namespaces, system information and search-attribute definitions (WorkflowService
 * namespace calls and the OperatorService calls `temporal operator search-attribute`
 * uses), plus the merge rules for search attributes and memo.
 */
import { status } from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import type { Engine } from './engine.ts';
import { invalidArgument, RpcError } from './errors.ts';
import type { NamespaceState } from './model.ts';
import { duration, durationMs, type Msg, textOf } from './proto.ts';

const SERVER_VERSION = '1.27.0';

/** The system search attributes of the real server's visibility store. */
export const SYSTEM_SEARCH_ATTRIBUTES: Record<string, string> = Object.fromEntries(
  Object.entries({
    WorkflowId: 'KEYWORD',
    WorkflowType: 'KEYWORD',
    RunId: 'KEYWORD',
    ExecutionStatus: 'KEYWORD',
    TaskQueue: 'KEYWORD',
    StartTime: 'DATETIME',
    CloseTime: 'DATETIME',
    ExecutionTime: 'DATETIME',
    ExecutionDuration: 'INT',
    HistoryLength: 'INT',
    HistorySizeBytes: 'INT',
    StateTransitionCount: 'INT',
    TemporalChangeVersion: 'KEYWORD_LIST',
    BinaryChecksums: 'KEYWORD_LIST',
    BuildIds: 'KEYWORD_LIST',
    BatcherUser: 'KEYWORD',
    TemporalScheduledStartTime: 'DATETIME',
    TemporalScheduledById: 'KEYWORD',
    TemporalSchedulePaused: 'BOOL',
    TemporalNamespaceDivision: 'KEYWORD',
    TemporalPauseInfo: 'KEYWORD_LIST',
    TemporalWorkerDeploymentVersion: 'KEYWORD',
    TemporalWorkflowVersioningBehavior: 'KEYWORD',
    TemporalWorkerDeployment: 'KEYWORD',
    TemporalReportedProblems: 'KEYWORD_LIST',
    TemporalUsedWorkerDeploymentVersions: 'KEYWORD_LIST',
    ParentWorkflowId: 'KEYWORD',
    ParentRunId: 'KEYWORD',
    RootWorkflowId: 'KEYWORD',
    RootRunId: 'KEYWORD',
  }).map(([name, type]) => [name, `INDEXED_VALUE_TYPE_${type}`]),
);

export function newNamespace(name: string, description = '', retentionDays = 1): NamespaceState {
  return { name, id: randomUUID(), description, retentionDays, searchAttributes: {} };
}

/**
 * Capabilities are exactly what this server does: SDKs change how they call the server on
 * each flag, so a flag advertised and not honoured breaks workers in ways hard to trace.
 */
export function getSystemInfo(): Msg {
  return {
    serverVersion: SERVER_VERSION,
    capabilities: {
      // Signal and query headers reach the worker: kept on WorkflowExecutionSignaled and in the query.
      signalAndQueryHeader: true,
      // INTERNAL comes only from a server bug (grpc.ts); every expected error has its own code.
      internalErrorDifferentiation: true,
      // RespondActivityTaskFailed's lastHeartbeatDetails are kept and handed to the next attempt.
      activityFailureIncludeHeartbeat: true,
      // Create/Describe/Update/Patch/List/DeleteSchedule and ListScheduleMatchingTimes (schedules.ts).
      supportsSchedules: true,
      // Failures are stored in the full proto shape, encodedAttributes included.
      encodedFailureAttributes: true,
      // As the real dev server (1.29): the SDK then sends build id stamps instead of a
      // binaryChecksum, written on the task started and completed events as a real server
      // does. There is no dispatch by build id: the version set and rule RPCs are
      // unimplemented (the real dev server refuses the version set ones too), so every
      // worker of a queue gets its tasks.
      buildIdBasedVersioning: true,
      // ModifyWorkflowProperties (upsertMemo) is applied to the memo and written to history.
      upsertMemo: true,
      // StartWorkflowExecution ignores requestEagerExecution and never returns a workflow task.
      eagerWorkflowStart: false,
      // WorkflowTaskCompleted records the completion's sdkMetadata, which replay needs.
      sdkMetadata: true,
      // CountWorkflowExecutions answers `GROUP BY ExecutionStatus` with groups.
      countGroupByExecutionStatus: true,
      // No Nexus endpoints, Nexus tasks or Nexus operation commands.
      nexus: false,
      // No server-scaled worker deployments.
      serverScaledDeployments: false,
      // No compute providers, Cloud Run or other.
      serverScaledProviderCloudRun: false,
    },
  };
}

/** Every namespace has the same capabilities, on the same rule as getSystemInfo's. */
const NAMESPACE_CAPABILITIES: Msg = {
  // Same as the system flag: a start never carries its first workflow task back.
  eagerWorkflowStart: false,
  // UpdateWorkflowExecution waits for the stage asked for, COMPLETED included.
  syncUpdate: true,
  // An update can be left at ACCEPTED and awaited with PollWorkflowExecutionUpdate.
  asyncUpdate: true,
  // RecordWorkerHeartbeat is not implemented: workers must not send heartbeats.
  workerHeartbeats: false,
  // TemporalReportedProblems is never set on failing workflow tasks.
  reportedProblemsSearchAttribute: false,
  // PauseWorkflowExecution is not implemented.
  workflowPause: false,
  // StartActivityExecution (activities outside workflows) is not implemented.
  standaloneActivities: false,
  // ShutdownWorker answers the worker's waiting polls empty and its later ones at once (worker-polls.ts).
  workerPollCompleteOnShutdown: true,
  // Poll responses carry no PollerScalingDecision: pollers keep their configured number.
  pollerAutoscaling: false,
  // No worker control queues, hence no server-to-worker commands.
  workerCommands: false,
  // No Nexus at all (see the system flag).
  standaloneNexusOperation: false,
  // Completion callbacks on update requests are neither kept nor called.
  workflowUpdateCallbacks: false,
  // Without poller autoscaling there is nothing to enrol workers into.
  pollerAutoscalingAutoEnroll: false,
  // RespondWorkflowTaskCompleted takes a completion in one request only.
  workflowTaskCompletionPagination: false,
  // No standalone activities, so no start delay for them.
  standaloneActivityStartDelay: false,
  // No standalone activities, so no batch operations on them.
  standaloneActivityBatchOperations: false,
  // No standalone activities, so no operator commands on them.
  standaloneActivityOperatorCommands: false,
};

export function getClusterInfo(): Msg {
  return {
    supportedClients: {},
    serverVersion: SERVER_VERSION,
    clusterId: 'navigator-dev',
    clusterName: 'active',
    historyShardCount: 1,
    persistenceStore: 'navigator-dev',
    visibilityStore: 'navigator-dev',
  };
}

function describe(ns: NamespaceState): Msg {
  return {
    namespaceInfo: {
      name: ns.name,
      state: 'NAMESPACE_STATE_REGISTERED',
      description: ns.description,
      id: ns.id,
      capabilities: NAMESPACE_CAPABILITIES,
      supportsSchedules: true,
    },
    config: {
      workflowExecutionRetentionTtl: duration(ns.retentionDays * 86_400_000),
      historyArchivalState: 'ARCHIVAL_STATE_DISABLED',
      visibilityArchivalState: 'ARCHIVAL_STATE_DISABLED',
    },
    replicationConfig: {
      activeClusterName: 'active',
      clusters: [{ clusterName: 'active' }],
      state: 'REPLICATION_STATE_NORMAL',
    },
    failoverVersion: 0,
    isGlobalNamespace: false,
  };
}

export function describeNamespace(engine: Engine, request: Msg): Msg {
  if (request.id) {
    const ns = Object.values(engine.state.namespaces).find((n) => n.id === request.id);
    if (!ns) throw new RpcError(status.NOT_FOUND, `Namespace ${request.id} is not found.`);
    return describe(ns);
  }
  return describe(engine.namespace(request.namespace));
}

export function listNamespaces(engine: Engine): Msg {
  return { namespaces: Object.values(engine.state.namespaces).map(describe) };
}

/** The real server's smallest retention for a local namespace. */
const MIN_RETENTION_MS = 3_600_000;

export function registerNamespace(engine: Engine, request: Msg): Msg {
  const name: string = request.namespace ?? '';
  if (!name) throw invalidArgument('Namespace is not set on request.');
  if (engine.state.namespaces[name]) throw new RpcError(status.ALREADY_EXISTS, 'Namespace already exists.');
  // As the real server: no default retention, a namespace is registered with one of at
  // least an hour (its minimum for a local namespace).
  const retentionMs = durationMs(request.workflowExecutionRetentionPeriod);
  if (!(retentionMs >= MIN_RETENTION_MS)) throw invalidArgument('A valid retention period is not set on request.');
  engine.state.namespaces[name] = newNamespace(name, request.description ?? '', retentionMs / 86_400_000);
  engine.changed('namespaces', name);
  return {};
}

// --- search attributes ----------------------------------------------------------------

export function listSearchAttributes(engine: Engine, request: Msg): Msg {
  const ns = engine.namespace(request.namespace || 'default');
  return { customAttributes: ns.searchAttributes, systemAttributes: SYSTEM_SEARCH_ATTRIBUTES, storageSchema: {} };
}

export function getSearchAttributes(engine: Engine): Msg {
  const keys: Record<string, string> = { ...SYSTEM_SEARCH_ATTRIBUTES };
  for (const ns of Object.values(engine.state.namespaces)) Object.assign(keys, ns.searchAttributes);
  return { keys };
}

export function addSearchAttributes(engine: Engine, request: Msg): Msg {
  const ns = engine.namespace(request.namespace || 'default');
  for (const [name, type] of Object.entries<string>(request.searchAttributes ?? {})) {
    if (SYSTEM_SEARCH_ATTRIBUTES[name]) throw invalidArgument(`Search attribute ${name} is reserved by system.`);
    if (ns.searchAttributes[name] && ns.searchAttributes[name] !== type) {
      throw new RpcError(status.ALREADY_EXISTS, `Search attribute ${name} already exists with another type.`);
    }
    ns.searchAttributes[name] = type;
  }
  engine.changed('namespaces', ns.name);
  return {};
}

export function removeSearchAttributes(engine: Engine, request: Msg): Msg {
  const ns = engine.namespace(request.namespace || 'default');
  for (const name of request.searchAttributes ?? []) delete ns.searchAttributes[name];
  engine.changed('namespaces', ns.name);
  return {};
}

/** Names in `attributes` that the namespace does not define; the caller rejects them. */
export function undefinedSearchAttributes(ns: NamespaceState, attributes: Msg | undefined): string[] {
  return Object.keys(attributes?.indexedFields ?? {}).filter(
    (name) => !ns.searchAttributes[name] && !SYSTEM_SEARCH_ATTRIBUTES[name],
  );
}

/** The real server's words for a search attribute the namespace does not define. */
export function noMapping(ns: NamespaceState, name: string): string {
  return `Namespace ${ns.name} has no mapping defined for search attribute ${name}`;
}

export function checkSearchAttributes(ns: NamespaceState, attributes: Msg | undefined): void {
  const unknown = undefinedSearchAttributes(ns, attributes);
  if (unknown.length) throw invalidArgument(noMapping(ns, unknown[0]!));
}

/** An upsert with an empty/null value removes the attribute, as in the real server. */
function isRemoval(payload: Msg): boolean {
  const text = textOf(payload?.data).trim();
  return text === '' || text === 'null' || text === '[]';
}

export function mergeSearchAttributes(current: Msg | undefined, upsert: Msg | undefined): Msg | undefined {
  const fields: Msg = { ...(current?.indexedFields ?? {}) };
  for (const [name, payload] of Object.entries<Msg>(upsert?.indexedFields ?? {})) {
    if (isRemoval(payload)) delete fields[name];
    else fields[name] = payload;
  }
  return Object.keys(fields).length ? { indexedFields: fields } : undefined;
}

export function mergeMemo(current: Msg | undefined, upsert: Msg | undefined): Msg | undefined {
  const fields: Msg = { ...(current?.fields ?? {}) };
  for (const [name, payload] of Object.entries<Msg>(upsert?.fields ?? {})) {
    if (isRemoval(payload)) delete fields[name];
    else fields[name] = payload;
  }
  return Object.keys(fields).length ? { fields } : undefined;
}
