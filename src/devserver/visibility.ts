/**
 * Visibility: DescribeWorkflowExecution, ListWorkflowExecutions and
 * CountWorkflowExecutions. Filtering and ordering are the pure query module's
 * (visibility-query.ts); this module only turns runs into records and pages results.
 * Results come in the SQL store's default order (running first, then the most recently
 * closed); ORDER BY is refused, as by the real dev server's SQLite visibility.
 */
import { describePending } from './activities.ts';
import { describeChildren } from './children.ts';
import type { Engine } from './engine.ts';
import { invalidArgument } from './errors.ts';
import { RUNNING, type NamespaceState, type RunState } from './model.ts';
import { duration, type Msg, textOf, timestamp } from './proto.ts';
import {
  matchesVisibilityQuery,
  parseVisibilityQuery,
  type SearchAttributeType,
  sortRecords,
  type VisibilityQuery,
  type VisibilityRecord,
} from './visibility-query.ts';

function executionInfo(run: RunState): Msg {
  return {
    execution: { workflowId: run.workflowId, runId: run.runId },
    type: { name: run.workflowType },
    startTime: timestamp(run.startedAt),
    closeTime: run.closedAt ? timestamp(run.closedAt) : undefined,
    status: run.status,
    historyLength: run.events.length,
    executionTime: timestamp(run.executionTime),
    memo: run.memo ?? { fields: {} },
    searchAttributes: run.searchAttributes ?? { indexedFields: {} },
    taskQueue: run.taskQueue,
    stateTransitionCount: run.stateTransitions,
    historySizeBytes: run.historySizeBytes ?? 0,
    executionDuration: run.closedAt ? duration(run.closedAt - run.executionTime) : undefined,
    rootExecution: run.parent?.root ?? { workflowId: run.workflowId, runId: run.runId },
    ...(run.parent
      ? {
          parentExecution: { workflowId: run.parent.workflowId, runId: run.parent.runId },
          parentNamespaceId: run.parent.namespaceId,
        }
      : {}),
    firstRunId: run.firstRunId,
  };
}

export function describeWorkflowExecution(engine: Engine, request: Msg): Msg {
  const run = engine.run(request.namespace, request.execution);
  const wft = run.wft;
  return {
    executionConfig: {
      taskQueue: { name: run.taskQueue, kind: 'TASK_QUEUE_KIND_NORMAL' },
      workflowExecutionTimeout: duration(run.executionTimeoutMs),
      workflowRunTimeout: duration(run.runTimeoutMs),
      defaultWorkflowTaskTimeout: duration(run.taskTimeoutMs),
      userMetadata: run.userMetadata,
    },
    workflowExecutionInfo: executionInfo(run),
    pendingActivities: describePending(run),
    pendingChildren: describeChildren(run),
    pendingWorkflowTask:
      wft && run.status === RUNNING
        ? {
            state: wft.startedEventId ? 'PENDING_WORKFLOW_TASK_STATE_STARTED' : 'PENDING_WORKFLOW_TASK_STATE_SCHEDULED',
            scheduledTime: timestamp(wft.scheduledAt),
            originalScheduledTime: timestamp(wft.scheduledAt),
            startedTime: wft.startedAt ? timestamp(wft.startedAt) : undefined,
            attempt: wft.attempt,
          }
        : undefined,
    workflowExtendedInfo: {},
  };
}

// --- list and count ------------------------------------------------------------------

const TYPE_NAMES: Record<string, SearchAttributeType> = {
  INDEXED_VALUE_TYPE_KEYWORD: 'Keyword',
  INDEXED_VALUE_TYPE_TEXT: 'Text',
  INDEXED_VALUE_TYPE_INT: 'Int',
  INDEXED_VALUE_TYPE_DOUBLE: 'Double',
  INDEXED_VALUE_TYPE_BOOL: 'Bool',
  INDEXED_VALUE_TYPE_DATETIME: 'Datetime',
  INDEXED_VALUE_TYPE_KEYWORD_LIST: 'KeywordList',
};

/** System attributes a real server lets queries name (schedules set them on what they start). */
const QUERYABLE_SYSTEM: Record<string, SearchAttributeType> = {
  TemporalScheduledById: 'Keyword',
  TemporalScheduledStartTime: 'Datetime',
  TemporalSchedulePaused: 'Bool',
};

export function attributeTypes(ns: NamespaceState): Record<string, SearchAttributeType> {
  const types: Record<string, SearchAttributeType> = { ...QUERYABLE_SYSTEM };
  for (const [name, type] of Object.entries(ns.searchAttributes)) types[name] = TYPE_NAMES[type] ?? 'Keyword';
  return types;
}

/** 'WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW' → 'ContinuedAsNew' */
function statusName(status: string): string {
  return status
    .replace('WORKFLOW_EXECUTION_STATUS_', '')
    .toLowerCase()
    .replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase());
}

export function decodeAttribute(payload: Msg): unknown {
  try {
    return JSON.parse(textOf(payload.data));
  } catch {
    return textOf(payload.data);
  }
}

function record(run: RunState): VisibilityRecord {
  const searchAttributes: Record<string, unknown> = {};
  for (const [name, payload] of Object.entries<Msg>(run.searchAttributes?.indexedFields ?? {})) {
    searchAttributes[name] = decodeAttribute(payload);
  }
  return {
    workflowId: run.workflowId,
    runId: run.runId,
    workflowType: run.workflowType,
    status: statusName(run.status),
    startTime: run.startedAt,
    closeTime: run.closedAt,
    executionTime: run.executionTime,
    taskQueue: run.taskQueue,
    searchAttributes,
  };
}

function matching(engine: Engine, namespace: string, query: string): RunState[] {
  const ns = engine.namespace(namespace);
  const types = attributeTypes(ns);
  let parsed: VisibilityQuery;
  try {
    // With the namespace's attribute types, parsing also checks every field and value.
    parsed = parseVisibilityQuery(query ?? '', types);
  } catch (err) {
    throw invalidArgument(`invalid query: ${(err as Error).message}`);
  }
  // The query module can sort, but a real dev server's SQL visibility (SQLite) refuses
  // ORDER BY, so a client written against this server must not depend on it either.
  if (parsed.orderBy.length) throw invalidArgument("invalid query: operation is not supported: 'order by' clause");
  const runs = new Map<VisibilityRecord, RunState>();
  for (const run of Object.values(engine.state.runs)) {
    if (run.namespace !== ns.name) continue;
    const r = record(run);
    if (matchesVisibilityQuery(parsed, r, types)) runs.set(r, run);
  }
  return sortRecords(parsed, [...runs.keys()]).map((r) => runs.get(r)!);
}

export function listWorkflowExecutions(engine: Engine, request: Msg): Msg {
  const runs = matching(engine, request.namespace, request.query);
  const offset = request.nextPageToken ? Number(textOf(request.nextPageToken)) : 0;
  const pageSize = Number(request.pageSize) || 1000;
  const page = runs.slice(offset, offset + pageSize);
  const next = offset + page.length;
  return {
    executions: page.map(executionInfo),
    nextPageToken: next < runs.length ? Buffer.from(String(next)).toString('base64') : undefined,
  };
}

export function countWorkflowExecutions(engine: Engine, request: Msg): Msg {
  const query: string = request.query ?? '';
  const groupBy = /\s+GROUP\s+BY\s+ExecutionStatus\s*$/i;
  if (!groupBy.test(query)) return { count: matching(engine, request.namespace, query).length };
  const runs = matching(engine, request.namespace, query.replace(groupBy, ''));
  const counts = new Map<string, number>();
  for (const run of runs) counts.set(run.status, (counts.get(run.status) ?? 0) + 1);
  return {
    count: runs.length,
    groups: [...counts].map(([status, count]) => ({
      groupValues: [
        {
          metadata: { encoding: Buffer.from('json/plain').toString('base64') },
          data: Buffer.from(JSON.stringify(statusName(status))).toString('base64'),
        },
      ],
      count,
    })),
  };
}
