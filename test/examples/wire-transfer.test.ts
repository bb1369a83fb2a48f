/**
 * The wire-transfer story in library mode, against the fake bank's file: pass 1 waits,
 * the application writes the decision, pass 2 sends the wire, pass 3 with the same
 * journal changes nothing and calls no tool. A rejected decision releases the hold.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { exampleAgents } from '../../examples/index.ts';
import { appliedOperations, bank, readBank, wireTransfer } from '../../examples/wire-transfer/index.ts';
import { agentCommand } from '../../src/cli/commands/agent.ts';
import type { Json } from '../../src/lisp/tools.ts';
import { createScriptedModel } from '../../src/llm/index.ts';
import { type PassResult, runNavigator } from '../../src/navigator/index.ts';

const example = exampleAgents['wire-transfer']!;
const input = { recipient: 'bob', amount: 5000 };
const KEY = 'manager_decision_bob_5000';
let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wire-'));
  file = join(dir, 'bank.jsonl');
  process.env.WIRE_TRANSFER_BANK_FILE = file;
  delete process.env.NAVIGATOR_MODEL;
});
afterEach(() => {
  delete process.env.WIRE_TRANSFER_BANK_FILE;
  rmSync(dir, { recursive: true, force: true });
});

const pass = (
  journal: Array<[string, Json]>,
  effects: 'inline' | 'suspend',
  summaries: Record<string, string> = {},
): Promise<PassResult> =>
  runNavigator(wireTransfer, { input, journal, summaries, model: example.model(), runId: 'wire-bob', effects });

describe.each(['inline', 'suspend'] as const)('wire transfer in library mode (effects %s)', (effects) => {
  it('pass 1 waits; the decision is written; pass 2 sends the wire; pass 3 changes nothing and calls no tool', async () => {
    const p1 = await pass([], effects);
    expect(p1.status).toBe('waiting');
    expect(p1.value).toEqual({ status: 'waiting', decision: KEY });
    expect(p1.journal.map(([k]) => k)).toEqual(['prepare_wire_bob_5000', 'request_approval_bob_5000']);
    expect(p1.summaries).toEqual({ prepare: expect.stringMatching(/^hold hold_/) });
    expect(appliedOperations(file).map((r) => r.operation)).toEqual(['prepare_wire', 'request_approval']);

    // the application records the manager's decision in the journal
    const decided: Array<[string, Json]> = [...p1.journal, [KEY, 'approved']];
    const p2 = await pass(decided, effects, p1.summaries);
    expect(p2.status).toBe('ok');
    const hold = (p1.journal[0]![1] as { hold_id: string }).hold_id;
    expect(p2.value).toEqual({ status: 'sent', hold_id: hold, reference: expect.stringMatching(/^wire_/) });
    expect(p2.journalDelta.map(([k]) => k)).toEqual(['execute_wire_bob_5000']);
    expect(Object.keys(p2.summaries)).toEqual(['prepare', 'decision', 'finish']);
    expect(appliedOperations(file).map((r) => r.operation)).toEqual([
      'prepare_wire',
      'request_approval',
      'execute_wire',
    ]);
    expect(p2.usage.llmRequests).toBe(1);

    const before = readFileSync(file, 'utf8');
    const p3 = await pass(p2.journal, effects, p2.summaries);
    expect(p3.status).toBe('ok');
    expect(p3.value).toEqual(p2.value);
    expect(p3.journalDelta).toEqual([]);
    expect(p3.journal).toEqual(p2.journal);
    expect(p3.toolCalls).toEqual([]);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('a rejected decision releases the hold and sends nothing', async () => {
    const p1 = await pass([], effects);
    const p2 = await pass([...p1.journal, [KEY, 'rejected']], effects);
    expect(p2.status).toBe('ok');
    expect(p2.value).toEqual({ status: 'cancelled', hold_id: (p1.journal[0]![1] as { hold_id: string }).hold_id });
    expect(p2.journalDelta.map(([k]) => k)).toEqual(['cancel_hold_bob_5000']);
    expect(appliedOperations(file).map((r) => r.operation)).toEqual([
      'prepare_wire',
      'request_approval',
      'cancel_hold',
    ]);
  });
});

describe('the fake bank', () => {
  it('applies each idempotency key once and records every call, across "restarts" (it reads its file)', () => {
    const a = bank.prepareWire({ recipient: 'amy', amount: 10 }, 'key-1');
    const b = bank.prepareWire({ recipient: 'amy', amount: 10 }, 'key-1');
    expect(b).toEqual(a);
    const hold = (a as { hold_id: string }).hold_id;
    bank.executeWire({ hold_id: hold }, 'key-2');
    expect(() => bank.cancelHold({ hold_id: hold }, 'key-3')).toThrow(/cannot be released \(sent\)/);
    expect(() => bank.executeWire({ hold_id: hold }, 'key-1')).toThrow(/already used for prepare_wire/);
    expect(readBank(file).map((r) => `${r.operation}:${r.outcome}`)).toEqual([
      'prepare_wire:applied',
      'prepare_wire:deduplicated',
      'execute_wire:applied',
      'cancel_hold:rejected',
      'execute_wire:rejected',
    ]);
    expect(readBank(file)[0]).toMatchObject({
      args: { recipient: 'amy', amount: 10 },
      idempotencyKey: 'key-1',
      result: a,
    });
  });

  it('a repeated pass 2 (e.g. a retried activity) deduplicates at the bank: one wire only', async () => {
    const p1 = await pass([], 'inline');
    const decided: Array<[string, Json]> = [...p1.journal, [KEY, 'approved']];
    // the journal of pass 2 was lost: pass 2 runs again from the same journal
    await pass(decided, 'inline');
    const again = await pass(decided, 'inline');
    expect(again.status).toBe('ok');
    expect(appliedOperations(file).filter((r) => r.operation === 'execute_wire')).toHaveLength(1);
    expect(
      readBank(file)
        .filter((r) => r.operation === 'execute_wire')
        .map((r) => r.outcome),
    ).toEqual(['applied', 'deduplicated']);
  });
});

describe('recorded answers and the registry', () => {
  it('the example registry names the agent with a model factory and a default input', () => {
    expect(example.agent.name).toBe('wire-transfer');
    expect(example.defaultInput).toEqual(input);
    expect(example.model().id).toMatch(/^scripted:.*answers\.json$/);
    const tools = Object.fromEntries(example.agent.tools.map((t) => [t.name, t.sideEffect]));
    expect(tools).toEqual({
      prepare_wire: 'local',
      request_approval: 'local',
      execute_wire: 'external',
      cancel_hold: 'external',
    });
    expect(example.agent.decisions[0]!.key(input)).toBe(KEY);
    expect(example.agent.decisions[0]!.expiry?.value).toBe('rejected');
  });

  it('the scripted answers choose the pass by the decision in the mission log', async () => {
    const m = createScriptedModel(
      JSON.parse(readFileSync(new URL('../../examples/wire-transfer/answers.json', import.meta.url), 'utf8')),
    );
    const first = await m.generate({ system: 'x', messages: [{ role: 'user', content: 'go' }] });
    expect(first.text).toContain('(return {:status :waiting');
  });
});

describe('navigator agent run', () => {
  it('runs a pass, writes the journal back, and continues once the decision is in the file', async () => {
    const journal = join(dir, 'journal.json');
    const out: string[] = [];
    const spy = vi
      .spyOn(process.stdout, 'write')
      .mockImplementation((s: string | Uint8Array) => (out.push(String(s)), true));
    try {
      await agentCommand.parseAsync(['node', 'agent', 'run', 'wire-transfer', '--journal', journal]);
      expect(out.join('')).toContain('wire-transfer: waiting after 1 turn');
      const j1 = JSON.parse(readFileSync(journal, 'utf8')) as Record<string, Json>;
      expect(Object.keys(j1)).toEqual(['prepare_wire_bob_5000', 'request_approval_bob_5000']);
      // a person writes the decision into the file
      const { writeFileSync } = await import('node:fs');
      writeFileSync(journal, JSON.stringify({ ...j1, [KEY]: 'approved' }));
      out.length = 0;
      await agentCommand.parseAsync(['node', 'agent', 'run', 'wire-transfer', '--journal', journal, '--json']);
      const step = JSON.parse(out.join('')) as PassResult;
      expect(step.status).toBe('ok');
      expect(step.value).toMatchObject({ status: 'sent' });
      expect(step.journal.map(([k]) => k)).toContain('execute_wire_bob_5000');
      expect(Object.keys(JSON.parse(readFileSync(journal, 'utf8')))).toContain('execute_wire_bob_5000');
    } finally {
      spy.mockRestore();
      process.exitCode = 0;
    }
  });
});
