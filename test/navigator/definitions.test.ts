import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  type AgentInput,
  type AgentOutput,
  DefinitionError,
  InputError,
  checkDecisionValue,
  decisionKey,
  defineAgent,
  defineDecision,
  defineTool,
  parseInput,
  renderMissionText,
  resolveDecisions,
} from '../../src/navigator/index.ts';
import { executeWire, lookupAccount, managerDecision, prepareWire, wireAgent } from './fixtures.ts';

function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a throw');
}

describe('defineTool', () => {
  it('produces an interpreter ToolDef', () => {
    expect(prepareWire.name).toBe('prepare_wire');
    expect(prepareWire.sideEffect).toBe('external');
    expect(lookupAccount.sideEffect).toBe('read_only');
  });

  it('treats a missing or unknown side-effect class as external', () => {
    const base = { description: 'd', input: z.object({}), handler: () => 1 };
    expect(defineTool({ ...base, name: 'a' }).sideEffect).toBe('external');
    expect(defineTool({ ...base, name: 'b', sideEffect: 'network' }).sideEffect).toBe('external');
    expect(defineTool({ ...base, name: 'c', sideEffect: 'memory' }).sideEffect).toBe('memory');
  });

  it('types handler arguments from the schema', () => {
    defineTool({
      name: 't',
      description: 'd',
      input: z.object({ n: z.number(), s: z.string().default('x') }),
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ n: number; s: string }>();
        return null;
      },
    });
  });

  it('lists every problem of a bad definition', () => {
    const e = thrown(() =>
      defineTool({ name: 'tool/x', description: ' ', input: z.string() as never, handler: 'nope' as never }),
    );
    expect(e).toBeInstanceOf(DefinitionError);
    expect(e.message).toMatchInlineSnapshot(`
      "defineTool("tool/x"):
        - name: must start with a letter or _ and contain only letters, digits, _ and - (called as tool/NAME)
        - description: must not be empty
        - input: must be a zod object schema (z.object({...}); use z.object({}) for no arguments)
        - handler: must be a function (args, ctx) => result"
    `);
  });

  it('checks the example against the input schema', () => {
    const e = thrown(() =>
      defineTool({
        name: 'x',
        description: 'd',
        input: z.object({ n: z.number() }),
        example: { n: 'one' } as never,
        handler: () => 1,
      }),
    );
    expect(e.message).toContain('example.n: Invalid input: expected number, received string');
  });
});

describe('defineAgent', () => {
  it('normalises the checklist and limits and keeps the definition', () => {
    expect(wireAgent.checklist).toEqual([
      { id: '1', description: 'Prepare the wire' },
      { id: '2', description: 'Wait for the manager' },
      { id: 'send', description: 'Send or cancel' },
    ]);
    expect(wireAgent.limits).toEqual({ maxTurns: 4, retryTurns: 0, timeoutMs: 5000, fuel: 1_000_000 });
    expect(wireAgent.tools.map((t) => t.name)).toEqual(['lookup_account', 'prepare_wire', 'execute_wire']);
  });

  it('derives input and output types from the schemas', () => {
    expectTypeOf<AgentInput<typeof wireAgent>>().toEqualTypeOf<{ recipient: string; amount: number }>();
    expectTypeOf<AgentOutput<typeof wireAgent>>().toEqualTypeOf<{
      status: 'sent' | 'cancelled';
      reference?: string | undefined;
    }>();
  });

  it('reports every problem of a bad definition with its path', () => {
    const e = thrown(() =>
      defineAgent({
        name: 'bad',
        prompt: 'Pay {{amount}} to {{payee}} ({{ amount.currency }})',
        input: z.object({ amount: z.number() }),
        output: z.number(),
        tools: [prepareWire, executeWire, prepareWire, { name: 'x' } as never],
        plan: ['Prepare', '', { id: 'Prepare', description: 'dup?' }, { id: '1', description: 'again' }, 7 as never],
        limits: { maxTurns: 0, retryTurn: 1 } as never,
        model: 'gpt-4',
        decisions: [managerDecision as never, managerDecision as never, {} as never],
      }),
    );
    expect(e).toBeInstanceOf(DefinitionError);
    expect(e.message).toMatchInlineSnapshot(`
      "defineAgent("bad"):
        - prompt: placeholder {{payee}} does not name an input field (fields: amount)
        - tools.2.name: duplicate tool name "prepare_wire" (also tools.0)
        - tools.3.description: must be a string
        - tools.3.input: must be a zod object schema (z.object({...}); use z.object({}) for no arguments)
        - tools.3.handler: must be a function (args, ctx) => result
        - plan.1: empty description
        - plan.3: duplicate checklist id "1" (also item 0)
        - plan.4: invalid checklist item, expected a string or {id, description}
        - limits.maxTurns: Too small: expected number to be >=1
        - limits: Unrecognized key: "retryTurn"
        - model: invalid model "gpt-4": no provider prefix; expected openai:MODEL, anthropic:MODEL or openai-compatible:BASE_URL#MODEL (e.g. openai:gpt-4.1-mini, anthropic:claude-sonnet-4-5, openai-compatible:http://127.0.0.1:11434/v1#qwen2.5)
        - decisions.1.name: duplicate decision "manager_decision" (also decisions.0)
        - decisions.2: must be made with defineDecision"
    `);
  });

  it('rejects a definition that is not even shaped like one', () => {
    const e = thrown(() => defineAgent({ name: '1x', prompt: '', input: z.string(), output: 5 } as never));
    expect(e.message).toMatchInlineSnapshot(`
      "defineAgent("1x"):
        - name: must start with a letter and contain only letters, digits, _ and -
        - prompt: must not be empty
        - input: must be a zod object schema (z.object({...})): its fields become data/ entries
        - output: must be a zod schema of the return value"
    `);
  });

  it('accepts scripted and provider model strings', () => {
    const base = { name: 'm', prompt: 'p', input: z.object({}), output: z.any() };
    expect(defineAgent({ ...base, model: 'scripted:answers.json' }).model).toBe('scripted:answers.json');
    expect(defineAgent({ ...base, model: 'openai:gpt-4.1-mini' }).model).toBe('openai:gpt-4.1-mini');
  });

  it('validates input with path-level problems', () => {
    expect(parseInput(wireAgent, { recipient: 'bob', amount: 5000 })).toEqual({ recipient: 'bob', amount: 5000 });
    const e = thrown(() => parseInput(wireAgent, { recipient: 5, amount: -1 }));
    expect(e).toBeInstanceOf(InputError);
    expect(e.message).toMatchInlineSnapshot(`
      "invalid input for agent "wire-transfer":
        - recipient: Invalid input: expected string, received number
        - amount: Too small: expected number to be >0"
    `);
  });

  it('fills the mission from the input', () => {
    expect(renderMissionText(wireAgent, { recipient: 'bob', amount: 5000 })).toBe(
      'Send 5000 USD to bob once a manager approves.',
    );
    expect(renderMissionText({ prompt: 'A {{ a.b }} {{c}}' }, { a: { b: [1, 'x'] }, c: 'z' })).toBe('A [1,"x"] z');
  });
});

describe('decisions', () => {
  it('resolves the journal key for an input', () => {
    expect(resolveDecisions(wireAgent, { recipient: 'Bob Smith', amount: 5000 })).toMatchObject([
      { name: 'manager_decision', key: 'manager_decision_bob_smith_5000' },
    ]);
    expect(decisionKey('approve', 'ACME Corp.', 12.5)).toBe('approve_acme_corp._12.5');
  });

  it('rejects a key function that produces an unusable key', () => {
    const d = defineDecision({ name: 'd', description: 'x', key: () => 'has space', values: z.boolean() });
    expect(() => resolveDecisions({ ...wireAgent, decisions: [d] }, {})).toThrow(
      /key\(input\) returned "has space"; a key is a non-empty string/,
    );
  });

  it('validates decision values', () => {
    const [d] = resolveDecisions(wireAgent, { recipient: 'bob', amount: 1 });
    expect(checkDecisionValue(d!, 'approved')).toEqual({ ok: true, value: 'approved' });
    expect(checkDecisionValue(d!, 'maybe')).toEqual({
      ok: false,
      problems: ['manager_decision_bob_1: Invalid option: expected one of "approved"|"rejected"'],
    });
  });

  it('checks decision definitions', () => {
    const e = thrown(() =>
      defineDecision({
        name: 'd',
        description: '',
        key: 'k' as never,
        values: z.enum(['a']),
        expiry: { afterMs: 1000, value: 'b' as never },
      }),
    );
    expect(e.message).toMatchInlineSnapshot(`
      "defineDecision("d"):
        - description: must not be empty
        - key: must be a function from the agent input to the journal key"
    `);
    expect(() =>
      defineDecision({
        name: 'd',
        description: 'x',
        key: () => 'k',
        values: z.enum(['a']),
        expiry: { afterMs: 5, value: 'b' as never },
      }),
    ).toThrow(/expiry\.value: Invalid input: expected "a"/);
  });
});
