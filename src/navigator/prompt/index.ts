/**
 * Prompt text of the Navigator: system prompt, Mission Log, first user message, feedback
 * and progress checklist. Every string the model reads is built here.
 *
 * @module
 */
export { CORE_AREAS, type LanguageOptions, languageReference } from './language.ts';
export {
  MISSION_LOG_ENTRIES,
  MISSION_LOG_VALUE_CHARS,
  type JournalLike,
  journalEntries,
  renderMissionLog,
} from './missionLog.ts';
export { type Summaries, renderProgress } from './progress.ts';
export { type SystemPromptOptions, staticSystemPrompt, systemPrompt } from './system.ts';
export {
  type FirstMessageOptions,
  dataSample,
  dataTypeLabel,
  firstUserMessage,
  renderData,
  renderExpectedOutput,
  renderTool,
  renderTools,
} from './firstMessage.ts';
export {
  FEEDBACK_PRINT_CHARS,
  PRINTS_TRUNCATED,
  type ErrorFeedback,
  type ErrorLike,
  type NormalFeedback,
  type ReturnFeedback,
  type TurnCounts,
  errorFeedback,
  normalFeedback,
  renderError,
  renderPrints,
  returnFeedback,
  turnLine,
} from './feedback.ts';
