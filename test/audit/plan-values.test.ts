/**
 * Value links of a real plan history (recorded by test/audit/record-fixtures.ts): step
 * `first` echoes {amount 40, to bob}; step `second` takes `to` by `$ref` and `total` by
 * `$expr` (+ 2 amount), is approved (the approval carries the args' hash), then runs.
 * As recorded it passes; a changed step result, resolved arg, evaluation answer or
 * approval hash fails, naming the events on both sides.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { historiesFromJson } from '../../src/history/fetch.ts';
import { valueHash } from '../../src/history/hash.ts';
import { evaluateStepAgain as evaluateStep } from '../../src/audit/plan/values.ts';
import { auditPlanChain, formatPlanAudit } from '../../src/audit/plan/audit.ts';
import { bundleOnce } from '../../src/devserver/testing.ts';
import { workflowInterceptorModules, workflowsPath } from '../../src/worker/index.ts';

type Obj = Record<string, any>;
const PLAN = readFileSync(fileURLToPath(new URL('./fixtures/plan-values.history.json', import.meta.url)), 'utf8');
const history = (): { events: Obj[] } => JSON.parse(PLAN);
const event = (h: { events: Obj[] }, id: number): Obj => h.events.find((e) => Number(e.eventId) === id)!;

function editPayload(attrs: Obj, key: string, edit: (value: any) => void): void {
  const payload = attrs[key].payloads[0];
  const value = JSON.parse(Buffer.from(payload.data, 'base64').toString('utf8'));
  edit(value);
  payload.data = Buffer.from(JSON.stringify(value)).toString('base64');
}
const completed = (e: Obj) => e.activityTaskCompletedEventAttributes;
const scheduled = (e: Obj) => e.activityTaskScheduledEventAttributes;

let bundle: { code: string };
beforeAll(async () => {
  bundle = await bundleOnce(workflowsPath, workflowInterceptorModules);
}, 120_000);

const audit = (h: unknown, replay = false) =>
  auditPlanChain(historiesFromJson(JSON.stringify(h), 'plan'), null, {
    workflowBundle: bundle,
    skipReplay: !replay,
    requireClosed: true,
  });
const ids = (m: { sides: Array<{ eventId: number }> }) => m.sides.map((s) => s.eventId);

describe('value links of a recorded plan', () => {
  it('passes as recorded, the approval hash included', { timeout: 60_000 }, async () => {
    const r = await audit(history(), true);
    expect(r.problems).toEqual([]);
    expect(r.values.mismatches).toEqual([]);
    expect(r.values.approvalsWithoutHash).toBe(0);
    expect(r.values.checked).toBeGreaterThanOrEqual(7);
    expect(r.ok).toBe(true);
    expect(formatPlanAudit(r)).toMatch(/value links: \d+ checked, all agree/);
  });

  it('fails when a step result is changed: the step that read it and the plan summary are named', async () => {
    const h = history();
    editPayload(completed(event(h, 19)), 'result', (v) => (v.result.got.amount = 41));
    const r = await audit(h);
    expect(r.ok).toBe(false);
    const byCheck = r.values.mismatches.map((m) => [m.check, ...ids(m)]);
    // the evaluation of `second` read step/first as history had it before (event 23 vs 19)
    expect(byCheck).toContainEqual(['step-result', 23, 19]);
    // the plan's summary still has the original result (event 40 vs 19)
    expect(byCheck).toContainEqual(['step-result', 40, 19]);
  });

  it('fails when a resolved arg is changed: the step ran with args its evaluation did not give', async () => {
    const h = history();
    editPayload(scheduled(event(h, 33)), 'input', (v) => (v.args.value.total = 43));
    const r = await audit(h);
    expect(r.ok).toBe(false);
    const m = r.values.mismatches.find((x) => x.check === 'step-args')!;
    expect(ids(m)).toEqual([33, 25]);
    expect(m.message).toMatch(
      /event 33 \(runPlanStep of second args\) has .*"total":43.*event 25 \(evaluation of second\) has .*"total":42/,
    );
  });

  it('fails when an evaluation answer is changed: evaluated again, its request gives another value', async () => {
    const h = history();
    editPayload(completed(event(h, 25)), 'result', (v) => (v.args.value.total = 43));
    const r = await audit(h);
    expect(r.ok).toBe(false);
    const m = r.values.mismatches.find((x) => x.check === 'step-evaluation')!;
    expect(ids(m)).toEqual([25, 23]);
    // and the approval's hash is of the args that were really computed
    expect(r.values.mismatches.find((x) => x.check === 'approval')).toBeDefined();
  });

  it("fails when an approval's args are changed (its hash): the approval and the evaluation it approved are named", async () => {
    const h = history();
    const accepted = event(h, 32).workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest.input;
    editPayload(accepted, 'args', (v) => (v.argsHash = valueHash({ value: { to: 'bob', total: 4200 } })));
    const r = await audit(h);
    expect(r.ok).toBe(false);
    const m = r.values.mismatches.find((x) => x.check === 'approval')!;
    expect(ids(m)).toEqual([32, 25]);
    expect(m.sides[1].value).toEqual({ value: { to: 'bob', total: 42 } });
  });

  it('an approval without a hash (older clients) is counted as not recorded, not a failure', async () => {
    const h = history();
    const accepted = event(h, 32).workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest.input;
    editPayload(accepted, 'args', (v) => delete v.argsHash);
    const r = await audit(h);
    expect(r.values.mismatches).toEqual([]);
    expect(r.values.approvalsWithoutHash).toBe(1);
    expect(formatPlanAudit(r)).toContain('1 approval(s) without an args hash');
  });

  it('evaluates a request again as the activity does: when, forEach with item, $expr', async () => {
    const base = { planId: 'p', stepId: 's', root: 'args' as const, steps: { a: { n: [1, 2] } }, params: { k: 10 } };
    expect(await evaluateStep({ ...base, args: { x: { $expr: '(+ param/k 1)' } } })).toEqual({
      kind: 'args',
      args: { x: 11 },
    });
    expect(await evaluateStep({ ...base, when: '(= param/k 3)', args: {} })).toEqual({
      kind: 'skip',
      condition: false,
    });
    expect(await evaluateStep({ ...base, forEach: '(:n step/a)', args: { v: { $expr: '(* item 2)' } } })).toEqual({
      kind: 'each',
      items: [{ v: 2 }, { v: 4 }],
    });
    expect(await evaluateStep({ ...base, args: { x: { $expr: '(nope)' } } })).toEqual({
      error: 'step s args.x: line 1, column 2: Undefined variable: nope',
    });
    // the activity's own messages (one implementation, src/plans/evaluate.ts)
    expect(await evaluateStep({ ...base, forEach: 'param/k', args: {} })).toEqual({
      error: 'step s forEach: expected a list, got 10',
    });
    expect(await evaluateStep({ ...base, forEach: '(range 3)', maxItems: 2, args: {} })).toEqual({
      error: 'step s forEach: gave 3 items, more than maxItems 2',
    });
    expect(await evaluateStep({ ...base, forEach: '(:n step/a)', args: { v: { $expr: '(fail "no")' } } })).toEqual({
      error: 'step s item 0 args.v: the expression called fail',
    });
  });
});
