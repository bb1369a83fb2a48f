/**
 * The zod schemas of the shared words in `contract.ts`, for the boundaries that parse
 * (clients, activities, tool definitions). Workflow code imports their types only.
 */
import { z } from 'zod';
import { type Json, SIDE_EFFECT_CLASSES } from './contract.ts';

export const JsonValue: z.ZodType<Json, Json> = z.lazy(() =>
  z.union([z.null(), z.boolean(), z.number(), z.string(), z.array(JsonValue), z.record(z.string(), JsonValue)]),
);

export const SideEffectClass = z.enum(SIDE_EFFECT_CLASSES);

/**
 * One problem with an input, a plan, a verdict: what kind (`code`), where (`path`, dotted;
 * '' for the whole) and why, in words. Mission and plan input guards report these; a plan's
 * problems extend it with the step (src/plans/schema.ts PlanProblem).
 */
export const Problem = z.object({
  code: z.string(),
  path: z.string(),
  message: z.string(),
});
export type Problem = z.infer<typeof Problem>;
export type SideEffectClass = z.infer<typeof SideEffectClass>;

/**
 * What approving and rejecting a decision do, in a sentence each for the person who
 * decides ("The wire is sent; it cannot be called back."). Optional: without them the
 * console derives the words from the descriptions and side-effect classes of the tools.
 */
const sentence = z.string().trim().min(1, 'must not be empty');
export const DecisionWords = z.object({
  /** what happens when the decision is approved */
  onApprove: sentence.optional(),
  /** what happens when it is rejected */
  onReject: sentence.optional(),
});
export type DecisionWords = z.infer<typeof DecisionWords>;

/**
 * One failed attempt of a tool activity (a mission effect, a plan step), kept with the
 * call so people see why it was retried; Temporal itself keeps only the last failure.
 */
export const FailedAttempt = z.object({
  attempt: z.number().int().positive(),
  /** the failure type the attempt failed with (`ToolError`, ...); `NoRecord` when it left none */
  type: z.string(),
  /** the error's first line, cut short */
  message: z.string(),
  /** the error's code when it had one (`ECONNRESET`, `ETIMEDOUT`, ...) */
  code: z.string().optional(),
  /** when it failed, by the worker's clock (absent when it left no record) */
  at: z.string().optional(),
});
export type FailedAttempt = z.infer<typeof FailedAttempt>;

/**
 * A tool ran (its effect happened) but its result could not be recorded: too large
 * (`result_too_large`), or the payload store stayed unreachable (`store_unavailable`). The
 * call is recorded as done, never run again, and the program is given a marker that says so.
 */
export const ResultUnavailable = z.object({
  reason: z.enum(['result_too_large', 'store_unavailable']),
  message: z.string(),
  /** bytes of the result that could not be kept */
  size: z.number().int().nonnegative(),
});
export type ResultUnavailable = z.infer<typeof ResultUnavailable>;
