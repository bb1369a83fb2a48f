/**
 * A doomed start is refused before anything starts (issue 41): a worker announces the
 * agents it serves on its task queue (createNavigatorWorker), and the client, the CLI
 * (`run`, `plan start --agent`) and the console's start form (in Chromium) refuse a
 * mistyped agent or an input its schema refuses, naming the agents served and the nearest
 * name; no workflow is started. A queue no worker announced on starts with a warning, which
 * the console's form shows once on the page it opens.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NavigatorClient } from '../../src/client/index.ts';
import { StartRefused, checkStart, servedAgents } from '../../src/client/served-agents.ts';
import { buildRegistry, createNavigatorWorker } from '../../src/worker/index.ts';
import { type MissionEnv, missionEnv } from '../mission/harness.ts';
import { runCli } from '../cli/run-cli.ts';
import { type BrowserConsole, DESKTOP, axeViolations, chromiumFor, startBrowserConsole } from './chromium.ts';

const executablePath = chromiumFor('refuse-start');

let m: MissionEnv;
let worker: Worker;
let running: Promise<void>;
let navigator: NavigatorClient;

beforeAll(async () => {
  m = await missionEnv();
  worker = await createNavigatorWorker({
    connection: m.env.nativeConnection,
    client: m.client,
    namespace: m.env.server.namespace,
    taskQueue: m.taskQueue,
    agents: await buildRegistry(),
    workflowBundle: m.env.bundle,
    telemetry: null,
  });
  running = worker.run();
  navigator = new NavigatorClient({ client: m.client, taskQueue: m.taskQueue });
}, 120_000);
afterAll(async () => {
  worker?.shutdown();
  await running?.catch(() => undefined);
  await m?.shutdown();
});

/** Every workflow on the server but the task queue's agents registry. */
async function workflowIds(): Promise<string[]> {
  const ids: string[] = [];
  for await (const w of m.client.workflow.list({ query: "WorkflowType != 'navigatorAgents'" })) ids.push(w.workflowId);
  return ids.sort();
}

const cli = (args: string[]) =>
  runCli(args, {
    ...process.env,
    TEMPORAL_ADDRESS: m.env.server.address,
    TEMPORAL_NAMESPACE: m.env.server.namespace,
    NAVIGATOR_TASK_QUEUE: m.taskQueue,
  });

describe('refusing a doomed start', () => {
  it('the worker announced its agents on its task queue, read from history', async () => {
    // polling: once the worker's first poll reached the server
    let served = await servedAgents(m.client, m.taskQueue);
    for (let i = 0; i < 100 && !served?.polling; i++) {
      await new Promise((r) => setTimeout(r, 100));
      served = await servedAgents(m.client, m.taskQueue);
    }
    expect(served?.polling).toBe(true);
    expect(served?.agents.map((a) => a.name)).toContain('wire-transfer');
    // with its input's JSON schema
    expect(served?.agents.find((a) => a.name === 'wire-transfer')?.input).toMatchObject({ type: 'object' });
  });

  it('the client refuses a mistyped agent with a typed error, and nothing starts', async () => {
    const before = await workflowIds();
    const err = await navigator
      .start('wire-transfr', { recipient: 'bob', amount: 5000 }, { id: 'typo-1' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartRefused);
    const refused = err as StartRefused;
    expect(refused.code).toBe('unknown_agent');
    expect(refused.suggestion).toBe('wire-transfer');
    expect(refused.served).toContain('wire-transfer');
    expect(refused.message).toMatch(
      /no worker on task queue .* serves agent "wire-transfr"; nothing was started\. The workers there serve: .*wire-transfer.*\. Did you mean wire-transfer\?/,
    );
    // a plan of an agent nobody serves too
    const plan = await navigator
      .startPlan({ agent: 'workspac', request: 'anything', id: 'typo-plan-1' })
      .catch((e: unknown) => e);
    expect(plan).toBeInstanceOf(StartRefused);
    expect((plan as StartRefused).suggestion).toBe('workspace');
    expect(await workflowIds()).toEqual(before);
  });

  it('a schedule of a mistyped agent is refused too: it would start a doomed mission at each time', async () => {
    const err = await navigator
      .schedule('wire-transfr', { recipient: 'bob', amount: 5000 }, { id: 'typo-schedule-1', every: '1h' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartRefused);
    expect((err as StartRefused).suggestion).toBe('wire-transfer');
    expect((await navigator.listSchedules()).map((s) => s.id)).not.toContain('typo-schedule-1');
  });

  it("the client refuses an input the agent's schema refuses, naming the field", async () => {
    const before = await workflowIds();
    const err = (await navigator
      .start('wire-transfer', { recipient: 'bob', amount: 'lots' }, { id: 'bad-input-1' })
      .catch((e: unknown) => e)) as StartRefused;
    expect(err).toBeInstanceOf(StartRefused);
    expect(err.code).toBe('invalid_input');
    expect(err.problems.join('\n')).toMatch(/^amount: /m);
    expect(await workflowIds()).toEqual(before);
  });

  it('a served agent with a fitting input starts, checked, with no warning', async () => {
    const mission = await navigator.start('wire-transfer', { recipient: 'bob', amount: 5000 }, { id: 'served-1' });
    expect(mission.startWarning).toBeUndefined();
    await mission.cancel('test over');
  });

  it('a queue no worker announced on is not checked: it starts, with a warning saying so', async () => {
    const check = await checkStart(m.client, { taskQueue: 'nobody-here', agent: 'wire-transfr' });
    expect(check.checked).toBe(false);
    expect(check.warning).toMatch(
      /no worker has announced the agents it serves on task queue nobody-here .*agent wire-transfr was not checked/,
    );
  });

  it('the CLI refuses `run` and `plan start --agent` of a mistyped agent (exit 2), and nothing starts', async () => {
    const before = await workflowIds();
    const run = await cli([
      'run',
      'wire-transfr',
      '--input',
      '{"recipient":"bob","amount":5000}',
      '--id',
      'typo-cli-1',
      '--detach',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/serves agent "wire-transfr"; nothing was started.*Did you mean wire-transfer\?/s);
    const file = join(mkdtempSync(join(tmpdir(), 'refuse-start-')), 'plan.json');
    writeFileSync(
      file,
      JSON.stringify({
        steps: [{ id: 'read', description: 'read it', tool: 'read_file', args: { path: 'package.json' } }],
      }),
    );
    const plan = await cli(['plan', 'start', file, '--agent', 'workspac', '--id', 'typo-cli-2']);
    expect(plan.code).toBe(2);
    expect(plan.stderr).toMatch(/serves agent "workspac".*Did you mean workspace\?/s);
    expect(await workflowIds()).toEqual(before);
  }, 60_000);
});

describe('a start that was not checked and fails at planning says why', () => {
  it('a plan of an agent its worker does not run: failed, with the reason, in plan show and on its page', async () => {
    const plan = await navigator.startPlan({
      agent: 'workspac',
      request: 'anything',
      id: 'unchecked-plan-1',
      check: false,
    });
    await plan.workflow.result().catch(() => undefined);
    const view = await plan.status();
    expect(view.status).toBe('failed');
    expect(view.error).toMatch(/^planning failed: unknown agent "workspac"; this worker runs: .*workspace/);
    const show = await cli(['plan', 'show', plan.id]);
    expect(show.stdout).toMatch(/error.*planning failed: unknown agent "workspac"/);
    expect(show.stdout).toMatch(/failed/);
  }, 60_000);

  it('a mission of an agent its worker does not run: failed, with the reason', async () => {
    const mission = await navigator.start('wire-transfr', {}, { id: 'unchecked-mission-1', check: false });
    await mission.result().catch(() => undefined);
    const status = await mission.status();
    expect(status.status).toBe('failed');
    expect(status.error).toMatch(/unknown agent "wire-transfr"/);
  }, 60_000);
});

describe.skipIf(!executablePath)('the console refuses a doomed start (Chromium)', () => {
  let web: BrowserConsole;
  beforeAll(async () => {
    // a console that knows no agents itself: only the workers can tell
    web = await startBrowserConsole({ client: m.client, taskQueue: m.taskQueue, executablePath: executablePath! });
  }, 60_000);
  afterAll(async () => web?.close());

  it('the start form with a mistyped agent says why, lists the agents served, keeps what was typed, starts nothing', async () => {
    const before = await workflowIds();
    const page = await web.browser.newPage({ ...DESKTOP, bypassCSP: true });
    await page.goto(`${web.web.url}/start`);
    // the console knows no agents itself: it offers those the workers announced
    expect(await page.textContent('main')).toMatch(
      /Agents the workers of task queue \S+ serve: .*wire-transfer \(recipient, amount/,
    );
    expect(await page.locator('datalist#agent-names option[value="wire-transfer"]').count()).toBe(1);
    const form = page.locator('form[action="/start/mission"]');
    await form.locator('input[name=agent]').fill('wire-transfr');
    await form.locator('textarea[name=input]').fill('{"recipient": "bob", "amount": 5000}');
    const [response] = await Promise.all([page.waitForNavigation(), form.locator('button').click()]);
    expect(response?.status()).toBe(400);
    const alert = await page.textContent('[role=alert]');
    expect(alert).toMatch(
      /Not started: no worker on task queue .* serves agent "wire-transfr"; nothing was started\. The workers there serve: .*wire-transfer.*Did you mean wire-transfer\?/,
    );
    expect(await form.locator('input[name=agent]').inputValue()).toBe('wire-transfr');
    expect(await axeViolations(page)).toEqual([]);
    expect(await workflowIds()).toEqual(before);
    await page.close();
  }, 60_000);

  it('a start the form could not check says so on the page it opens, once', async () => {
    // a console on a queue no worker announced on: the start goes on, unchecked
    const queue = `nobody-here-${Date.now()}`;
    const other = await startBrowserConsole({ client: m.client, taskQueue: queue, executablePath: executablePath! });
    try {
      const page = await other.browser.newPage({ ...DESKTOP, bypassCSP: true });
      await page.goto(`${other.web.url}/start`);
      const form = page.locator('form[action="/start/mission"]');
      await form.locator('input[name=agent]').fill('wire-transfer');
      await form.locator('textarea[name=input]').fill('{"recipient": "bob", "amount": 5000}');
      const [response] = await Promise.all([page.waitForNavigation(), form.locator('button').click()]);
      expect(response?.status()).toBe(200);
      const id = decodeURIComponent(new URL(page.url()).pathname.replace('/missions/', ''));
      expect(await page.textContent('[role=status]')).toMatch(
        new RegExp(
          `Started, but not checked: no worker has announced the agents it serves on task queue ${queue} .*agent wire-transfer was not checked`,
        ),
      );
      // no worker runs that queue: the page says the mission has not started, and what starts it
      expect(await page.textContent('[role=alert]')).toMatch(
        new RegExp(`Not started yet\\. No worker has taken it: it starts when a worker polls task queue ${queue}`),
      );
      expect(await axeViolations(page)).toEqual([]);
      // said once: the page read again has no notice
      await page.reload();
      expect(await page.textContent('main')).not.toMatch(/Started, but not checked/);
      expect(await page.textContent('main')).toMatch(/Not started yet/);
      await m.client.workflow.getHandle(id).terminate('test over: no worker runs this queue');
      await page.close();
    } finally {
      await other.close();
    }
  }, 90_000);

  it('the page of a plan that failed at planning says why, not "No plan yet"', async () => {
    const page = await web.browser.newPage(DESKTOP);
    await page.goto(`${web.web.url}/plans/unchecked-plan-1`);
    const body = (await page.textContent('main')) ?? (await page.textContent('body'))!;
    expect(body).toMatch(/planning failed: unknown agent "workspac"/);
    expect(body).not.toMatch(/the planner is writing it/);
    await page.goto(`${web.web.url}/missions/unchecked-mission-1`);
    expect(await page.textContent('body')).toMatch(/unknown agent "wire-transfr"/);
    await page.close();
  }, 60_000);
});
