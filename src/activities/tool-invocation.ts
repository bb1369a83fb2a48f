/**
 * One tool call inside an activity, for a mission's effect (`runTool`) and a plan's step
 * (`runPlanStep`) alike: args checked against the tool's schema, the handler run under a
 * heartbeat and a span, its answer made plain JSON, and its failure typed the same way
 * for both. A refusal (`ToolRejected`) will not change on retry, so it is final in both;
 * any other error is retried by the activity's retry policy.
 */
import type { Context } from '@temporalio/activity';
import type { Json } from '../kernel/contract.ts';
import { issuesText } from '../kernel/contract.ts';
import { failure } from '../kernel/failures.ts';
import { fromJson, toJson } from '../lisp/json.ts';
import type { ToolContext } from '../lisp/tools.ts';
import { inSpan } from '../telemetry/spans.ts';
import type { lookupTool } from './agents.ts';
import { withHeartbeat } from './heartbeat.ts';
import type { FailedAttempt } from '../kernel/schemas.ts';
import { earlierFailures, failedAttempt, withFailures } from './attempts.ts';
import type { ResultUnavailable } from '../kernel/schemas.ts';
import { type ResultRecording, overCap, prepareAnswer, unavailableValue } from './recording.ts';

export interface ToolInvocation {
  tool: ReturnType<typeof lookupTool>;
  args: unknown;
  /** how messages name the call: `charge_card`, `step charge (charge_card)` */
  label: string;
  /** what an args path starts with in messages (`args.amount`), none for bare paths */
  argsPrefix?: string[];
  context: Omit<ToolContext, 'signal'>;
  /** sent back with a failure (attempt, idempotency key) so the workflow can show them */
  details: Record<string, Json>;
  heartbeatEveryMs: number;
  /** how results are kept (size caps, the payload store) */
  recording: ResultRecording;
  /** what the heartbeat says the activity is doing */
  doing?: () => unknown;
  /**
   * The call is an effect that must happen once (a mission's effect: an external tool, or one
   * that waited for a person's approval whatever its class): when its result cannot be kept,
   * it is recorded as done with the result unavailable, never failed into a retry that
   * would run it again. Otherwise (a read, a plan step that is not external) it fails.
   */
  once: boolean;
  span: { name: string; attributes: Record<string, string | number | boolean> };
}

/** A tool's answer, with the attempts before this one that failed (empty on a first try). */
export interface ToolAnswer {
  result: Json;
  failedAttempts: FailedAttempt[];
  /** the tool ran but its result is not kept: `result` is the marker (recording.ts) */
  unavailable?: ResultUnavailable;
}

/**
 * The activity's answer made recordable (recording.ts): stored ahead when large; when it
 * cannot be recorded, an effect that must happen once (`call.once`) answers the marker (it
 * happened and must not run again), any other fails with a final `ResultTooLarge` or a retryable
 * `PayloadStoreUnavailable`.
 */
export async function recordableAnswer<T extends { result: Json; unavailable?: ResultUnavailable }>(
  ctx: Context,
  call: ToolInvocation,
  answer: T,
  rec: ResultRecording,
): Promise<T> {
  const problem = await prepareAnswer(ctx, answer, call.label, rec, call.heartbeatEveryMs);
  if (!problem) return answer;
  if (call.once) return { ...answer, result: unavailableValue(call.tool.name, problem), unavailable: problem };
  if (problem.reason === 'store_unavailable')
    throw failure('PayloadStoreUnavailable', problem.message, { retryable: true, details: [call.details] });
  throw failure('ResultTooLarge', problem.message, { details: [call.details] });
}

export async function invokeTool(ctx: Context, call: ToolInvocation): Promise<ToolAnswer> {
  const { tool } = call;
  const earlier = earlierFailures(ctx.info);
  // the attempts so far travel with the call's failure, and in the heartbeat for the next attempt
  const details = [{ ...call.details, ...(earlier.length ? { failedAttempts: earlier } : {}) }];
  const args = tool.input.safeParse(call.args);
  if (!args.success) {
    const issues = issuesText(args.error, 'args', call.argsPrefix);
    throw failure('InvalidToolArgs', `invalid arguments for ${call.label}: ${issues}`, { details });
  }
  let out: unknown;
  try {
    const run = () =>
      inSpan(call.span.name, call.span.attributes, async (span) => {
        const answer = await tool.handler(args.data, { ...call.context, signal: ctx.cancellationSignal });
        span.setAttribute(`${call.span.name}.status`, 'completed');
        return answer;
      });
    const beat = earlier.length || call.doing ? () => withFailures(call.doing?.(), earlier) : undefined;
    out = await withHeartbeat(ctx, call.heartbeatEveryMs, run, beat);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof Error && err.name === 'ToolRejected') {
      throw failure('ToolRejected', `tool ${tool.name} rejected the call: ${message}`, { details });
    }
    const text = `tool ${tool.name} failed: ${message}`;
    // the last heartbeat is sent before the failure: the next attempt reads this list
    ctx.heartbeat(withFailures(call.doing?.(), [...earlier, failedAttempt(ctx.info.attempt, 'ToolError', text, err)]));
    throw failure('ToolError', text, { retryable: true, details });
  }
  const result = toJson(fromJson((out ?? null) as Json));
  const tooLarge = overCap(tool.name, result, call.recording);
  if (!tooLarge) return { result, failedAttempts: earlier };
  // the effect happened: it is recorded as done without its result, never run again
  if (call.once)
    return { result: unavailableValue(tool.name, tooLarge), failedAttempts: earlier, unavailable: tooLarge };
  throw failure('ResultTooLarge', tooLarge.message, { details });
}
