/**
 * The plan executor's data model, as zod schemas with the TypeScript types derived from
 * them. Pure: safe in the workflow sandbox, shared by the planner, the workflow, the
 * client and the CLI.
 *
 * A step as written (by the planner or a person) is a {@link StepSpec}; inside a plan it
 * is a {@link Step}: the spec plus its position, status and result.
 */
import { z } from 'zod';

import { DEFAULT_HEARTBEAT_MS, DEFAULT_TOOL_MS, type SideEffectClass } from '../kernel/contract.ts';
import { FailedAttempt, JsonValue, Problem } from '../kernel/schemas.ts';

export type { Json } from '../kernel/contract.ts';
export { JsonValue } from '../kernel/schemas.ts';
const JsonObject = z.record(z.string(), JsonValue);

import { DEFAULT_MAX_STEPS } from './limits.ts';
import { PARAM_NAME, STEP_ID } from './references.ts';

export { PARAM_NAME, STEP_ID } from './references.ts';
export const StepId = z
  .string({ error: 'must be a string' })
  .regex(STEP_ID, 'must be letters, digits, _ and - (no dots: `$id.path` references a step result)');

export const STEP_STATUSES = [
  'pending',
  'blocked',
  'ready',
  'running',
  'awaiting_approval',
  'awaiting_answer',
  'completed',
  'failed',
  'skipped',
] as const;
export const StepStatus = z.enum(STEP_STATUSES);
export type StepStatus = z.infer<typeof StepStatus>;

export const StepResult = z.object({
  ok: z.boolean(),
  value: JsonValue.optional(),
  error: z.string().optional(),
  /** ms from the step's start to its end (approval waits not counted) */
  duration: z.number().nonnegative(),
  /** ISO time the step ended */
  timestamp: z.string(),
  attempts: z.number().int().nonnegative(),
  /** the attempts before the last that failed, each with its error: why the step was retried */
  failedAttempts: z.array(FailedAttempt).optional(),
});
export type StepResult = z.infer<typeof StepResult>;

export const RetrySpec = z.strictObject({ maxAttempts: z.number().int().min(1).max(50) });
export type RetrySpec = z.infer<typeof RetrySpec>;

/** A question for a person: the answer (JSON, checked against `schema`) is the step's result. */
export const AskSpec = z.strictObject({
  /** the question, or `{"$expr": "..."}` computing it from the steps it depends on */
  question: z.union([
    z.string().min(1, 'an empty question'),
    z.strictObject({ $expr: z.string().min(1, 'an empty expression') }),
  ]),
  /** JSON Schema of the answer; any part of it may be `{"$expr": "..."}` (choices computed from earlier results) */
  schema: JsonObject,
});
export type AskSpec = z.infer<typeof AskSpec>;

/**
 * A step as written. Exactly one kind: a tool step (`tool` + `args`), an agent step
 * (`agent` + `input`, run as a Navigator mission in a child workflow) or a question
 * (`ask`, answered by a person).
 */
export const StepSpec = z
  .object({
    id: StepId,
    description: z.string().default(''),
    tool: z.string().min(1).optional(),
    args: JsonObject.optional(),
    agent: z.string().min(1).optional(),
    input: JsonObject.optional(),
    ask: AskSpec.optional(),
    /** a PTC-Lisp expression over earlier results: the step's result is its value (no tool runs) */
    compute: z.string().min(1, 'an empty expression').optional(),
    dependsOn: z.array(z.string()).default([]),
    /** a failed non-critical step does not stop the plan @default true */
    critical: z.boolean().default(true),
    /** default: true for tools of class external or marked destructive, else false */
    requiresApproval: z.boolean().optional(),
    /** default: the side-effect class's retry policy */
    retry: RetrySpec.optional(),
    /** a PTC-Lisp condition: when falsy (nil or false) the step is skipped, "condition false" */
    when: z.string().min(1, 'an empty condition').optional(),
    /** a PTC-Lisp expression giving a list: the tool runs once per item, `item` bound in its args */
    forEach: z.string().min(1, 'an empty forEach expression').optional(),
    /** most items a forEach may give; more fails the step @default 100 */
    maxItems: z.number().int().min(1).max(10_000).optional(),
  })
  .superRefine((s, ctx) => {
    const isTool = s.tool !== undefined;
    const isAgent = s.agent !== undefined;
    const isAsk = s.ask !== undefined;
    const isCompute = s.compute !== undefined;
    if (Number(isTool) + Number(isAgent) + Number(isAsk) + Number(isCompute) !== 1) {
      const path = isCompute
        ? isTool
          ? 'tool'
          : isAgent
            ? 'agent'
            : 'ask'
        : isAsk
          ? isTool
            ? 'tool'
            : 'agent'
          : isTool
            ? 'agent'
            : 'tool';
      ctx.addIssue({
        code: 'custom',
        path: [path],
        message:
          'a step names exactly one of `tool` (with `args`), `agent` (with `input`), `ask` (a question) or `compute` (an expression)',
      });
    }
    if (isCompute) {
      for (const key of ['args', 'input', 'forEach', 'retry'] as const) {
        if (s[key] !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `a compute step takes no ${key}: its result is the value of its expression`,
          });
      }
      if (s.requiresApproval === true)
        ctx.addIssue({
          code: 'custom',
          path: ['requiresApproval'],
          message: 'a compute step changes nothing: it needs no approval',
        });
    }
    if (isAsk) {
      // requiresApproval false is what a built step carries; only true is refused
      for (const key of ['args', 'input', 'forEach', 'requiresApproval', 'retry'] as const) {
        if (s[key] !== undefined && s[key] !== false)
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `a question (ask) takes no ${key}: a person answers it`,
          });
      }
    }
    if (isTool && s.input !== undefined)
      ctx.addIssue({ code: 'custom', path: ['input'], message: 'a tool step takes `args`, not `input`' });
    if (isAgent && s.args !== undefined)
      ctx.addIssue({ code: 'custom', path: ['args'], message: 'an agent step takes `input`, not `args`' });
    if (isAgent && s.forEach !== undefined)
      ctx.addIssue({ code: 'custom', path: ['forEach'], message: 'forEach is for tool steps' });
    if (s.maxItems !== undefined && s.forEach === undefined)
      ctx.addIssue({ code: 'custom', path: ['maxItems'], message: 'maxItems goes with forEach' });
  });
export type StepSpec = z.output<typeof StepSpec>;
export type StepSpecInput = z.input<typeof StepSpec>;

/** A step inside a plan. */
export const Step = z.object({
  id: StepId,
  order: z.number().int().nonnegative(),
  description: z.string(),
  tool: z.string().optional(),
  args: JsonObject.optional(),
  agent: z.string().optional(),
  input: JsonObject.optional(),
  ask: AskSpec.optional(),
  compute: z.string().optional(),
  dependsOn: z.array(z.string()),
  critical: z.boolean(),
  /** resolved: the step's own choice, else the tool's default */
  requiresApproval: z.boolean(),
  retry: RetrySpec.optional(),
  when: z.string().optional(),
  forEach: z.string().optional(),
  maxItems: z.number().int().optional(),
  /**
   * the args (or input) as they ran, once its `$expr` values were computed on the worker;
   * for a forEach step, the list of each item's args
   */
  resolved: JsonValue.optional(),
  status: StepStatus,
  result: StepResult.optional(),
  /** why a step was skipped or blocked (denial reason, "skipped by the reviewer", ...) */
  reason: z.string().optional(),
  /** set when a reviewer or a recovery skipped the step (not a denial) */
  skippedBy: z.enum(['reviewer', 'recovery', 'denial', 'condition']).optional(),
  /** who answered the step's question */
  answeredBy: z.string().optional(),
});
export type Step = z.infer<typeof Step>;

/** A plan parameter: its JSON Schema as declared and the value the plan runs with. */
export const PlanParam = z.object({ schema: JsonObject, value: JsonValue });
export type PlanParam = z.infer<typeof PlanParam>;

export const Plan = z.object({
  id: z.string().min(1),
  /** the task (request) this plan serves */
  taskId: z.string().min(1),
  version: z.number().int().positive(),
  steps: z.array(Step),
  /** parameters by name (absent: the plan has none) */
  params: z.record(z.string(), PlanParam).optional(),
  /** the planner's estimate, in seconds */
  estimatedDuration: z.number().nonnegative().optional(),
  createdAt: z.string(),
});
export type Plan = z.infer<typeof Plan>;

const positiveInt = z.number().int().positive();

export const PlanOptions = z.strictObject({
  /** after a step's retries are exhausted: ask the model, abort the plan, or go on @default ask */
  onFailure: z.enum(['ask', 'abort', 'continue']).default('ask'),
  /** how long a step waits for approval; none = forever */
  approvalTimeoutMs: positiveInt.optional(),
  /** at the approval deadline: deny the step (skipped) or fail the plan @default deny */
  onApprovalTimeout: z.enum(['deny', 'fail']).default('deny'),
  /**
   * what a person's denial of a step means: `block` skips it and blocks its dependents; `ask`
   * has the model revise the step from the denial's reason (as a recovery, within
   * maxRecoveries) and the revised step asks again; `abort` stops the plan @default block
   */
  onDenial: z.enum(['block', 'ask', 'abort']).default('block'),
  budgets: z
    .strictObject({
      /** wall-clock time of the whole plan, review included */
      wallClockMs: positiveInt.optional(),
      /** tool attempts (each activity attempt of a tool step) */
      toolCalls: positiveInt.optional(),
    })
    .prefault({}),
  /** recovery answers the model may give before the plan fails @default 5 */
  maxRecoveries: positiveInt.default(5),
  /** continue-as-new once history has this many events (only between steps) @default 2000 */
  continueAsNewAfterEvents: positiveInt.default(2000),
  /**
   * most steps the plan may have, as given, planned, edited or recovered (its step list; a
   * for-each step counts once, and its maxItems may not be above this)
   * @default 1000 (DEFAULT_MAX_STEPS, src/plans/limits.ts)
   */
  maxSteps: positiveInt.default(DEFAULT_MAX_STEPS),
  timeouts: z
    .strictObject({
      /** longest one tool step attempt may run @default 5 minutes */
      stepMs: positiveInt.default(DEFAULT_TOOL_MS),
      /** a step whose worker stops heartbeating this long is retried elsewhere @default 5 s (as a mission's effects) */
      heartbeatMs: positiveInt.default(DEFAULT_HEARTBEAT_MS),
      /** longest a planner or recovery model call may run @default 5 minutes */
      modelMs: positiveInt.default(5 * 60_000),
    })
    .prefault({}),
  /**
   * A Keyword search attribute the plan keeps set to its status, so plans can be listed by
   * status (`navigator list --kind plans --status review`); it must be registered on the
   * namespace (`temporal operator search-attribute create --name NavigatorStatus --type Keyword`).
   */
  statusSearchAttribute: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a search attribute name')
    .optional(),
});
export type PlanOptions = z.output<typeof PlanOptions>;
export type PlanOptionsInput = z.input<typeof PlanOptions>;

/** What the planner answers and what a caller may give as a file: steps and options. */
export const PlanDocument = z.object({
  steps: z.array(z.unknown()).min(1, 'a plan needs at least one step'),
  /** parameters: name -> JSON Schema; values are given at start (`--params`) */
  params: z.record(z.string().regex(PARAM_NAME, 'a parameter name is letters, digits, _ and -'), JsonObject).optional(),
  estimatedDuration: z.number().nonnegative().optional(),
  options: PlanOptions.optional(),
});
export type PlanDocument = z.infer<typeof PlanDocument>;

/** Final (and current) status of a plan workflow. */
export const PLAN_STATUSES = [
  'planning',
  'review',
  'running',
  'completed',
  'completed_with_failures',
  'failed',
  'cancelled',
] as const;
export const PlanStatus = z.enum(PLAN_STATUSES);
export type PlanStatus = z.infer<typeof PlanStatus>;

/**
 * What validation knows about the tools and agents a plan may use. `input` is the tool's
 * zod schema; without it (inside the workflow) args are not checked, only the structure.
 */
export interface ToolInfo {
  sideEffect: SideEffectClass;
  destructive: boolean;
  input?: z.ZodType;
}
export interface Catalog {
  tools: ReadonlyMap<string, ToolInfo>;
  agents: ReadonlySet<string>;
  /** each agent's input schema; without it an agent step's input is not checked */
  agentInputs?: ReadonlyMap<string, z.ZodType>;
}

export const PROBLEM_CODES = [
  'invalid_step',
  'duplicate_id',
  'unknown_tool',
  'unknown_agent',
  'invalid_args',
  'unknown_dependency',
  'self_dependency',
  'cycle',
  'reference_not_a_dependency',
  'invalid_reference',
  // computed values and parameters
  'invalid_expression',
  'unknown_param',
  'missing_param',
  'invalid_param',
  // questions
  'invalid_question',
  // a model answer that is not a plan document at all
  'invalid_answer',
  // more steps than the plan's maxSteps
  'too_many_steps',
  // edits and recovery actions
  'invalid_edit',
  'unknown_step',
  'not_editable',
  'has_dependents',
  'invalid_order',
] as const;
/** A problem of a plan: the kernel's Problem (src/kernel/schemas.ts), with its step. */
export const PlanProblem = Problem.extend({
  code: z.enum(PROBLEM_CODES),
  /** null for problems of the plan as a whole */
  stepId: z.string().nullable(),
  /** where inside the step, e.g. `args.path` or `dependsOn.1` ('' for the step itself) */
  path: z.string(),
});
export type PlanProblem = z.infer<typeof PlanProblem>;

/** The default approval rule: external tools and destructive tools wait for a person. */
export function defaultRequiresApproval(
  spec: Pick<StepSpec, 'tool' | 'agent'>,
  catalog: Pick<Catalog, 'tools'>,
): boolean {
  if (spec.tool === undefined) return false;
  const info = catalog.tools.get(spec.tool);
  if (!info) return false;
  return info.sideEffect === 'external' || info.destructive;
}
