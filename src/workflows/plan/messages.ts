/**
 * Signals, updates and queries of the plan workflow, declared once: the workflow sets
 * handlers, the client and the step activity send them by these same definitions.
 * Review actions are updates (validated: the caller learns at once why an edit was
 * refused); step approvals and cancel exist as updates and as signals (a bad signal is
 * recorded as rejected and changes nothing).
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  AnswerAck,
  Plan,
  PlanAck,
  PlanLedgerEntry,
  PlanStatusView,
  PlanVersion,
  ProgressView,
  StepAnswer,
  StepProgressReport,
  StepVerdict,
} from './contract.ts';

/** a review edit: `{kind: 'edit' | 'skip' | 'add' | 'remove' | 'reorder', ...}` (src/plans/edits.ts) */
export const editPlanUpdate = defineUpdate<PlanAck, [{ edit: unknown; by?: string }]>('editPlan');
export const regeneratePlanUpdate = defineUpdate<PlanAck, [{ feedback: string; by?: string }]>('regeneratePlan');
export const approvePlanUpdate = defineUpdate<PlanAck, [{ by?: string }]>('approvePlan');
export const cancelPlanUpdate = defineUpdate<PlanAck, [{ reason?: string; by?: string }]>('cancelPlan');
export const approveStepUpdate = defineUpdate<PlanAck, [StepVerdict]>('approveStep');
export const denyStepUpdate = defineUpdate<PlanAck, [StepVerdict]>('denyStep');
/** the answer to a question step; a bad answer fails the update and the step keeps waiting */
export const answerStepUpdate = defineUpdate<AnswerAck, [StepAnswer]>('answerStep');

export const approvePlanSignal = defineSignal<[{ by?: string }]>('approvePlan');
export const cancelPlanSignal = defineSignal<[{ reason?: string; by?: string }]>('cancelPlan');
export const approveStepSignal = defineSignal<[StepVerdict]>('approveStep');
export const denyStepSignal = defineSignal<[StepVerdict]>('denyStep');
/** sent by the step activity when a tool reports progress (throttled) */
export const stepProgressSignal = defineSignal<[StepProgressReport]>('stepProgress');

export const planQuery = defineQuery<Plan | null>('plan');
export const planStatusQuery = defineQuery<PlanStatusView>('planStatus');
export const versionsQuery = defineQuery<PlanVersion[]>('versions');
export const planProgressQuery = defineQuery<ProgressView>('progress');
export const planLedgerQuery = defineQuery<PlanLedgerEntry[]>('ledger');
