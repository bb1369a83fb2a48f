/**
 * Temporal's OpenTelemetry workflow interceptors, left out of a plan that was started
 * without a trace (bundled with the workflows in their place).
 *
 * They cost a plan step 13 of its 18 promises, and the SDK captures a source-mapped stack
 * trace for every promise a workflow makes: most of a step's workflow time, tracing on or
 * off. They add no commands, but their extra promise steps move when an activity's result,
 * an update's completion or the workflow's end reaches the code after it, and so the order
 * of commands when several things happen in one workflow task. Whether a run has them must
 * therefore come from its history, never from the replaying worker's settings:
 *  - a run whose start carried a trace context (the starting client traced) keeps them;
 *  - a plan started without one leaves them out, and records that with a patch marker in
 *    its first workflow task, so a history from before this marker replays with them, as it
 *    was recorded, and a history with it replays without them on any worker;
 *  - other workflows (missions) keep them always, as before.
 * A worker that traces still traces an untraced start's activities (as traces of their own),
 * but not the plan's workflow; a plan's continue-as-new and child missions follow the run.
 */
import { interceptors as temporalInterceptors } from '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors.js';
import { type WorkflowInboundCallsInterceptor, type WorkflowInterceptors, type WorkflowOutboundCallsInterceptor, patched, workflowInfo } from '@temporalio/workflow';

/** The header Temporal's client interceptor puts the trace context in. */
const TRACE_HEADER = '_tracer-data';
/** Marks runs started without a trace context that run without the interceptors. */
export const UNTRACED_PATCH = 'untraced-start-without-otel-interceptors';
/** The workflow types that may leave them out (PLAN_WORKFLOW of src/client/plans.ts, not importable into the bundle). */
const GATED_TYPES: ReadonlySet<string> = new Set(['planExecution']);

type Method = (input: unknown, next: (input: unknown) => unknown) => unknown;

/**
 * An interceptor that calls `inner`'s method while `on()`, else goes straight to `next`; the
 * inner method's result is returned untouched (no promise step of its own).
 */
function gated<T extends object>(inner: T, on: () => boolean): Record<string, Method> {
  const out: Record<string, Method> = {};
  let proto: object | null = inner;
  while (proto && proto !== Object.prototype) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const method = (inner as Record<string, unknown>)[name];
      if (name === 'constructor' || typeof method !== 'function' || name in out) continue;
      out[name] = (input, next) => (on() ? (method as Method).call(inner, input, next) : next(input));
    }
    proto = Object.getPrototypeOf(proto);
  }
  return out;
}

export const interceptors = (): WorkflowInterceptors => {
  const temporal = temporalInterceptors();
  let traced = true;
  const on = () => traced;
  const inbound = gated(temporal.inbound![0]!, on) as WorkflowInboundCallsInterceptor;
  const execute = inbound.execute!;
  // the first call into a run: decide once, from the start event (and the marker on replay)
  inbound.execute = (input, next) => {
    if (GATED_TYPES.has(workflowInfo().workflowType) && input.headers[TRACE_HEADER] === undefined && patched(UNTRACED_PATCH)) traced = false;
    return execute(input, next);
  };
  return {
    inbound: [inbound],
    outbound: [gated(temporal.outbound![0]!, on) as WorkflowOutboundCallsInterceptor],
    internals: temporal.internals ?? [],
  };
};
