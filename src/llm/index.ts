/**
 * Model access for the Navigator: one small interface ({@link ChatModel}), real providers
 * through the Vercel AI SDK, a scripted model for offline runs and a recorder.
 *
 * ```ts
 * const model = createModel('anthropic:claude-sonnet-4-5');      // real
 * const replay = createModel('scripted:examples/x/answers.json'); // offline
 * ```
 *
 * @module
 */
import type { ChatModel } from './model.ts';
import { type ProviderOptions, createProviderModel } from './providers.ts';
import { type RecorderOptions, createRecordingModel } from './recorder.ts';
import { createScriptedModel } from './scripted.ts';

export {
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type ChatMessage,
  type Usage,
  type LlmErrorCode,
  LlmError,
  ZERO_USAGE,
  addUsage,
  checkedModel,
  promptText,
} from './model.ts';
export {
  type ModelSpec,
  type ProviderOptions,
  type RetryOptions,
  parseModelString,
  createProviderModel,
  withRetries,
  classifyError,
} from './providers.ts';
export { type ScriptTurn, type ScriptedModel, createScriptedModel, loadScript, parseScript } from './scripted.ts';
export { type RecorderOptions, type RecordingModel, createRecordingModel } from './recorder.ts';

export interface CreateModelOptions extends ProviderOptions {
  /** wrap the model in a recorder writing to this file */
  record?: string;
  recordOptions?: RecorderOptions;
}

/**
 * A model from a string: `scripted:FILE` for recorded answers, otherwise a provider spec
 * (`openai:...`, `anthropic:...`, `openai-compatible:URL#MODEL`).
 */
export function createModel(spec: string, opts: CreateModelOptions = {}): ChatModel {
  const model = spec.startsWith('scripted:')
    ? createScriptedModel(spec.slice('scripted:'.length))
    : createProviderModel(spec, opts);
  return opts.record ? createRecordingModel(model, opts.record, opts.recordOptions) : model;
}
