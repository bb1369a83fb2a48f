/**
 * Our spans, beside Temporal's: a pass, each model call, each tool call, each plan step.
 * Every span carries the mission's workflow id, logical run id and agent. With no tracer
 * provider registered these go to OpenTelemetry's no-op tracer, and the wrappers below
 * return what they were given.
 */
import * as otel from '@opentelemetry/api';
import type { ChatModel } from '../llm/model.ts';
import { sideEffectOf } from '../lisp/tools.ts';
import type { AnyAgent } from '../navigator/agent.ts';

const tracer = () => otel.trace.getTracer('navigator');

/** Where a span belongs: on every span. */
export interface SpanOwner {
  workflowId: string;
  /** the mission's logical run id (shared by its continue-as-new chain and resumes) */
  runId: string;
  agent: string;
}

export const ownerAttributes = (o: SpanOwner): otel.Attributes => ({
  'navigator.workflow_id': o.workflowId,
  'navigator.run_id': o.runId,
  'navigator.agent': o.agent,
});

/** Whether a tracer provider is registered (otherwise wrapping costs and gives nothing). */
export function tracingOn(): boolean {
  const provider = otel.trace.getTracerProvider() as otel.TracerProvider & { getDelegate?: () => otel.TracerProvider };
  const delegate = provider.getDelegate ? provider.getDelegate() : provider;
  return delegate.constructor.name !== 'NoopTracerProvider';
}

/** Runs `fn` in an active span named `name`; a thrown error marks the span and goes on. */
export function inSpan<T>(
  name: string,
  attributes: otel.Attributes,
  fn: (span: otel.Span) => Promise<T>,
  parent: otel.Context = otel.context.active(),
): Promise<T> {
  return tracer().startActiveSpan(name, { attributes }, parent, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: otel.SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** A model whose every answer is a `navigator.model` span (model, tokens, duration, attempts). */
export function tracedModel(model: ChatModel, owner: SpanOwner): ChatModel {
  if (!tracingOn()) return model;
  return {
    id: model.id,
    generate: (req) =>
      inSpan('navigator.model', { ...ownerAttributes(owner), 'navigator.model': model.id }, async (span) => {
        const started = Date.now();
        const answer = await model.generate(req);
        span.setAttributes({
          'navigator.model.input_tokens': answer.usage.inputTokens,
          'navigator.model.output_tokens': answer.usage.outputTokens,
          'navigator.model.duration_ms': Date.now() - started,
        });
        return answer;
      }),
  };
}

/** Attributes of one tool call. */
export function toolAttributes(
  owner: SpanOwner,
  call: {
    tool: string;
    sideEffect: string;
    taskId: string | null | undefined;
    idempotencyKey: string;
    cached: boolean;
  },
): otel.Attributes {
  return {
    ...ownerAttributes(owner),
    'navigator.tool': call.tool,
    'navigator.tool.side_effect': call.sideEffect,
    'navigator.tool.task_id': call.taskId ?? '',
    'navigator.tool.idempotency_key': call.idempotencyKey,
    'navigator.tool.cached': call.cached,
  };
}

/**
 * The agent with each tool handler in a `navigator.tool` span under `parent` (the pass):
 * handlers run on the host while the program runs in a sandbox thread, so the parent is
 * given, not taken from the async context.
 */
export function tracedAgent<A extends AnyAgent>(agent: A, owner: SpanOwner, parent: otel.Context): A {
  if (!tracingOn()) return agent;
  const tools = agent.tools.map((tool) => ({
    ...tool,
    handler: (args: never, ctx: { idempotencyKey: string; taskId?: string | null }) =>
      inSpan(
        'navigator.tool',
        toolAttributes(owner, {
          tool: tool.name,
          sideEffect: sideEffectOf(tool),
          taskId: ctx.taskId,
          idempotencyKey: ctx.idempotencyKey,
          cached: false,
        }),
        () => Promise.resolve(tool.handler(args, ctx as never)),
        parent,
      ),
  }));
  return { ...agent, tools };
}
