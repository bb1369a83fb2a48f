// Temporal's workflow tracing interceptors and OpenTelemetry's API, loaded when a traced run
// first calls into them (workflow-tracing.ts). CommonJS on purpose: the workflow bundler turns a
// require in a function into a load at that call, but leaves a require in an ES module of a
// package (the published dist/) as it is, where the workflow sandbox has no require.
'use strict';
exports.temporalInterceptors = () =>
  require('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors.js').interceptors;
exports.contextManagerClass = () =>
  require('@temporalio/interceptors-opentelemetry/lib/workflow/context-manager.js').ContextManager;
exports.otelApi = () => require('@opentelemetry/api');
