/**
 * The lifecycle both durable runs share, missions and plans: reading a failure, knowing
 * when history is long, waiting with an optional deadline, and publishing a status where
 * people look (current details in the Temporal UI, a search attribute for lists). Workflow
 * code only; the two workflows call these instead of keeping copies that drift.
 */
import { SearchAttributeType, defineSearchAttributeKey } from '@temporalio/common';
import * as wf from '@temporalio/workflow';
import type { FailedAttempt } from '../kernel/schemas.ts';

/** The message at the root of an activity's or child's failure (the whole chain unwrapped). */
export function failureMessage(err: unknown): string {
  let e: unknown = err;
  while ((e instanceof wf.ActivityFailure || e instanceof wf.ChildWorkflowFailure) && e.cause) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}

/**
 * What a tool activity reported with its failure: the attempt it failed on, its idempotency
 * key, the attempts before it that failed (the last one's error is the failure itself).
 */
export function failureDetails(err: unknown): {
  attempt: number;
  idempotencyKey?: string;
  failedAttempts?: FailedAttempt[];
} {
  const cause = err instanceof wf.ActivityFailure ? err.cause : undefined;
  const details = cause instanceof wf.ApplicationFailure ? cause.details : undefined;
  const d = (details?.[0] ?? {}) as { attempt?: number; idempotencyKey?: string; failedAttempts?: FailedAttempt[] };
  return {
    attempt: typeof d.attempt === 'number' ? d.attempt : 1,
    ...(d.idempotencyKey ? { idempotencyKey: d.idempotencyKey } : {}),
    ...(Array.isArray(d.failedAttempts) && d.failedAttempts.length ? { failedAttempts: d.failedAttempts } : {}),
  };
}

/** Time to continue as new: the server suggests it, or history passed the run's own threshold. */
export function historyIsLong(afterEvents: number): boolean {
  const info = wf.workflowInfo();
  return info.continueAsNewSuggested || info.historyLength >= afterEvents;
}

/**
 * Waits until `ready()`, or until `timeoutMs` passes when there is a deadline (`null`: no
 * deadline). True when ready in time. `summary` names the deadline's timer in the UI.
 */
export async function waitUntil(ready: () => boolean, timeoutMs: number | null, summary?: string): Promise<boolean> {
  if (timeoutMs === null) {
    await wf.condition(ready);
    return true;
  }
  const ms = Math.max(timeoutMs, 1);
  return summary ? wf.condition(ready, ms, { summary }) : wf.condition(ready, ms);
}

/**
 * Shows `status` where people look: the run's current details (markdown, the Temporal
 * UI) and, when the run was given one, its Keyword status search attribute, so runs can
 * be listed by status (`navigator list --status waiting`). The attribute is written only
 * when the status changed: each upsert is an event in history.
 */
export function publishStatus(opts: { status: string; changed: boolean; details: string; attribute?: string }): void {
  wf.setCurrentDetails(opts.details);
  if (opts.attribute && opts.changed) {
    wf.upsertSearchAttributes([
      { key: defineSearchAttributeKey(opts.attribute, SearchAttributeType.KEYWORD), value: opts.status },
    ]);
  }
}
