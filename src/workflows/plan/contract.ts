/**
 * The plan workflow's contract with the outside world: its input, the payloads of its
 * messages and activities, and the views its queries return. The zod schemas are for
 * clients and activities; the workflow itself imports types only (zod stays out of the
 * workflow bundle, see guards.ts).
 */
import { z } from 'zod';
import {
  JsonValue,
  PlanDocument,
  PlanOptions,
  type Json,
  type Plan,
  type PlanProblem,
  type PlanStatus,
  type StepStatus,
} from '../../plans/schema.ts';
import type { ExecutionSummary } from '../../plans/scheduler.ts';
import type { EvaluatedStep, StepEvaluation } from '../../plans/evaluate.ts';
import type { SideEffectClass } from '../../kernel/contract.ts';
import type { FailedAttempt, ResultUnavailable } from '../../kernel/schemas.ts';
import type { Pending, Recorded } from '../approval-gate.ts';

export type { Json, Plan, PlanProblem, PlanStatus, StepStatus, ExecutionSummary };

export const PlanInput = z
  .object({
    /** the agent whose tools (and model, for planning and recovery) the plan uses */
    agent: z.string().min(1),
    /** what the plan is for; the planner's request */
    request: z.string().min(1).optional(),
    /** a workspace/context snapshot shown to the planner */
    context: JsonValue.optional(),
    /** a plan given by the caller (no model call to plan) */
    document: PlanDocument.optional(),
    /** values of the document's parameters, checked against their JSON Schemas */
    params: z.record(z.string(), JsonValue).optional(),
    /** the task this plan serves @default the workflow id */
    taskId: z.string().min(1).optional(),
    /** start executing without review */
    approve: z.boolean().optional(),
    /** options; the document's options apply where these say nothing (see resolvePlanOptions) */
    options: PlanOptions.optional(),
    /** set by the workflow itself when it continues as new */
    carried: z.unknown().optional(),
  })
  .refine((p) => p.request !== undefined || p.document !== undefined || p.carried !== undefined, {
    message: 'a plan needs a request (planner) or a document (given plan)',
  });
export type PlanInput = z.input<typeof PlanInput>;

/** A change to the plan: one entry per version. */
export interface PlanVersion {
  version: number;
  /** `created by the planner`, `edited args of step write_config`, ... */
  change: string;
  by: string | null;
  at: string;
  steps: Plan['steps'];
}

export interface ProgressEvent {
  planId: string;
  stepId: string;
  status: StepStatus;
  /** 0-100, reported by a long-running tool */
  progress?: number;
  result?: Json;
  logs?: string[];
  at: string;
}

export interface PlanLedgerEntry {
  seq: number;
  stepId: string;
  tool: string;
  sideEffect: SideEffectClass | 'agent';
  /** empty until the step's activity reported it */
  idempotencyKey: string;
  status: 'running' | 'completed' | 'failed';
  attempts: number;
  result?: Json;
  error?: string;
  /** the step's tool ran but its result could not be kept: `result` is the marker */
  unavailable?: ResultUnavailable;
  /** the attempts before the last that failed, each with its error: why it was retried */
  failedAttempts?: FailedAttempt[];
  /** activity id, or the child workflow id of an agent step */
  activity: string;
}

/** What waits for a person's approval: a step, or one item of a for-each step. */
export interface StepApprovalRequest {
  /** what a verdict names: the step id, or `ID[N]` for item N of a for-each step */
  key: string;
  stepId: string;
  /** the for-each item, null for the whole step */
  item: number | null;
  description: string;
  tool: string | null;
  /** the args exactly as they will run */
  args: Json;
  onTimeout: 'deny' | 'fail' | null;
  /** the roles allowed to give a verdict (the step's tool's approvers; absent: anyone who may send updates) */
  approvers?: string[];
}

/** A step (or item) waiting for a person. */
export type PendingStepApproval = Pending<StepApprovalRequest>;

/** Every approval and denial of a step (or item), and each deadline that passed: who, when, note, args hash. */
export type StepApprovalRecord = Recorded<StepApprovalRequest>;

/** A question step waiting for a person's answer. */
export interface PendingQuestion {
  stepId: string;
  description: string;
  question: string;
  /** JSON Schema the answer must match */
  schema: { [key: string]: Json };
  since: string;
}

/** A tool's side-effect class, as the plan's catalog has it. */
export interface ToolClass {
  sideEffect: SideEffectClass;
  destructive: boolean;
}

export interface PlanStatusView {
  planId: string;
  runId: string;
  agent: string;
  status: PlanStatus;
  version: number;
  plan: Plan | null;
  /** what waits for approval now */
  approvals: PendingStepApproval[];
  /** every approval, denial and passed deadline so far */
  approvalRecords: StepApprovalRecord[];
  /** the side-effect class of each tool of the plan's catalog (absent from readers of older workers) */
  toolClasses?: Record<string, ToolClass>;
  questions: PendingQuestion[];
  summary: ExecutionSummary | null;
  error: string | null;
  budgets: {
    used: { wallClockMs: number; toolCalls: number; recoveries: number };
    limits: { wallClockMs?: number; toolCalls?: number };
  };
  rejectedSignals: Array<{ signal: string; reason: string }>;
}

export interface ProgressView {
  events: ProgressEvent[];
  plan: Plan | null;
  counts: Record<StepStatus, number>;
  status: PlanStatus;
}

// ---------------------------------------------------------------- messages

export interface StepVerdict {
  stepId: string;
  /** the item of a for-each step whose items wait for their own approvals */
  item?: number;
  by?: string;
  note?: string;
  /** for a denial: why */
  reason?: string;
  /** for an approval: the hash of the args the approver saw (src/history/hash.ts), checked by the audit */
  argsHash?: string;
  /** the role the person acts with: required, and recorded, when the step's tool names its approvers */
  role?: string;
}

/** A person's answer to a question step. */
export interface StepAnswer {
  stepId: string;
  /** the answer, JSON matching the question's schema */
  value: Json;
  by?: string;
}

/** An accepted answer: the plan's version and status, and the answer as recorded (the step's result). */
export interface AnswerAck extends PlanAck {
  stepId: string;
  answer: Json;
}

export interface StepProgressReport {
  stepId: string;
  progress?: number;
  log?: string;
}

export interface PlanAck {
  version: number;
  status: PlanStatus;
}

// ---------------------------------------------------------------- activities

export interface CatalogDescription {
  /** `approvers`: the roles allowed to approve or deny the tool's steps (absent in older histories and for tools naming none) */
  tools: Record<string, { sideEffect: SideEffectClass; destructive: boolean; approvers?: string[] }>;
  agents: string[];
}

export type PlanOutcome =
  | { ok: true; plan: Plan; change: string; attempts: number; tokens: number }
  | { ok: false; problems: PlanProblem[]; message: string; attempts: number; tokens: number };

export interface PreparePlanRequest {
  agent: string;
  planId: string;
  taskId: string;
  createdAt: string;
  request?: string;
  context?: Json;
  document?: { steps: unknown[]; params?: Record<string, Record<string, Json>>; estimatedDuration?: number };
  /** values of the document's parameters */
  params?: Record<string, Json>;
  /** the plan's step limit (its maxSteps option, from the workflow's input) @default 1000 */
  maxSteps?: number;
}

export interface EditPlanRequest {
  agent: string;
  plan: Plan;
  edit: unknown;
  /** the plan's step limit, as in PreparePlanRequest */
  maxSteps?: number;
}

export interface RegenerateRequest {
  agent: string;
  plan: Plan;
  feedback: string;
  request?: string;
  context?: Json;
  /** the plan's step limit, as in PreparePlanRequest */
  maxSteps?: number;
}

export interface RecoveryRequest {
  agent: string;
  plan: Plan;
  stepId: string;
  error: string;
  request?: string;
  /** the plan's step limit, as in PreparePlanRequest */
  maxSteps?: number;
}

export type RecoveryOutcome =
  | { kind: 'applied'; plan: Plan; change: string; action: string; tokens: number }
  | { kind: 'abort'; reason: string; tokens: number }
  | { kind: 'invalid'; message: string; tokens: number };

export interface StepRequest {
  agent: string;
  planId: string;
  stepId: string;
  tool: string;
  args: Json;
  /** the item's index in a forEach step (part of its idempotency key) */
  item?: number;
}

/** An answer to check against its question's schema (on the worker: zod stays out of the workflow). */
export interface CheckAnswerRequest {
  planId: string;
  stepId: string;
  ask: { question: string; schema: { [key: string]: Json } };
  value: Json;
}
export type CheckAnswerOutcome = { ok: true; value: Json } | { ok: false; message: string };

/** A step's condition and computed args, evaluated on the worker before its approval gate (src/plans/evaluate.ts). */
export interface EvaluateStepRequest extends StepEvaluation {
  planId: string;
}

/** `skip` when the condition was falsy (args not computed); `each`: a forEach step's args, one per item. */
export type EvaluateStepOutcome = EvaluatedStep;

export interface StepOutcome {
  result: Json;
  attempt: number;
  idempotencyKey: string;
  /** the attempts before the one that answered, each with its error */
  failedAttempts?: FailedAttempt[];
  /** the tool ran but its result could not be kept (`result` is the marker) */
  unavailable?: ResultUnavailable;
}

/** What is carried across continue-as-new. */
export interface PlanCarried {
  plan: Plan;
  versions: PlanVersion[];
  events: ProgressEvent[];
  ledger: PlanLedgerEntry[];
  status: PlanStatus;
  catalog: CatalogDescription;
  startedAtMs: number;
  toolCalls: number;
  recoveries: number;
  tokens: number;
  chain: string[];
  /** the approval records (absent in histories from before them); `approvals`, as the mission's carried state names its own */
  approvals?: StepApprovalRecord[];
  /** @deprecated the name of `approvals` in histories recorded before issue 40; read, never written */
  approvalRecords?: StepApprovalRecord[];
  options: PlanOptions;
}

export type { PlanOptions };

/**
 * The plan's activities as its workflow calls them (implemented by src/activities/plans.ts,
 * which is checked against this), so workflow code imports nothing from src/activities.
 */
export interface PlanActivities {
  describePlanAgent(req: { agent: string }): Promise<CatalogDescription>;
  preparePlan(req: PreparePlanRequest): Promise<PlanOutcome>;
  editPlan(req: EditPlanRequest): Promise<PlanOutcome>;
  regeneratePlan(req: RegenerateRequest): Promise<PlanOutcome>;
  recoverStep(req: RecoveryRequest): Promise<RecoveryOutcome>;
  evaluatePlanStep(req: EvaluateStepRequest): Promise<EvaluateStepOutcome>;
  checkPlanAnswer(req: CheckAnswerRequest): Promise<CheckAnswerOutcome>;
  runPlanStep(req: StepRequest): Promise<StepOutcome>;
}
