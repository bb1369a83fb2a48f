/**
 * Our small model interface. Everything that talks to an LLM (the Navigator pass, plan
 * generation, the CLI) depends on {@link ChatModel} only; real providers, the scripted
 * model and the recorder all implement it.
 */
import { z } from 'zod';

export const ChatRole = z.enum(['user', 'assistant']);
export type ChatRole = z.infer<typeof ChatRole>;

export const ChatMessage = z.object({
  role: ChatRole,
  content: z.string(),
});
export type ChatMessage = z.infer<typeof ChatMessage>;

export const ChatRequest = z.object({
  system: z.string(),
  messages: z.array(ChatMessage).min(1, 'a chat request needs at least one message'),
  signal: z.instanceof(AbortSignal).optional(),
  /**
   * told the output tokens so far while the answer streams (models that stream), and the
   * answer's text so far (a host shows the program as the model writes it)
   */
  onProgress: z.custom<(outputTokens: number, textSoFar?: string) => void>((v) => typeof v === 'function').optional(),
});
export type ChatRequest = z.infer<typeof ChatRequest>;

export const Usage = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof Usage>;

export const ChatResponse = z.object({
  text: z.string(),
  usage: Usage,
});
export type ChatResponse = z.infer<typeof ChatResponse>;

export interface ChatModel {
  /** `openai:gpt-4.1-mini`, `scripted:answers.json`, ...: shown in traces and errors */
  readonly id: string;
  generate(req: ChatRequest): Promise<ChatResponse>;
}

export const ZERO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0 });

export const addUsage = (a: Usage, b: Usage): Usage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
});

/** Why a model call failed. Only the codes marked retryable are retried. */
export type LlmErrorCode =
  /** bad model string, missing key, unreadable script file */
  | 'llm_config'
  /** 401 / 403: never retried */
  | 'llm_auth'
  /** 429 (retryable) */
  | 'llm_rate_limit'
  /** 5xx, 408, 409 (retryable) */
  | 'llm_server'
  /** connection refused, reset, DNS (retryable) */
  | 'llm_network'
  /** the per-call timeout passed (retryable) */
  | 'llm_timeout'
  /** the caller's signal aborted the call (not retried) */
  | 'llm_aborted'
  /** other 4xx, malformed request or response (not retried) */
  | 'llm_bad_request'
  /** the scripted model has no answer left */
  | 'script_exhausted'
  /** no scripted answer matches the prompt */
  | 'script_no_match'
  /** the model answered something that is not a {@link ChatResponse} */
  | 'llm_invalid_response';

const RETRYABLE: ReadonlySet<LlmErrorCode> = new Set(['llm_rate_limit', 'llm_server', 'llm_network', 'llm_timeout']);

/** A failed model call. `retryable` says whether trying again may help. */
export class LlmError extends Error {
  override readonly name = 'LlmError';

  constructor(
    readonly code: LlmErrorCode,
    message: string,
    readonly details: {
      model?: string;
      status?: number;
      attempts?: number;
      /** server-requested wait (Retry-After), in milliseconds */
      retryAfterMs?: number;
      cause?: unknown;
    } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
  }

  get retryable(): boolean {
    return RETRYABLE.has(this.code);
  }

  get status(): number | undefined {
    return this.details.status;
  }

  toJSON(): { code: LlmErrorCode; message: string; status: number | null; attempts: number | null } {
    return {
      code: this.code,
      message: this.message,
      status: this.details.status ?? null,
      attempts: this.details.attempts ?? null,
    };
  }
}

/** Formats zod issues as `- path: message` lines. */
export function issueLines(error: z.ZodError): string {
  return error.issues
    .map((i) => `- ${i.path.length ? i.path.map(String).join('.') : '(root)'}: ${i.message}`)
    .join('\n');
}

/**
 * Wraps a model so that every request and every response is validated: a caller that
 * sends no messages, or a model that answers without text or usage, fails with a clear
 * error instead of a confusing one further down.
 */
export function checkedModel(model: ChatModel): ChatModel {
  return {
    id: model.id,
    async generate(req) {
      const parsedReq = ChatRequest.safeParse(req);
      if (!parsedReq.success) {
        throw new LlmError('llm_bad_request', `invalid chat request for ${model.id}:\n${issueLines(parsedReq.error)}`, {
          model: model.id,
        });
      }
      const res = await model.generate(parsedReq.data);
      const parsedRes = ChatResponse.safeParse(res);
      if (!parsedRes.success) {
        throw new LlmError(
          'llm_invalid_response',
          `model ${model.id} returned an invalid response:\n${issueLines(parsedRes.error)}`,
          { model: model.id },
        );
      }
      return parsedRes.data;
    },
  };
}

/** Rough token estimate (4 characters a token) for models that report no usage. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

/** The whole prompt as one string: what scripted answers are matched against. */
export function promptText(req: Pick<ChatRequest, 'system' | 'messages'>): string {
  return [req.system, ...req.messages.map((m) => m.content)].join('\n');
}
