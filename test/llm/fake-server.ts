/**
 * A local HTTP server speaking just enough of the OpenAI chat-completions and Anthropic
 * messages wire formats (plain JSON answers and server-sent event streams) to exercise the
 * real provider code.
 */
import { type IncomingHttpHeaders, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Reply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** wait before answering */
  delayMs?: number;
  /** answer as a server-sent event stream of these events (see openaiStream, anthropicStream) */
  events?: string[];
  /** after the events, drop the connection instead of ending the answer */
  cut?: boolean;
}

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface FakeServer {
  url: string;
  received: Received[];
  /** queue replies; when the queue is empty the server answers 500 */
  reply(...r: Reply[]): void;
  close(): Promise<void>;
}

export async function startFakeServer(): Promise<FakeServer> {
  const queue: Reply[] = [];
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: raw ? JSON.parse(raw) : null,
      });
      const r = queue.shift() ?? { status: 500, body: { error: { message: 'no reply queued' } } };
      const send = () => {
        if (res.destroyed) return;
        if (r.events) {
          res.writeHead(r.status ?? 200, {
            'content-type': 'text/event-stream',
            'cache-control': 'no-cache',
            ...r.headers,
          });
          for (const e of r.events) res.write(e);
          if (r.cut) setTimeout(() => res.socket?.destroy(), 20);
          else res.end();
          return;
        }
        res.writeHead(r.status ?? 200, { 'content-type': 'application/json', ...r.headers });
        res.end(JSON.stringify(r.body ?? {}));
      };
      if (r.delayMs) setTimeout(send, r.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    reply: (...r) => queue.push(...r),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const openaiCompletion = (text: string, usage = { prompt_tokens: 12, completion_tokens: 5 }) => ({
  id: 'chatcmpl-test',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'gpt-test',
  choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
  usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
});

export const anthropicMessage = (text: string, usage = { input_tokens: 10, output_tokens: 3 }) => ({
  id: 'msg_test',
  type: 'message',
  role: 'assistant',
  model: 'claude-test',
  content: [{ type: 'text', text }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage,
});

export const openaiError = (message: string, type = 'invalid_request_error') => ({
  error: { message, type, param: null, code: null },
});

export const anthropicError = (message: string, type = 'authentication_error') => ({
  type: 'error',
  error: { type, message },
});

const sse = (data: unknown, event?: string) =>
  `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

/** An OpenAI chat-completions stream of `chunks`, usage in the last chunk, then [DONE]. */
export function openaiStream(chunks: string[], usage = { prompt_tokens: 12, completion_tokens: 5 }): string[] {
  const base = { id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'gpt-test' };
  return [
    sse({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
    ...chunks.map((c) => sse({ ...base, choices: [{ index: 0, delta: { content: c }, finish_reason: null }] })),
    sse({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
    sse({ ...base, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }),
    sse('[DONE]'),
  ];
}

/** An Anthropic messages stream of `chunks` (text deltas), with the usage of the message. */
export function anthropicStream(chunks: string[], usage = { input_tokens: 10, output_tokens: 3 }): string[] {
  return [
    sse(
      {
        type: 'message_start',
        message: {
          id: 'msg_test',
          type: 'message',
          role: 'assistant',
          model: 'claude-test',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: usage.input_tokens, output_tokens: 1 },
        },
      },
      'message_start',
    ),
    sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start'),
    ...chunks.map((c) =>
      sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: c } }, 'content_block_delta'),
    ),
    sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop'),
    sse(
      {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: usage.output_tokens },
      },
      'message_delta',
    ),
    sse({ type: 'message_stop' }, 'message_stop'),
  ];
}
