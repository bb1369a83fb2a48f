/**
 * src/telemetry/workflow-tracing.ts names the methods of Temporal's workflow tracing
 * interceptors so that it can load their modules only when a run uses them: the names must
 * be the classes' own (an SDK upgrade that adds one must add it there).
 */
import { describe, expect, it } from 'vitest';
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import { TEMPORAL_METHODS } from '../../src/telemetry/workflow-tracing.ts';

const methods = (c: { prototype: object }) =>
  Object.getOwnPropertyNames(c.prototype)
    .filter((n) => n !== 'constructor')
    .sort();

describe('lazily loaded tracing interceptors', () => {
  it('name every method of Temporal interceptors', () => {
    expect([...TEMPORAL_METHODS.inbound].sort()).toEqual(methods(OpenTelemetryInboundInterceptor));
    expect([...TEMPORAL_METHODS.outbound].sort()).toEqual(methods(OpenTelemetryOutboundInterceptor));
    expect([...TEMPORAL_METHODS.internals].sort()).toEqual(methods(OpenTelemetryInternalsInterceptor));
  });
});
