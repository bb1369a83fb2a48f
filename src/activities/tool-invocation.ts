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
  /** what the heartbeat says the activity is doing */
  doing?: () => unknown;
  span: { name: string; attributes: Record<string, string | number | boolean> };
}

/** A tool's answer, with the attempts before this one that failed (empty on a first try). */
export interface ToolAnswer {
  result: Json;
  failedAttempts: FailedAttempt[];
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
  try {
    const run = () =>
      inSpan(call.span.name, call.span.attributes, async (span) => {
        const out = await tool.handler(args.data, { ...call.context, signal: ctx.cancellationSignal });
        span.setAttribute(`${call.span.name}.status`, 'completed');
        return out;
      });
    const beat = earlier.length || call.doing ? () => withFailures(call.doing?.(), earlier) : undefined;
    const out = await withHeartbeat(ctx, call.heartbeatEveryMs, run, beat);
    return { result: toJson(fromJson((out ?? null) as Json)), failedAttempts: earlier };
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
}
