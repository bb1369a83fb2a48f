import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LlmError, createModel, createProviderModel, parseModelString, withRetries } from '../../src/llm/index.ts';
import { failure } from './helpers.ts';
import {
  type FakeServer,
  anthropicError,
  anthropicMessage,
  anthropicStream,
  openaiCompletion,
  openaiStream,
  openaiError,
  startFakeServer,
} from './fake-server.ts';

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.received.length = 0;
});

const req = { system: 'You write PTC-Lisp.', messages: [{ role: 'user' as const, content: 'Add 1 and 2.' }] };
const fast = { baseDelayMs: 1, maxDelayMs: 5 };

describe('parseModelString', () => {
  it('parses the three provider forms', () => {
    expect(parseModelString('openai:gpt-4.1-mini')).toEqual({ provider: 'openai', model: 'gpt-4.1-mini' });
    expect(parseModelString('anthropic:claude-sonnet-4-5')).toEqual({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
    });
    expect(parseModelString('openai-compatible:http://127.0.0.1:11434/v1/#qwen2.5')).toEqual({
      provider: 'openai-compatible',
      baseURL: 'http://127.0.0.1:11434/v1',
      model: 'qwen2.5',
    });
    expect(parseModelString('openai-compatible:https://openrouter.ai/api/v1#meta-llama/llama-3-70b').model).toBe(
      'meta-llama/llama-3-70b',
    );
  });

  it.each([
    ['gpt-4', 'no provider prefix'],
    ['openai:', 'missing or malformed model name'],
    ['mistral:large', 'unknown provider "mistral"'],
    ['openai-compatible:http://x/v1', 'needs "#MODEL"'],
    ['openai-compatible:http://x/v1#', 'empty model name'],
    ['openai-compatible:not a url#m', 'is not a URL'],
    ['openai-compatible:ftp://x#m', 'must be http or https'],
  ])('rejects %s clearly', (spec, why) => {
    let err: unknown;
    try {
      parseModelString(spec);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).code).toBe('llm_config');
    expect((err as LlmError).message).toContain(why);
    expect((err as LlmError).message).toContain('expected openai:MODEL, anthropic:MODEL or openai-compatible:');
  });

  it('needs the API key of the provider', () => {
    expect(() => createProviderModel('openai:gpt-4.1-mini', { env: {} })).toThrow(
      'OPENAI_API_KEY is not set; it is needed for model openai:gpt-4.1-mini',
    );
    expect(() => createProviderModel('anthropic:claude-sonnet-4-5', { env: {} })).toThrow(
      'ANTHROPIC_API_KEY is not set',
    );
    // local endpoints usually need no key
    expect(createProviderModel('openai-compatible:http://127.0.0.1:1/v1#m', { env: {} }).id).toBe(
      'openai-compatible:http://127.0.0.1:1/v1#m',
    );
  });
});

describe('OpenAI chat completions', () => {
  const openai = (extra: object = {}) =>
    createProviderModel('openai:gpt-test', {
      env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${server.url}/v1` },
      ...fast,
      ...extra,
    });

  it('sends system and messages and returns text and usage', async () => {
    server.reply({ body: openaiCompletion('```clojure\n(+ 1 2)\n```', { prompt_tokens: 42, completion_tokens: 7 }) });
    const res = await openai().generate(req);
    expect(res).toEqual({ text: '```clojure\n(+ 1 2)\n```', usage: { inputTokens: 42, outputTokens: 7 } });
    expect(server.received).toHaveLength(1);
    const [call] = server.received;
    expect(call!.url).toBe('/v1/chat/completions');
    expect(call!.headers.authorization).toBe('Bearer sk-test');
    expect(call!.body.model).toBe('gpt-test');
    expect(call!.body.stream).toBeFalsy();
    expect(call!.body.messages).toEqual([
      { role: 'system', content: 'You write PTC-Lisp.' },
      { role: 'user', content: 'Add 1 and 2.' },
    ]);
  });

  it('retries a 429 and then succeeds', async () => {
    server.reply(
      { status: 429, body: openaiError('slow down', 'rate_limit_exceeded') },
      { body: openaiCompletion('ok') },
    );
    const retries: number[] = [];
    const res = await openai({ onRetry: ({ error }: { error: LlmError }) => retries.push(error.status!) }).generate(
      req,
    );
    expect(res.text).toBe('ok');
    expect(server.received).toHaveLength(2);
    expect(retries).toEqual([429]);
  });

  it('retries 5xx answers until the retry budget is spent', async () => {
    server.reply(
      ...Array.from({ length: 3 }, () => ({ status: 503, body: openaiError('overloaded', 'server_error') })),
    );
    const err = await failure(openai({ maxRetries: 2 }).generate(req));
    expect(err.code).toBe('llm_server');
    expect(err.details.attempts).toBe(3);
    expect(err.message).toContain('HTTP 503');
    expect(err.message).toContain('gave up after 3 attempts');
    expect(server.received).toHaveLength(3);
  });

  it('does not retry a 401', async () => {
    server.reply({ status: 401, body: openaiError('Incorrect API key provided') }, { body: openaiCompletion('never') });
    const err = await failure(openai().generate(req));
    expect(err.code).toBe('llm_auth');
    expect(err.retryable).toBe(false);
    expect(err.status).toBe(401);
    expect(err.message).toContain('authentication failed');
    expect(server.received).toHaveLength(1);
    server.received.length = 0;
    // the queued reply is still there: take it so the next test starts clean
    await openai().generate(req);
  });

  it('does not retry other 4xx answers', async () => {
    server.reply({ status: 400, body: openaiError('bad model') });
    const err = await failure(openai().generate(req));
    expect(err.code).toBe('llm_bad_request');
    expect(err.message).toContain('bad model');
    expect(server.received).toHaveLength(1);
  });

  it('times out a slow answer and retries it', async () => {
    server.reply({ delayMs: 400, body: openaiCompletion('late') }, { body: openaiCompletion('in time') });
    const res = await openai({ timeoutMs: 100 }).generate(req);
    expect(res.text).toBe('in time');
    expect(server.received).toHaveLength(2);
  });

  it('reports a timeout after the last attempt', async () => {
    server.reply({ delayMs: 300, body: openaiCompletion('late') });
    const err = await failure(openai({ timeoutMs: 50, maxRetries: 0 }).generate(req));
    expect(err.code).toBe('llm_timeout');
    expect(err.message).toContain('no answer within 50 ms');
  });

  it('does not retry when the caller aborts', async () => {
    server.reply({ delayMs: 300, body: openaiCompletion('late') });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 30);
    const err = await failure(openai().generate({ ...req, signal: ac.signal }));
    expect(err.code).toBe('llm_aborted');
    expect(server.received).toHaveLength(1);
  });
});

describe('Anthropic messages', () => {
  const anthropic = (extra: object = {}) =>
    createProviderModel('anthropic:claude-test', {
      env: { ANTHROPIC_API_KEY: 'ak-test', ANTHROPIC_BASE_URL: `${server.url}/v1` },
      ...fast,
      ...extra,
    });

  it('sends the system prompt separately and returns text and usage', async () => {
    server.reply({ body: anthropicMessage('(return 3)', { input_tokens: 100, output_tokens: 9 }) });
    const res = await anthropic().generate({
      ...req,
      messages: [
        ...req.messages,
        { role: 'assistant', content: '(+ 1 2)' },
        { role: 'user', content: 'Now return it.' },
      ],
    });
    expect(res).toEqual({ text: '(return 3)', usage: { inputTokens: 100, outputTokens: 9 } });
    const [call] = server.received;
    expect(call!.url).toBe('/v1/messages');
    expect(call!.headers['x-api-key']).toBe('ak-test');
    expect(call!.body.model).toBe('claude-test');
    expect(call!.body.max_tokens).toBe(4096);
    expect(JSON.stringify(call!.body.system)).toContain('You write PTC-Lisp.');
    expect(call!.body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('retries a 429 with Retry-After and then succeeds', async () => {
    server.reply(
      { status: 429, headers: { 'retry-after': '0' }, body: anthropicError('rate limited', 'rate_limit_error') },
      { body: anthropicMessage('ok') },
    );
    expect((await anthropic().generate(req)).text).toBe('ok');
    expect(server.received).toHaveLength(2);
  });

  it('does not retry a 401 or a 403', async () => {
    for (const status of [401, 403]) {
      server.received.length = 0;
      server.reply({ status, body: anthropicError('invalid x-api-key') });
      const err = await failure(anthropic().generate(req));
      expect(err.code).toBe('llm_auth');
      expect(server.received).toHaveLength(1);
    }
  });
});

describe('OpenAI-compatible endpoints', () => {
  it('talks chat completions to the base URL, with an optional key', async () => {
    server.reply({ body: openaiCompletion('hi', { prompt_tokens: 3, completion_tokens: 1 }) });
    const model = createModel(`openai-compatible:${server.url}/v1#qwen2.5`, {
      env: { OPENAI_COMPATIBLE_API_KEY: 'local-key' },
      ...fast,
    });
    expect(model.id).toBe(`openai-compatible:${server.url}/v1#qwen2.5`);
    expect(await model.generate(req)).toEqual({ text: 'hi', usage: { inputTokens: 3, outputTokens: 1 } });
    expect(server.received[0]!.url).toBe('/v1/chat/completions');
    expect(server.received[0]!.headers.authorization).toBe('Bearer local-key');
    expect(server.received[0]!.body.model).toBe('qwen2.5');
  });

  it('retries when nothing listens and reports a network error', async () => {
    const model = createModel('openai-compatible:http://127.0.0.1:9/v1#m', { env: {}, ...fast, maxRetries: 1 });
    const err = await failure(model.generate(req));
    expect(err.code).toBe('llm_network');
    expect(err.details.attempts).toBe(2);
  });
});

describe('withRetries', () => {
  it('backs off exponentially, capped, and honours Retry-After', async () => {
    const waits: number[] = [];
    let n = 0;
    const result = await withRetries(
      'm',
      async () => {
        n++;
        if (n === 1) throw new LlmError('llm_server', 'boom');
        if (n === 2) throw new LlmError('llm_rate_limit', 'slow', { retryAfterMs: 250 });
        if (n < 6) throw new LlmError('llm_network', 'reset');
        return 'done';
      },
      { baseDelayMs: 10, maxDelayMs: 300, maxRetries: 5, sleep: async (ms) => void waits.push(ms) },
    );
    expect(result).toBe('done');
    expect(waits).toEqual([10, 250, 40, 80, 160]);
  });
});

describe('streamed answers (a caller that wants progress)', () => {
  const openai = () =>
    createProviderModel('openai:gpt-test', {
      env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${server.url}/v1` },
      ...fast,
    });
  const anthropic = () =>
    createProviderModel('anthropic:claude-test', {
      env: { ANTHROPIC_API_KEY: 'ak-test', ANTHROPIC_BASE_URL: `${server.url}/v1` },
      ...fast,
    });
  const chunks = ['```clojure\n', '(+ 1 ', '2)', '\n```'];

  it.each([
    [
      'openai',
      openai,
      () => openaiStream(chunks, { prompt_tokens: 40, completion_tokens: 9 }),
      { inputTokens: 40, outputTokens: 9 },
    ],
    [
      'anthropic',
      anthropic,
      () => anthropicStream(chunks, { input_tokens: 30, output_tokens: 7 }),
      { inputTokens: 30, outputTokens: 7 },
    ],
  ] as const)(
    '%s: the text and usage of the stream, with progress while it streams',
    async (_name, make, events, usage) => {
      server.reply({ events: events() });
      const progress: number[] = [];
      const answer = await make().generate({ ...req, onProgress: (n) => progress.push(n) });
      expect(answer).toEqual({ text: chunks.join(''), usage });
      expect(server.received[0]!.body.stream).toBe(true);
      expect(progress.length).toBeGreaterThanOrEqual(2);
      expect(progress[0]).toBeGreaterThan(0);
      expect(progress[progress.length - 1]).toBe(usage.outputTokens);
    },
  );

  it('an HTTP error on a streamed call is classified and retried like any other', async () => {
    server.reply({ status: 503, body: openaiError('overloaded', 'server_error') }, { events: openaiStream(['ok']) });
    const answer = await openai().generate({ ...req, onProgress: () => undefined });
    expect(answer.text).toBe('ok');
    expect(server.received).toHaveLength(2);
  });

  it('an authentication failure on a streamed call is not retried', async () => {
    server.reply({ status: 401, body: anthropicError('bad key') });
    const err = await failure(anthropic().generate({ ...req, onProgress: () => undefined }));
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).code).toBe('llm_auth');
    expect(server.received).toHaveLength(1);
  });
});

describe('endpoints that do not stream, and streams that break off', () => {
  const compatible = (extra: object = {}) =>
    createProviderModel(`openai-compatible:${server.url}/v1#m`, { env: {}, ...fast, ...extra });
  const progressing = { ...req, onProgress: () => undefined };

  it('reads a plain JSON completion answered to a streaming request', async () => {
    server.reply({ body: openaiCompletion('(return 3)', { prompt_tokens: 20, completion_tokens: 4 }) });
    const progress: number[] = [];
    const answer = await compatible().generate({ ...req, onProgress: (n) => progress.push(n) });
    expect(answer).toEqual({ text: '(return 3)', usage: { inputTokens: 20, outputTokens: 4 } });
    expect(server.received).toHaveLength(1);
    expect(server.received[0]!.body.stream).toBe(true);
    expect(progress.at(-1)).toBe(4);
  });

  it('does the same for the openai provider behind a proxy (OPENAI_BASE_URL)', async () => {
    server.reply({ body: openaiCompletion('ok') });
    const model = createProviderModel('openai:gpt-test', {
      env: { OPENAI_API_KEY: 'sk', OPENAI_BASE_URL: `${server.url}/v1` },
      ...fast,
    });
    expect((await model.generate(progressing)).text).toBe('ok');
  });

  it('asks for no stream when streaming is off (option or NAVIGATOR_MODEL_STREAM=off)', async () => {
    server.reply({ body: openaiCompletion('a') }, { body: openaiCompletion('b') });
    const progress: number[] = [];
    expect((await compatible({ stream: false }).generate({ ...req, onProgress: (n) => progress.push(n) })).text).toBe(
      'a',
    );
    expect((await compatible({ env: { NAVIGATOR_MODEL_STREAM: 'off' } }).generate(progressing)).text).toBe('b');
    expect(server.received.map((r) => Boolean(r.body.stream))).toEqual([false, false]);
    expect(progress).toEqual([5]);
    expect(() => compatible({ env: { NAVIGATOR_MODEL_STREAM: 'maybe' } })).toThrow(
      'NAVIGATOR_MODEL_STREAM must be on or off, got "maybe"',
    );
  });

  it('retries a stream whose connection drops half way', async () => {
    server.reply({ events: openaiStream(['(ret']).slice(0, 2), cut: true }, { events: openaiStream(['(return 1)']) });
    const retries: string[] = [];
    const answer = await compatible({
      onRetry: ({ error }: { error: LlmError }) => retries.push(`${error.code}: ${error.message}`),
    }).generate(progressing);
    expect(answer.text).toBe('(return 1)');
    expect(server.received).toHaveLength(2);
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatch(/^llm_network: .*the answer broke off before its end/);
  });

  it('retries a stream that ends without a finish reason, and says so when it gives up', async () => {
    const truncated = () => ({ events: openaiStream(['(ret']).slice(0, 2) });
    server.reply(truncated(), truncated());
    const err = await failure(compatible({ maxRetries: 1 }).generate(progressing));
    expect(err.code).toBe('llm_network');
    expect(err.retryable).toBe(true);
    expect(err.message).toContain('the answer broke off before its end');
    expect(err.message).toContain('gave up after 2 attempts');
  });
});
