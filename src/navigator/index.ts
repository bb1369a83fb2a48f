/**
 * The Navigator, independent of Temporal: agent and tool definitions, plans, external
 * decisions, prompts, code extraction, return validation, and the pass as a resumable
 * step function (`startPass`/`resumePass`, JSON state) with `runNavigator` for library
 * mode (one pass in-process; the application keeps the journal).
 *
 * ```ts
 * import { defineAgent, defineTool, defineDecision } from './navigator/index.ts';
 * ```
 *
 * @module
 */
export {
  type Agent,
  type AnyAgent,
  type AgentInput,
  type AgentOutput,
  type AgentSpec,
  AgentLimits,
  type AgentLimitsInput,
  InputError,
  defineAgent,
  parseInput,
  placeholders,
  renderMissionText,
  resolveDecisions,
  EffectApprovals,
  toolClasses,
  effectToolsOf,
  toolsNeedingApproval,
  toolApprovers,
} from './agent.ts';
export { type NavigatorTool, type ToolSpec, DefinitionError, TOOL_NAME, ToolRejected, defineTool } from './tool.ts';
export {
  type ChecklistStep,
  type ChecklistEntry,
  ChecklistError,
  checkChecklist,
  normalizeChecklist,
} from './checklist.ts';
export {
  type Decision,
  type DecisionSpec,
  type ResolvedDecision,
  type DecisionCheck,
  checkDecisionValue,
  decisionKey,
  defineDecision,
  renderDecisions,
  resolveDecision,
  waitingForm,
} from './decisions.ts';
export { type Extraction, extractCode, fencedProgram, sanitize } from './extract.ts';
export { type Validation, issueProblems, jsonTypeName, validateJson } from '../lisp/validate.ts';
export { exampleValue, jsonSchemaOf, typeText, zodExample, zodTypeText } from './schema.ts';
export { cut, ednOfJson } from '../lisp/printer/edn.ts';
export * from './prompt/index.ts';
export {
  type JournalInput,
  type PassDone,
  type PassEffects,
  type PassEnd,
  type PassProgress,
  type PassStep,
  type ResumePassOptions,
  type StartPassOptions,
  passOpening,
  previousError,
  resumePass,
  startPass,
} from './pass.ts';
export {
  type EffectResult,
  type PassError,
  type PassState,
  type PassUsage,
  type PendingProgram,
  type TraceToolCall,
  type TurnKind,
  type TurnResult,
  type TurnTrace,
  PASS_STATE_VERSION,
  PassStateError,
  mergedJournal,
  stepOfCall,
  toJournal,
} from './pass-state.ts';
export { isWaiting, shapeReturn, turnKind } from './turn.ts';
export { tryFallback } from './fallback.ts';
export { DEFAULT_SHAPE_ENTRIES, ShapeMemory, type ShapeAgent, type ShapeCall, passShapes } from './shape-memory.ts';
export { DEFAULT_WAITING_MISSIONS, type FinishedPass, WaitingPrograms } from './waiting-programs.ts';
export {
  type RunNavigatorOptions,
  type PassResult,
  type Step,
  applyDelta,
  defaultRunId,
  runEffect,
  runNavigator,
} from './run-navigator.ts';
