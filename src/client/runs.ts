/**
 * Missions and plans side by side, each with its status as the Navigator names it
 * (`navigator list`): the words of both workflows plus Temporal's for runs that closed
 * without publishing one. Listing by status narrows on the server first (running or
 * closed), then keeps the runs whose Navigator status matches.
 */
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { SearchAttributeType, defineSearchAttributeKey } from '@temporalio/common';
import { PLAN_STATUSES } from '../plans/schema.ts';
import { MISSION_STATUSES } from '../workflows/mission/contract.ts';

export const RUN_KINDS = ['mission', 'plan'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

/** The statuses of a run Temporal still calls running: what a mission or plan says while it runs, and `waiting` (for a person). */
export const RUNNING_STATUSES: ReadonlySet<string> = new Set(['starting', 'running', 'waiting', 'planning', 'review']);

/** Every status `list --status` can match: the workflows' own, `waiting`, and Temporal's for closed runs. */
export const RUN_STATUSES: readonly string[] = [
  ...new Set([...MISSION_STATUSES, ...PLAN_STATUSES, 'waiting', 'canceled', 'terminated', 'timed_out']),
];

export interface ListedWorkflow {
  kind: RunKind;
  workflowId: string;
  /** Temporal's status: RUNNING, COMPLETED, FAILED, ... */
  status: string;
  startTime: Date;
  /** the status the run last published in its status search attribute, when it keeps one */
  publishedStatus?: string;
  /** the task queue it runs on */
  taskQueue?: string;
}

/** A listed run with its Navigator status. */
export interface ListedRun {
  kind: RunKind;
  workflowId: string;
  /** the Navigator status: `waiting`, `review`, `running`, `completed`, `completed_with_failures`, ... */
  status: string;
  /** Temporal's status, in its words */
  temporalStatus: string;
  startTime: Date;
}

/** The visibility filter that keeps only runs which can have `status`: running ones, or closed ones. */
export function executionFilter(status: string): string {
  return RUNNING_STATUSES.has(status) ? "ExecutionStatus = 'Running'" : "ExecutionStatus != 'Running'";
}

/** A listed execution of `kind`, with the value of the status attribute `attribute` when it has one. */
export function listedOf(kind: RunKind, w: WorkflowExecutionInfo, attribute: string): ListedWorkflow {
  const published = w.typedSearchAttributes.get(defineSearchAttributeKey(attribute, SearchAttributeType.KEYWORD));
  return {
    kind,
    workflowId: w.workflowId,
    status: w.status.name,
    startTime: w.startTime,
    taskQueue: w.taskQueue,
    ...(published ? { publishedStatus: published } : {}),
  };
}
