/**
 * Workflow interceptors (bundled with the workflows; spans go nowhere when tracing is off): a
 * `navigator.decision` span for each decision a mission or plan accepts, in the mission's
 * own trace (under its RunWorkflow span) and linked to the trace of whoever decided. Spans
 * leave the sandbox through Temporal's exporter sink, which replays do not call. A run
 * started without a trace (workflow-tracing.ts) has no workflow spans: no decision spans
 * either, and OpenTelemetry is never loaded for it.
 */
import type * as Otel from '@opentelemetry/api';
import { SdkFlags } from '@temporalio/workflow/lib/flags.js';
import { getActivator } from '@temporalio/workflow/lib/global-attributes.js';
import {
  type Next,
  type SignalInput,
  type UpdateInput,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
  workflowInfo,
} from '@temporalio/workflow';
import { otelApi } from './lazy-tracing.cjs';
import { runIsTraced } from './workflow-tracing.ts';

/**
 * OpenTelemetry's API is loaded by a traced run only, at first use (lazy-tracing.cjs).
 * Temporal's interceptors (workflow-tracing.ts, which runs first) have registered the
 * sandbox's tracer provider by then.
 */

/** Messages that carry a decision, and how to read its key and value. */
const DECISIONS: Record<string, (arg: Record<string, unknown>) => { key: string; value: unknown }> = {
  decide: (a) => ({ key: String(a.key ?? ''), value: a.value }),
  approveStep: (a) => ({ key: String(a.stepId ?? ''), value: 'approve' }),
  denyStep: (a) => ({ key: String(a.stepId ?? ''), value: 'deny' }),
  approvePlan: () => ({ key: 'plan', value: 'approve' }),
};

class DecisionSpans implements WorkflowInboundCallsInterceptor {
  private run: Otel.Context | undefined;
  private owner: Otel.Attributes = {};

  execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    recordUpdateFlagAtStart();
    if (runIsTraced()) this.run = otelApi().context.active();
    const arg = (input.args[0] ?? {}) as { runId?: string; agent?: string };
    const workflowId = workflowInfo().workflowId;
    this.owner = {
      'navigator.workflow_id': workflowId,
      'navigator.run_id': arg.runId ?? workflowId,
      'navigator.agent': arg.agent ?? '',
    };
    return next(input);
  }

  // The handler's own promise is returned untouched: an extra await here would move the
  // update's completion among the workflow's commands, and histories would stop replaying.
  handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>): Promise<unknown> {
    const out = next(input);
    out.then(
      () => this.record(input.name, input.args[0], 'update'),
      () => undefined,
    );
    return out;
  }

  handleSignal(input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>): Promise<void> {
    const out = next(input);
    out.then(
      () => this.record(input.signalName, input.args[0], 'signal'),
      () => undefined,
    );
    return out;
  }

  private record(name: string, raw: unknown, via: string): void {
    const read = DECISIONS[name];
    if (!read || !this.run) return;
    const otel = otelApi();
    const arg = (raw ?? {}) as Record<string, unknown>;
    const { key, value } = read(arg);
    const decider = otel.trace.getSpanContext(otel.context.active());
    const span = otel.trace.getTracer('navigator').startSpan(
      'navigator.decision',
      {
        attributes: {
          ...this.owner,
          'navigator.decision.key': key,
          'navigator.decision.value': JSON.stringify(value ?? null).slice(0, 256),
          'navigator.decision.by': String(arg.by ?? ''),
          'navigator.decision.via': via,
        },
        links: decider ? [{ context: decider }] : [],
      },
      this.run,
    );
    span.end();
  }
}

/**
 * Temporal's tracing interceptors change their update handling (extra yield points) under an
 * SDK flag, and the first use of a flag is recorded in the history of the workflow task that
 * used it. A real server drops the workflow task of an update its validator rejected (a
 * speculative task), flag record included, while the worker believes the flag recorded: an
 * update accepted later then replays without the flag, in another command order, and fails
 * with a nondeterminism error (`Update machine does not handle this event: TimerCanceled`).
 * Using the flag in the first workflow task, which is never speculative, records it for good.
 * Replaying an older history, the flag stays as that history recorded it.
 */
function recordUpdateFlagAtStart(): void {
  getActivator().hasFlag(SdkFlags.OpenTelemetryInterceptorsInstrumentsAllMethods);
}

export const interceptors = (): WorkflowInterceptors => ({ inbound: [new DecisionSpans()] });
