/**
 * Some OpenAI-compatible endpoints ignore `"stream": true` and answer with one plain JSON
 * chat completion. The AI SDK then reads no events and fails with "Response stream ended
 * without a finish reason", throwing a good answer away. {@link acceptJsonAnswers} wraps
 * `fetch` so that such an answer is handed on as the event stream it stands for.
 */
import { z } from 'zod';

type Fetch = typeof globalThis.fetch;

/** The parts of a chat completion that a stream of chunks can carry. */
const Completion = z.object({
  id: z.string().optional(),
  created: z.number().optional(),
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        index: z.number().optional(),
        message: z.object({
          role: z.string().optional(),
          content: z.string().nullish(),
          reasoning_content: z.string().nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: z.record(z.string(), z.unknown()).nullish(),
});
type Completion = z.infer<typeof Completion>;

const asksForStream = (init: RequestInit | undefined): boolean =>
  typeof init?.body === 'string' && /"stream"\s*:\s*true/.test(init.body);

const isJson = (res: Response): boolean => (res.headers.get('content-type') ?? '').includes('application/json');

/** A fetch that turns a JSON completion, answered to a streaming request, into its event stream. */
export function acceptJsonAnswers(inner: Fetch = globalThis.fetch): Fetch {
  return async (input, init) => {
    const res = await inner(input, init);
    if (!res.ok || !asksForStream(init) || !isJson(res)) return res;
    const text = await res.text();
    const parsed = parseCompletion(text);
    const headers = new Headers(res.headers);
    if (!parsed) return new Response(text, { status: res.status, statusText: res.statusText, headers });
    headers.set('content-type', 'text/event-stream');
    return new Response(completionEvents(parsed), { status: res.status, statusText: res.statusText, headers });
  };
}

function parseCompletion(text: string): Completion | undefined {
  try {
    const r = Completion.safeParse(JSON.parse(text));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

/** The server-sent events a streaming endpoint would have sent for `c`. */
export function completionEvents(c: Completion): string {
  const base = {
    id: c.id ?? 'chatcmpl',
    object: 'chat.completion.chunk',
    created: c.created ?? 0,
    model: c.model ?? '',
  };
  const chunk = (choices: unknown[], extra: object = {}) =>
    `data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`;
  const events = c.choices.map((choice, i) => {
    const { role, content, reasoning_content } = choice.message;
    const delta = {
      role: role ?? 'assistant',
      content: content ?? '',
      ...(reasoning_content ? { reasoning_content } : {}),
    };
    return chunk([{ index: choice.index ?? i, delta, finish_reason: choice.finish_reason ?? 'stop' }]);
  });
  if (c.usage) events.push(chunk([], { usage: c.usage }));
  events.push('data: [DONE]\n\n');
  return events.join('');
}
