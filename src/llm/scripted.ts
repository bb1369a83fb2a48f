/**
 * A scripted model: answers come from a list of turns (a JSON file or an object), so
 * examples and tests run offline and deterministically.
 *
 * ```json
 * [
 *   { "answer": "```clojure\n(task \"prepare\" (tool/prepare_wire {...}))\n```" },
 *   { "match": "[done] manager_decision_bob_5000: \"approved\"", "answer": "..." }
 * ]
 * ```
 *
 * Selection, on every call: among the turns not used yet, the first one whose `match`
 * text(s) all occur in the prompt (system prompt plus every message) wins; when no turn
 * with a `match` applies, the first unused turn without one is taken. A used turn is not
 * used again unless it says `"repeat": true`. When nothing applies the model fails
 * loudly ({@link LlmError} `script_exhausted` / `script_no_match`), naming what is left.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import {
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  LlmError,
  Usage,
  estimateTokens,
  issueLines,
  promptText,
} from './model.ts';

export const ScriptTurn = z.strictObject({
  /** text that must occur in the prompt; several strings must all occur */
  match: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
  answer: z.string(),
  /** reported usage; estimated from the text lengths when absent */
  usage: Usage.optional(),
  /** keep the turn available after use */
  repeat: z.boolean().optional(),
  /** free-form notes (the recorder writes the model id and turn number here) */
  note: z.string().optional(),
});
export type ScriptTurn = z.infer<typeof ScriptTurn>;

/** A script file: a list of turns (bare strings are answers), or `{turns: [...]}`. */
export const Script = z.union([
  z.array(z.union([z.string().transform((answer) => ({ answer })), ScriptTurn])),
  z
    .strictObject({
      model: z.string().optional(),
      turns: z.array(z.union([z.string().transform((answer) => ({ answer })), ScriptTurn])),
    })
    .transform((s) => s.turns),
]);
export type ScriptInput = z.input<typeof Script>;

export interface ScriptedModel extends ChatModel {
  /** how many non-repeating turns are still unused */
  readonly remaining: number;
  /** the turns used so far, in call order (indices into the script) */
  readonly used: readonly number[];
}

/** Parses a script, failing with path-level messages. `source` names it in errors. */
export function parseScript(raw: unknown, source = 'script'): ScriptTurn[] {
  const parsed = Script.safeParse(raw);
  if (!parsed.success) {
    throw new LlmError('llm_config', `invalid scripted answers in ${source}:\n${issueLines(parsed.error)}`);
  }
  return parsed.data as ScriptTurn[];
}

/** Reads and parses a script file. */
export function loadScript(file: string): ScriptTurn[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new LlmError('llm_config', `cannot read scripted answers from ${file}: ${(e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new LlmError('llm_config', `scripted answers in ${file} are not valid JSON: ${(e as Error).message}`);
  }
  return parseScript(json, file);
}

const matches = (turn: ScriptTurn, prompt: string): boolean => {
  if (turn.match === undefined) return false;
  const needles = typeof turn.match === 'string' ? [turn.match] : turn.match;
  return needles.every((n) => prompt.includes(n));
};

const excerpt = (s: string, n = 160): string => {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n)}...` : one;
};

export interface ScriptedModelOptions {
  id?: string;
  /**
   * answer slowly, token by token: each token (about four characters) after this many
   * milliseconds, told to the caller's `onProgress` with the text so far, as a streaming
   * provider does (tests of what shows while a model answers) @default 0: at once
   */
  tokenDelayMs?: number;
}

/** Tells `onProgress` the answer token by token (about four characters each), one every `delayMs`. */
async function streamSlowly(text: string, delayMs: number, req: ChatRequest): Promise<void> {
  const tokens = text.match(/[\s\S]{1,4}/g) ?? [];
  let sent = '';
  for (const token of tokens) {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (req.signal?.aborted) throw new LlmError('llm_aborted', 'the scripted answer was aborted');
    sent += token;
    req.onProgress?.(estimateTokens(sent), sent);
  }
}

/**
 * A {@link ChatModel} answering from a script (turns, a parsed script object, or a file
 * path).
 */
export function createScriptedModel(script: ScriptInput | string, opts: ScriptedModelOptions = {}): ScriptedModel {
  const source = typeof script === 'string' ? script : 'script';
  const turns = typeof script === 'string' ? loadScript(script) : parseScript(script);
  const id = opts.id ?? (typeof script === 'string' ? `scripted:${script}` : 'scripted');
  const usedSet = new Set<number>();
  const used: number[] = [];
  let calls = 0;

  const pick = (prompt: string): number => {
    const available = (i: number) => turns[i]!.repeat || !usedSet.has(i);
    for (let i = 0; i < turns.length; i++) if (available(i) && matches(turns[i]!, prompt)) return i;
    for (let i = 0; i < turns.length; i++) if (available(i) && turns[i]!.match === undefined) return i;
    return -1;
  };

  return {
    id,
    get remaining() {
      return turns.filter((t, i) => !t.repeat && !usedSet.has(i)).length;
    },
    get used() {
      return used.slice();
    },
    async generate(req: ChatRequest): Promise<ChatResponse> {
      calls++;
      const prompt = promptText(req);
      const i = pick(prompt);
      if (i < 0) {
        const waiting = turns.map((t, j) => ({ t, j })).filter(({ t, j }) => t.repeat || !usedSet.has(j));
        const last = req.messages[req.messages.length - 1]?.content ?? '';
        if (waiting.length === 0) {
          throw new LlmError(
            'script_exhausted',
            `scripted model ${source}: call ${calls} has no answer left (all ${turns.length} turns used). ` +
              `Last message: "${excerpt(last)}"`,
            { model: id },
          );
        }
        const wanted = waiting.map(({ t, j }) => `  turn ${j + 1} waits for ${JSON.stringify(t.match)}`).join('\n');
        throw new LlmError(
          'script_no_match',
          `scripted model ${source}: no unused turn matches the prompt of call ${calls}.\n${wanted}\n` +
            `Last message: "${excerpt(last)}"`,
          { model: id },
        );
      }
      const turn = turns[i]!;
      usedSet.add(i);
      used.push(i);
      if (opts.tokenDelayMs && req.onProgress) await streamSlowly(turn.answer, opts.tokenDelayMs, req);
      return {
        text: turn.answer,
        usage: turn.usage ?? { inputTokens: estimateTokens(prompt), outputTokens: estimateTokens(turn.answer) },
      };
    },
  };
}
