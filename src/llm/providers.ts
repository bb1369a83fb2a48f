/**
 * Real model providers through the Vercel AI SDK: OpenAI (chat completions), Anthropic
 * (messages) and any OpenAI-compatible endpoint (OpenRouter, Ollama, vLLM, LM Studio).
 *
 * ```ts
 * const model = createProviderModel('openai:gpt-4.1-mini');
 * const { text, usage } = await model.generate({ system, messages });
 * ```
 *
 * The SDK's own retries are switched off; {@link withRetries} retries 429, 5xx, network
 * errors and timeouts with exponential backoff (honouring `Retry-After`), and never
 * retries authentication failures or other 4xx answers.
 */
import { trace } from '@opentelemetry/api';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, generateText, streamText, type LanguageModel } from 'ai';
import { acceptJsonAnswers } from './json-stream.ts';
import { type ChatModel, type ChatRequest, type ChatResponse, LlmError, type LlmErrorCode } from './model.ts';

// ---------------------------------------------------------------- model strings

export type ModelSpec =
  | { provider: 'openai'; model: string }
  | { provider: 'anthropic'; model: string }
  | { provider: 'openai-compatible'; baseURL: string; model: string };

const MODEL_FORMS =
  'openai:MODEL, anthropic:MODEL or openai-compatible:BASE_URL#MODEL ' +
  '(e.g. openai:gpt-4.1-mini, anthropic:claude-sonnet-4-5, openai-compatible:http://127.0.0.1:11434/v1#qwen2.5)';

function badSpec(spec: string, why: string): LlmError {
  return new LlmError('llm_config', `invalid model "${spec}": ${why}; expected ${MODEL_FORMS}`);
}

/** Parses `openai:gpt-4.1-mini`, `anthropic:...`, `openai-compatible:URL#MODEL`. */
export function parseModelString(spec: string): ModelSpec {
  const s = spec.trim();
  const colon = s.indexOf(':');
  if (colon <= 0) throw badSpec(spec, 'no provider prefix');
  const provider = s.slice(0, colon);
  const rest = s.slice(colon + 1);
  switch (provider) {
    case 'openai':
    case 'anthropic':
      if (!rest || /\s/.test(rest)) throw badSpec(spec, `missing or malformed model name after "${provider}:"`);
      return { provider, model: rest };
    case 'openai-compatible': {
      const hash = rest.lastIndexOf('#');
      if (hash < 0) throw badSpec(spec, 'an openai-compatible model needs "#MODEL" after the base URL');
      const baseURL = rest.slice(0, hash);
      const model = rest.slice(hash + 1);
      if (!model) throw badSpec(spec, 'empty model name after "#"');
      let url: URL;
      try {
        url = new URL(baseURL);
      } catch {
        throw badSpec(spec, `"${baseURL}" is not a URL`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw badSpec(spec, `the base URL must be http or https, got ${url.protocol}`);
      }
      return { provider, baseURL: baseURL.replace(/\/+$/, ''), model };
    }
    default:
      throw badSpec(spec, `unknown provider "${provider}"`);
  }
}

// ---------------------------------------------------------------- retries

export interface RetryOptions {
  /** retries after the first attempt @default 3 */
  maxRetries?: number;
  /** first backoff delay @default 1000 */
  baseDelayMs?: number;
  /** longest single wait, Retry-After included @default 30000 */
  maxDelayMs?: number;
  /** per-attempt timeout @default NAVIGATOR_MODEL_TIMEOUT_MS, else 10 minutes */
  timeoutMs?: number;
  /** injectable for tests */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** called before each retry */
  onRetry?: (info: { attempt: number; delayMs: number; error: LlmError }) => void;
}

/** Reasoning models and local models on a CPU take minutes; the pass heartbeats meanwhile. */
export const DEFAULT_MODEL_TIMEOUT_MS = 10 * 60_000;

/**
 * NAVIGATOR_MODEL_TIMEOUT_MS: reasoning models and local models on a CPU can need longer
 * than a few minutes per answer; the default is ten.
 */
export function modelTimeoutFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.NAVIGATOR_MODEL_TIMEOUT_MS;
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0)
    throw new LlmError(
      'llm_config',
      `NAVIGATOR_MODEL_TIMEOUT_MS must be a positive integer (ms), got ${JSON.stringify(raw)}`,
    );
  return n;
}

const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * Runs `attempt` with a per-attempt timeout, retrying retryable {@link LlmError}s with
 * exponential backoff. `attempt` receives the signal to pass to the network call and must
 * throw errors already classified (see {@link classifyError}).
 */
export async function withRetries<T>(
  model: string,
  attempt: (signal: AbortSignal) => Promise<T>,
  opts: RetryOptions & { signal?: AbortSignal } = {},
): Promise<T> {
  const maxRetries = opts.maxRetries ?? 3;
  const base = opts.baseDelayMs ?? 1000;
  const maxDelay = opts.maxDelayMs ?? 30_000;
  const timeoutMs = opts.timeoutMs ?? modelTimeoutFromEnv() ?? DEFAULT_MODEL_TIMEOUT_MS;
  const sleep = opts.sleep ?? defaultSleep;
  for (let n = 0; ; n++) {
    if (opts.signal?.aborted) throw aborted(model, n, opts.signal.reason);
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout.signal]) : timeout.signal;
    let error: LlmError;
    // the model call's span, if tracing is on (src/telemetry), says how many attempts it took
    trace.getActiveSpan()?.setAttribute('navigator.model.attempt', n + 1);
    try {
      return await attempt(signal);
    } catch (e) {
      if (opts.signal?.aborted) throw aborted(model, n + 1, e);
      error = timeout.signal.aborted
        ? new LlmError('llm_timeout', `model ${model}: no answer within ${timeoutMs} ms`, { model, cause: e })
        : classifyError(model, e);
    } finally {
      clearTimeout(timer);
    }
    const attempts = n + 1;
    if (!error.retryable || n >= maxRetries) {
      const suffix = error.retryable ? ` (gave up after ${attempts} attempts)` : '';
      throw new LlmError(error.code, error.message + suffix, { ...error.details, attempts });
    }
    const backoff = Math.min(maxDelay, base * 2 ** n);
    const delayMs = Math.min(maxDelay, Math.max(backoff, error.details.retryAfterMs ?? 0));
    opts.onRetry?.({ attempt: attempts, delayMs, error });
    try {
      await sleep(delayMs, opts.signal);
    } catch (e) {
      throw aborted(model, attempts, e);
    }
  }
}

const aborted = (model: string, attempts: number, cause: unknown): LlmError =>
  new LlmError('llm_aborted', `model ${model}: call aborted`, { model, attempts, cause });

/** Reads `Retry-After` (seconds or an HTTP date) into milliseconds. */
function retryAfterMs(headers: Record<string, string> | undefined): number | undefined {
  const v = headers?.['retry-after'] ?? headers?.['Retry-After'];
  if (v === undefined) return undefined;
  const secs = Number(v);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const date = Date.parse(v);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** An answer that started well and then broke off: the connection dropped, or the stream just stopped. */
function brokenOff(e: unknown): boolean {
  if (APICallError.isInstance(e)) return e.statusCode !== undefined && e.statusCode >= 200 && e.statusCode < 300;
  return (
    e instanceof Error &&
    e.name === 'AI_InvalidResponseDataError' &&
    /stream ended without a finish reason/i.test(e.message)
  );
}

/** Maps whatever the SDK threw to an {@link LlmError} with the right retry class. */
export function classifyError(model: string, e: unknown): LlmError {
  if (e instanceof LlmError) return e;
  const message = e instanceof Error ? e.message : String(e);
  if (brokenOff(e)) {
    const why = e instanceof Error && e.cause instanceof Error ? `: ${e.cause.message}` : '';
    return new LlmError('llm_network', `model ${model}: the answer broke off before its end${why}`, {
      model,
      cause: e,
    });
  }
  if (APICallError.isInstance(e)) {
    const status = e.statusCode;
    const details = { model, status, cause: e, retryAfterMs: retryAfterMs(e.responseHeaders) };
    const body = e.responseBody ? `: ${e.responseBody.slice(0, 300)}` : '';
    let code: LlmErrorCode;
    if (status === undefined) code = 'llm_network';
    else if (status === 401 || status === 403) code = 'llm_auth';
    else if (status === 429) code = 'llm_rate_limit';
    else if (status >= 500 || status === 408 || status === 409) code = 'llm_server';
    else code = 'llm_bad_request';
    const what =
      code === 'llm_auth'
        ? 'authentication failed (check the API key)'
        : status === undefined
          ? message
          : `HTTP ${status}`;
    return new LlmError(code, `model ${model}: ${what}${status === undefined ? '' : body}`, details);
  }
  const name = e instanceof Error ? e.name : '';
  if (name === 'AI_LoadAPIKeyError')
    return new LlmError('llm_config', `model ${model}: ${message}`, { model, cause: e });
  return new LlmError('llm_bad_request', `model ${model}: ${message}`, { model, cause: e });
}

// ---------------------------------------------------------------- providers

export interface ProviderOptions extends RetryOptions {
  /** where keys and base URLs come from @default process.env */
  env?: Record<string, string | undefined>;
  /** custom fetch (tests, proxies) */
  fetch?: typeof globalThis.fetch;
  temperature?: number;
  /** @default 4096 */
  maxOutputTokens?: number;
  /**
   * Ask for a streamed answer when the caller wants progress. Off, every answer is one
   * plain JSON completion (endpoints that cannot stream); a JSON answer to a streaming
   * request is read either way. @default NAVIGATOR_MODEL_STREAM, else true
   */
  stream?: boolean;
}

/** NAVIGATOR_MODEL_STREAM: `off`/`false`/`0` asks every endpoint for plain JSON answers. */
export function streamFromEnv(env: Record<string, string | undefined> = process.env): boolean | undefined {
  const raw = env.NAVIGATOR_MODEL_STREAM?.trim().toLowerCase();
  if (raw === undefined || raw === '') return undefined;
  if (['on', 'true', '1', 'yes'].includes(raw)) return true;
  if (['off', 'false', '0', 'no'].includes(raw)) return false;
  throw new LlmError(
    'llm_config',
    `NAVIGATOR_MODEL_STREAM must be on or off, got ${JSON.stringify(env.NAVIGATOR_MODEL_STREAM)}`,
  );
}

function requireKey(env: Record<string, string | undefined>, name: string, spec: string): string {
  const key = env[name];
  if (!key) throw new LlmError('llm_config', `${name} is not set; it is needed for model ${spec}`);
  return key;
}

/** The AI SDK language model for a parsed spec, with keys from the environment. */
export function languageModel(spec: ModelSpec, opts: ProviderOptions = {}): LanguageModel {
  const env = opts.env ?? process.env;
  const id = modelId(spec);
  // a proxy or a local server may answer a streaming request with plain JSON
  const chatFetch = acceptJsonAnswers(opts.fetch);
  switch (spec.provider) {
    case 'openai':
      return createOpenAI({
        apiKey: requireKey(env, 'OPENAI_API_KEY', id),
        baseURL: env.OPENAI_BASE_URL || undefined,
        fetch: chatFetch,
      }).chat(spec.model);
    case 'anthropic':
      return createAnthropic({
        apiKey: requireKey(env, 'ANTHROPIC_API_KEY', id),
        baseURL: env.ANTHROPIC_BASE_URL || undefined,
        fetch: opts.fetch,
      })(spec.model);
    case 'openai-compatible':
      return createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: spec.baseURL,
        apiKey: env.OPENAI_COMPATIBLE_API_KEY || undefined,
        fetch: chatFetch,
      }).chatModel(spec.model);
  }
}

export function modelId(spec: ModelSpec): string {
  return spec.provider === 'openai-compatible'
    ? `openai-compatible:${spec.baseURL}#${spec.model}`
    : `${spec.provider}:${spec.model}`;
}

/**
 * A {@link ChatModel} backed by a real provider. Fails at once (code `llm_config`) for a
 * bad model string or a missing API key.
 */
export function createProviderModel(spec: string | ModelSpec, opts: ProviderOptions = {}): ChatModel {
  const parsed = typeof spec === 'string' ? parseModelString(spec) : spec;
  const id = modelId(parsed);
  const lm = languageModel(parsed, opts);
  const stream = opts.stream ?? streamFromEnv(opts.env ?? process.env) ?? true;
  return {
    id,
    async generate(req: ChatRequest): Promise<ChatResponse> {
      return withRetries(
        id,
        async (signal) => {
          const call = {
            model: lm,
            system: req.system,
            messages: req.messages.map((m) => ({ role: m.role, content: m.content })),
            maxRetries: 0,
            abortSignal: signal,
            maxOutputTokens: opts.maxOutputTokens ?? 4096,
            ...(opts.temperature === undefined ? {} : { temperature: opts.temperature }),
          };
          if (req.onProgress && stream) return streamed(call, req.onProgress);
          const result = await generateText(call);
          const usage = usageOf(result.usage);
          req.onProgress?.(usage.outputTokens || Math.ceil(result.text.length / 4));
          return { text: result.text, usage };
        },
        { ...opts, signal: req.signal },
      );
    },
  };
}

const usageOf = (u: { inputTokens?: number | undefined; outputTokens?: number | undefined }) => ({
  inputTokens: u.inputTokens ?? 0,
  outputTokens: u.outputTokens ?? 0,
});

/** How often, at most, a streaming answer reports its progress (the host throttles what it sends on). */
const PROGRESS_EVERY_MS = 200;

/**
 * The answer streamed, telling `onProgress` the output tokens so far (estimated as
 * characters / 4 while it streams; the provider's count at the end) and the text so far. A stream error
 * is thrown as the provider's error, so retries classify it like a non-streamed one.
 */
async function streamed(
  call: Parameters<typeof generateText>[0],
  onProgress: (outputTokens: number, textSoFar?: string) => void,
): Promise<ChatResponse> {
  const result = streamText({ ...call, onError: () => undefined });
  let text = '';
  let reported = 0;
  for await (const part of result.fullStream) {
    if (part.type === 'error') throw part.error;
    if (part.type !== 'text-delta') continue;
    text += part.text;
    if (Date.now() - reported >= PROGRESS_EVERY_MS) {
      reported = Date.now();
      onProgress(Math.ceil(text.length / 4), text);
    }
  }
  const usage = usageOf(await result.totalUsage);
  onProgress(usage.outputTokens || Math.ceil(text.length / 4), text);
  return { text, usage };
}
