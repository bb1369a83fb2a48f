/**
 * What approvers see and what is recorded, end to end on the dev server: a console with
 * named tokens (`NAME:SECRET`) records each holder's name as `by` on the mission decision
 * it sends and on plan edits and step approvals (as the workflows see them); deadlines
 * say in words what happens at them; the start form names the known agents and refuses
 * an input that does not fit the agent before anything starts; a running plan shows
 * each step's dependencies and its tool's reported progress, live.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAll } from '../../src/history/fetch.ts';
import { NavigatorClient } from '../../src/client/index.ts';
import { buildRegistry } from '../../src/worker/agents.ts';
import labAgents from '../plans/fixtures/lab-agents.ts';
import { createConsoleApp } from '../../src/console/server.ts';
import { freshBankFile, until, waitForStatus } from '../mission/harness.ts';
import { type PlanEnv, awaiting, planEnv, waitForPlan } from '../plans/plan-harness.ts';

let env: PlanEnv;
let navigator: NavigatorClient;
let app: ReturnType<typeof createConsoleApp>;
const ORIGIN = 'http://console.example.com';

beforeAll(async () => {
  env = await planEnv();
  await env.startWorker();
  navigator = new NavigatorClient({ client: env.client, taskQueue: env.taskQueue });
  const agents = new Map(await buildRegistry());
  for (const entry of Object.values(labAgents)) agents.set(entry.agent.name, entry);
  app = createConsoleApp({
    navigator,
    user: 'ops',
    token: 'ana:ana-secret-0123456789,bob:bob-secret-0123456789',
    pollMs: 50,
    agents,
  });
}, 60_000);
afterAll(() => env?.shutdown());

const as = (secret: string) => ({ authorization: `Bearer ${secret}` });
const csrfOf = (text: string) => /name="_csrf" value="([0-9a-f]+)"/.exec(text)![1]!;
const page = async (path: string, secret: string) =>
  (await app.request(`${ORIGIN}${path}`, { headers: as(secret) })).text();
const post = (path: string, secret: string, fields: Record<string, string>) =>
  app.request(`${ORIGIN}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN, ...as(secret) },
    body: new URLSearchParams(fields).toString(),
  });

describe('named console tokens', () => {
  it("record the token's name as who decided a mission", async () => {
    freshBankFile();
    const m = await navigator.start(
      'wire-transfer',
      { recipient: 'hal', amount: 50 },
      { options: { timeouts: { heartbeatMs: 3000 } } },
    );
    await waitForStatus(m.workflow, (s) => s.status === 'waiting');
    const csrf = csrfOf(await page(`/missions/${m.id}`, 'ana-secret-0123456789'));
    const res = await post(`/missions/${m.id}/decide`, 'ana-secret-0123456789', {
      _csrf: csrf,
      key: 'manager_decision_hal_50',
      value: '"approved"',
      note: 'checked',
    });
    expect(res.status).toBe(303);
    expect(await m.result()).toMatchObject({ status: 'sent' });
    const decision = (await m.timeline()).find((l) => l.text.startsWith('decide (update)'));
    expect(decision?.text).toContain('"by":"ana"');
  }, 120_000);

  it("record the token's name on plan edits and step approvals", async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      document: {
        steps: [
          { id: 'gated', description: 'needs a person', tool: 'echo', args: { value: 1 }, requiresApproval: true },
        ],
      },
    });
    await waitForPlan(plan, (v) => v.status === 'review');
    const csrf = csrfOf(await page(`/plans/${plan.id}`, 'bob-secret-0123456789'));
    expect(
      (
        await post(`/plans/${plan.id}/edit`, 'bob-secret-0123456789', {
          _csrf: csrf,
          stepId: 'gated',
          what: 'args',
          args: '{"value": 2}',
        })
      ).status,
    ).toBe(303);
    expect((await post(`/plans/${plan.id}/approve`, 'ana-secret-0123456789', { _csrf: csrf })).status).toBe(303);
    await waitForPlan(plan, awaiting('gated'));
    expect(await page('/', 'bob-secret-0123456789')).toMatch(
      /steps\/gated\/approve" class="inline">.*<input name="note"/,
    );
    expect(await page('/', 'bob-secret-0123456789')).toContain('You act as <strong>bob</strong>');
    expect(
      (
        await post(`/plans/${plan.id}/steps/gated/approve`, 'bob-secret-0123456789', {
          _csrf: csrf,
          note: 'checked the value',
        })
      ).status,
    ).toBe(303);
    expect((await plan.result()).status).toBe('completed');
    const versions = await plan.versions();
    expect(versions.find((v) => v.change.startsWith('edited args'))?.by).toBe('bob');
    const events = (await env.client.workflow.getHandle(plan.id).fetchHistory()).events ?? [];
    const updates = events.flatMap((e) => {
      const input = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
      const arg = decodeAll(input?.args)[0] as { by?: string; note?: string } | undefined;
      return input && arg ? [[input.name, arg.by, arg.note]] : [];
    });
    expect(updates).toEqual([
      ['editPlan', 'bob', undefined],
      ['approvePlan', 'ana', undefined],
      ['approveStep', 'bob', 'checked the value'],
    ]);
  }, 120_000);
});

describe('deadlines in words', () => {
  it('a mission decision names the value written at its deadline; a plan step says it is denied', async () => {
    freshBankFile();
    const m = await navigator.start(
      'wire-transfer',
      { recipient: 'ivy', amount: 60 },
      { options: { timeouts: { heartbeatMs: 3000 } } },
    );
    const waiting = await waitForStatus(m.workflow, (s) => s.status === 'waiting');
    expect(waiting.pending?.deadline).toBeTruthy();
    const plan = await env.startPlan({
      agent: 'lab',
      approve: true,
      options: { approvalTimeoutMs: 3_600_000 },
      document: {
        steps: [
          { id: 'held', description: 'waits for a person', tool: 'echo', args: { value: 1 }, requiresApproval: true },
        ],
      },
    });
    await waitForPlan(plan, awaiting('held'));
    const inbox = await page('/', 'ana-secret-0123456789');
    expect(inbox).toContain('then &quot;rejected&quot; is written for you');
    expect(inbox).toContain('then the step is denied (skipped, and steps that depend on it are blocked)');
    expect(await page(`/missions/${m.id}`, 'ana-secret-0123456789')).toContain(
      '; then &quot;rejected&quot; is written for you.',
    );
    await m.cancel('test done');
    await plan.cancel('test done');
  }, 120_000);
});

describe('the start form', () => {
  it("names the known agents and their fields, and refuses an input that does not fit the agent's schema before starting", async () => {
    const form = await page('/start', 'ana-secret-0123456789');
    expect(form).toContain('<option value="wire-transfer"></option>');
    expect(form).toMatch(/<code>wire-transfer<\/code> \(recipient, amount\)/);
    const before = (await navigator.list({ kind: 'missions', limit: 500 })).length;
    const refused = await post('/start/mission', 'ana-secret-0123456789', {
      _csrf: csrfOf(form),
      agent: 'wire-transfer',
      input: '{"recipient": "bob", "amount": "lots"}',
    });
    expect(refused.status).toBe(400);
    const text = await refused.text();
    expect(text).toContain('Not started: the input does not fit agent wire-transfer');
    expect(text).toContain('amount');
    // what was typed stays in the form, escaped
    expect(text).toContain('value="wire-transfer"');
    expect(text).toContain(
      '>{&quot;recipient&quot;: &quot;bob&quot;, &quot;amount&quot;: &quot;lots&quot;}</textarea>',
    );
    expect((await navigator.list({ kind: 'missions', limit: 500 })).length).toBe(before);
  }, 60_000);

  it("starts a plan given as JSON after checking it against the agent's tools; a bad one lists its problems and starts nothing", async () => {
    const csrf = csrfOf(await page('/start', 'ana-secret-0123456789'));
    const before = (await navigator.list({ kind: 'plans', limit: 500 })).length;
    const bad = {
      steps: [
        { id: 'a', description: 'x', tool: 'no_such_tool', args: {} },
        { id: 'b', description: 'y', tool: 'echo', args: { label: 7 }, dependsOn: ['zz'] },
      ],
    };
    const refused = await post('/start/plan', 'ana-secret-0123456789', {
      _csrf: csrf,
      agent: 'lab',
      document: JSON.stringify(bad),
    });
    expect(refused.status).toBe(400);
    const text = await refused.text();
    expect(text).toContain('Not started: the plan does not fit agent lab');
    expect(text).toMatch(/a tool: .*no_such_tool/);
    expect(text).toMatch(/b args\.label/);
    expect(text).toMatch(/b dependsOn/);
    expect(
      (await post('/start/plan', 'ana-secret-0123456789', { _csrf: csrf, agent: 'lab', document: '{"steps": [' }))
        .status,
    ).toBe(400);
    expect((await navigator.list({ kind: 'plans', limit: 500 })).length).toBe(before);

    const good = { steps: [{ id: 'say', description: 'say it', tool: 'echo', args: { value: 'hi' } }] };
    const started = await post('/start/plan', 'ana-secret-0123456789', {
      _csrf: csrf,
      agent: 'lab',
      document: JSON.stringify(good),
    });
    expect(started.status).toBe(303);
    const id = decodeURIComponent(started.headers.get('location')!.replace('/plans/', ''));
    const view = await waitForPlan(navigator.plan(id), (v) => v.status === 'review');
    expect(view.plan!.steps.map((st) => st.id)).toEqual(['say']);
    await navigator.plan(id).cancel('test done');
  }, 60_000);
});

describe('a running plan', () => {
  it("shows each step's dependencies and its tool's progress, and the live stream announces progress", async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      approve: true,
      document: {
        steps: [
          { id: 'slow', description: 'works in steps', tool: 'long_task', args: { steps: 12, ms: 400 } },
          { id: 'after', description: 'runs after', tool: 'echo', args: { value: 2 }, dependsOn: ['slow'] },
        ],
      },
    });
    const res = await app.request(`${ORIGIN}/live/plans/${plan.id}`, { headers: as('ana-secret-0123456789') });
    const reader = res.body!.getReader();
    let text = '';
    for (let i = 0; i < 100 && !/class="progress">\d+%/.test(text); i++) {
      await new Promise((r) => setTimeout(r, 100));
      text = await page(`/plans/${plan.id}`, 'ana-secret-0123456789');
    }
    expect(text).toMatch(/class="progress">\d+% · step \d+ of 12</);
    expect(text).toMatch(/<td><code>after<\/code><\/td><td>runs after<\/td><td>slow<\/td>/);
    let seen = '';
    while (!seen.includes('event: change')) seen += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect((await plan.result()).status).toBe('completed');
  }, 120_000);
});

describe('the missions list', () => {
  it('filters on missions waiting for a decision (their own status, not only Temporal running)', async () => {
    freshBankFile();
    const waiting = await navigator.start(
      'wire-transfer',
      { recipient: 'jo', amount: 70 },
      { options: { timeouts: { heartbeatMs: 3000 } } },
    );
    await waitForStatus(waiting.workflow, (s) => s.status === 'waiting');
    const done = await navigator.start(
      'wire-transfer',
      { recipient: 'kim', amount: 80 },
      { options: { timeouts: { heartbeatMs: 3000 } } },
    );
    await waitForStatus(done.workflow, (s) => s.status === 'waiting');
    await done.approve({ by: 'test' });
    await done.result();
    const list = await until(
      () => page('/missions?status=waiting', 'ana-secret-0123456789'),
      (t) => !t.includes(`>${done.id}</a>`),
    );
    expect(list).toContain('<option value="waiting" selected>waiting for you</option>');
    expect(list).toContain(`>${waiting.id}</a>`);
    expect(list).not.toContain(`>${done.id}</a>`);
    expect(await page('/missions', 'ana-secret-0123456789')).toContain(`>${done.id}</a>`);
    await waiting.cancel('test done');
  }, 120_000);
});
