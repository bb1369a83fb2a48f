/**
 * The plan executor's pure core without Temporal: references, validation (every problem
 * code), building, the scheduler's ready set and blocking rules, edits and recovery
 * actions, planner answers.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildPlan } from '../../src/plans/build.ts';
import { applyEdit, applyRecovery } from '../../src/plans/edits.ts';
import { parsePlanAnswer, plannerPrompt } from '../../src/plans/planner.ts';
import { parseRecoveryAnswer, recoveryPrompt } from '../../src/plans/recovery-prompt.ts';
import { parseReference, resolveReferences } from '../../src/plans/references.ts';
import {
  blockSteps,
  blockedAfter,
  blockedAfterWarning,
  executionSummary,
  finalStatus,
  isSettled,
  readySteps,
} from '../../src/plans/scheduler.ts';
import type { Catalog, Json, Plan, Step } from '../../src/plans/schema.ts';
import { formatProblems, validatePlan } from '../../src/plans/validate.ts';
import { defineTool } from '../../src/navigator/index.ts';

const catalog: Catalog = {
  tools: new Map([
    ['read_file', { sideEffect: 'read_only', destructive: false, input: z.object({ path: z.string() }) }],
    [
      'write_file',
      { sideEffect: 'local', destructive: true, input: z.object({ path: z.string(), content: z.string() }) },
    ],
    [
      'send_email',
      { sideEffect: 'external', destructive: false, input: z.object({ to: z.string().email(), body: z.string() }) },
    ],
    ['echo', { sideEffect: 'read_only', destructive: false, input: z.object({ value: z.unknown() }) }],
  ]),
  agents: new Set(['helper']),
};

const step = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  description: id,
  tool: 'echo',
  args: { value: id },
  ...extra,
});

function plan(steps: unknown[]): Plan {
  const built = buildPlan({ id: 'p', taskId: 't', steps, createdAt: '2026-01-01T00:00:00.000Z' }, catalog);
  if (!built.ok) throw new Error(formatProblems(built.problems));
  return built.plan;
}

const withStatus = (p: Plan, statuses: Record<string, Partial<Step>>): Plan => ({
  ...p,
  steps: p.steps.map((s) => ({ ...s, ...statuses[s.id] })),
});
const done = (value: Json): Partial<Step> => ({
  status: 'completed',
  result: { ok: true, value, duration: 1, timestamp: 't', attempts: 1 },
});

describe('references', () => {
  it('parses references, literals and malformed ones', () => {
    expect(parseReference('plain')).toBeNull();
    expect(parseReference('$fetch')).toEqual({ kind: 'ref', stepId: 'fetch', path: [] });
    expect(parseReference('$fetch.rows.0.id')).toEqual({ kind: 'ref', stepId: 'fetch', path: ['rows', '0', 'id'] });
    expect(parseReference('$$fetch')).toEqual({ kind: 'literal', value: '$fetch' });
    for (const bad of ['$', '$.x', '$a b']) expect(parseReference(bad)?.kind).toBe('invalid');
    expect(parseReference('$a..b')).toMatchObject({
      kind: 'invalid',
      message: expect.stringMatching(/empty path segment/),
    });
  });

  it('resolves at any depth and unescapes $$', () => {
    const results: Record<string, Json> = { list: { items: [{ id: 'a' }, { id: 'b' }] }, n: 3 };
    const got = resolveReferences(
      { x: ['$list.items.1.id', { deep: '$n' }], lit: '$$list', whole: '$list.items' },
      (id) => (id in results ? { found: true, value: results[id]! } : { found: false }),
    );
    expect(got).toEqual({
      ok: true,
      value: { x: ['b', { deep: 3 }], lit: '$list', whole: [{ id: 'a' }, { id: 'b' }] },
    });
  });

  it('says precisely why a reference cannot be resolved', () => {
    const results: Record<string, Json> = { list: { items: [{ id: 'a' }] } };
    const of = (id: string) =>
      id in results ? { found: true as const, value: results[id]! } : { found: false as const };
    expect(resolveReferences({ a: '$list.items.5.id' }, of)).toEqual({
      ok: false,
      path: 'args.a',
      message: "args.a: $list.items.5.id: list's result has no items.5 (items has 1 items)",
    });
    expect(resolveReferences({ a: ['$list.rows'] }, of)).toMatchObject({
      ok: false,
      message: "args.a.0: $list.rows: list's result has no rows (keys: items)",
    });
    expect(resolveReferences({ a: '$gone' }, of)).toMatchObject({
      ok: false,
      message: 'args.a: $gone: step gone has no result (it did not complete)',
    });
  });
});

describe('validatePlan', () => {
  it('accepts a good plan', () => {
    expect(validatePlan([step('a'), step('b', { dependsOn: ['a'], args: { value: '$a.got' } })], catalog)).toEqual([]);
  });

  it('reports every problem at once, as data, in step order', () => {
    const problems = validatePlan(
      [
        step('a', { dependsOn: ['b'] }),
        step('b', { dependsOn: ['a', 'ghost', 'b'] }),
        step('a'),
        { id: 'w', description: 'w', tool: 'write_file', args: { path: 3, content: '$a.got' }, dependsOn: ['a'] },
        { id: 'x', description: 'x', tool: 'shred', args: {} },
        { id: 'y', description: 'y', agent: 'nobody', input: {} },
        { id: 'z', description: 'z', tool: 'echo', agent: 'helper' },
        step('r', { args: { value: ['$w.bytes', '$nope', '$'] } }),
      ],
      catalog,
    );
    const codes = problems.map((p) => `${p.code}:${p.stepId}:${p.path}`);
    expect(codes).toEqual([
      'duplicate_id:a:id',
      'cycle:a:dependsOn',
      'unknown_dependency:b:dependsOn.1',
      'self_dependency:b:dependsOn.2',
      'invalid_args:w:args.path',
      'unknown_tool:x:tool',
      'unknown_agent:y:agent',
      'invalid_step:z:agent',
      'reference_not_a_dependency:r:args.value.0',
      'invalid_reference:r:args.value.1',
      'invalid_reference:r:args.value.2',
    ]);
    expect(problems.find((p) => p.code === 'cycle')!.message).toBe(
      'dependency cycle: a -> b -> a (each step depends on the next)',
    );
    expect(problems.find((p) => p.code === 'unknown_tool')!.message).toMatch(
      /known tools: read_file, write_file, send_email, echo/,
    );
    expect(formatProblems(problems).split('\n')).toHaveLength(problems.length);
  });

  it('checks args as written but leaves what a $ reference stands for to run time', () => {
    const problems = validatePlan(
      [step('a'), { id: 'm', description: 'm', tool: 'send_email', args: { to: '$a.got', body: 5 }, dependsOn: ['a'] }],
      catalog,
    );
    expect(problems.map((p) => [p.code, p.path])).toEqual([['invalid_args', 'args.body']]);
  });

  it('names each distinct cycle once', () => {
    const problems = validatePlan(
      [
        step('a', { dependsOn: ['c'] }),
        step('b', { dependsOn: ['a'] }),
        step('c', { dependsOn: ['b'] }),
        step('d', { dependsOn: ['d2'] }),
        step('d2', { dependsOn: ['d'] }),
      ],
      catalog,
    );
    expect(problems.filter((p) => p.code === 'cycle').map((p) => p.message)).toEqual([
      'dependency cycle: a -> c -> b -> a (each step depends on the next)',
      'dependency cycle: d -> d2 -> d (each step depends on the next)',
    ]);
  });
});

describe('buildPlan', () => {
  it('numbers steps and resolves approval from the tool: external and destructive wait', () => {
    const p = plan([
      { id: 'r', description: 'r', tool: 'read_file', args: { path: 'x' } },
      { id: 'w', description: 'w', tool: 'write_file', args: { path: 'x', content: 'y' } },
      { id: 'e', description: 'e', tool: 'send_email', args: { to: 'ann@example.com', body: 'hi' } },
      {
        id: 'n',
        description: 'n',
        tool: 'send_email',
        args: { to: 'ann@example.com', body: 'hi' },
        requiresApproval: false,
      },
      { id: 'h', description: 'h', agent: 'helper', input: { q: 1 } },
    ]);
    expect(p.version).toBe(1);
    expect(p.steps.map((s) => [s.id, s.order, s.requiresApproval, s.status, s.critical])).toEqual([
      ['r', 0, false, 'pending', true],
      ['w', 1, true, 'pending', true],
      ['e', 2, true, 'pending', true],
      ['n', 3, false, 'pending', true],
      ['h', 4, false, 'pending', true],
    ]);
  });
});

describe('scheduler', () => {
  const p = plan([
    step('a'),
    step('b'),
    step('c', { dependsOn: ['a'] }),
    step('d', { dependsOn: ['a', 'b'], args: { value: '$b.got' } }),
    step('e', { dependsOn: ['c'] }),
  ]);

  it('starts every step whose dependencies are done', () => {
    expect(readySteps(p)).toEqual(['a', 'b']);
    expect(readySteps(withStatus(p, { a: done(1), b: { status: 'running' } }))).toEqual(['c']);
  });

  it('a reviewer-skipped dependency counts as done unless its result is used', () => {
    const skipped = withStatus(p, { a: done(1), b: { status: 'skipped', skippedBy: 'reviewer' } });
    expect(readySteps(skipped)).toEqual(['c']);
    const blocked = blockSteps(skipped);
    expect(blocked.steps.find((s) => s.id === 'd')).toMatchObject({
      status: 'blocked',
      reason: 'uses the result of b, which was skipped',
    });
  });

  it('blocks dependents of failed and denied steps, transitively', () => {
    const failed = blockSteps(
      withStatus(p, { a: { status: 'failed' }, b: { status: 'skipped', skippedBy: 'denial', reason: 'denied: no' } }),
    );
    const reasons = Object.fromEntries(failed.steps.map((s) => [s.id, s.reason]));
    expect(reasons).toMatchObject({
      c: 'depends on a, which failed',
      d: 'depends on a, which failed',
      e: 'depends on c, which is blocked',
    });
    expect(isSettled(failed)).toBe(true);
    expect(blockSteps(p)).toBe(p);
  });

  it('names what a step leads to that can no longer run (the warning before approving it)', () => {
    // b awaits approval; a failed, so d (a and b) and nothing else after b is blocked
    const blocked = blockSteps(withStatus(p, { a: { status: 'failed' }, b: { status: 'awaiting_approval' } }));
    expect(blockedAfter(blocked, 'b')).toEqual([{ id: 'd', reason: 'depends on a, which failed' }]);
    expect(blockedAfterWarning(blocked, 'b')).toBe(
      'approving b cannot complete what it leads to: d can no longer run (depends on a, which failed)',
    );
    // c's only way on is through a: e is blocked after c, but approving c is not what blocks it
    expect(blockedAfter(blocked, 'e')).toEqual([]);
    expect(blockedAfterWarning(withStatus(p, { b: { status: 'awaiting_approval' } }), 'b')).toBeNull();
  });

  it('ends completed, completed_with_failures or failed', () => {
    const all = withStatus(p, { a: done(1), b: done(2), c: done(3), d: done(4), e: done(5) });
    expect(finalStatus(all)).toBe('completed');
    expect(finalStatus(all, { aborted: true })).toBe('failed');
    expect(finalStatus(withStatus(all, { e: { status: 'failed', critical: false } }))).toBe('completed_with_failures');
    expect(finalStatus(withStatus(all, { e: { status: 'blocked' } }))).toBe('completed_with_failures');
    expect(finalStatus(withStatus(all, { e: { status: 'failed' } }))).toBe('failed');
    const summary = executionSummary(withStatus(all, { e: { status: 'skipped', skippedBy: 'reviewer' } }), {
      startedAt: 10,
      now: 110,
      status: 'completed',
    });
    expect(summary.counts).toEqual({
      pending: 0,
      blocked: 0,
      ready: 0,
      running: 0,
      awaiting_approval: 0,
      awaiting_answer: 0,
      completed: 4,
      failed: 0,
      skipped: 1,
    });
    expect(summary.totalDuration).toBe(100);
  });
});

describe('edits', () => {
  const p = plan([step('a'), step('b', { dependsOn: ['a'], args: { value: '$a.got' } }), step('c')]);

  it('edits args, description and dependencies as a new version', () => {
    const edited = applyEdit(
      p,
      { kind: 'edit', stepId: 'c', args: { value: 9 }, description: 'nine', dependsOn: ['a'] },
      catalog,
    );
    expect(edited).toMatchObject({
      ok: true,
      change: 'edited args and description and dependencies of step c',
      plan: { version: 2 },
    });
    expect(edited.ok && edited.plan.steps[2]).toMatchObject({
      args: { value: 9 },
      description: 'nine',
      dependsOn: ['a'],
    });
  });

  it('refuses an edit that makes the plan invalid and changes nothing', () => {
    const before = structuredClone(p);
    const cycle = applyEdit(p, { kind: 'edit', stepId: 'a', dependsOn: ['b'] }, catalog);
    expect(cycle.ok).toBe(false);
    expect(!cycle.ok && cycle.problems.map((x) => x.code)).toEqual(['cycle']);
    expect(applyEdit(p, { kind: 'remove', stepId: 'a' }, catalog)).toMatchObject({
      ok: false,
      problems: [{ code: 'has_dependents', message: 'step a cannot be removed: b depends on it' }],
    });
    expect(applyEdit(p, { kind: 'skip', stepId: 'zz' }, catalog)).toMatchObject({
      ok: false,
      problems: [{ code: 'unknown_step' }],
    });
    expect(applyEdit(withStatus(p, { c: done(1) }), { kind: 'skip', stepId: 'c' }, catalog)).toMatchObject({
      ok: false,
      problems: [{ code: 'not_editable' }],
    });
    expect(applyEdit(p, { kind: 'reorder', order: ['b', 'a', 'c'] }, catalog)).toMatchObject({
      ok: false,
      problems: [{ code: 'invalid_order', message: 'step b would come before a, which it depends on' }],
    });
    expect(p).toEqual(before);
  });

  it('skips, adds, removes and reorders', () => {
    expect(applyEdit(p, { kind: 'skip', stepId: 'c', reason: 'later' }, catalog)).toMatchObject({
      ok: true,
      plan: { steps: [{}, {}, { status: 'skipped', skippedBy: 'reviewer', reason: 'skipped by the reviewer: later' }] },
    });
    const added = applyEdit(
      p,
      {
        kind: 'add',
        step: {
          id: 'w',
          description: 'w',
          tool: 'write_file',
          args: { path: 'x', content: '$a.got' },
          dependsOn: ['a'],
        },
      },
      catalog,
    );
    expect(added.ok && added.plan.steps.at(-1)).toMatchObject({
      id: 'w',
      order: 3,
      requiresApproval: true,
      status: 'pending',
    });
    expect(applyEdit(p, { kind: 'remove', stepId: 'c' }, catalog)).toMatchObject({
      ok: true,
      plan: { steps: [{ id: 'a' }, { id: 'b' }] },
    });
    const reordered = applyEdit(p, { kind: 'reorder', order: ['c', 'a', 'b'] }, catalog);
    expect(reordered.ok && reordered.plan.steps.map((s) => [s.id, s.order])).toEqual([
      ['c', 0],
      ['a', 1],
      ['b', 2],
    ]);
  });

  it('applies recovery actions to a failed step', () => {
    const failed = withStatus(p, {
      a: { status: 'failed', result: { ok: false, error: 'x', duration: 1, timestamp: 't', attempts: 3 } },
    });
    const retry = applyRecovery(failed, 'a', { action: 'retry', args: { value: 'again' } }, catalog);
    expect(retry).toMatchObject({ ok: true, plan: { version: 2 } });
    expect('plan' in retry && retry.plan.steps[0]).toMatchObject({
      id: 'a',
      status: 'pending',
      args: { value: 'again' },
    });
    expect('plan' in retry && retry.plan.steps[0]!.result).toBeUndefined();
    const skipped = applyRecovery(failed, 'a', { action: 'skip' }, catalog);
    expect('plan' in skipped && skipped.plan.steps[0]).toMatchObject({ status: 'skipped', skippedBy: 'recovery' });
    const inserted = applyRecovery(failed, 'a', { action: 'insert', before: 'a', steps: [step('fix')] }, catalog);
    expect(inserted.ok && 'plan' in inserted && inserted.plan.steps.map((s) => [s.id, s.status, s.dependsOn])).toEqual([
      ['fix', 'pending', []],
      ['a', 'pending', ['fix']],
      ['b', 'pending', ['a']],
      ['c', 'pending', []],
    ]);
    expect(applyRecovery(failed, 'a', { action: 'abort', reason: 'no' }, catalog)).toEqual({ ok: true, abort: 'no' });
    expect(applyRecovery(p, 'a', { action: 'skip' }, catalog)).toMatchObject({
      ok: false,
      problems: [{ code: 'not_editable' }],
    });
    expect(applyRecovery(failed, 'a', { action: 'insert', before: 'a', steps: [step('b')] }, catalog)).toMatchObject({
      ok: false,
      problems: [{ code: 'duplicate_id' }],
    });
  });
  it('repairs a failed compute step with a new expression, validated; a tool step is retried with args', () => {
    const q = plan([
      step('read'),
      { id: 'totals', description: 'totals', compute: '(assoc step/read :n 1)', dependsOn: ['read'] },
    ]);
    const failed = withStatus(q, {
      read: done('x'),
      totals: { status: 'failed', result: { ok: false, error: 'bad', duration: 1, timestamp: 't', attempts: 1 } },
    });
    const fixed = applyRecovery(failed, 'totals', { action: 'retry', compute: '(str step/read "!")' }, catalog);
    expect(fixed).toMatchObject({
      ok: true,
      plan: { version: 2 },
      change: 'retry totals with the expression (str step/read "!")',
    });
    expect('plan' in fixed && fixed.plan.steps[1]).toMatchObject({
      id: 'totals',
      status: 'pending',
      compute: '(str step/read "!")',
    });
    // a new expression is checked as the planner's is: one that does not read is refused, the plan unchanged
    expect(applyRecovery(failed, 'totals', { action: 'retry', compute: '(str step/read' }, catalog)).toMatchObject({
      ok: false,
      problems: [{ code: 'invalid_expression', stepId: 'totals' }],
    });
    const tool = withStatus(q, {
      read: { status: 'failed', result: { ok: false, error: 'bad', duration: 1, timestamp: 't', attempts: 1 } },
    });
    expect(applyRecovery(tool, 'read', { action: 'retry', compute: '(str 1)' }, catalog)).toMatchObject({
      ok: false,
      problems: [
        { code: 'invalid_edit', stepId: 'read', message: 'step read is not a compute step: retry it with args' },
      ],
    });
  });
});

describe('planner and recovery prompts', () => {
  const tools = [
    defineTool({
      name: 'write_file',
      description: 'Writes a file.',
      input: z.object({ path: z.string(), content: z.string(), mode: z.enum(['a', 'w']).optional() }),
      sideEffect: 'local',
      destructive: true,
      handler: () => null,
    }),
  ];

  it('shows the request, context, tools with class and destructive, rules and format', () => {
    const { system, messages } = plannerPrompt({ request: 'do it', context: { files: ['a'] }, tools });
    const text = messages[0]!.content;
    expect(text).toMatch(/^Request: do it/);
    expect(text).toContain('"files"');
    expect(text).toContain('- write_file (local, destructive): Writes a file.');
    expect(text).toContain('args: {"path": string, "content": string, "mode"?: "a" | "w"}');
    expect(system).toMatch(/exactly one tool/);
    expect(system).toMatch(/\$step_id\.field\.0\.key/);
    expect(system).toMatch(/"estimatedDuration": seconds/);
  });

  it('adds the current plan and feedback on regeneration, and the problems on a retry', () => {
    const text = plannerPrompt({
      request: 'r',
      tools,
      feedback: 'add a backup',
      currentPlan: { steps: [] },
      problems: [{ stepId: 'w', path: 'args.path', message: 'bad' }],
    }).messages[0]!.content;
    expect(text).toContain("The reviewer's feedback on the current plan:\nadd a backup");
    expect(text).toContain('Current plan:');
    expect(text).toContain('- w args.path: bad');
  });

  it('parses answers in JSON, fenced or in prose, and says what is wrong otherwise', () => {
    const doc = { steps: [{ id: 'a' }], estimatedDuration: 3 };
    expect(parsePlanAnswer(JSON.stringify(doc))).toEqual({ ok: true, document: doc });
    expect(parsePlanAnswer('Sure:\n```json\n' + JSON.stringify(doc) + '\n```\nDone.')).toEqual({
      ok: true,
      document: doc,
    });
    expect(parsePlanAnswer('Here it is: ' + JSON.stringify(doc) + ' hope it helps')).toEqual({
      ok: true,
      document: doc,
    });
    expect(parsePlanAnswer('no plan today')).toEqual({ ok: false, message: 'the answer has no JSON object' });
    expect(parsePlanAnswer('{"steps": [}')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^the answer's JSON does not parse/),
    });
    expect(parsePlanAnswer('{"steps": []}')).toEqual({ ok: false, message: 'steps: a plan needs at least one step' });
  });

  it('recovery: the failed step, its error, the plan state and the four answers', () => {
    const p = withStatus(plan([step('a'), step('b', { dependsOn: ['a'] })]), {
      a: { status: 'failed', result: { ok: false, error: 'disk full', duration: 1, timestamp: 't', attempts: 3 } },
    });
    const text = recoveryPrompt({ plan: p, failedStepId: 'a', error: 'disk full', tools }).messages[0]!.content;
    expect(text).toContain('failed_step: a\n');
    expect(text).toContain('error: disk full');
    expect(text).toContain('attempts: 3');
    expect(text).toContain('- b [pending] echo: b (after a)');
    const system = recoveryPrompt({ plan: p, failedStepId: 'a', error: 'x', tools }).system;
    for (const action of ['"retry"', '"skip"', '"insert"', '"abort"']) expect(system).toContain(action);
    expect(parseRecoveryAnswer('```json\n{"action":"skip"}\n```')).toEqual({ ok: true, action: { action: 'skip' } });
  });
});
