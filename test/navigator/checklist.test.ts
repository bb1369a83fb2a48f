import { describe, expect, it } from 'vitest';
import { ChecklistError, normalizeChecklist, renderProgress } from '../../src/navigator/index.ts';

describe('normalizeChecklist', () => {
  it('numbers strings from 1 and keeps given ids', () => {
    expect(normalizeChecklist(['Gather data', 'Analyze'])).toEqual([
      { id: '1', description: 'Gather data' },
      { id: '2', description: 'Analyze' },
    ]);
    expect(
      normalizeChecklist([
        { id: 'fetch', description: 'Fetch' },
        { id: 7, description: 'Seven' },
      ]),
    ).toEqual([
      { id: 'fetch', description: 'Fetch' },
      { id: '7', description: 'Seven' },
    ]);
    expect(normalizeChecklist([])).toEqual([]);
  });

  it.each([
    [['a', '  '], '1: empty description'],
    [['a', { id: '1', description: 'b' }], '1: duplicate checklist id "1" (also item 0)'],
    [[{ id: '', description: 'x' }], '0: empty checklist id'],
    [[42], '0: invalid checklist item, expected a string or {id, description}'],
    [[{ id: 'a' }], '0: invalid checklist item, expected a string or {id, description}'],
    ['not a list', 'a checklist must be an array of strings or {id, description}'],
  ])('rejects %j', (plan, problem) => {
    let err: unknown;
    try {
      normalizeChecklist(plan);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ChecklistError);
    expect((err as ChecklistError).problems).toContain(problem);
  });
});

describe('renderProgress', () => {
  const plan = normalizeChecklist(['Gather data', 'Analyze results']);

  it('renders all unchecked at the start', () => {
    expect(renderProgress(plan)).toMatchInlineSnapshot(`
      "## Progress
      Batch independent steps into one program, and call (step-done "ID" "what you found") as each step finishes. A step that does not apply on your path is done too: (step-done "ID" "not needed: why").

      - [ ] \`1\` Gather data
      - [ ] \`2\` Analyze results"
    `);
  });

  it('ticks summarised steps and lists out-of-plan steps sorted, never truncating', () => {
    const long = 'x'.repeat(300);
    const text = renderProgress(
      plan,
      new Map([
        ['zeta', 'late'],
        ['1', 'Found 42 records'],
        ['alpha', long],
      ]),
    );
    expect(text).toContain('- [x] `1` Gather data — Found 42 records');
    expect(text).toContain('- [ ] `2` Analyze results');
    expect(text.split('### Out-of-Plan Steps\n')[1]).toBe(`- [x] alpha: ${long}\n- [x] zeta: late`);
    expect(renderProgress(plan, { '2': 'done' })).toContain('- [x] `2` Analyze results — done');
  });

  it('is empty without a plan', () => {
    expect(renderProgress([], { a: 'b' })).toBe('');
  });
});
