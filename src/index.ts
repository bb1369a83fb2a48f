/**
 * `navigator-on-temporal`: define agents, their tools and decisions, run a pass in
 * process, write and validate plans. Everything here is independent of Temporal; the
 * Temporal parts have their own entry points:
 *
 * - `navigator-on-temporal/worker`: `createNavigatorWorker`, `workflowsPath`
 * - `navigator-on-temporal/client`: start and drive missions and plans
 * - `navigator-on-temporal/workflows`, `/activities`: for a worker you assemble yourself
 * - `navigator-on-temporal/testing`, `/devserver`: the embedded Temporal server
 *
 * ```ts
 * import { z } from 'zod';
 * import { defineAgent, defineTool } from 'navigator-on-temporal';
 *
 * const lookup = defineTool({
 *   name: 'lookup_order', description: 'Reads an order.', sideEffect: 'read_only',
 *   input: z.object({ id: z.number() }), output: z.object({ id: z.number(), total: z.number() }),
 *   handler: async ({ id }) => ({ id, total: 42 }),
 * });
 * export default defineAgent({
 *   name: 'order-check', prompt: 'Check order {{id}} and return its total.',
 *   input: z.object({ id: z.number() }), output: z.object({ total: z.number() }),
 *   tools: [lookup], model: 'openai:gpt-4.1-mini',
 * });
 * ```
 *
 * @module
 */
export {
  type Agent,
  type AgentInput,
  type AgentLimitsInput,
  type AgentOutput,
  type AgentSpec,
  type AnyAgent,
  type Decision,
  type DecisionSpec,
  DefinitionError,
  InputError,
  type JournalInput,
  type NavigatorTool,
  type PassDone,
  type PassEffects,
  type PassProgress,
  type PassStep,
  type ChecklistEntry,
  /** @deprecated the old name of {@link ChecklistEntry} */
  type ChecklistEntry as PlanItem,
  type RunNavigatorOptions,
  type PassResult,
  /** @deprecated the old name of {@link PassResult} */
  type Step,
  type ToolSpec,
  ToolRejected,
  defineAgent,
  defineDecision,
  defineTool,
  resumePass,
  runNavigator,
  startPass,
} from './navigator/index.ts';
export type { Json } from './lisp/tools.ts';
export { run as runProgram } from './lisp/index.ts';
export { type McpServerSpec, type McpToolSet, type McpToolsOptions, McpSchemaError, mcpTools } from './mcp/index.ts';
export { type ChatModel, type ChatRequest, type ChatResponse, LlmError } from './llm/model.ts';
export { createModel, createProviderModel, createRecordingModel, createScriptedModel } from './llm/index.ts';
export {
  type Catalog,
  Plan,
  PlanDocument,
  PlanOptions,
  type PlanOptionsInput,
  PlanProblem,
  StepSpec,
  type StepSpecInput,
} from './plans/schema.ts';
export { validatePlan, formatProblems } from './plans/validate.ts';
export { buildPlan } from './plans/build.ts';
export { PlanEdit, RecoveryAction, applyEdit, applyRecovery } from './plans/edits.ts';
