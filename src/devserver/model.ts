/**
 * The server's state, as plain JSON-compatible data so `--db` can persist it whole.
 * Everything that must survive a restart lives here (including absolute deadlines);
 * anything derived (queue contents, armed timers, waiting calls) is rebuilt from it.
 */
import type { Msg } from './proto.ts';

export type ExecutionStatus =
  | 'WORKFLOW_EXECUTION_STATUS_RUNNING'
  | 'WORKFLOW_EXECUTION_STATUS_COMPLETED'
  | 'WORKFLOW_EXECUTION_STATUS_FAILED'
  | 'WORKFLOW_EXECUTION_STATUS_CANCELED'
  | 'WORKFLOW_EXECUTION_STATUS_TERMINATED'
  | 'WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW'
  | 'WORKFLOW_EXECUTION_STATUS_TIMED_OUT';

export const RUNNING: ExecutionStatus = 'WORKFLOW_EXECUTION_STATUS_RUNNING';

export interface WorkflowTaskState {
  attempt: number;
  /**
   * Attempts after the first are "transient" as in the real server: their scheduled and
   * started events stay out of history until the attempt completes, so a workflow that
   * keeps failing does not grow its history.
   */
  transient: boolean;
  /**
   * Scheduled only to deliver an update while history had nothing new, as the real server's
   * speculative tasks: transient, and dropped whole (no event written) when the worker
   * answers with update rejections only. Anything new in history makes it a normal task.
   */
  speculative?: boolean;
  /** Written scheduled event id; for a transient task, assigned when it starts. */
  scheduledEventId: number;
  scheduledAt: number;
  /** Task queue the task waits on (the sticky queue while the run is sticky). */
  queue: string;
  sticky: boolean;
  /** Not dispatched before this time (backoff between failing attempts). */
  availableAt?: number;
  startedEventId?: number;
  startedAt?: number;
  identity?: string;
  requestId?: string;
  /** the polling worker's build id stamp, for WorkflowTaskStarted */
  workerVersion?: Msg;
  /** Changes on every (re)dispatch; queue items and task tokens carrying an old one are stale. */
  dispatchId: string;
}

export type ActivityPhase = 'SCHEDULED' | 'STARTED' | 'BACKOFF';

export interface ActivityState {
  scheduledEventId: number;
  activityId: string;
  activityType: string;
  taskQueue: string;
  /** ScheduleActivityTask attributes with timeouts and retry policy filled as the server does. */
  attributes: Msg;
  attempt: number;
  phase: ActivityPhase;
  scheduledAt: number;
  attemptScheduledAt: number;
  startedAt?: number;
  retryAt?: number;
  heartbeatDetails?: Msg;
  lastHeartbeatAt?: number;
  lastFailure?: Msg;
  identity?: string;
  /** the worker's build id stamp, for ActivityTaskStarted */
  workerVersion?: Msg;
  cancelRequested: boolean;
  latestCancelRequestedEventId?: number;
  dispatchId: string;
}

export interface TimerState {
  timerId: string;
  startedEventId: number;
  fireAt: number;
}

export type UpdateStage = 'ADMITTED' | 'ACCEPTED' | 'COMPLETED';

export interface UpdateState {
  updateId: string;
  /** temporal.api.update.v1.Request */
  request: Msg;
  stage: UpdateStage;
  /** Set when the request was delivered in the currently started workflow task. */
  deliveredInTask?: string;
  acceptedEventId?: number;
  /** temporal.api.update.v1.Outcome, once completed (or rejected). */
  outcome?: Msg;
}

/** Who started a child workflow's run (kept across its continue-as-new and retries). */
export interface ParentLink {
  namespace: string;
  namespaceId: string;
  workflowId: string;
  runId: string;
  initiatedEventId: number;
  root: { workflowId: string; runId: string };
}

/** A child a run started that has not closed yet (by the parent's initiated event id). */
export interface ChildLink {
  namespace: string;
  workflowId: string;
  runId: string;
  workflowType: string;
  initiatedEventId: number;
  startedEventId: number;
  parentClosePolicy: string;
}

export interface RunState {
  namespace: string;
  workflowId: string;
  runId: string;
  firstRunId: string;
  workflowType: string;
  taskQueue: string;
  status: ExecutionStatus;
  startedAt: number;
  executionTime: number;
  closedAt?: number;
  requestIds: string[];
  /** History as written, events in the stored proto shape. */
  events: Msg[];
  /** Approximate encoded size of `events` (what WorkflowTaskStarted reports). */
  historySizeBytes?: number;
  /** Events that arrived while a workflow task was running; ids assigned on flush. */
  buffered: Msg[];
  runTimeoutMs: number;
  executionTimeoutMs: number;
  taskTimeoutMs: number;
  runExpiresAt?: number;
  executionExpiresAt?: number;
  /** The first workflow task waits until this time (workflowStartDelay). */
  firstTaskAt?: number;
  memo?: Msg;
  searchAttributes?: Msg;
  userMetadata?: Msg;
  wft?: WorkflowTaskState;
  /** A new workflow task is owed once the running one finishes. */
  wftPending: boolean;
  sticky?: { queue: string; timeoutMs: number };
  /** startedEventId of the last completed workflow task (previousStartedEventId). */
  lastCompletedStartedEventId: number;
  /**
   * History length right after the last completed task wrote its own events (its completion
   * and the events of its commands): a task scheduled while it is still that long would show
   * the worker nothing new, and may be speculative.
   */
  lastCompletionEnd?: number;
  activities: Record<string, ActivityState>;
  timers: Record<string, TimerState>;
  updates: Record<string, UpdateState>;
  cancelRequested: boolean;
  /** Run that continued this one (continue-as-new). */
  newRunId?: string;
  /** Set on the runs of a child workflow. */
  parent?: ParentLink;
  /** Children started by this run and still open, by initiated event id. */
  children?: Record<string, ChildLink>;
  stateTransitions: number;
}

export interface NamespaceState {
  name: string;
  id: string;
  description: string;
  retentionDays: number;
  /** Custom search attributes: name → INDEXED_VALUE_TYPE_* */
  searchAttributes: Record<string, string>;
}

export interface ServerState {
  namespaces: Record<string, NamespaceState>;
  runs: Record<string, RunState>;
  /** namespace|workflowId → runIds oldest first; the last is the current run. */
  chains: Record<string, string[]>;
  /** namespace|scheduleId → schedule (absent in databases written before schedules) */
  schedules?: Record<string, ScheduleRecord>;
}

/** A start the schedule took: when, and which workflow it started. */
export interface ScheduleAction {
  /** the spec's time (jitter included) */
  scheduledAt: number;
  takenAt: number;
  workflowId: string;
  runId: string;
}

/** A start waiting for the running workflow to close (overlap policy buffer/cancel). */
export interface BufferedStart {
  nominal: number;
  scheduledAt: number;
  overlapPolicy: string;
}

/** A Temporal Schedule (temporal.api.schedule.v1) and what it did. */
export interface ScheduleRecord {
  namespace: string;
  scheduleId: string;
  /** temporal.api.schedule.v1.Schedule with the spec compiled (schedule-spec.ts) */
  schedule: Msg;
  memo?: Msg;
  searchAttributes?: Msg;
  createdAt: number;
  updatedAt?: number;
  conflictToken: number;
  /** every spec time up to here was taken, skipped or missed */
  processedUntil: number;
  actionCount: number;
  missedCatchupWindow: number;
  overlapSkipped: number;
  bufferDropped: number;
  buffered: BufferedStart[];
  /** the last 10 actions, oldest first */
  recent: ScheduleAction[];
  /** workflows it started that had not closed when last looked at */
  running: Array<{ workflowId: string; runId: string }>;
}

export function scheduleKey(namespace: string, scheduleId: string): string {
  return `${namespace}|${scheduleId}`;
}

export function runKey(namespace: string, workflowId: string, runId: string): string {
  return `${namespace}|${workflowId}|${runId}`;
}

export function chainKey(namespace: string, workflowId: string): string {
  return `${namespace}|${workflowId}`;
}
