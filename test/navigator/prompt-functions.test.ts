/**
 * Every core function the system prompt names exists and runs: a model that uses what
 * the prompt lists must never meet `unbound_var`.
 */
import { describe, expect, it } from 'vitest';
import { run } from '../../src/lisp/index.ts';
import { CORE_AREAS } from '../../src/navigator/prompt/language.ts';

const names = CORE_AREAS.flatMap(([, ns]) => ns);

/** A call of each function that the prompt's own examples would make. */
const calls: Record<string, string> = {
  disj: '(disj #{1 2 3} 2)',
  union: '(union #{1} #{2})',
  intersection: '(intersection #{1 2} #{2 3})',
  difference: '(difference #{1 2} #{2})',
};

describe('functions named in the system prompt', () => {
  it.each(names)('%s is bound', async (name) => {
    const result = await run(name);
    // special forms (where, pmap, ...) cannot be values, but they exist
    const special =
      result.status === 'error' &&
      result.error.code === 'invalid_form' &&
      / is a special form/.test(result.error.message);
    expect(result.status === 'error' && !special ? `${result.error.code}: ${result.error.message}` : 'bound').toBe(
      'bound',
    );
  });

  it.each(Object.entries(calls))('%s runs', async (_name, source) => {
    const result = await run(source);
    expect(result.status).toBe('ok');
  });

  it('disj removes items and keeps nil as nil', async () => {
    expect(await run('(disj #{1 2 3} 2 3)')).toMatchObject({ status: 'ok' });
    const r = await run('[(disj #{1 2 3} 2 3) (disj nil 1) (disj #{:a} :b)]');
    expect(r.status === 'ok' && (await import('../../src/lisp/printer/index.ts')).prStr(r.value)).toBe(
      '[#{1} nil #{:a}]',
    );
  });
});

describe('turn budget in the first message', () => {
  it('states the turns, and what retry turns are for', async () => {
    const { renderBudget } = await import('../../src/navigator/prompt/firstMessage.ts');
    expect(renderBudget({ maxTurns: 1, retryTurns: 0 })).toBe(
      'You have 1 turn (programs) in this pass. Your one program must end the mission.',
    );
    expect(renderBudget({ maxTurns: 5, retryTurns: 2 })).toBe(
      'You have 5 turns (programs) in this pass, plus 2 retry turns used only to correct a return that does not match the expected output. Each turn is a model call: aim to do the whole mission in one program.',
    );
  });
});

describe('what the first message says of each tool (issue 43)', () => {
  it('shows the descriptions of result fields, at any depth', async () => {
    const { z } = await import('zod');
    const { defineTool } = await import('../../src/navigator/tool.ts');
    const { renderTool } = await import('../../src/navigator/prompt/firstMessage.ts');
    const hours = defineTool({
      name: 'weekly_hours',
      description: 'Hours worked per employee.',
      input: z.object({ week: z.string() }),
      output: z.array(
        z.object({
          employee: z.string(),
          hours: z.number().int().describe('in hundredths of an hour (4250 is 42.5 hours)'),
          shifts: z.array(z.object({ day: z.string().describe('YYYY-MM-DD') })),
        }),
      ),
      sideEffect: 'read_only',
      handler: () => [],
    });
    expect(renderTool(hours)).toBe(
      [
        'tool/weekly_hours {:week string} -> [{:employee string, :hours integer, :shifts [{:day string}]}]',
        '  Hours worked per employee. Read-only.',
        '  result :hours — in hundredths of an hour (4250 is 42.5 hours)',
        '  result :shifts :day — YYYY-MM-DD',
        '  Example: (tool/weekly_hours {:week "week"})',
      ].join('\n'),
    );
  });

  it('says which tools wait for a person, and that calls in one pmap are asked together', async () => {
    const { z } = await import('zod');
    const { defineAgent, defineTool } = await import('../../src/navigator/index.ts');
    const { firstUserMessage, WAITS_FOR_APPROVAL } = await import('../../src/navigator/prompt/firstMessage.ts');
    const tool = (name: string, extra: object = {}) =>
      defineTool({
        name,
        description: `${name}.`,
        input: z.object({ id: z.string() }),
        sideEffect: 'external',
        handler: () => null,
        ...extra,
      });
    const agent = defineAgent({
      name: 'a',
      prompt: 'p',
      input: z.object({}),
      output: z.any(),
      tools: [tool('pay', { requiresApproval: true }), tool('notify'), tool('refund')],
      approvals: { tools: ['refund'] },
    });
    const text = firstUserMessage({ agent, input: {} });
    const block = (name: string) => text.split('\n\n').find((b) => b.includes(`tool/${name} `))!;
    expect(block('pay')).toContain(WAITS_FOR_APPROVAL);
    expect(block('refund')).toContain(WAITS_FOR_APPROVAL);
    expect(block('notify')).not.toContain('approval');
    expect(WAITS_FOR_APPROVAL).toMatch(/pmap are put to the person together/);
  });
});
