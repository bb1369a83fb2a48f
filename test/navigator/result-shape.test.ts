/**
 * Result shapes learned from real results: tools without an `output` schema show, from
 * the next pass on, the shape an earlier call returned instead of `-> any`.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/navigator/index.ts';
import { renderTool } from '../../src/navigator/prompt/firstMessage.ts';
import { resultShape, shapesFromCalls } from '../../src/navigator/result-shape.ts';
import { MissionState } from '../../src/workflows/mission/state.ts';
import { MissionInput } from '../../src/workflows/mission/contract.ts';

describe('resultShape', () => {
  it.each([
    [null, 'nil'],
    [3, 'integer'],
    [2.5, 'number'],
    ['x', 'string'],
    [[], '[]'],
    [
      { hold_id: 'h1', amount: 5, tags: ['a'], 'odd key': true },
      '{:hold_id string, :amount integer, :tags [string], "odd key" boolean}',
    ],
    [{ rows: [{ id: 1, items: [{ sku: 'x' }] }] }, '{:rows [{:id integer, :items [...]}]}'],
  ])('%j is %s', (value, expected) => {
    expect(resultShape(value as never)).toBe(expected);
  });

  it('stays short for wide results', () => {
    const wide = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`field_${i}`, i]));
    const text = resultShape(wide);
    expect(text.length).toBeLessThanOrEqual(300);
    expect(text).toContain('...');
  });

  it("takes each tool's first successful result from a ledger", () => {
    expect(
      shapesFromCalls([
        { tool: 'a', status: 'failed', error: 'x' },
        { tool: 'a', status: 'completed', result: { n: 1 } },
        { tool: 'a', status: 'completed', result: 'later' },
        { tool: 'b', status: 'running' },
      ]),
    ).toEqual({ a: '{:n integer}' });
  });
});

describe('in the prompt and the mission', () => {
  const lookup = defineTool({
    name: 'lookup',
    description: 'Finds it.',
    input: z.object({ id: z.number() }),
    sideEffect: 'read_only',
    handler: () => null,
  });
  const typed = defineTool({
    name: 'typed',
    description: 'Typed.',
    input: z.object({}),
    output: z.object({ ok: z.boolean() }),
    sideEffect: 'read_only',
    handler: () => null,
  });

  it('a tool without output shows the learned shape; a declared output wins', () => {
    expect(renderTool(lookup)).toContain('tool/lookup {:id number} -> any');
    expect(renderTool(lookup, '{:name string}')).toContain(
      'tool/lookup {:id number} -> {:name string} (as an earlier call returned)',
    );
    expect(renderTool(typed, '{:other string}')).toContain('-> {:ok boolean}');
  });

  it('the mission hands the next pass the shapes of its ledger', () => {
    const state = new MissionState(MissionInput.parse({ agent: 'a' }), 'wf', 0);
    state.applyPass({
      kind: 'done',
      outcome: { kind: 'return', value: null },
      basedOnVersion: 0,
      journalDelta: [],
      resets: [],
      summaries: {},
      toolCalls: [
        {
          tool: 'lookup',
          taskId: null,
          idempotencyKey: 'k',
          sideEffect: 'read_only',
          result: { name: 'ann', age: 40 },
        },
      ],
      tokens: 0,
    });
    expect(state.passContext().toolShapes).toEqual({});
    state.beginPass();
    expect(state.passContext().toolShapes).toEqual({ lookup: '{:name string, :age integer}' });
  });
});
