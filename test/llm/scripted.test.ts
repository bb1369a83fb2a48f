import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type ChatModel,
  LlmError,
  checkedModel,
  createModel,
  createRecordingModel,
  createScriptedModel,
} from '../../src/llm/index.ts';
import { failure } from './helpers.ts';

const ask = (content: string, system = 'sys') => ({ system, messages: [{ role: 'user' as const, content }] });

describe('scripted model', () => {
  it('answers turns in order and fails loudly when it runs out', async () => {
    const m = createScriptedModel(['(+ 1 2)', { answer: '(return 3)', usage: { inputTokens: 5, outputTokens: 2 } }]);
    expect((await m.generate(ask('first'))).text).toBe('(+ 1 2)');
    expect(await m.generate(ask('second'))).toEqual({ text: '(return 3)', usage: { inputTokens: 5, outputTokens: 2 } });
    expect(m.remaining).toBe(0);
    const err = await failure(m.generate(ask('third call, please answer')));
    expect(err.code).toBe('script_exhausted');
    expect(err.message).toBe(
      'scripted model script: call 3 has no answer left (all 2 turns used). Last message: "third call, please answer"',
    );
  });

  it('estimates usage when the script gives none', async () => {
    const m = createScriptedModel([{ answer: '12345678' }]);
    expect((await m.generate(ask('abcd', 'efgh'))).usage).toEqual({ inputTokens: 3, outputTokens: 2 });
  });

  it('prefers a matching turn, searching the system prompt and all messages', async () => {
    const m = createScriptedModel({
      turns: [
        { answer: 'first pass' },
        { match: '[done] manager_decision_bob_5000: "approved"', answer: 'approved pass' },
        { match: ['manager_decision', '"rejected"'], answer: 'rejected pass' },
      ],
    });
    expect(
      (await m.generate(ask('mission', '## Mission Log\n- [done] manager_decision_bob_5000: "approved"'))).text,
    ).toBe('approved pass');
    expect((await m.generate(ask('mission'))).text).toBe('first pass');
    expect((await m.generate(ask('manager_decision_bob_5000 is "rejected"'))).text).toBe('rejected pass');
    expect(m.used).toEqual([1, 0, 2]);
  });

  it('names the turns still waiting when nothing matches', async () => {
    const m = createScriptedModel([{ match: 'manager_decision', answer: 'x' }]);
    const err = await failure(m.generate(ask('unrelated prompt')));
    expect(err.code).toBe('script_no_match');
    expect(err.message).toMatchInlineSnapshot(`
      "scripted model script: no unused turn matches the prompt of call 1.
        turn 1 waits for "manager_decision"
      Last message: "unrelated prompt""
    `);
  });

  it('keeps repeating turns available', async () => {
    const m = createScriptedModel([{ match: 'again', answer: 'same', repeat: true }]);
    for (let i = 0; i < 3; i++) expect((await m.generate(ask('again'))).text).toBe('same');
    expect(m.remaining).toBe(0);
  });

  it('rejects malformed scripts with path-level messages', () => {
    expect(() => createScriptedModel([{ answer: 1 }] as never)).toThrow(LlmError);
    expect(() => createScriptedModel([{ anser: 'typo' }] as never)).toThrow(/invalid scripted answers in script/);
  });

  it('reads a JSON file, also through createModel("scripted:FILE")', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scripted-'));
    const file = join(dir, 'answers.json');
    writeFileSync(file, JSON.stringify([{ match: 'hello', answer: '```clojure\n(return 1)\n```' }]));
    const m = createModel(`scripted:${file}`);
    expect(m.id).toBe(`scripted:${file}`);
    expect((await m.generate(ask('hello'))).text).toBe('```clojure\n(return 1)\n```');
    writeFileSync(file, '{not json');
    expect(() => createScriptedModel(file)).toThrow(/are not valid JSON/);
    expect(() => createScriptedModel(join(dir, 'missing.json'))).toThrow(/cannot read scripted answers/);
  });
});

describe('recording model', () => {
  it('writes answers in the scripted format and replays them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'record-'));
    const file = join(dir, 'sub', 'rec.json');
    const real = createScriptedModel(['(def x 1)', '(return x)'], { id: 'openai:gpt-fake' });
    const rec = createRecordingModel(real, file, { match: (_req, turn) => (turn === 2 ? 'second' : undefined) });
    await rec.generate(ask('first'));
    await rec.generate(ask('second'));
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved.model).toBe('openai:gpt-fake');
    expect(saved.turns).toEqual([
      { answer: '(def x 1)', usage: { inputTokens: 3, outputTokens: 3 }, note: 'openai:gpt-fake, call 1' },
      {
        match: 'second',
        answer: '(return x)',
        usage: { inputTokens: 3, outputTokens: 3 },
        note: 'openai:gpt-fake, call 2',
      },
    ]);

    const replay = createScriptedModel(file);
    expect((await replay.generate(ask('second'))).text).toBe('(return x)');
    expect((await replay.generate(ask('first'))).text).toBe('(def x 1)');

    const more = createRecordingModel(createScriptedModel(['(return 2)']), file, { append: true });
    await more.generate(ask('third'));
    expect(more.turns).toHaveLength(3);
  });
});

describe('checkedModel', () => {
  it('validates requests and responses', async () => {
    const broken: ChatModel = { id: 'broken', generate: async () => ({ text: 1 }) as never };
    const err = await failure(checkedModel(broken).generate(ask('x')));
    expect(err.code).toBe('llm_invalid_response');
    expect(err.message).toContain('model broken returned an invalid response');
    const empty = await failure(checkedModel(broken).generate({ system: '', messages: [] }));
    expect(empty.message).toContain('a chat request needs at least one message');
  });
});
