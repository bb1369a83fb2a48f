/**
 * The planner's prompt (request, context, tools with class and destructive flag, agents,
 * rules, answer format; regeneration and retry sections) and the parsing of its answer
 * (raw, fenced, in prose; broken JSON with its position; a wrong document shape).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { syntaxError } from '../../src/plans/answer-json.ts';
import { CONTEXT_LIMIT, parsePlanAnswer, plannerPrompt } from '../../src/plans/planner.ts';
import { defineTool } from '../../src/navigator/index.ts';
import type { RegisteredAgent } from '../../src/activities/agents.ts';

const tools = [
  defineTool({
    name: 'read_file',
    description: 'Reads a file.',
    input: z.object({ path: z.string() }),
    sideEffect: 'read_only',
    handler: () => null,
  }),
  defineTool({
    name: 'write_file',
    description: 'Writes a file.',
    input: z.object({ path: z.string(), content: z.string(), mode: z.enum(['a', 'w']).optional() }),
    output: z.object({ path: z.string(), bytes: z.number() }),
    sideEffect: 'local',
    destructive: true,
    handler: () => null,
  }),
  defineTool({
    name: 'send_email',
    description: 'Sends an email.',
    input: z.object({ to: z.string(), cc: z.array(z.string()).optional() }),
    sideEffect: 'external',
    handler: () => null,
  }),
];

const userText = (p: ReturnType<typeof plannerPrompt>) => p.messages[0]!.content;

describe('plannerPrompt', () => {
  it('is a system prompt and one user message', () => {
    const prompt = plannerPrompt({ request: 'do it', tools });
    expect(Object.keys(prompt).sort()).toEqual(['messages', 'system']);
    expect(prompt.messages).toEqual([{ role: 'user', content: expect.stringMatching(/^Request: do it\n\n/) }]);
  });

  it('renders each tool with its side-effect class, destructive flag and JSON args type (optional keys marked)', () => {
    const text = userText(plannerPrompt({ request: 'do it', tools }));
    expect(text).toContain('Tools, each with its side effect (read_only: changes nothing;');
    expect(text).toContain('- read_file (read_only): Reads a file.\n  args: {"path": string}');
    expect(text).toContain(
      '- write_file (local, destructive): Writes a file.\n  args: {"path": string, "content": string, "mode"?: "a" | "w"}\n  result: {"path": string, "bytes": number}',
    );
    expect(text).toContain('- send_email (external): Sends an email.\n  args: {"to": string, "cc"?: [string, ...]}');
  });

  it('shows what result fields mean (their descriptions) under the result type', () => {
    const hours = defineTool({
      name: 'weekly_hours',
      description: 'Hours worked.',
      input: z.object({ week: z.string() }),
      output: z.array(z.object({ employee: z.string(), hours: z.number().int().describe('in hundredths of an hour') })),
      sideEffect: 'read_only',
      handler: () => [],
    });
    expect(userText(plannerPrompt({ request: 'r', tools: [hours] }))).toContain(
      '- weekly_hours (read_only): Hours worked.\n  args: {"week": string}\n  result: [{"employee": string, "hours": integer}, ...]\n    hours: in hundredths of an hour',
    );
  });

  it('states the rules and the answer format', () => {
    const { system } = plannerPrompt({ request: 'do it', tools });
    const rules = [
      'Each step uses exactly one tool',
      'a key written "key"? is optional',
      'Steps name the steps they need in "dependsOn" (by id)',
      'Steps without a dependency between them run in parallel',
      '"$step_id" (the whole result) or "$step_id.field.0.key"',
      'the referenced step must be in dependsOn (directly or through other steps)',
      'A reference is a whole string value',
      'Write "$$" for a literal "$"',
      'requiresApproval defaults to true for them',
      'add "requiresApproval": true to any other step that changes something important',
      'After a change, add a step that verifies it.',
      'Mark a step "critical": false when the plan can succeed without it.',
      'Step ids are short snake_case names without dots',
      'Answer with one JSON object and nothing else (a ```json block is fine):',
      '{"steps": [{"id": "...", "description": "...", "tool": "...", "args": {...}, "dependsOn": []}], "estimatedDuration": seconds}',
    ];
    for (const rule of rules) expect(system).toContain(rule);
  });

  it('shows the context snapshot, cut with a note when it is long', () => {
    expect(userText(plannerPrompt({ request: 'r', tools }))).not.toContain('Context:');
    const small = userText(plannerPrompt({ request: 'r', tools, context: { files: ['config.json'] } }));
    expect(small).toContain('Context:\n{\n  "files": [\n    "config.json"\n  ]\n}');

    const big = { files: Array.from({ length: 2000 }, (_, i) => `file_${i}.txt`) };
    const full = JSON.stringify(big, null, 2);
    const text = userText(plannerPrompt({ request: 'r', tools, context: big }));
    expect(text).toContain(
      `${full.slice(0, CONTEXT_LIMIT)}\n... (cut: ${full.length - CONTEXT_LIMIT} more characters)`,
    );
    expect(text).not.toContain('file_1999.txt');
  });

  it('lists the agents a step may run, only when there are some', () => {
    expect(userText(plannerPrompt({ request: 'r', tools }))).not.toContain('Agents');
    const text = userText(
      plannerPrompt({
        request: 'r',
        tools,
        agents: [{ name: 'researcher', description: 'Finds things out.' }, { name: 'mailer' }],
      }),
    );
    expect(text).toContain('"agent": NAME, "input": {...}');
    expect(text).toContain('- researcher: Finds things out.\n- mailer');
  });

  it('a regeneration shows the current plan and the feedback, and asks for the whole revised plan', () => {
    const first = userText(plannerPrompt({ request: 'r', tools }));
    expect(first).not.toContain('Current plan:');
    expect(first).not.toContain('feedback');

    const currentPlan = { steps: [{ id: 'read', tool: 'read_file', args: { path: 'a' } }] };
    const text = userText(plannerPrompt({ request: 'r', tools, currentPlan, feedback: 'keep a backup first' }));
    expect(text).toContain(`Current plan:\n${JSON.stringify(currentPlan, null, 2)}`);
    expect(text).toContain(
      "The reviewer's feedback on the current plan:\nkeep a backup first\n\nWrite the whole revised plan.",
    );
    expect(text.indexOf('Current plan:')).toBeLessThan(text.indexOf("The reviewer's feedback"));
  });

  it("a retry lists the previous answer's problems one per line and asks for the whole corrected plan", () => {
    const problems = [
      { stepId: null, path: '', message: 'the answer has no JSON object' },
      { stepId: 'write', path: 'args.path', message: 'must be a string' },
      { stepId: 'verify', path: '', message: 'depends on unknown step "wrte"' },
    ];
    const text = userText(plannerPrompt({ request: 'r', tools, problems }));
    expect(text).toContain(
      [
        'Your previous answer could not be used:',
        '- plan: the answer has no JSON object',
        '- write args.path: must be a string',
        '- verify: depends on unknown step "wrte"',
        '',
        'Write the whole corrected plan.',
      ].join('\n'),
    );
    expect(userText(plannerPrompt({ request: 'r', tools, problems: [] }))).not.toContain('previous answer');
  });

  it('puts the sections in a fixed order', () => {
    const text = userText(
      plannerPrompt({
        request: 'bump it',
        tools: [tools[0]!],
        context: { n: 1 },
        agents: [{ name: 'helper' }],
        currentPlan: { steps: [] },
        feedback: 'more',
        problems: [{ stepId: 'a', path: 'tool', message: 'unknown tool "x"' }],
      }),
    );
    expect(text).toMatchInlineSnapshot(`
      "Request: bump it

      Context:
      {
        "n": 1
      }

      Tools, each with its side effect (read_only: changes nothing; local/memory: changes files or memory here; external: reaches other systems, cannot be taken back) and "destructive" when it overwrites or deletes:
      - read_file (read_only): Reads a file.
        args: {"path": string}

      Agents (a step may run one instead of a tool: {"id", "description", "agent": NAME, "input": {...}, "dependsOn"}; "input" matches the agent's input type, its description is given to the agent, its result is the agent's result):
      - helper

      Current plan:
      {
        "steps": []
      }

      The reviewer's feedback on the current plan:
      more

      Write the whole revised plan.

      Your previous answer could not be used:
      - a tool: unknown tool "x"

      Write the whole corrected plan."
    `);
  });
});

describe('parsePlanAnswer', () => {
  const doc = { steps: [{ id: 'a', tool: 'read_file', args: { path: 'x' } }], estimatedDuration: 3 };
  const json = JSON.stringify(doc, null, 2);

  it.each([
    ['raw JSON', json],
    ['raw JSON with blank lines around', `\n\n${json}\n`],
    ['a ```json block', 'Here is the plan:\n```json\n' + json + '\n```\nIt reads the file.'],
    ['a ```JSON block', '```JSON\n' + json + '\n```'],
    ['a bare ``` block', 'Plan:\n```\n' + json + '\n```'],
    [
      'a json block after another block',
      'The tool is called like\n```text\nread_file x\n```\nso:\n```json\n' + json + '\n```',
    ],
    ['prose around one object', `Sure! ${JSON.stringify(doc)} Let me know.`],
    ['prose with braces before the object', `Paths look like {dir}/{name}. The plan: ${JSON.stringify(doc)}`],
    ['an object on one line in a fence without a newline', '```json ' + JSON.stringify(doc) + '```'],
  ])('accepts %s', (_, answer) => {
    expect(parsePlanAnswer(answer)).toEqual({ ok: true, document: doc });
  });

  it("keeps the steps as written (their validation is validatePlan's) and accepts options", () => {
    expect(parsePlanAnswer('{"steps": [{"whatever": 1}, 2]}')).toEqual({
      ok: true,
      document: { steps: [{ whatever: 1 }, 2] },
    });
    const withOptions = parsePlanAnswer('{"steps": [{}], "options": {"onFailure": "abort"}}');
    expect(withOptions.ok && withOptions.document.options?.onFailure).toBe('abort');
  });

  it('says when there is no JSON object', () => {
    expect(parsePlanAnswer('I cannot plan this.')).toEqual({ ok: false, message: 'the answer has no JSON object' });
    expect(parsePlanAnswer('')).toEqual({ ok: false, message: 'the answer has no JSON object' });
  });

  it.each([
    ['{"steps": [}', 'invalid JSON at position 11 (line 1, column 12): expected a value, found "}"'],
    [
      '{"steps": [{"id": "a",}]}',
      'invalid JSON at position 22 (line 1, column 23): expected a property name in double quotes, found "}"',
    ],
    [
      "{'steps': []}",
      `invalid JSON at position 1 (line 1, column 2): expected a property name in double quotes, found "'"`,
    ],
    [
      '{"steps": [{"id": "a"}]',
      'invalid JSON at position 23 (line 1, column 24): expected "," or "}" after a property value, found the end of the text',
    ],
    [
      '{"steps": [{"id": "a" "tool": "x"}]}',
      'invalid JSON at position 22 (line 1, column 23): expected "," or "}" after a property value, found "\\""',
    ],
    [
      '{"steps": [{"content": "line\none"}]}',
      'invalid JSON at position 28 (line 1, column 29): a raw control character (a newline or tab) inside a string; write it as \\n or \\t',
    ],
    [
      '{"steps": [{"id": "a\\q"}]}',
      'invalid JSON at position 20 (line 1, column 21): invalid escape in a string (use \\" \\\\ \\n \\t or \\uXXXX)',
    ],
    ['{"steps": [1, 2,]}', 'invalid JSON at position 16 (line 1, column 17): expected a value, found "]"'],
    [
      '{"estimatedDuration": 01, "steps": []}',
      'invalid JSON at position 23 (line 1, column 24): expected "," or "}" after a property value, found "1"',
    ],
  ])('reports broken JSON %j with its position', (answer, message) => {
    expect(parsePlanAnswer(answer)).toEqual({ ok: false, message: `the answer's JSON does not parse: ${message}` });
  });

  it('counts the position in the whole answer, fenced or in prose', () => {
    const fenced = 'Here:\n```json\n{\n  "steps": [\n    {"id": "a",}\n  ]\n}\n```';
    expect(parsePlanAnswer(fenced)).toEqual({
      ok: false,
      message: `the answer's JSON does not parse: invalid JSON at position ${fenced.indexOf(',}') + 1} (line 5, column 16): expected a property name in double quotes, found "}"`,
    });
    const prose = 'The plan is {"steps": [oops]} as asked.';
    expect(parsePlanAnswer(prose)).toEqual({
      ok: false,
      message: `the answer's JSON does not parse: invalid JSON at position 23 (line 1, column 24): expected a value, found "o"`,
    });
  });

  it('reports a broken object even when prose has other braces (the longest one is meant)', () => {
    const answer = 'Use {x} here: {"steps": [{"id": "a"}], "estimatedDuration": }';
    expect(parsePlanAnswer(answer)).toEqual({
      ok: false,
      message: `the answer's JSON does not parse: invalid JSON at position ${answer.length - 1} (line 1, column ${answer.length}): expected a value, found "}"`,
    });
  });

  it.each([
    ['{"steps": []}', 'steps: a plan needs at least one step'],
    ['{"plan": [{"id": "a"}]}', 'steps: Invalid input: expected array, received undefined'],
    ['{"steps": {"id": "a"}}', 'steps: Invalid input: expected array, received object'],
    ['{"steps": [{}], "estimatedDuration": -5}', 'estimatedDuration: Too small: expected number to be >=0'],
    [
      '{"steps": [{}], "estimatedDuration": "10s"}',
      'estimatedDuration: Invalid input: expected number, received string',
    ],
    [
      '{"steps": [{}], "options": {"onFailure": "panic"}}',
      'options.onFailure: Invalid option: expected one of "ask"|"abort"|"continue"',
    ],
    ['[{"id": "a"}]', 'answer: Invalid input: expected object, received array'],
    [
      '{"steps": [], "estimatedDuration": -1}',
      'steps: a plan needs at least one step; estimatedDuration: Too small: expected number to be >=0',
    ],
  ])('names each shape problem by path: %s', (answer, message) => {
    expect(parsePlanAnswer(answer)).toEqual({ ok: false, message });
  });
});

describe('syntaxError (the scanner behind the positions)', () => {
  it.each([
    '{}',
    '[]',
    '{"a": [1, -2.5e+3, true, false, null, "x\\u00e9\\n"]}',
    ' \n{"nested": {"deep": [[{}]]}}\t',
    '"just a string"',
    '0',
  ])('finds nothing wrong in valid JSON %j', (src) => {
    expect(() => JSON.parse(src)).not.toThrow();
    expect(syntaxError(src)).toBeNull();
  });

  it.each([
    ['', 0, 'expected a value, found the end of the text'],
    ['{"a": 1} x', 9, 'unexpected "x" after the JSON value'],
    ['{"a": tru}', 6, 'expected a value, found "t"'],
    ['{"a": -}', 6, 'expected a value, found "-"'],
    ['{"a" 1}', 5, 'expected ":" after the property name, found "1"'],
    ['["a" "b"]', 5, 'expected "," or "]" after an array element, found "\\""'],
    ['{"a": "open', 11, 'the string is not closed'],
    ['{"a": "\\u12"}', 7, 'invalid escape in a string (use \\" \\\\ \\n \\t or \\uXXXX)'],
  ])('%j fails at %i: %s', (src, at, reason) => {
    expect(() => JSON.parse(src)).toThrow();
    expect(syntaxError(src)).toEqual({ at, reason });
  });
});

describe('the planner prompt: computed plans, agents and their inputs', () => {
  it('documents $expr, when, forEach with maxItems, questions and params, each with an example', () => {
    const { system } = plannerPrompt({ request: 'r', tools });
    expect(system).toContain('"content": {"$expr": "(str/replace (:content step/read_pkg) \\"1.4.2\\" \\"1.5.0\\")"}');
    expect(system).toContain('"when": "(zero? (:failed step/run_tests))"');
    expect(system).toContain('{"forEach": "(:files step/list)", "args": {"path": {"$expr": "item"}}}');
    expect(system).toContain('"maxItems" caps the list (default 100)');
    expect(system).toContain(
      '"ask": {"question": "Deploy to staging or prod?", "schema": {"enum": ["staging", "prod"]}}',
    );
    expect(system).toContain('"params": {"version": {"type": "string"}}');
    // the example expressions are valid PTC-Lisp plan expressions
    const example = JSON.parse(/"content": (\{"\$expr": .*?\})\}/.exec(system)![1]!) as { $expr: string };
    expect(example.$expr).toBe('(str/replace (:content step/read_pkg) "1.4.2" "1.5.0")');

    // the computed question is valid JSON too: a model that copies the example writes a plan that parses
    const ask = JSON.parse(/"ask": (\{"question": \{"\$expr".*?\}\}\})\./.exec(system)![1]!) as {
      question: { $expr: string };
      schema: { enum: { $expr: string } };
    };
    expect(ask.question.$expr).toBe('(str "Deploy where? " (count step/regions) " regions have room")');
    expect(ask.schema.enum.$expr).toBe('(mapv :region (filter #(pos? (:free step/regions)) step/regions))');
  });

  it("shows each tool with its result shape and each agent with its description and input type; never the plan's own agent unless the request names it", async () => {
    const { stepAgents } = await import('../../src/activities/plans.ts');
    const { workspaceAgent } = await import('../../examples/workspace/index.ts');
    const lab = (await import('./fixtures/lab-agents.ts')).default;
    const { createScriptedModel } = await import('../../src/llm/index.ts');
    const registry = new Map<string, RegisteredAgent>([
      ['workspace', { agent: workspaceAgent, model: () => createScriptedModel([]) }],
      ['lab-child', lab['lab-child']],
    ]);
    const own = registry.get('workspace')!;
    expect(stepAgents(registry, own, 'bump the version').map((a) => a.name)).toEqual(['lab-child']);
    expect(stepAgents(registry, own, 'ask the workspace agent to list files').map((a) => a.name)).toEqual([
      'workspace',
      'lab-child',
    ]);
    expect(stepAgents(registry, own, 'the workspaces').map((a) => a.name)).toEqual(['lab-child']);
    const text = userText(plannerPrompt({ request: 'r', tools, agents: stepAgents(registry, own, 'workspace') }));
    expect(text).toContain('- workspace: Manages the files of a small workspace.\n  input: {"request"?: string}');
    expect(text).toContain('- lab-child\n  input: {"a": number, "b": number}');
    expect(text).toContain(
      '- write_file (local, destructive): Writes a file.\n  args: {"path": string, "content": string, "mode"?: "a" | "w"}\n  result: {"path": string, "bytes": number}',
    );
  });

  it("validatePlan checks an agent step's input against the agent's input schema: unknown keys and wrong types, each with its path", async () => {
    const { validatePlan } = await import('../../src/plans/validate.ts');
    const catalog = {
      tools: new Map(),
      agents: new Set(['lab-child']),
      agentInputs: new Map([['lab-child', z.object({ a: z.number(), b: z.number() })]]),
    };
    const step = (input: Record<string, unknown>) => [{ id: 'add', description: 'add', agent: 'lab-child', input }];
    expect(validatePlan(step({ a: 1, b: 2 }), catalog)).toEqual([]);
    expect(validatePlan(step({ a: 1, b: 'two', request: 'add them' }), catalog)).toEqual([
      {
        code: 'invalid_args',
        stepId: 'add',
        path: 'input.request',
        message: 'input.request: agent lab-child takes no request (its input: a, b)',
      },
      {
        code: 'invalid_args',
        stepId: 'add',
        path: 'input.b',
        message: 'input.b: Invalid input: expected number, received string',
      },
    ]);
    expect(
      validatePlan(
        [
          { id: 'x', description: 'x', tool: 'echo', args: {} },
          ...step({ a: '$x.n', b: { $expr: '(:n step/x)' } }).map((s) => ({ ...s, dependsOn: ['x'] })),
        ],
        { ...catalog, tools: new Map([['echo', { sideEffect: 'read_only' as const, destructive: false }]]) },
      ),
    ).toEqual([]);
  });
});
