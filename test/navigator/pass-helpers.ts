/** Helpers for pass tests: a model answering from a list and recording every request. */
import { z } from 'zod';
import type { ChatModel, ChatRequest } from '../../src/llm/model.ts';
import { type AgentLimitsInput, type NavigatorTool, defineAgent, defineTool } from '../../src/navigator/index.ts';

export const clj = (code: string): string => '```clojure\n' + code.trim() + '\n```';

export interface ListModel extends ChatModel {
  requests: Array<{ system: string; messages: ChatRequest['messages'] }>;
}

/**
 * Answers the n-th call with `answers[n]` (programs are fenced unless already fenced or
 * given as `{raw}`). Picks the answer from the number of assistant messages in the
 * conversation, so a fresh instance continues a conversation where another stopped.
 */
export function listModel(answers: Array<string | { raw: string }>, opts: { stateless?: boolean } = {}): ListModel {
  const requests: ListModel['requests'] = [];
  let calls = 0;
  return {
    id: 'list',
    requests,
    async generate(req) {
      requests.push({ system: req.system, messages: req.messages.map((m) => ({ ...m })) });
      const n = opts.stateless === false ? calls : req.messages.filter((m) => m.role === 'assistant').length;
      calls++;
      const a = answers[n];
      if (a === undefined) throw new Error(`no answer for call ${n + 1}`);
      const text = typeof a === 'string' ? (a.includes('```') ? a : clj(a)) : a.raw;
      return { text, usage: { inputTokens: 100, outputTokens: 10 } };
    },
  };
}

/** The user message the model read on turn `turn` (1-based). */
export const lastUserMessage = (m: ListModel, turn: number): string => {
  const msgs = m.requests[turn - 1]!.messages;
  return msgs[msgs.length - 1]!.content;
};

export function testAgent(
  opts: {
    tools?: NavigatorTool[];
    output?: z.ZodType;
    limits?: AgentLimitsInput;
    checklist?: Array<string | { id: string; description: string }>;
    /** the reference implementation's name for the checklist */
    plan?: Array<string | { id: string; description: string }>;
    input?: z.ZodObject;
  } = {},
) {
  return defineAgent({
    name: 'test-agent',
    prompt: 'Do the thing.',
    input: opts.input ?? z.object({}),
    output: opts.output ?? z.any(),
    tools: opts.tools ?? [],
    ...(opts.checklist ? { checklist: opts.checklist } : {}),
    ...(opts.plan ? { plan: opts.plan } : {}),
    limits: opts.limits ?? { maxTurns: 5 },
  });
}

export function tool(
  name: string,
  handler: (args: any) => unknown,
  sideEffect: 'read_only' | 'local' | 'memory' | 'external' = 'read_only',
  input: z.ZodObject = z.looseObject({}),
): NavigatorTool {
  return defineTool({ name, description: `the ${name} tool`, input, sideEffect, handler });
}
