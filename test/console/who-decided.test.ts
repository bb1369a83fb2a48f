/**
 * Who decided, end to end: a console with named tokens (`NAME:SECRET`) records each
 * holder's name as `by` on the mission decision it sends and on the plan edit and step
 * approval, as the workflows themselves see them (history timeline, plan versions).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAll } from '../../src/audit/history.ts';
import { NavigatorClient } from '../../src/client/index.ts';
import { createConsoleApp } from '../../src/console/server.ts';
import { freshBankFile, waitForStatus } from '../mission/harness.ts';
import { type PlanEnv, awaiting, planEnv, waitForPlan } from '../plans/plan-harness.ts';

let env: PlanEnv;
let navigator: NavigatorClient;
let app: ReturnType<typeof createConsoleApp>;
const ORIGIN = 'http://console.example.com';

beforeAll(async () => {
  env = await planEnv();
  await env.startWorker();
  navigator = new NavigatorClient({ client: env.client, taskQueue: env.taskQueue });
  app = createConsoleApp({ navigator, user: 'ops', token: 'ana:ana-secret-1,bob:bob-secret-2', pollMs: 50 });
}, 60_000);
afterAll(() => env?.shutdown());

const as = (secret: string) => ({ authorization: `Bearer ${secret}` });
const csrfOf = (text: string) => /name="_csrf" value="([0-9a-f]+)"/.exec(text)![1]!;
const page = async (path: string, secret: string) => (await app.request(`${ORIGIN}${path}`, { headers: as(secret) })).text();
const post = (path: string, secret: string, fields: Record<string, string>) =>
  app.request(`${ORIGIN}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN, ...as(secret) },
    body: new URLSearchParams(fields).toString(),
  });

describe('named console tokens', () => {
  it("record the token's name as who decided a mission", async () => {
    freshBankFile();
    const m = await navigator.start('wire-transfer', { recipient: 'hal', amount: 50 }, { options: { timeouts: { heartbeatMs: 3000 } } });
    await waitForStatus(m.workflow, (s) => s.status === 'waiting');
    const csrf = csrfOf(await page(`/missions/${m.id}`, 'ana-secret-1'));
    const res = await post(`/missions/${m.id}/decide`, 'ana-secret-1', { _csrf: csrf, key: 'manager_decision_hal_50', value: '"approved"', note: 'checked' });
    expect(res.status).toBe(303);
    expect(await m.result()).toMatchObject({ status: 'sent' });
    const decision = (await m.timeline()).find((l) => l.text.startsWith('decide (update)'));
    expect(decision?.text).toContain('"by":"ana"');
  }, 120_000);

  it("record the token's name on plan edits and step approvals", async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      document: { steps: [{ id: 'gated', description: 'needs a person', tool: 'echo', args: { value: 1 }, requiresApproval: true }] },
    });
    await waitForPlan(plan, (v) => v.status === 'review');
    const csrf = csrfOf(await page(`/plans/${plan.id}`, 'bob-secret-2'));
    expect((await post(`/plans/${plan.id}/edit`, 'bob-secret-2', { _csrf: csrf, stepId: 'gated', what: 'args', args: '{"value": 2}' })).status).toBe(303);
    expect((await post(`/plans/${plan.id}/approve`, 'ana-secret-1', { _csrf: csrf })).status).toBe(303);
    await waitForPlan(plan, awaiting('gated'));
    expect((await post(`/plans/${plan.id}/steps/gated/approve`, 'bob-secret-2', { _csrf: csrf })).status).toBe(303);
    expect((await plan.result()).status).toBe('completed');
    const versions = await plan.versions();
    expect(versions.find((v) => v.change.startsWith('edited args'))?.by).toBe('bob');
    const events = (await env.client.workflow.getHandle(plan.id).fetchHistory()).events ?? [];
    const updates = events.flatMap((e) => {
      const input = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
      return input ? [[input.name, (decodeAll(input.args)[0] as { by?: string }).by]] : [];
    });
    expect(updates).toEqual([
      ['editPlan', 'bob'],
      ['approvePlan', 'ana'],
      ['approveStep', 'bob'],
    ]);
  }, 120_000);
});
