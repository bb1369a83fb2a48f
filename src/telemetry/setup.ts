/**
 * OpenTelemetry for workers, clients and the CLI, configured by the standard `OTEL_*`
 * environment variables and off by default. When on, Temporal's interceptors carry one
 * trace from the client call that started a mission through its workflow, every activity
 * (pass, tool, plan step) and our own spans (spans.ts); workflow-side spans leave the
 * sandbox through the plugin's sink, so replays export nothing.
 *
 * On: `OTEL_TRACES_EXPORTER=otlp|console`, or an `OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT`.
 * Off: nothing set, `OTEL_TRACES_EXPORTER=none` or `OTEL_SDK_DISABLED=true`; then nothing
 * is registered and our spans go to OpenTelemetry's no-op tracer.
 *
 * The workflow interceptors are in every bundle, on or off: Temporal's change when a
 * workflow's update completes relative to its other commands, so a history written with
 * them replays only with them. Always bundling them makes turning tracing on or off a
 * configuration change, not a workflow code change (off, their spans go to a no-op sink).
 * Whether a run uses them is read from its history: a plan started without a trace runs
 * without them (workflow-tracing.ts).
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { SimplePlugin } from '@temporalio/plugin';
import type { InjectedSinks } from '@temporalio/worker';

// The OpenTelemetry SDK, exporters and Temporal's plugin are loaded only when tracing is
// set up: importing them costs a quarter of a second, which every CLI command and worker
// would pay with tracing off.
const require = createRequire(import.meta.url);

export interface Telemetry {
  /** for Worker.create and new Client: Temporal's OpenTelemetry plugin (interceptors, the span sink) */
  readonly plugins: SimplePlugin[];
  /** exports what is buffered (a CLI command calls it before it exits) */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

export interface TelemetryOptions {
  spanProcessor: SpanProcessor;
  /** @default OTEL_SERVICE_NAME, else `navigator` */
  serviceName?: string;
}

const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';

/** Bundled with the workflows, tracing on or off: Temporal's tracing interceptors (left out of untraced plans), then our decision spans. */
export const workflowInterceptorModules: readonly string[] = [
  fileURLToPath(new URL(`./workflow-tracing.${ext}`, import.meta.url)),
  fileURLToPath(new URL(`./workflow-interceptors.${ext}`, import.meta.url)),
];

/** Where the workflow interceptors' spans go when tracing is off: nowhere. */
export const silentSpanSinks: InjectedSinks<never> = { exporter: { export: { fn: () => undefined } } } as never;

export function telemetryWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim();
  if (exporter) return exporter !== 'none';
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Registers a global tracer provider exporting through `spanProcessor`, and returns the
 * plugins that make workers and clients trace. One per process.
 */
export function setupTelemetry(opts: TelemetryOptions): Telemetry {
  const { Resource } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { NodeTracerProvider } =
    require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { OpenTelemetryPlugin } =
    require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry');
  const resource = new Resource({ 'service.name': opts.serviceName ?? process.env.OTEL_SERVICE_NAME ?? 'navigator' });
  const provider = new NodeTracerProvider({ resource, spanProcessors: [opts.spanProcessor] });
  provider.register();
  return {
    plugins: [new OpenTelemetryPlugin({ resource, spanProcessor: opts.spanProcessor })],
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

let fromEnv: Telemetry | null | undefined;

/** The process's telemetry from `OTEL_*` (set up on first use), or null when it is off. */
export function telemetry(): Telemetry | null {
  if (fromEnv !== undefined) return fromEnv;
  if (!telemetryWanted()) return (fromEnv = null);
  const { BatchSpanProcessor } =
    require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  fromEnv = setupTelemetry({ spanProcessor: new BatchSpanProcessor(exporterFromEnv()) });
  return fromEnv;
}

/**
 * The exporter the environment asks for: `console`, or OTLP over the protocol of
 * OTEL_EXPORTER_OTLP_TRACES_PROTOCOL / OTEL_EXPORTER_OTLP_PROTOCOL (`http/protobuf`, the
 * standard's default; `http/json`; `grpc`). Each exporter reads its endpoint, headers and
 * timeout from the OTEL_EXPORTER_OTLP_* variables itself.
 */
export function exporterFromEnv(env: NodeJS.ProcessEnv = process.env): SpanExporter {
  if (env.OTEL_TRACES_EXPORTER?.trim() === 'console') {
    const { ConsoleSpanExporter } =
      require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
    return new ConsoleSpanExporter();
  }
  const protocol = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??
    env.OTEL_EXPORTER_OTLP_PROTOCOL ??
    'http/protobuf'
  ).trim();
  if (protocol === 'grpc')
    return new (
      require('@opentelemetry/exporter-trace-otlp-grpc') as typeof import('@opentelemetry/exporter-trace-otlp-grpc')
    ).OTLPTraceExporter();
  if (protocol === 'http/json')
    return new (
      require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http')
    ).OTLPTraceExporter();
  if (protocol === 'http/protobuf')
    return new (
      require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto')
    ).OTLPTraceExporter();
  throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf, http/json or grpc, got ${protocol}`);
}

/** Uses `t` for this process instead of the environment's (tests, embedding applications). */
export function useTelemetry(t: Telemetry | null): void {
  fromEnv = t;
}
