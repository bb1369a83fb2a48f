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

export async function invokeTool(ctx: Context, call: ToolInvocation): Promise<Json> {
  const { tool } = call;
  const args = tool.input.safeParse(call.args);
  if (!args.success) {
    const issues = issuesText(args.error, 'args', call.argsPrefix);
    throw failure('InvalidToolArgs', `invalid arguments for ${call.label}: ${issues}`, { details: [call.details] });
  }
  try {
    const run = () =>
      inSpan(call.span.name, call.span.attributes, async (span) => {
        const out = await tool.handler(args.data, { ...call.context, signal: ctx.cancellationSignal });
        span.setAttribute(`${call.span.name}.status`, 'completed');
        return out;
      });
    const out = await withHeartbeat(ctx, call.heartbeatEveryMs, run, call.doing);
    return toJson(fromJson((out ?? null) as Json));
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof Error && err.name === 'ToolRejected') {
      throw failure('ToolRejected', `tool ${tool.name} rejected the call: ${message}`, { details: [call.details] });
    }
    throw failure('ToolError', `tool ${tool.name} failed: ${message}`, { retryable: true, details: [call.details] });
  }
}
