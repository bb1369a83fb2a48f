import { renderPrints } from '../../src/navigator/prompt/feedback.ts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PtcError } from '../../src/lisp/errors.ts';
import {
  type TurnCounts,
  defineTool,
  errorFeedback,
  firstUserMessage,
  normalFeedback,
  normalizeChecklist,
  renderData,
  renderExpectedOutput,
  renderMissionLog,
  renderTool,
  resolveDecisions,
  returnFeedback,
  staticSystemPrompt,
  systemPrompt,
  turnLine,
  validateJson,
  zodTypeText,
} from '../../src/navigator/index.ts';
import { wireAgent } from './fixtures.ts';

const input = { recipient: 'bob', amount: 5000 };

describe('system prompt', () => {
  it('is the language reference and output rule (file snapshot)', async () => {
    const text = staticSystemPrompt();
    await expect(text).toMatchFileSnapshot('./__snapshots__/system-prompt.txt');
    expect(text).toContain('Reusing an id returns the cached result');
    expect(text).toContain('exactly one ```clojure code block');
    expect(text).not.toContain('Mission Log (Completed');
  });

  it('lists only functions the interpreter defines when told which', () => {
    const text = staticSystemPrompt({ defined: new Set(['map', 'filter', 'str']) });
    expect(text).toContain('- sequences: map filter\n- strings: str\n\n## Data');
  });

  it('takes a prefix and a suffix', () => {
    const text = staticSystemPrompt({ prefix: 'You work for ACME.', suffix: 'Be brief.' });
    expect(text.startsWith('You work for ACME.\n\nYou complete a mission')).toBe(true);
    expect(text.endsWith('\n\nBe brief.')).toBe(true);
  });

  it('appends the Mission Log when the journal is not empty', () => {
    const base = staticSystemPrompt();
    expect(systemPrompt(base, new Map())).toBe(base);
    expect(systemPrompt(base, null)).toBe(base);
    expect(systemPrompt(base, { order_1: 'tx_123' })).toBe(
      `${base}\n\n## Mission Log (Completed Tasks)\n- [done] order_1: "tx_123"`,
    );
  });
});

describe('Mission Log', () => {
  it('prints values with pr-str in commit order', () => {
    const j = new Map<string, never>([
      ['fetch_user_42', 'user_42' as never],
      ['check_auth', true as never],
      ['fetch_total', 150 as never],
      ['hold', { id: 'h1', amounts: [1.5, 2], note: null, 'say "hi"': 'a\nb' } as never],
      ['decision', null as never],
    ]);
    expect(renderMissionLog(j)).toMatchInlineSnapshot(`
      "## Mission Log (Completed Tasks)
      - [done] fetch_user_42: "user_42"
      - [done] check_auth: true
      - [done] fetch_total: 150
      - [done] hold: {"id" "h1", "amounts" [1.5 2], "note" nil, "say \\"hi\\"" "a\\nb"}
      - [done] decision: nil"
    `);
  });

  it('cuts values at 200 characters', () => {
    const line = renderMissionLog({ big: 'x'.repeat(500) }).split('\n')[1]!;
    expect(line).toBe(`- [done] big: "${'x'.repeat(199)}...`);
    expect(line.length).toBeLessThan(600);
  });

  it('lists the last 50 entries and counts the rest', () => {
    const j = Object.fromEntries(Array.from({ length: 53 }, (_, i) => [`t${i + 1}`, i + 1]));
    const lines = renderMissionLog(j).split('\n');
    expect(lines.slice(0, 3)).toEqual([
      '## Mission Log (Completed Tasks)',
      '(3 earlier tasks omitted)',
      '- [done] t4: 4',
    ]);
    expect(lines).toHaveLength(52);
    expect(lines.at(-1)).toBe('- [done] t53: 53');
    expect(renderMissionLog({})).toBe('');
  });
});

describe('first user message', () => {
  it('has tools, data, expected output, mission, decisions and progress (file snapshot)', async () => {
    const text = firstUserMessage({ agent: wireAgent, input, decisions: resolveDecisions(wireAgent, input) });
    await expect(text).toMatchFileSnapshot('./__snapshots__/first-message-wire.txt');
    expect(text.indexOf('## Tools')).toBeLessThan(text.indexOf('## Data'));
    expect(text.indexOf('<mission>')).toBeLessThan(text.indexOf('## External decisions'));
    expect(text.indexOf('## External decisions')).toBeLessThan(text.indexOf('## Progress'));
  });

  it('says when there are no tools and omits empty sections', () => {
    const text = firstUserMessage({
      agent: { prompt: 'Say hi.', tools: [], output: z.string(), checklist: [] },
      input: {},
    });
    expect(text).toMatchInlineSnapshot(`
      "## Tools
      No tools available.

      ## Expected output
      Return a value of this shape (a trailing ? marks an optional or nil-able part):
      string
      Example: (return "text")

      <mission>
      Say hi.
      </mission>"
    `);
  });

  it('renders a tool with no arguments and a local side effect', () => {
    const tool = defineTool({
      name: 'now',
      description: 'Current time.',
      input: z.object({}),
      sideEffect: 'local',
      handler: () => 1,
    });
    expect(renderTool(tool)).toMatchInlineSnapshot(`
      "tool/now {} -> any
        Current time. Side effect (local): call it inside a task.
        Example: (task "now" (tool/now))"
    `);
  });

  it('renders data with types and short samples', () => {
    expect(
      renderData({
        n: 3,
        f: 2.5,
        s: 'y'.repeat(100),
        b: false,
        z: null,
        list: [1, 2, 3, 4, 5],
        m: { a: 1, b: 'two', c: [3], d: 4 },
        'with-dash': ['a'],
      }),
    ).toMatchInlineSnapshot(`
      "## Data
      data/n                         ; integer, sample: 3
      data/f                         ; number, sample: 2.5
      data/s                         ; string, sample: "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy...
      data/b                         ; boolean, sample: false
      data/z                         ; nil, sample: nil
      data/list                      ; vector[5], sample: [1 2 3 ...]
      data/m                         ; map[4], sample: {"a" 1, "b" "two", "c" [3], ...}
      data/with-dash                 ; vector[1], sample: ["a"]"
    `);
    expect(renderData({})).toBe('');
  });

  it('renders the expected output from the schema', () => {
    expect(renderExpectedOutput(z.any())).toBe(
      '## Expected output\nReturn any value that answers the mission: (return value)',
    );
    expect(
      renderExpectedOutput(
        z.object({
          total: z.number().int(),
          rows: z.array(z.object({ id: z.string(), tags: z.array(z.string()).nullable() })),
          meta: z.record(z.string(), z.number()).optional(),
          when: z.iso.date(),
        }),
      ),
    ).toMatchInlineSnapshot(`
      "## Expected output
      Return a value of this shape (a trailing ? marks an optional or nil-able part):
      {:total integer, :rows [{:id string, :tags [string]?}], :meta {string number}?, :when string (date)}
      Example: (return {:total 1, :rows [{:id "id", :tags ["tags"]}], :when "2025-01-31"})"
    `);
  });
});

describe('schema rendering', () => {
  it.each([
    [z.string(), 'string'],
    [z.number().int().nullable(), 'integer?'],
    [z.union([z.string(), z.number()]), 'string | number'],
    [z.union([z.object({ a: z.string() }), z.null()]), '{:a string}?'],
    [z.literal(42), '42'],
    [z.enum(['a', 'b']), '"a" | "b"'],
    [z.tuple([z.string(), z.boolean()]), '[string boolean]'],
    [z.object({ 'odd key': z.string() }), '{"odd key" string}'],
    [z.object({}), 'map'],
    [z.unknown(), 'any'],
    [z.array(z.any()), '[any]'],
  ])('%#: renders %s', (schema, text) => {
    expect(zodTypeText(schema)).toBe(text);
  });
});

describe('turn line', () => {
  const line = (next: number, maxTurns: number, retryTurns = 0) => turnLine({ next, maxTurns, retryTurns });

  it('counts down over five turns', () => {
    expect([2, 3, 4, 5].map((n) => line(n, 5))).toMatchInlineSnapshot(`
      [
        "Turn 2 of 5 (4 remaining)",
        "Turn 3 of 5 (3 remaining)",
        "Turn 4 of 5 (2 remaining). After this one, the next turn is your LAST: prepare your return.",
        "⚠ FINAL WORK TURN (turn 5 of 5): this program must end with (return ...) or (fail ...).",
      ]
    `);
  });

  it('mentions retry turns', () => {
    expect([2, 3, 4, 5].map((n) => line(n, 3, 2))).toMatchInlineSnapshot(`
      [
        "Turn 2 (2 work turns + 2 retry turns remaining)",
        "⚠ FINAL WORK TURN (turn 3 of 3): this program must end with (return ...) or (fail ...). If the returned value is rejected, you get 2 more attempts to correct it.",
        "Turn 4: retry 1 of 2 (2 retries remaining). Fix the problem and return.",
        "⚠ FINAL RETRY (retry 2 of 2): this program must end with (return ...) or (fail ...).",
      ]
    `);
  });
});

describe('feedback', () => {
  const plan = normalizeChecklist(['Gather data', 'Analyze']);
  const turn: TurnCounts = { next: 2, maxTurns: 5, retryTurns: 0 };

  it('shows prints, stored symbols, the turn line and the checklist', () => {
    expect(
      normalFeedback({
        ...turn,
        prints: ['count: 42', 'done'],
        stored: ['users', 'total'],
        checklist: plan,
        summaries: { '1': 'Found 42' },
      }),
    ).toMatchInlineSnapshot(`
      "count: 42
      done

      Stored (access as symbols): total, users

      Turn 2 of 5 (4 remaining)

      ## Progress
      Batch independent steps into one program, and call (step-done "ID" "what you found") as each step finishes. A step that does not apply on your path is done too: (step-done "ID" "not needed: why").

      - [x] \`1\` Gather data — Found 42
      - [ ] \`2\` Analyze"
    `);
  });

  it('says when nothing was printed, and shows no symbols in a single-turn agent', () => {
    expect(normalFeedback({ next: 2, maxTurns: 1, retryTurns: 1, prints: [], stored: ['x'], checklist: [] })).toBe(
      '(no output)\n\n⚠ FINAL RETRY (retry 1 of 1): this program must end with (return ...) or (fail ...).',
    );
  });

  it('shows prints up to 4096 characters, whole lines first, and says what it left out', () => {
    const short = normalFeedback({ ...turn, prints: ['a'.repeat(300), 'b'.repeat(300)], stored: [], checklist: [] });
    expect(short.split('\n\n')[0]).toBe(`${'a'.repeat(300)}\n${'b'.repeat(300)}`);
    const rows = Array.from(
      { length: 60 },
      (_, i) =>
        `{:id "rr-${100 + i}", :customer "Customer ${i}", :amount ${i}.5, :reason "a reason that takes some room"}`,
    );
    const text = renderPrints(rows);
    const kept = text.split('\n').slice(0, -1);
    expect(kept.every((l, i) => l === rows[i])).toBe(true);
    expect(text.length).toBeLessThanOrEqual(4096 + 200);
    expect(text.split('\n').at(-1)).toMatch(
      /^\[output cut at 4096 characters: \d+ more lines \(\d+ characters\) not shown; print fewer rows or fewer fields to see the rest\]$/,
    );
  });

  it('cuts one long line after its last whole element', () => {
    const line = `[${Array.from({ length: 200 }, (_, i) => `{:id ${i}, :name "item ${i}"}`).join(' ')}]`;
    const text = renderPrints([line], 1000);
    const [head, tail] = text.split('\n');
    expect(head).toMatch(
      /^\[\{:id 0, :name "item 0"\} .*\{:id \d+, :name "item \d+"\} …\(\d+ more characters of this line\)$/,
    );
    expect(tail).toBe(
      '[output cut at 1000 characters: the rest of the last line not shown; print fewer rows or fewer fields to see the rest]',
    );
  });

  it('shows an interpreter error with one Error: prefix, type, location and hint', () => {
    const err = new PtcError(
      'type_error',
      '+: expected number, got string',
      { offset: 10, length: 9, line: 2, col: 5 },
      'use parse-long',
    );
    expect(errorFeedback({ ...turn, error: err })).toMatchInlineSnapshot(`
      "Error: type_error: +: expected number, got string (line 2, column 5)
      Hint: use parse-long

      Turn 2 of 5 (4 remaining)"
    `);
    expect(errorFeedback({ ...turn, error: err.toJSON(), prints: ['before'] })).toMatchInlineSnapshot(`
      "Error: type_error: +: expected number, got string (line 2, column 5)
      Hint: use parse-long

      Output before the error:
      before

      Turn 2 of 5 (4 remaining)"
    `);
  });

  it('never doubles the Error: prefix', () => {
    const text = errorFeedback({ ...turn, error: { type: 'tool_error', message: 'Error: error: something failed' } });
    expect(text.match(/\berror:/gi)).toHaveLength(1);
    expect(text.startsWith('Error: tool_error: something failed')).toBe(true);
    expect(errorFeedback({ ...turn, error: { message: 'No valid PTC-Lisp code found.' } })).toBe(
      'Error: No valid PTC-Lisp code found.\n\nTurn 2 of 5 (4 remaining)',
    );
  });

  it('lists path-level problems of a rejected return value', () => {
    const schema = z.object({ amount: z.number(), status: z.enum(['sent', 'cancelled']) });
    const received = { amount: '5', status: 'sent' };
    const v = validateJson(schema, received);
    expect(v.ok).toBe(false);
    expect(
      returnFeedback({
        next: 3,
        maxTurns: 2,
        retryTurns: 2,
        expected: zodTypeText(schema),
        received,
        problems: v.ok ? [] : v.problems,
      }),
    ).toMatchInlineSnapshot(`
      "Error: invalid_return: the returned value does not match the expected output.
      Expected: {:amount number, :status "sent" | "cancelled"}
      Received: {"amount" "5", "status" "sent"}
      Problems:
      - amount: expected number, got string
      Fix the value and call (return ...) again.

      Turn 3: retry 1 of 2 (2 retries remaining). Fix the problem and return."
    `);
  });
});
