/**
 * The recovery prompt (the failed step, its tool, args, attempts and error; the plan's
 * state; the tools; the four allowed answers) and the extraction of the recovery answer
 * (shape left to the caller's RecoveryAction schema).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type RecoveryAsk, parseRecoveryAnswer, recoveryPrompt } from '../../src/plans/recovery-prompt.ts';
import { Plan, type Step } from '../../src/plans/schema.ts';
import { defineTool } from '../../src/navigator/index.ts';

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
    input: z.object({ path: z.string(), content: z.string() }),
    sideEffect: 'local',
    destructive: true,
    handler: () => null,
  }),
];

const result = (ok: boolean, valueOrError: unknown, attempts = 1) =>
  ok
    ? { ok, value: valueOrError as never, duration: 5, timestamp: '2026-01-01T00:00:00.000Z', attempts }
    : { ok, error: String(valueOrError), duration: 5, timestamp: '2026-01-01T00:00:00.000Z', attempts };

const step = (id: string, order: number, extra: Partial<Step> = {}): Step => ({
  id,
  order,
  description: `step ${id}`,
  tool: 'read_file',
  args: { path: `${id}.txt` },
  dependsOn: [],
  critical: true,
  requiresApproval: false,
  status: 'pending',
  ...extra,
});

const plan: Plan = Plan.parse({
  id: 'plan-1',
  taskId: 'task-1',
  version: 2,
  createdAt: '2026-01-01T00:00:00.000Z',
  steps: [
    step('read_config', 0, {
      status: 'completed',
      result: result(true, { path: 'config.json', content: '{"version":"1.4.2"}' }),
    }),
    step('big', 1, { status: 'completed', result: result(true, { content: 'x'.repeat(1000) }) }),
    step('write_out', 2, {
      description: 'Write the report into out/report.txt',
      tool: 'write_file',
      args: { path: 'out/report.txt', content: '$read_config.content' },
      dependsOn: ['read_config'],
      requiresApproval: true,
      status: 'failed',
      result: result(false, 'ENOENT: no such directory out', 3),
    }),
    step('verify', 3, { dependsOn: ['write_out'], status: 'blocked' }),
    step('notify', 4, {
      tool: undefined,
      args: undefined,
      agent: 'mailer',
      input: { to: 'ana' },
      status: 'skipped',
      reason: 'skipped by the reviewer',
    }),
  ],
});

const ask = {
  request: 'write the report',
  plan,
  failedStepId: 'write_out',
  error: 'tool write_file failed: ENOENT: no such directory out',
  tools,
};
const text = (a: RecoveryAsk = ask) => recoveryPrompt(a).messages[0]!.content;

describe('the recovery prompt of a compute step', () => {
  it('shows its expression (not an agent), says how to give a new one, and lists it as compute', () => {
    const withCompute: Plan = Plan.parse({
      ...plan,
      steps: [
        ...plan.steps.filter((s) => s.id !== 'write_out' && s.id !== 'verify'),
        step('totals', 5, {
          tool: undefined,
          args: undefined,
          compute: '(assoc step/read_config :n 1)',
          dependsOn: ['read_config'],
          status: 'failed',
          result: result(false, 'not valid JSON', 1),
        }),
      ],
    });
    const { system, messages } = recoveryPrompt({
      plan: withCompute,
      failedStepId: 'totals',
      error: 'not valid JSON',
      tools,
    });
    const text = messages[0]!.content;
    expect(text).toContain('failed_step: totals');
    expect(text).toContain('compute: (assoc step/read_config :n 1)');
    expect(text).not.toContain('agent: undefined');
    expect(text).toContain('- totals [failed] compute: step totals');
    expect(system).toContain('{"action": "retry", "compute": "<PTC-Lisp>"}');
  });
});

describe('recoveryPrompt', () => {
  it('is a system prompt and one user message', () => {
    const prompt = recoveryPrompt(ask);
    expect(Object.keys(prompt).sort()).toEqual(['messages', 'system']);
    expect(prompt.messages).toHaveLength(1);
    expect(prompt.messages[0]!.role).toBe('user');
  });

  it('names the request, the failed step, its tool and args, attempts and error', () => {
    expect(text()).toContain(
      [
        "The plan's request: write the report",
        '',
        'failed_step: write_out',
        'description: Write the report into out/report.txt',
        'tool: write_file',
        'args: {"path":"out/report.txt","content":"$read_config.content"}',
        'attempts: 3',
        'error: tool write_file failed: ENOENT: no such directory out',
      ].join('\n'),
    );
    expect(text({ ...ask, request: undefined })).toMatch(/^failed_step: write_out\n/);
  });

  it('shows the plan state: each step with status, dependencies and a short result or error', () => {
    const t = text();
    expect(t).toContain(
      'The plan now:\n- read_config [completed] read_file: step read_config → {"path":"config.json","content":"{\\"version\\":\\"1.4.2\\"}"}\n',
    );
    expect(t).toContain(`- big [completed] read_file: step big → {"content":"${'x'.repeat(288)}...\n`);
    expect(t).toContain(
      '- write_out [failed] write_file: Write the report into out/report.txt (after read_config) → error: ENOENT: no such directory out\n',
    );
    expect(t).toContain('- verify [blocked] read_file: step verify (after write_out)\n');
    expect(t).toContain('- notify [skipped] agent mailer: step notify\n');
  });

  it('lists the tools with class and destructive flag', () => {
    expect(text()).toContain(
      'Tools:\n- read_file (read_only): Reads a file.\n  args: {"path": string}\n- write_file (local, destructive): Writes a file.',
    );
  });

  it('an agent step shows its agent and input', () => {
    expect(text({ ...ask, failedStepId: 'notify' })).toContain(
      'failed_step: notify\ndescription: step notify\nagent: mailer\ninput: {"to":"ana"}\nattempts: 0\n',
    );
  });

  it('states exactly the four allowed answers and JSON only', () => {
    const { system } = recoveryPrompt(ask);
    expect(system).toContain('answer with exactly one JSON object, nothing else');
    expect(system).toContain(
      '- {"action": "retry", "args": {...}}: run the step again with other args (for an agent step: its new input; omit "args" to retry as it was);',
    );
    expect(system).toContain(
      '- {"action": "skip"}: go on without it, only if the plan can succeed without its result;',
    );
    expect(system).toContain(
      '- {"action": "insert", "steps": [{"id", "description", "tool", "args", "dependsOn"}], "before": "STEP_ID"}: run new steps first (for example to create what is missing), then the step again;',
    );
    expect(system).toContain('- {"action": "abort", "reason": "..."}: stop the plan when it cannot succeed.');
  });

  it('lists the agents a step may run with their input types, only when there are some', () => {
    expect(text()).not.toContain('Agents a step may run');
    expect(
      text({ ...ask, agents: [{ name: 'mailer', description: 'Sends mail.', input: '{"to": string}' }] }),
    ).toContain(
      'Agents a step may run ("agent": NAME, "input" matching its input type):\n- mailer: Sends mail.\n  input: {"to": string}',
    );
  });

  it('refuses a failed step that is not in the plan', () => {
    expect(() => recoveryPrompt({ ...ask, failedStepId: 'nope' })).toThrow(
      'recoveryPrompt: plan plan-1 has no step "nope"',
    );
  });
});

describe('parseRecoveryAnswer', () => {
  it.each([
    ['raw', '{"action": "retry", "args": {"path": "b.txt"}}', { action: 'retry', args: { path: 'b.txt' } }],
    [
      'fenced',
      'Create the directory first:\n```json\n{"action": "insert", "before": "write_out", "steps": [{"id": "mkdir"}]}\n```',
      { action: 'insert', before: 'write_out', steps: [{ id: 'mkdir' }] },
    ],
    ['in prose', 'I would skip it: {"action": "skip"}. The rest still works.', { action: 'skip' }],
    ['any shape (checked by the caller)', '{"action": "explode", "when": "now"}', { action: 'explode', when: 'now' }],
  ])('extracts the JSON object (%s)', (_, answer, action) => {
    expect(parseRecoveryAnswer(answer)).toEqual({ ok: true, action });
  });

  it('says what is wrong with an unusable answer, like the planner', () => {
    expect(parseRecoveryAnswer('Abort, I think.')).toEqual({ ok: false, message: 'the answer has no JSON object' });
    expect(parseRecoveryAnswer('{"action": "abort", "reason": }')).toEqual({
      ok: false,
      message: `the answer's JSON does not parse: invalid JSON at position 30 (line 1, column 31): expected a value, found "}"`,
    });
  });
});
