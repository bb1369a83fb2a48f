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
    const special = result.status === 'error' && result.error.code === 'invalid_form' && / is a special form/.test(result.error.message);
    expect(result.status === 'error' && !special ? `${result.error.code}: ${result.error.message}` : 'bound').toBe('bound');
  });

  it.each(Object.entries(calls))('%s runs', async (_name, source) => {
    const result = await run(source);
    expect(result.status).toBe('ok');
  });

  it('disj removes items and keeps nil as nil', async () => {
    expect(await run('(disj #{1 2 3} 2 3)')).toMatchObject({ status: 'ok' });
    const r = await run('[(disj #{1 2 3} 2 3) (disj nil 1) (disj #{:a} :b)]');
    expect(r.status === 'ok' && (await import('../../src/lisp/printer/index.ts')).prStr(r.value)).toBe('[#{1} nil #{:a}]');
  });
});

describe('turn budget in the first message', () => {
  it('states the turns, and what retry turns are for', async () => {
    const { renderBudget } = await import('../../src/navigator/prompt/firstMessage.ts');
    expect(renderBudget({ maxTurns: 1, retryTurns: 0 })).toBe('You have 1 turn (programs) in this pass. Your one program must end the mission.');
    expect(renderBudget({ maxTurns: 5, retryTurns: 2 })).toBe(
      'You have 5 turns (programs) in this pass, plus 2 retry turns used only to correct a return that does not match the expected output. Each turn is a model call: aim to do the whole mission in one program.',
    );
  });
});
