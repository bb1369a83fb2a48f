/**
 * Plans that compute and decide, pure core: `$expr` and `$param` values, `when`
 * conditions and plan parameters as validatePlan, checkParams, the references resolver
 * and the scheduler see them.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { run } from '../../src/lisp/index.ts';
import { buildPlan } from '../../src/plans/build.ts';
import { applyEdit } from '../../src/plans/edits.ts';
import {
  expressionNames,
  resultsUsedBy,
  stepExpressions,
  substituteExpressions,
  truthy,
} from '../../src/plans/expressions.ts';
import { checkParams } from '../../src/plans/params.ts';
import { computedIn, resolveReferences } from '../../src/plans/references.ts';
import { blockSteps, finalStatus, readySteps } from '../../src/plans/scheduler.ts';
import type { Catalog, Json, Plan, Step } from '../../src/plans/schema.ts';
import { formatProblems, validatePlan } from '../../src/plans/validate.ts';

const catalog: Catalog = {
  tools: new Map([
    ['read_file', { sideEffect: 'read_only', destructive: false, input: z.object({ path: z.string() }) }],
    [
      'write_file',
      { sideEffect: 'local', destructive: true, input: z.object({ path: z.string(), content: z.string() }) },
    ],
    ['echo', { sideEffect: 'read_only', destructive: false, input: z.object({ value: z.unknown() }) }],
  ]),
  agents: new Set(),
};

const read = { id: 'read_pkg', description: 'read', tool: 'read_file', args: { path: 'package.json' } };
const write = (content: unknown, extra: Record<string, unknown> = {}) => ({
  id: 'write_pkg',
  description: 'write',
  tool: 'write_file',
  args: { path: 'package.json', content },
  dependsOn: ['read_pkg'],
  ...extra,
});
const bump = { $expr: '(str/replace (:content step/read_pkg) "1.4.2" param/version)' };

function plan(steps: unknown[], params: Plan['params'] = undefined): Plan {
  const built = buildPlan({ id: 'p', taskId: 't', steps, params, createdAt: '2026-01-01T00:00:00.000Z' }, catalog);
  if (!built.ok) throw new Error(formatProblems(built.problems));
  return built.plan;
}
const done = (value: Json): Partial<Step> => ({
  status: 'completed',
  result: { ok: true, value, duration: 1, timestamp: 't', attempts: 1 },
});
const withStatus = (p: Plan, statuses: Record<string, Partial<Step>>): Plan => ({
  ...p,
  steps: p.steps.map((s) => ({ ...s, ...statuses[s.id] })),
});

describe('expressions in args', () => {
  it('a valid $expr (and $param) passes validation; the tool schema is not applied to the object standing for the value', () => {
    expect(validatePlan([read, write(bump)], catalog, ['version'])).toEqual([]);
    expect(validatePlan([read, write({ $param: 'version' })], catalog, ['version'])).toEqual([]);
  });

  it('refuses a bad expression with its step, JSON path and position', () => {
    const problems = validatePlan([read, write({ $expr: '(str/replace (:content step/read_pkg) "1.4.2"' })], catalog, [
      'version',
    ]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'invalid_expression', stepId: 'write_pkg', path: 'args.content' });
    expect(problems[0]!.message).toMatch(/^args\.content: line 1, column 1: /);
    const late = validatePlan([read, write({ $expr: '(str/upper-case\n  (:content step/read_pkg) ]' })], catalog);
    expect(late[0]).toMatchObject({ code: 'invalid_expression', stepId: 'write_pkg', path: 'args.content' });
    expect(late[0]!.message).toMatch(/line 2, column 28/);
  });

  it('refuses unbound names, unknown functions and tool calls as the analyzer does', () => {
    const problems = validatePlan([read, write({ $expr: '(frobnicate step/read_pkg)' })], catalog);
    expect(problems).toEqual([
      expect.objectContaining({ code: 'invalid_expression', stepId: 'write_pkg', path: 'args.content' }),
    ]);
    expect(problems[0]!.message).toMatch(/frobnicate/);
    expect(validatePlan([read, write({ $expr: '(tool/read_file {:path "x"})' })], catalog)[0]).toMatchObject({
      code: 'invalid_expression',
    });
  });

  it('names unknown steps, non-dependencies and undeclared parameters', () => {
    const other = { id: 'other', description: 'other', tool: 'echo', args: { value: 1 } };
    const problems = validatePlan(
      [
        read,
        other,
        write({ $expr: '(str step/other step/nope param/version)' }),
        { ...other, id: 'p2', args: { value: { $param: 'missing' } } },
      ],
      catalog,
    );
    expect(problems.map((p) => [p.code, p.stepId, p.path])).toEqual([
      ['reference_not_a_dependency', 'write_pkg', 'args.content'],
      ['unknown_dependency', 'write_pkg', 'args.content'],
      ['unknown_param', 'write_pkg', 'args.content'],
      ['unknown_param', 'p2', 'args.value'],
    ]);
    expect(problems.find((p) => p.code === 'unknown_dependency')!.message).toBe(
      'args.content: reads step/nope, which is not in the plan',
    );
    expect(problems.find((p) => p.code === 'reference_not_a_dependency')!.message).toMatch(
      /step\/other, which is not among its dependencies/,
    );
  });

  it('finds expressions, the names they read, and substitutes computed values', () => {
    const args = { path: 'x', content: bump, nested: [{ $param: 'version' }, '$read_pkg.path'] };
    expect(computedIn(args)).toEqual([
      { path: ['content'], computed: { kind: 'expr', source: bump.$expr } },
      { path: ['nested', 0], computed: { kind: 'param', name: 'version' } },
    ]);
    expect(expressionNames(bump.$expr)).toEqual({ steps: new Set(['read_pkg']), params: new Set(['version']) });
    expect(stepExpressions({ when: 'param/go', args })).toEqual([
      { path: 'when', source: 'param/go' },
      { path: 'args.content', source: bump.$expr },
    ]);
    expect(resultsUsedBy({ when: '(:ok step/a)', args })).toEqual(new Set(['read_pkg', 'a']));
    expect(substituteExpressions(args as Json, (path) => `at ${path.join('.')}`)).toEqual({
      path: 'x',
      content: 'at content',
      nested: [{ $param: 'version' }, '$read_pkg.path'],
    });
    expect([null, false, 0, '', []].map((v) => truthy(v as Json))).toEqual([false, false, true, true, true]);
  });

  it('resolves $param and $ref values in the workflow and leaves $expr for the worker', () => {
    const resolved = resolveReferences(
      { v: { $param: 'version' }, c: bump, p: '$read_pkg.path' },
      () => ({ found: true, value: { path: 'package.json' } }),
      'args',
      { version: '1.5.0' },
    );
    expect(resolved).toEqual({ ok: true, value: { v: '1.5.0', c: bump, p: 'package.json' } });
    expect(resolveReferences({ v: { $param: 'nope' } }, () => ({ found: false }), 'args', {})).toMatchObject({
      ok: false,
      path: 'args.v',
      message: 'args.v: the plan has no parameter nope',
    });
  });

  it('keeps parameters on the plan and checks param/ names on edits too', () => {
    const p = plan([read, write(bump)], { version: { schema: { type: 'string' }, value: '1.5.0' } });
    expect(p.params).toEqual({ version: { schema: { type: 'string' }, value: '1.5.0' } });
    const edited = applyEdit(
      p,
      { kind: 'edit', stepId: 'write_pkg', args: { path: 'x', content: { $expr: 'param/other' } } },
      catalog,
    );
    expect(edited).toMatchObject({
      ok: false,
      problems: [{ code: 'unknown_param', stepId: 'write_pkg', path: 'args.content' }],
    });
  });
});

describe('the step/ and param/ namespaces of PTC-Lisp', () => {
  it('read the context keys "step/ID" and "param/NAME"; unknown namespaces stay refused', async () => {
    const context = { 'step/read_pkg': { content: 'v 1.4.2' }, 'param/version': '1.5.0' };
    const r = await run(bump.$expr, { context, dataNamespaces: ['step', 'param'] });
    expect(r).toMatchObject({ status: 'ok', value: 'v 1.5.0' });
    const without = await run(bump.$expr, { context });
    expect(without).toMatchObject({ status: 'error', error: { code: 'unknown_namespace' } });
  });
});

describe('conditions', () => {
  it('a when is validated like any expression', () => {
    expect(
      validatePlan([read, write('x', { when: '(str/includes? (:content step/read_pkg) "1.4.2")' })], catalog),
    ).toEqual([]);
    const problems = validatePlan([read, write('x', { when: '(= param/mode' })], catalog, ['mode']);
    expect(problems).toEqual([
      expect.objectContaining({ code: 'invalid_expression', stepId: 'write_pkg', path: 'when' }),
    ]);
    expect(problems[0]!.message).toMatch(/^when: line 1, column 1: /);
    expect(
      validatePlan([read, write('x', { when: 'step/later' }), { ...read, id: 'later' }], catalog)[0],
    ).toMatchObject({ code: 'reference_not_a_dependency', path: 'when' });
    expect(validatePlan([write('x', { when: '', dependsOn: [] })], catalog)[0]).toMatchObject({
      code: 'invalid_step',
      path: 'when',
    });
  });

  it('a step skipped by its condition lets steps that do not use its result run, blocks those that do, and the plan completes', () => {
    const p = plan([
      read,
      { id: 'maybe', description: 'maybe', tool: 'echo', args: { value: 1 }, when: '(= 1 2)' },
      { id: 'after', description: 'after', tool: 'echo', args: { value: 2 }, dependsOn: ['maybe'] },
      { id: 'uses_ref', description: 'uses $maybe', tool: 'echo', args: { value: '$maybe.got' }, dependsOn: ['maybe'] },
      {
        id: 'uses_expr',
        description: 'uses step/maybe',
        tool: 'echo',
        args: { value: { $expr: '(:got step/maybe)' } },
        dependsOn: ['maybe'],
      },
    ]);
    const skipped = withStatus(p, {
      read_pkg: done({ content: '' }),
      maybe: { status: 'skipped', skippedBy: 'condition', reason: 'condition false' },
    });
    expect(readySteps(skipped)).toEqual(['after']);
    const blocked = blockSteps(skipped);
    expect(blocked.steps.filter((s) => s.status === 'blocked').map((s) => [s.id, s.reason])).toEqual([
      ['uses_ref', 'uses the result of maybe, which was skipped'],
      ['uses_expr', 'uses the result of maybe, which was skipped'],
    ]);
    const settled = withStatus(blocked, { after: done(2) });
    expect(finalStatus(settled)).toBe('completed_with_failures');
    expect(
      finalStatus(
        withStatus(p, {
          read_pkg: done(1),
          maybe: { status: 'skipped', skippedBy: 'condition' },
          after: done(2),
          uses_ref: { status: 'skipped', skippedBy: 'condition' },
          uses_expr: done(3),
        }),
      ),
    ).toBe('completed');
  });
});

describe('forEach', () => {
  const list = { id: 'list', description: 'list', tool: 'echo', args: { value: [1, 2] } };
  const each = (extra: Record<string, unknown>) => ({
    id: 'each',
    description: 'each',
    tool: 'echo',
    args: { value: { $expr: '(* 2 item)' } },
    dependsOn: ['list'],
    forEach: '(:got step/list)',
    ...extra,
  });

  it('binds item in the args of a forEach step only', () => {
    expect(validatePlan([list, each({})], catalog)).toEqual([]);
    const outside = validatePlan([list, { ...each({}), forEach: undefined }], catalog);
    expect(outside).toEqual([
      expect.objectContaining({ code: 'invalid_expression', stepId: 'each', path: 'args.value' }),
    ]);
    expect(outside[0]!.message).toBe(
      'args.value: line 1, column 6: Undefined variable: item (item is bound only in the args of a forEach step)',
    );
    const typo = validatePlan(
      [list, { ...list, id: 'typo', args: { value: { $expr: '(:got stp/list)' } }, dependsOn: ['list'] }],
      catalog,
    );
    expect(typo[0]!.message).toBe(
      'args.value: line 1, column 7: unknown namespace stp/ (a plan expression reads step/ID and param/NAME, and the core namespaces str/, set/, Math/)',
    );
    expect(validatePlan([list, each({ when: '(pos? item)' })], catalog)[0]).toMatchObject({
      code: 'invalid_expression',
      path: 'when',
    });
  });

  it('checks the forEach expression and its step/ names; a forEach needs a tool step; maxItems needs a forEach', () => {
    expect(validatePlan([list, each({ forEach: '(:got step/list' })], catalog)[0]).toMatchObject({
      code: 'invalid_expression',
      stepId: 'each',
      path: 'forEach',
    });
    expect(validatePlan([list, each({ dependsOn: [] })], catalog)[0]).toMatchObject({
      code: 'reference_not_a_dependency',
      path: 'forEach',
    });
    expect(validatePlan([list, each({ maxItems: 0 })], catalog)[0]).toMatchObject({
      code: 'invalid_step',
      path: 'maxItems',
    });
    expect(validatePlan([{ ...list, maxItems: 3 }], catalog)[0]).toMatchObject({
      code: 'invalid_step',
      path: 'maxItems',
    });
    expect(resultsUsedBy({ forEach: '(:got step/list)', args: {} })).toEqual(new Set(['list']));
    const agentStep = {
      id: 'agent_each',
      description: 'a mission per item',
      agent: 'helper',
      input: {},
      forEach: '[1 2]',
    };
    expect(validatePlan([agentStep], { ...catalog, agents: new Set(['helper']) })).toEqual([
      expect.objectContaining({
        code: 'invalid_step',
        stepId: 'agent_each',
        path: 'forEach',
        message: 'forEach: forEach is for tool steps',
      }),
    ]);
  });
});

describe('parameters', () => {
  const declared = {
    version: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+$' },
    dryRun: { type: 'boolean', default: false },
  };

  it('takes valid values and fills in defaults', () => {
    expect(checkParams(declared, { version: '1.5.0' })).toEqual({
      ok: true,
      params: {
        version: { schema: declared.version, value: '1.5.0' },
        dryRun: { schema: declared.dryRun, value: false },
      },
    });
  });

  it('refuses a missing, an ill-typed and an undeclared value, each naming the parameter', () => {
    const missing = checkParams(declared, {});
    expect(missing).toMatchObject({
      ok: false,
      problems: [{ code: 'missing_param', stepId: null, path: 'params.version' }],
    });
    const bad = checkParams(declared, { version: '1.5', dryRun: 'yes', extra: 1 });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.problems.map((p) => [p.code, p.path])).toEqual([
      ['invalid_param', 'params.version'],
      ['invalid_param', 'params.dryRun'],
      ['unknown_param', 'params.extra'],
    ]);
    expect(bad.problems[0]!.message).toMatch(/^parameter version = "1.5" is invalid: version: .*pattern/);
    expect(bad.problems[1]!.message).toMatch(/^parameter dryRun = "yes" is invalid: dryRun: .*boolean/);
  });

  it('refuses a schema zod cannot use', () => {
    expect(checkParams({ v: { type: 'strin' } }, { v: 'x' })).toMatchObject({
      ok: false,
      problems: [{ code: 'invalid_param', path: 'params.v' }],
    });
  });
});

describe('question steps (ask)', () => {
  const ask = {
    id: 'pick',
    description: 'where',
    ask: { question: 'Which environment?', schema: { enum: ['staging', 'prod'] } },
  };

  it('validatePlan accepts a question read by step/ and $ref, and refuses a bad schema or a question with tool fields', () => {
    const use = {
      id: 'use',
      description: 'use',
      tool: 'echo',
      args: { value: { $expr: '(str "to " step/pick)' }, again: '$pick' },
      dependsOn: ['pick'],
    };
    expect(validatePlan([ask, use], catalog)).toEqual([]);
    const built = plan([ask, use]);
    expect(built.steps[0]).toMatchObject({ id: 'pick', ask: ask.ask, requiresApproval: false, status: 'pending' });
    expect(applyEdit(built, { kind: 'edit', stepId: 'pick', description: 'where to' }, catalog)).toMatchObject({
      ok: true,
    });
    const bad = validatePlan([{ ...ask, ask: { question: 'n?', schema: { type: 'strin' } } }], catalog);
    expect(bad).toEqual([
      {
        code: 'invalid_question',
        stepId: 'pick',
        path: 'ask.schema',
        message: "ask.schema: the answer's JSON Schema cannot be used: Unsupported type: strin",
      },
    ]);
    const mixed = validatePlan([{ ...ask, tool: 'echo', args: { value: 1 }, requiresApproval: true }], catalog).map(
      (p) => [p.path, p.message],
    );
    expect(mixed).toEqual([
      [
        'tool',
        'tool: a step names exactly one of `tool` (with `args`), `agent` (with `input`), `ask` (a question) or `compute` (an expression)',
      ],
      ['args', 'args: a question (ask) takes no args: a person answers it'],
      ['requiresApproval', 'requiresApproval: a question (ask) takes no requiresApproval: a person answers it'],
    ]);
  });

  it('checkAnswer keeps a matching answer and refuses others with every reason', async () => {
    const { checkAnswer } = await import('../../src/plans/questions.ts');
    const schema = {
      type: 'object',
      properties: { env: { enum: ['staging', 'prod'] }, n: { type: 'integer' } },
      required: ['env'],
    };
    expect(checkAnswer('pick', { question: 'q', schema }, { env: 'prod', n: 2 })).toEqual({
      ok: true,
      value: { env: 'prod', n: 2 },
    });
    expect(checkAnswer('pick', { question: 'q', schema }, { n: 1.5 })).toEqual({
      ok: false,
      message:
        'step pick: the answer {"n":1.5} does not match the question\'s schema: answer.env: Invalid option: expected one of "staging"|"prod"; answer.n: Invalid input: expected int, received number',
    });
  });
});

describe('exportPlan', () => {
  it('keeps params as declarations for a template (defaults otherwise), drops reviewer-skipped steps, refuses when a kept step uses one', async () => {
    const { exportPlan } = await import('../../src/plans/template.ts');
    const schema = { type: 'string' };
    const built = plan([read, write(bump)], { version: { schema, value: '1.5.0' } });
    const template = exportPlan(built, { template: true });
    expect(template.ok && template.document.params).toEqual({ version: schema });
    expect(template.ok && template.document.steps.map((s) => s.id)).toEqual(['read_pkg', 'write_pkg']);
    const plain = exportPlan(built, { template: false });
    expect(plain.ok && plain.document.params).toEqual({ version: { type: 'string', default: '1.5.0' } });
    const note = { id: 'note', description: 'note', tool: 'echo', args: { value: 1 } };
    const after = { id: 'after', description: 'after', tool: 'echo', args: { value: 2 }, dependsOn: ['note'] };
    const skipped = (p: Plan, id: string): Plan => ({
      ...p,
      steps: p.steps.map((s) =>
        s.id === id ? { ...s, status: 'skipped' as const, skippedBy: 'reviewer' as const } : s,
      ),
    });
    const dropped = exportPlan(skipped(plan([note, after]), 'note'), { template: true });
    expect(dropped.ok && dropped.document.steps).toEqual([expect.objectContaining({ id: 'after', dependsOn: [] })]);
    expect(exportPlan(skipped(built, 'read_pkg'), { template: true })).toEqual({
      ok: false,
      message:
        'step write_pkg uses the result of read_pkg, which the reviewer skipped: un-skip it or change write_pkg before exporting',
    });
  });
});

describe('compute steps and computed questions (issue 43, part 3)', () => {
  const list = { id: 'list', description: 'read', tool: 'read_file', args: { path: 'regions.json' } };
  it('a compute step is valid with an expression over its dependencies; it takes no args, no approval; it reads what its expression names', () => {
    const compute = { id: 'ids', description: 'ids', compute: '(mapv :id step/list)', dependsOn: ['list'] };
    expect(validatePlan([list, compute], catalog)).toEqual([]);
    expect(stepExpressions(compute)).toEqual([{ path: 'compute', source: '(mapv :id step/list)' }]);
    expect([...resultsUsedBy(compute)]).toEqual(['list']);
    const built = buildPlan({ id: 'p', taskId: 't', steps: [list, compute], createdAt: 'now' }, catalog);
    expect(built.ok && built.plan.steps[1]).toMatchObject({
      id: 'ids',
      compute: '(mapv :id step/list)',
      requiresApproval: false,
    });
    const problems = validatePlan(
      [list, { ...compute, dependsOn: [], args: { x: 1 } }, { id: 'c2', compute: '(inc', description: '' }],
      catalog,
    );
    expect(formatProblems(problems)).toBe(
      [
        '  - ids: args: a compute step takes no args: its result is the value of its expression [invalid_step]',
        "  - c2: compute: line 1, column 1: unclosed '(' opened at line 1, column 1 (add the missing closing delimiter) [invalid_expression]",
      ].join('\n'),
    );
    expect(formatProblems(validatePlan([list, { ...compute, dependsOn: [] }], catalog))).toBe(
      '  - ids: compute: reads step/list, which is not among its dependencies (add it to dependsOn) [reference_not_a_dependency]',
    );
  });

  it('a question may compute its text and schema; their expressions are checked as args are', () => {
    const ask = {
      id: 'pick',
      description: 'pick',
      ask: {
        question: { $expr: '(str "Which of " (count step/list) "?")' },
        schema: { enum: { $expr: '(mapv :id step/list)' } },
      },
      dependsOn: ['list'],
    };
    expect(validatePlan([list, ask], catalog)).toEqual([]);
    expect(stepExpressions(ask).map((e) => e.path)).toEqual(['ask.question', 'ask.schema.enum']);
    expect(formatProblems(validatePlan([list, { ...ask, dependsOn: [] }], catalog))).toBe(
      [
        '  - pick: ask.question: reads step/list, which is not among its dependencies (add it to dependsOn) [reference_not_a_dependency]',
        '  - pick: ask.schema.enum: reads step/list, which is not among its dependencies (add it to dependsOn) [reference_not_a_dependency]',
      ].join('\n'),
    );
    // a question as written (no expression) is shown as written: a "$" in its text is no reference
    expect(
      validatePlan(
        [{ id: 'q', description: '', ask: { question: '$5 or $10?', schema: { enum: ['$5', '$10'] } } }],
        catalog,
      ),
    ).toEqual([]);
  });
});
