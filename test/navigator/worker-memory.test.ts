/**
 * What a worker keeps to spare model calls (issue 29): result shapes across missions
 * (ShapeMemory: per agent and tool, shapes only, bounded, latest wins, tools with an
 * output left out) and the program a pass waited for a decision in (WaitingPrograms),
 * which the next pass runs again before asking the model (startPass `replay`).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ShapeMemory, WaitingPrograms, defineTool, passShapes, startPass } from '../../src/navigator/index.ts';
import { renderTool } from '../../src/navigator/prompt/firstMessage.ts';
import { listModel, testAgent, tool } from './pass-helpers.ts';

const agent = (name: string) => ({
  name,
  tools: [{ name: 'list_invoices' }, { name: 'get_rate', output: z.object({ rate: z.number() }) }],
});

describe('ShapeMemory', () => {
  it('keeps the shape, never the values, of tools without output, per agent', () => {
    const m = new ShapeMemory();
    m.learn(agent('a'), [
      { tool: 'list_invoices', result: [{ id: 'inv-1', due: '2024-02-10', amount: 120.5, paid: false }] },
      { tool: 'get_rate', result: { rate: 0.5 } },
    ]);
    const shapes = m.shapesFor(agent('a'));
    expect(shapes).toEqual({ list_invoices: '[{:id string, :due string, :amount number, :paid boolean}]' });
    expect(JSON.stringify(shapes)).not.toMatch(/inv-1|2024|120/);
    expect(m.shapesFor(agent('b'))).toEqual({});
  });

  it('skips failed calls, and the latest successful result wins', () => {
    const m = new ShapeMemory();
    m.learn(agent('a'), [{ tool: 'list_invoices', error: 'boom' }]);
    expect(m.size).toBe(0);
    m.learn(agent('a'), [{ tool: 'list_invoices', result: { rows: [] } }]);
    m.learn(agent('a'), [{ tool: 'list_invoices', result: [{ id: 'x' }] }]);
    expect(m.shapesFor(agent('a'))).toEqual({ list_invoices: '[{:id string}]' });
  });

  it('is bounded: the least recently used agent and tool go first', () => {
    const m = new ShapeMemory(2);
    for (const name of ['a', 'b', 'c']) {
      m.learn(agent(name), [{ tool: 'list_invoices', result: [1] }]);
      if (name === 'b') m.shapesFor(agent('a')); // a is used again: b is now the oldest
    }
    expect(m.size).toBe(2);
    expect(Object.keys(m.shapesFor(agent('a')))).toEqual(['list_invoices']);
    expect(m.shapesFor(agent('b'))).toEqual({});
    expect(() => new ShapeMemory(0)).toThrow(/positive integer/);
  });

  it("passShapes: the mission's own shapes win over remembered ones", () => {
    const m = new ShapeMemory();
    m.learn(agent('a'), [{ tool: 'list_invoices', result: [1] }]);
    expect(passShapes(m, agent('a'), { list_invoices: '[string]' })).toEqual({ list_invoices: '[string]' });
    expect(passShapes(m, agent('a'), undefined)).toEqual({ list_invoices: '[integer]' });
    expect(passShapes(undefined, agent('a'), undefined)).toBeUndefined();
    expect(passShapes(new ShapeMemory(), agent('a'), undefined)).toBeUndefined();
  });

  it('the first turn of a later mission shows the shape instead of -> any', async () => {
    const list = defineTool({
      name: 'list_invoices',
      description: 'Invoices.',
      input: z.object({}),
      sideEffect: 'read_only',
      handler: () => [{ id: 'i', due: '2024-01-01' }],
    });
    expect(renderTool(list)).toContain('-> any');
    const m = new ShapeMemory();
    const a = testAgent({ tools: [list] });
    const first = await startPass({
      agent: a,
      input: {},
      journal: new Map(),
      runId: 'r1',
      model: listModel(['(return (count (tool/list_invoices)))']),
    });
    if (first.kind !== 'done') throw new Error('expected done');
    m.learn(a, first.toolCalls);
    const model = listModel(['(return 1)']);
    await startPass({
      agent: a,
      input: {},
      journal: new Map(),
      runId: 'r2',
      model,
      toolShapes: passShapes(m, a, undefined),
    });
    expect(model.requests[0]!.messages[0]!.content).toContain(
      'tool/list_invoices {} -> [{:id string, :due string}] (as an earlier call returned)',
    );
  });
});

const waited = (code: string) => ({
  outcome: { status: 'return', value: { status: 'waiting', decision: 'k' } },
  trace: [{ program: '(prn 1)' }, { program: code }],
});

describe('WaitingPrograms', () => {
  it('keeps the last program of a pass that waited, for the next pass of that mission only', () => {
    const w = new WaitingPrograms();
    w.remember('m1', 1, waited('(task "k" (return {:status :waiting :decision "k"}))'));
    expect(w.replayFor('m1', 2)).toBe('(task "k" (return {:status :waiting :decision "k"}))');
    expect(w.replayFor('m1', 3)).toBeUndefined();
    expect(w.replayFor('m2', 2)).toBeUndefined();
    w.remember('m1', 2, {
      outcome: { status: 'return', value: { done: true } },
      trace: [{ program: '(return {:done true})' }],
    });
    expect(w.replayFor('m1', 3)).toBeUndefined();
    expect(w.size).toBe(0);
  });

  it('is bounded: the oldest mission goes first', () => {
    const w = new WaitingPrograms(2);
    for (const m of ['a', 'b', 'c']) w.remember(m, 1, waited(`(wait ${m})`));
    expect([w.replayFor('a', 2), w.replayFor('b', 2), w.replayFor('c', 2)]).toEqual([
      undefined,
      '(wait b)',
      '(wait c)',
    ]);
  });
});

describe('startPass with a program to run again', () => {
  const decided = new Map([['approval_x', 'approved' as const]]);
  const program =
    '(let [d (task "approval_x" (return {:status :waiting :decision "approval_x"}))] (return {:decision d :n (count (tool/rows))}))';

  it('ends the pass without a model call when the program ends it', async () => {
    const model = listModel([]);
    const step = await startPass({
      agent: testAgent({ tools: [tool('rows', () => [1, 2, 3])] }),
      input: {},
      journal: decided,
      runId: 'r',
      model,
      replay: program,
    });
    expect(step.kind === 'done' && step.outcome).toEqual({ status: 'return', value: { decision: 'approved', n: 3 } });
    expect(model.requests).toHaveLength(0);
    expect(step.kind === 'done' && [step.usage.llmRequests, step.usage.turns]).toEqual([0, 1]);
  });

  it('asks the model, with that program and its error, when it does not end the pass', async () => {
    const model = listModel([{ raw: 'unused' }, '(return :fixed)']);
    const step = await startPass({
      agent: testAgent(),
      input: {},
      journal: decided,
      runId: 'r',
      model,
      replay: '(+ 1 nil)',
    });
    expect(step.kind === 'done' && step.outcome).toEqual({ status: 'return', value: 'fixed' });
    expect(model.requests).toHaveLength(1);
    const seen = model.requests[0]!.messages;
    expect(seen[1]).toEqual({ role: 'assistant', content: '```clojure\n(+ 1 nil)\n```' });
    expect(seen[2]!.content).toMatch(/error/i);
  });
});
