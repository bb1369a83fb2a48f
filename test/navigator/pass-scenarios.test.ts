/**
 * Agent-loop scenarios 24–44 of the reference (§8), adapted to our decisions; the
 * adaptation is named in the test title where it differs.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LlmError } from '../../src/llm/model.ts';
import { renderMissionLog, renderProgress, runNavigator, defineAgent, defineTool } from '../../src/navigator/index.ts';
import { clj, lastUserMessage, listModel, testAgent, tool } from './pass-helpers.ts';

const run = (
  agent: ReturnType<typeof testAgent>,
  answers: Parameters<typeof listModel>[0],
  extra: Partial<Parameters<typeof runNavigator>[1]> = {},
) => {
  const model = listModel(answers);
  return { model, step: runNavigator(agent, { input: {}, journal: [], model, runId: 'r', ...extra }) };
};

describe('journal in the loop (24–29)', () => {
  it('24: a task in turn 1 and a returned task in turn 2 are both committed', async () => {
    const { step } = run(testAgent(), ['(task "step-1" (+ 1 2))', '(return (task "step-2" (* 10 3)))']);
    const s = await step;
    expect(s.status).toBe('ok');
    expect(s.value).toBe(30);
    expect(s.journal).toEqual([
      ['step-1', 3],
      ['step-2', 30],
    ]);
    expect(s.journalDelta).toEqual([
      ['step-1', 3],
      ['step-2', 30],
    ]);
    expect(s.usage.turns).toBe(2);
  });

  it('25: the mission log (markdown heading, not <mission_log>) is in the system prompt only when the journal has entries', async () => {
    const a = run(testAgent(), ['(return 1)'], { journal: { order_1: 'tx_123' } });
    await a.step;
    expect(a.model.requests[0]!.system).toContain('## Mission Log (Completed Tasks)');
    expect(a.model.requests[0]!.system).toContain('- [done] order_1: "tx_123"');
    const b = run(testAgent(), ['(return 1)'], { journal: {} });
    await b.step;
    expect(b.model.requests[0]!.system).not.toContain('## Mission Log (Completed Tasks)');
  });

  it('26: the mission log is rebuilt every turn from the journal', async () => {
    const lookup = tool('lookup', () => 'user_42');
    const { model, step } = run(testAgent({ tools: [lookup] }), [
      '(task "fetch_user_42" (tool/lookup {}))',
      '(return :ok)',
    ]);
    await step;
    expect(model.requests[0]!.system).not.toContain('fetch_user_42');
    expect(model.requests[1]!.system).toContain('- [done] fetch_user_42: "user_42"');
  });

  it('27: two tasks of one turn appear with their printed values', async () => {
    const { model, step } = run(testAgent(), ['(task "check_auth" true) (task "fetch_total" 150)', '(return 1)']);
    await step;
    expect(model.requests[1]!.system).toContain('- [done] check_auth: true');
    expect(model.requests[1]!.system).toContain('- [done] fetch_total: 150');
  });

  it('28: cached values feed a new task; the journal gains only the new one', async () => {
    const { step } = run(testAgent(), ['(return (task "execute_wire" (str (task "prepare_wire" nil) "_sent")))'], {
      journal: [
        ['prepare_wire', 'hold_abc'],
        ['approval', 'approved'],
      ],
    });
    const s = await step;
    expect(s.value).toBe('hold_abc_sent');
    expect(s.journalDelta).toEqual([['execute_wire', 'hold_abc_sent']]);
    expect(s.journal.map(([k]) => k)).toEqual(['prepare_wire', 'approval', 'execute_wire']);
  });

  it('29: long mission-log values are cut with ...; an empty journal renders nothing', () => {
    const log = renderMissionLog(new Map([['big', 'x'.repeat(500)]]));
    const line = log.split('\n')[1]!;
    expect(line.length).toBeLessThan(600);
    expect(line.endsWith('...')).toBe(true);
    expect(renderMissionLog(new Map())).toBe('');
    expect(renderMissionLog(null)).toBe('');
  });
});

describe('progress and plan (30–32)', () => {
  it('30: string plan items get ids by position; duplicates and empty descriptions are rejected', () => {
    const a = testAgent({ checklist: ['Gather data', 'Analyze'] });
    expect(a.checklist).toEqual([
      { id: '1', description: 'Gather data' },
      { id: '2', description: 'Analyze' },
    ]);
    // `plan`, the reference implementation's name, is the same list
    expect(testAgent({ plan: ['Gather data', 'Analyze'] }).checklist).toEqual(a.checklist);
    expect(() => testAgent({ checklist: ['a'], plan: ['b'] })).toThrow(/plan: give the checklist once, as checklist/);
    expect(() =>
      testAgent({
        checklist: [
          { id: 'a', description: 'x' },
          { id: 'a', description: 'y' },
        ],
      }),
    ).toThrow(/checklist\.1: duplicate checklist id/);
    expect(() => testAgent({ plan: ['  '] })).toThrow(/empty description/);
  });

  it('31: summaries tick steps; out-of-plan steps are listed; summaries are not cut', () => {
    const plan = [
      { id: '1', description: 'Gather data' },
      { id: '2', description: 'Analyze' },
    ];
    const long = 'y'.repeat(300);
    const text = renderProgress(plan, { '1': 'Found 42 records', extra: long });
    expect(text).toContain('- [x] `1` Gather data — Found 42 records');
    expect(text).toContain('- [ ] `2` Analyze');
    expect(text).toContain(`### Out-of-Plan Steps\n- [x] extra: ${long}`);
    expect(text).toContain('step-done');
    expect(text).toContain('Batch independent steps');
  });

  it('32: step-done in a normal turn ticks the step in the next feedback; with an error it stays unticked and there is no checklist', async () => {
    const plan = ['Collect', 'Report'];
    const a = run(testAgent({ plan }), ['(step-done "1" "x")', '(return 1)']);
    const sa = await a.step;
    expect(lastUserMessage(a.model, 2)).toContain('- [x] `1` Collect — x');
    expect(sa.summaries).toEqual({ '1': 'x' });
    const b = run(testAgent({ plan }), ['(step-done "1" "x") (+ 1 "a")', '(return 1)']);
    const sb = await b.step;
    expect(lastUserMessage(b.model, 2)).not.toContain('## Progress');
    expect(lastUserMessage(b.model, 2)).toMatch(/^Error: type_error/);
    expect(sb.summaries).toEqual({});
  });

  it('32 (across passes): summaries given to a pass are shown ticked in its first message and returned', async () => {
    const { model, step } = run(
      testAgent({ checklist: ['Collect', 'Report'] }),
      ['(step-done "2" "done") (return 1)'],
      { summaries: { '1': 'earlier' } },
    );
    const s = await step;
    expect(model.requests[0]!.messages[0]!.content).toContain('- [x] `1` Collect — earlier');
    expect(s.summaries).toEqual({ '1': 'earlier', '2': 'done' });
  });
});

describe('return, fail and the loop (33–44)', () => {
  it('33: returned maps get string keys; keyword values become strings (JSON mapping)', async () => {
    expect((await run(testAgent(), ['(return {:result 42})']).step).value).toEqual({ result: 42 });
    expect((await run(testAgent(), ['(return {:sign :positive})']).step).value).toEqual({ sign: 'positive' });
  });

  it('34: fail ends the pass at once with its value (not a fixed :failed reason), no retry', async () => {
    const { model, step } = run(testAgent({ limits: { maxTurns: 3, retryTurns: 2 } }), [
      '(fail {:reason :bad-input :message "no"})',
      '(return 1)',
    ]);
    const s = await step;
    expect(s.status).toBe('fail');
    expect(s.value).toEqual({ reason: 'bad-input', message: 'no' });
    expect(model.requests).toHaveLength(1);
  });

  it('35: a return in a branch not taken has no effect', async () => {
    expect((await run(testAgent(), ['(if true (return "success") (fail "x"))']).step).value).toBe('success');
    const { model, step } = run(testAgent(), ['(if false (return "wrong") 42)', '(return *1)']);
    const s = await step;
    expect(model.requests).toHaveLength(2);
    expect(s.value).toBe(42);
  });

  it('36: a return the output schema rejects costs a turn, the feedback lists the problems (zod: "expected number")', async () => {
    const agent = testAgent({ output: z.object({ value: z.number() }), limits: { maxTurns: 2, retryTurns: 2 } });
    const { model, step } = run(agent, ['(def x 1)', '(return {:value "bad"})', '(return {:value 1.0})']);
    const s = await step;
    expect(s.status).toBe('ok');
    expect(s.value).toEqual({ value: 1 });
    expect(s.usage.turns).toBe(3);
    const fb = lastUserMessage(model, 3);
    expect(fb).toContain('value: expected number, got string');
    expect(fb).toContain('Error: invalid_return');
    expect(s.trace[1]!.result).toMatchObject({ status: 'invalid_return' });
  });

  it('37: turn kinds normal / must_return / retry; the must-return turn is announced (tools stay callable)', async () => {
    const ping = tool('ping', () => 'pong');
    const agent = testAgent({ tools: [ping], limits: { maxTurns: 2, retryTurns: 1 } });
    const { model, step } = run(agent, ['(def a 1)', '(tool/ping {})', '(return (tool/ping {}))']);
    const s = await step;
    expect(s.trace.map((t) => t.kind)).toEqual(['normal', 'must_return', 'retry']);
    expect(model.requests[0]!.messages[0]!.content).toContain('tool/ping');
    expect(lastUserMessage(model, 2)).toContain('FINAL WORK TURN');
    expect(lastUserMessage(model, 3)).toContain('FINAL RETRY');
    expect(s.value).toBe('pong');
  });

  it("38: every turn errors: max_turns_exceeded after maxTurns turns, naming the last turn's error", async () => {
    const s = await run(testAgent({ limits: { maxTurns: 2 } }), ['(+ 1 "a")', '(/ 1 0)']).step;
    expect(s.status).toBe('error');
    expect(s.error).toMatchObject({ type: 'max_turns_exceeded' });
    expect(s.error?.message).toMatch(/^Exceeded max_turns limit of 2; the last turn ended in \w+: .*divide/i);
    expect(s.usage.turns).toBe(2);
  });

  it.each([
    [
      'fuel',
      '(loop [i 0] (recur (inc i)))',
      'limit_exceeded',
      /^fuel limit: evaluation used more than 5000 steps \(in turn 2, the last of 2\)$/,
    ],
    [
      'depth',
      '(defn f [n] (+ 1 (f n))) (f 1)',
      'limit_exceeded',
      /^depth limit: function calls nested more than \d+ deep \(infinite recursion\?\) \(in turn 2, the last of 2\)$/,
    ],
    [
      'an analyzer refusal',
      '(let [x 1]\n  (toString x))',
      'unbound_var',
      /^Undefined variable: toString \(in turn 2, the last of 2\)$/,
    ],
    [
      'a builtin shadowed',
      '(defn comp [a] a) (comp 1)',
      'cannot_shadow_builtin',
      /comp.*\(in turn 2, the last of 2\)$/,
    ],
  ])(
    'the turns run out on %s: the pass ends with that error, not max_turns_exceeded',
    async (_what, program, type, message) => {
      const s = await run(testAgent({ limits: { maxTurns: 2, fuel: 5000 } }), ['(+ 1 "a")', program]).step;
      expect(s.status).toBe('error');
      expect(s.error!.type).toBe(type);
      expect(s.error!.message).toMatch(message);
      if (type === 'unbound_var') expect([s.error!.line, s.error!.column]).toEqual([2, 4]);
    },
  );

  it('39: last-expression fallback: valid value accepted, keys respelled to the schema, nil skipped, mismatch is max_turns_exceeded', async () => {
    const count = testAgent({ output: z.object({ count: z.number().int() }), limits: { maxTurns: 2 } });
    const a = await run(count, ['{:count 42}', '{:count 42}']).step;
    expect(a.status).toBe('ok');
    expect(a.value).toEqual({ count: 42 });
    expect(a.usage.fallbackUsed).toBe(true);
    expect(a.warnings.map((w) => w.code)).toContain('fallback_used');

    const growth = testAgent({ output: z.object({ growth_rate: z.number() }), limits: { maxTurns: 1 } });
    expect((await run(growth, ['{:growth-rate 3.14}']).step).value).toEqual({ growth_rate: 3.14 });

    const b = await run(count, ['{:count 7}', '(println "x")']).step;
    expect(b.value).toEqual({ count: 7 });

    const c = await run(count, ['{:count "many"}', '{:count "lots"}']).step;
    expect(c.status).toBe('error');
    expect(c.error!.type).toBe('max_turns_exceeded');
    expect(c.error!.hint).toContain('does not match');
    // commits survive (unlike the reference, the fallback keeps the journal)
    const d = await run(count, ['(task "t" 1) {:count 1}', '{:count 2}']).step;
    expect(d.journal).toEqual([['t', 1]]);
  });

  it('40: feedback shows printed output only, never the value of the last expression', async () => {
    const { model, step } = run(testAgent(), ['[1 2 3]', '(println "count:" 42) :done', '(return 1)']);
    await step;
    expect(lastUserMessage(model, 2)).not.toContain('[1 2 3]');
    expect(lastUserMessage(model, 2)).toMatch(/^\(no output\)/);
    expect(lastUserMessage(model, 3)).toMatch(/^count: 42/);
    expect(lastUserMessage(model, 3)).not.toContain(':done');
  });

  it('41: after an error turn, data/fail is a map with the reason', async () => {
    const s = await run(testAgent(), ['(+ 1 "a")', '(return (select-keys data/fail [:reason]))']).step;
    expect(s.value).toEqual({ reason: 'type_error' });
    const t = await run(testAgent(), ['(+ 1 "a")', '(def x 1)', '(return (nil? data/fail))']).step;
    expect(t.value).toBe(true);
  });

  it('42: a tool error reaches the model with one Error: prefix', async () => {
    const bad = tool('bad', () => {
      throw new Error('something failed');
    });
    const { model, step } = run(testAgent({ tools: [bad] }), ['(tool/bad {})', '(return 1)']);
    await step;
    const fb = lastUserMessage(model, 2);
    expect(fb).toMatch(/^Error: tool_error: /);
    expect(fb).toContain('something failed');
    expect(fb.match(/Error:/g)).toHaveLength(1);
  });

  it('43: maxToolCalls per program: the third call does not run', async () => {
    let calls = 0;
    const t = tool('t', () => ++calls);
    const { model, step } = run(testAgent({ tools: [t], limits: { maxTurns: 3, maxToolCalls: 2 } }), [
      '(tool/t {}) (tool/t {}) (tool/t {})',
      '(return 1)',
    ]);
    await step;
    expect(calls).toBe(2);
    expect(lastUserMessage(model, 2)).toContain('tool_call_limit');
  });

  it('44: *1 *2 *3 track the last three results; *1 is nil at first; big values are cut to about 1 KB', async () => {
    const s = await run(testAgent({ limits: { maxTurns: 6 } }), [
      '(def a (nil? *1)) 1',
      '2',
      '(+ 1 "x")',
      '3',
      '(return [a *1 *2 *3])',
    ]).step;
    expect(s.value).toEqual([true, 3, 2, 1]);
    const big = await run(testAgent(), ['(vec (range 1000))', '(return [(count *1) (count (pr-str *1))])']).step;
    const [n, chars] = big.value as number[];
    expect(n).toBeGreaterThan(100);
    expect(n).toBeLessThan(1000);
    expect(chars).toBeLessThanOrEqual(1024);
    const str = await run(testAgent(), ['(apply str (repeat 3000 "z"))', '(return *1)']).step;
    expect((str.value as string).length).toBeLessThanOrEqual(1024);
    expect((str.value as string).endsWith('...')).toBe(true);
  });
});

describe('our additions', () => {
  it('a waiting return bypasses the output schema and commits nothing for the decision task', async () => {
    const agent = testAgent({ output: z.object({ status: z.literal('sent') }) });
    const s = await run(agent, ['(task "a" 1) (task "decision_x" (return {:status :waiting :decision "decision_x"}))'])
      .step;
    expect(s.status).toBe('waiting');
    expect(s.value).toEqual({ status: 'waiting', decision: 'decision_x' });
    expect(s.journal).toEqual([['a', 1]]);
  });

  const failingAfter = (error: LlmError) => {
    const model = listModel(['(task "a" 1)']);
    return {
      ...model,
      id: 'flaky',
      generate: async (req: Parameters<typeof model.generate>[0]) => {
        if (model.requests.length >= 1) throw error;
        return model.generate(req);
      },
    };
  };

  it('an LLM error no retry can mend ends the pass with llm_error and keeps earlier commits', async () => {
    const s = await runNavigator(testAgent(), {
      input: {},
      journal: [],
      model: failingAfter(new LlmError('llm_auth', 'HTTP 401 from provider')),
      runId: 'r',
    });
    expect(s.status).toBe('error');
    expect(s.error!.type).toBe('llm_error');
    expect(s.error!.message).toBe('LLM call failed (flaky): HTTP 401 from provider');
    expect(s.journal).toEqual([['a', 1]]);
  });

  it('a transport failure (5xx, network, 429, timeout) is thrown for the host to retry, never a pass error', async () => {
    for (const code of ['llm_server', 'llm_network', 'llm_rate_limit', 'llm_timeout'] as const) {
      const error = new LlmError(code, 'HTTP 503 from provider');
      await expect(
        runNavigator(testAgent(), { input: {}, journal: [], model: failingAfter(error), runId: 'r' }),
      ).rejects.toBe(error);
    }
  });

  it('lastError of the previous pass is shown in the first message', async () => {
    const { model, step } = run(testAgent(), ['(return 1)'], {
      lastError: 'Error: type_error: + expects numbers (line 1, column 1)',
    });
    await step;
    const first = model.requests[0]!.messages[0]!.content;
    expect(first).toContain('## Previous pass');
    expect(first).toContain('Error: type_error: + expects numbers (line 1, column 1)');
    expect(first.match(/Error: Error/)).toBeNull();
  });

  it('token budget: the pass stops before the next LLM call once maxTokens is used', async () => {
    const s = await run(testAgent({ limits: { maxTurns: 5, maxTokens: 200 } }), ['1', '2', '3']).step;
    expect(s.status).toBe('error');
    expect(s.error!.type).toBe('token_budget_exceeded');
    expect(s.usage.llmRequests).toBe(2);
  });

  it('commits survive a later error in the same program', async () => {
    const s = await run(testAgent(), ['(task "a" 1) (+ 1 "x")', '(return (task "a" 2))']).step;
    expect(s.value).toBe(1);
    expect(s.journal).toEqual([['a', 1]]);
  });

  it('task-reset in a pass: resets lists keys removed and not committed again', async () => {
    const s = await run(testAgent(), ['(task-reset "old") (task-reset "again") (task "again" 2) (return 1)'], {
      journal: { old: 1, again: 1, keep: 3 },
    }).step;
    expect(s.resets).toEqual(['old']);
    expect(s.journalDelta).toEqual([['again', 2]]);
    expect(s.journal).toEqual([
      ['keep', 3],
      ['again', 2],
    ]);
  });

  it('without a journal (null) tasks run uncached and a journal_inactive warning is returned', async () => {
    const s = await run(testAgent(), ['(return (task "a" 1))'], { journal: null }).step;
    expect(s.value).toBe(1);
    expect(s.journal).toEqual([]);
    expect(s.warnings.map((w) => w.code)).toContain('journal_inactive');
  });

  it('def survives between turns, also functions and lists (re-read from source)', async () => {
    const s = await run(testAgent(), [
      '(def xs (list 1 2)) (def ys (map inc [1 2])) (defn f [x] (+ x (count xs)))',
      '(return [(f 1) (vec ys) (list? xs)])',
    ]).step;
    expect(s.value).toEqual([3, [2, 3], true]);
  });

  it('closures capturing lists survive between turns', async () => {
    const s = await run(testAgent(), [
      '(def f (let [y (list 1 (list 2))] (fn [] y)))',
      '(return [(list? (f)) (list? (second (f))) (f)])',
    ]).step;
    expect(s.warnings.filter((w) => w.message.startsWith('f '))).toEqual([]);
    expect(s.value).toEqual([true, true, [1, [2]]]);
  });

  it('invalid input is an error outcome, not an exception', async () => {
    const agent = defineAgent({
      name: 'needs',
      prompt: 'x {{n}}',
      input: z.object({ n: z.number() }),
      output: z.any(),
    });
    const s = await runNavigator(agent, { input: { n: 'x' }, model: listModel([]) });
    expect(s.status).toBe('error');
    expect(s.error!.type).toBe('invalid_input');
    expect(s.error!.message).toContain('n: ');
  });

  it('answers without code, with two blocks or with invalid code get the right feedback and the pass still ends cleanly', async () => {
    const { model, step } = run(testAgent({ limits: { maxTurns: 4 } }), [
      { raw: 'I will now think about it.' },
      { raw: `${clj('(def a 1)')}\nand\n${clj('(def b 2)')}` },
      '(let [x 1] (+ x',
      '(return :done)',
    ]);
    const s = await step;
    expect(s.status).toBe('ok');
    expect(s.value).toBe('done');
    expect(lastUserMessage(model, 2)).toMatch(/^Error: no_code: No valid PTC-Lisp code found/);
    expect(lastUserMessage(model, 3)).toMatch(
      /^Error: multiple_code_blocks: Your answer has 2 code blocks\. Send exactly ONE/,
    );
    expect(lastUserMessage(model, 4)).toMatch(/^Error: parse_error: /);
    for (const t of [2, 3, 4]) expect(lastUserMessage(model, t).match(/Error:/g)).toHaveLength(1);
    expect(s.trace.map((t) => t.result?.status)).toEqual(['no_code', 'no_code', 'error', 'return']);
    // the assistant message of a no-code answer keeps the text; of a program, the fenced program
    expect(model.requests[1]!.messages[1]!.content).toBe('I will now think about it.');
  });

  it('a model answering only garbage ends with max_turns_exceeded, cleanly', async () => {
    const s = await run(testAgent({ limits: { maxTurns: 2 } }), [{ raw: 'hello' }, { raw: '' }]).step;
    expect(s.status).toBe('error');
    expect(s.error!.type).toBe('max_turns_exceeded');
    expect(s.trace).toHaveLength(2);
    expect(s.trace[1]!.feedback).toBeNull();
  });
});

describe('context reads of an agent definition (issue 43)', () => {
  const list = (calls: string[]) =>
    defineTool({
      name: 'list_requests',
      description: 'Open requests.',
      input: z.object({ status: z.string().optional() }),
      output: z.array(z.object({ id: z.string(), amount: z.number() })),
      sideEffect: 'read_only',
      handler: (args) => {
        calls.push(JSON.stringify(args));
        return [
          { id: 'r1', amount: 12 },
          { id: 'r2', amount: 30 },
        ];
      },
    });

  it('are made before the first turn and shown in its first message; the program still reads what it uses', async () => {
    const calls: string[] = [];
    const agent = defineAgent({
      name: 'ctx',
      prompt: 'Sum the open requests.',
      input: z.object({ status: z.string() }),
      output: z.number(),
      tools: [list(calls)],
      contextReads: [{ tool: 'list_requests', args: (input) => ({ status: input.status }) }],
    });
    const model = listModel(['(return (sum-by :amount (tool/list_requests {:status data/status})))']);
    const s = await runNavigator(agent, { input: { status: 'open' }, journal: [], model, runId: 'r' });
    expect(s.value).toBe(42);
    const first = model.requests[0]!.messages[0]!.content;
    expect(first).toContain(
      '## Context\nRead before this turn (call the tool again in your program to use a value):\n(tool/list_requests {:status "open"}) returned:\n[{"id" "r1", "amount" 12} {"id" "r2", "amount" 30}]',
    );
    expect(calls).toEqual(['{"status":"open"}', '{"status":"open"}']);
  });

  it('a read that fails shows its error and the pass goes on; only read-only tools of the agent may be read', async () => {
    const broken = defineTool({
      name: 'broken',
      description: 'Fails.',
      input: z.object({}),
      sideEffect: 'read_only',
      handler: () => {
        throw new Error('service down');
      },
    });
    const agent = defineAgent({
      name: 'ctx2',
      prompt: 'p',
      input: z.object({}),
      output: z.any(),
      tools: [broken],
      contextReads: [{ tool: 'broken' }],
    });
    const model = listModel(['(return 1)']);
    expect((await runNavigator(agent, { input: {}, journal: [], model, runId: 'r' })).value).toBe(1);
    expect(model.requests[0]!.messages[0]!.content).toContain(
      '(tool/broken) failed: tool_error: tool/broken failed: service down (line 1, column 1)',
    );
    const pay = defineTool({
      name: 'pay',
      description: 'Pays.',
      input: z.object({}),
      sideEffect: 'external',
      handler: () => null,
    });
    expect(() =>
      defineAgent({
        name: 'x',
        prompt: 'p',
        input: z.object({}),
        output: z.any(),
        tools: [pay],
        contextReads: [{ tool: 'pay' }, { tool: 'nope' }],
      }),
    ).toThrow(
      /contextReads\.0\.tool: pay is external; a context read must be a read_only tool\n  - contextReads\.1\.tool: no tool "nope"/,
    );
  });
});
