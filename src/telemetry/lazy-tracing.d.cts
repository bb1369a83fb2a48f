import type * as Otel from '@opentelemetry/api';
import type { interceptors } from '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors.js';
import type { ContextManager } from '@temporalio/interceptors-opentelemetry/lib/workflow/context-manager.js';

/** Temporal's workflow tracing interceptors' factory (loads their modules). */
export declare function temporalInterceptors(): typeof interceptors;
/** Temporal's workflow context manager class (loads its module). */
export declare function contextManagerClass(): typeof ContextManager;
/** OpenTelemetry's API (loads it). */
export declare function otelApi(): typeof Otel;
