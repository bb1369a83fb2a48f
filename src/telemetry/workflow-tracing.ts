/**
 * Temporal's OpenTelemetry workflow interceptors, left out of a run that was started
 * without a trace (bundled with the workflows in their place), and loaded only by a run
 * that uses them.
 *
 * They cost a plan step 13 of its 18 promises, and the SDK captures a source-mapped stack
 * trace for every promise a workflow makes: most of a step's workflow time, tracing on or
 * off. They add no commands, but their extra promise steps move when an activity's result,
 * an update's completion or the workflow's end reaches the code after it, and so the order
 * of commands when several things happen in one workflow task. Whether a run has them must
 * therefore come from its history, never from the replaying worker's settings:
 *  - a run whose start carried a trace context (the starting client traced) keeps them;
 *  - a plan or mission started without one leaves them out, and records that with a patch
 *    marker in its first workflow task, so a history from before this marker replays with
 *    them, as it was recorded, and a history with it replays without them on any worker
 *    (plans since the marker was added, missions since the memory issue 42: a mission
 *    recorded before that replays with them);
 *  - other workflow types keep them always.
 * A worker that traces still traces an untraced start's activities (as traces of their own),
 * but not the run's workflow; a run's continue-as-new and child missions follow the run.
 *
 * Their modules (OpenTelemetry's API, SDK and semantic conventions, ~200 KB of heap per
 * run, since the SDK loads a bundle's modules anew for each run) are required when a run
 * first calls into them, so a run that leaves them out never loads them: a waiting mission
 * started without a trace costs a worker that much less. Loading them at their first call
 * instead of when the run is made changes nothing a run does: making them starts no promise.
 */
import {
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
  type WorkflowInternalsInterceptor,
  type WorkflowOutboundCallsInterceptor,
  patched,
  workflowInfo,
} from '@temporalio/workflow';
import { contextManagerClass, otelApi, temporalInterceptors } from './lazy-tracing.cjs';
import { sharedContextStorage } from './shared-context-storage.ts';

/** The header Temporal's client interceptor puts the trace context in. */
const TRACE_HEADER = '_tracer-data';
/** Marks runs started without a trace context that run without the interceptors. */
export const UNTRACED_PATCH = 'untraced-start-without-otel-interceptors';
/**
 * The workflow types that may leave them out: PLAN_WORKFLOW of src/client/plan/client.ts and the
 * mission workflow (not importable into the bundle).
 */
const GATED_TYPES: ReadonlySet<string> = new Set(['planExecution', 'navigatorMission']);

/**
 * The methods of Temporal's interceptors (@temporalio/interceptors-opentelemetry 1.24),
 * named here so their modules need not be loaded to know them; test/telemetry checks the
 * list against the classes. `lazy`: a call before the module is loaded goes straight to
 * `next` (they only add the active span's ids, and no span is active before it loads).
 */
export const TEMPORAL_METHODS = {
  inbound: ['execute', 'handleSignal', 'handleUpdate', 'validateUpdate', 'handleQuery'],
  outbound: [
    'scheduleActivity',
    'scheduleLocalActivity',
    'startNexusOperation',
    'startChildWorkflowExecution',
    'continueAsNew',
    'signalWorkflow',
    'getLogAttributes',
    'getMetricTags',
  ],
  internals: ['dispose'],
  lazy: ['getLogAttributes', 'getMetricTags', 'dispose'],
} as const;

type Method = (input: unknown, next: (input: unknown) => unknown) => unknown;
type Side = 'inbound' | 'outbound' | 'internals';

/** Whether this run uses the interceptors (per run: the SDK loads this module for each run). */
let traced = true;

/** Whether the current run was started with a trace (undecided before its first call: true). */
export function runIsTraced(): boolean {
  return traced;
}

/**
 * Temporal's context manager (registered by its interceptors when this run made them) keeps
 * the active context in the storage all runs share (shared-context-storage.ts) instead of
 * one of its own. Its `disable`, which Temporal calls when the run leaves the cache, leaves
 * the shared storage on (the SDK turns it off with the V8 context). The run's own storage,
 * never used, costs nothing: only a storage that ran something marks promises.
 */
function shareContextStorage(
  otel: typeof import('@opentelemetry/api'),
  ContextManager: abstract new () => unknown,
): void {
  const shared = sharedContextStorage();
  const manager = (otel.context as unknown as { _getContextManager(): unknown })._getContextManager();
  if (!shared || !(manager instanceof ContextManager)) return;
  (manager as unknown as { storage: unknown }).storage = {
    run: (store: unknown, fn: (...args: unknown[]) => unknown, ...args: unknown[]) => shared.run(store, fn, ...args),
    getStore: () => shared.getStore(),
    disable: () => undefined,
  };
}

/**
 * Temporal's interceptors for this run, made on first use: their modules are loaded then
 * (lazy-tracing.cjs, whose requires the bundler makes loads at the call), not when this
 * module loads.
 */
function makeTemporal(): Record<Side, Record<string, Method>> {
  const made = temporalInterceptors()();
  shareContextStorage(otelApi(), contextManagerClass());
  return {
    inbound: made.inbound![0] as unknown as Record<string, Method>,
    outbound: made.outbound![0] as unknown as Record<string, Method>,
    internals: (made.internals?.[0] ?? {}) as unknown as Record<string, Method>,
  };
}

export const interceptors = (): WorkflowInterceptors => {
  let temporal: Record<Side, Record<string, Method>> | undefined;
  const lazy: ReadonlySet<string> = new Set(TEMPORAL_METHODS.lazy);
  /** Temporal's method while this run is traced, else straight to `next`; its result untouched (no promise step of its own). */
  const side = (which: Side): Record<string, Method> => {
    const out: Record<string, Method> = {};
    for (const name of TEMPORAL_METHODS[which]) {
      out[name] = (input, next) => {
        if (!traced || (temporal === undefined && lazy.has(name))) return next(input);
        temporal ??= makeTemporal();
        const method = temporal[which][name];
        return method ? method.call(temporal[which], input, next) : next(input);
      };
    }
    return out;
  };
  const inbound = side('inbound');
  const execute = inbound.execute!;
  // the first call into a run: decide once, from the start event (and the marker on replay)
  inbound.execute = (input, next) => {
    const headers = (input as { headers: Record<string, unknown> }).headers;
    if (GATED_TYPES.has(workflowInfo().workflowType) && headers[TRACE_HEADER] === undefined && patched(UNTRACED_PATCH))
      traced = false;
    return execute(input, next);
  };
  return {
    inbound: [inbound as WorkflowInboundCallsInterceptor],
    outbound: [side('outbound') as WorkflowOutboundCallsInterceptor],
    internals: [side('internals') as WorkflowInternalsInterceptor],
  };
};
