/**
 * The console in a real browser (headless Chromium, Debian's package, driven by
 * playwright-core; skipped when no Chromium is installed): a person signs in through the
 * console's one-time link (a second browser opening it is refused), approves the
 * wire-transfer decision from the inbox and sees the mission complete; reviews a plan,
 * gets an invalid edit refused with its problem, makes a valid one, starts the plan,
 * approves its gated step and sees it complete. CONSOLE_SCREENSHOTS=DIR keeps screenshots.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserConsole, DESKTOP, chromiumFor, lookAgain, startBrowserConsole } from './chromium.ts';
import { freshBankFile, waitForStatus } from '../mission/harness.ts';
import { type PlanEnv, awaiting, planEnv, waitForPlan } from '../plans/plan-harness.ts';

const executablePath = chromiumFor('browser');
const shots = process.env.CONSOLE_SCREENSHOTS;

describe.skipIf(!executablePath)('the console in a browser', () => {
  let env: PlanEnv;
  let running: BrowserConsole;
  let navigator: BrowserConsole['navigator'];
  let web: BrowserConsole['web'];
  let page: Page;

  beforeAll(async () => {
    env = await planEnv();
    await env.startWorker();
    // a console that knows no agents: args as JSON
    running = await startBrowserConsole({
      client: env.client,
      taskQueue: env.taskQueue,
      executablePath: executablePath!,
      signIn: true,
    });
    ({ navigator, web } = running);
    // a context of its own: the tests look again in new pages of it, signed in (lookAgain)
    page = await (await running.browser.newContext(DESKTOP)).newPage();
    if (shots) mkdirSync(shots, { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await running?.close();
    await env?.shutdown();
  });

  const shot = async (name: string) => {
    if (shots) await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  };

  it('signs in through the one-time link the console printed; the link works once', async () => {
    const other = await running.browser.newPage(DESKTOP);
    expect((await other.goto(`${web.url}/`))!.status()).toBe(401);
    expect((await page.goto(web.loginUrl!))!.status()).toBe(200);
    expect(page.url()).toBe(`${web.url}/`);
    expect(await page.textContent('header')).toContain('You act as ana');
    expect((await other.goto(web.loginUrl!))!.status()).toBe(401);
    expect(await other.textContent('body')).toMatch(/one-time link was used already/);
    await other.close();
    // off the inbox: its live reload would race the next test's navigation
    await page.goto('about:blank');
  });

  it('approves the wire transfer from the inbox and sees the mission complete', async () => {
    freshBankFile();
    const m = await navigator.start(
      'wire-transfer',
      { recipient: 'bob', amount: 5000 },
      { options: { timeouts: { heartbeatMs: 3000 } } },
    );
    await waitForStatus(m.workflow, (s) => s.status === 'waiting');
    await page.goto(`${web.url}/`);
    await expect.poll(() => page.textContent('main')).toContain('manager_decision_bob_5000');
    await shot('inbox');
    // the decision's own words say a sent wire cannot be undone: even a console that does not know the agent asks first
    const asked: string[] = [];
    page.once('dialog', (d) => (asked.push(d.message()), void d.accept()));
    await page.locator('.card', { hasText: m.id }).getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL(`**/missions/${m.id}`).catch(async (e) => {
      throw new Error(`${e.message}; at ${page.url()}: ${(await page.textContent('body'))?.slice(0, 500)}`);
    });
    expect(asked[0]).toMatch(/^Approve\? This cannot be undone\.\n\nThe wire is sent to the recipient/);
    expect(await m.result()).toMatchObject({ status: 'sent' });
    // the mission page reloads itself on the change: look again in a page of its own
    page = await lookAgain(page, `${web.url}/missions/${m.id}`);
    await expect.poll(() => page.textContent('.status')).toBe('completed');
    expect(await page.textContent('main')).toContain('execute_wire_bob_5000');
    await shot('mission');
  }, 120_000);

  it('reviews a plan: a refused edit shows its problem, a valid one applies; starts it and approves the gated step', async () => {
    const plan = await navigator.startPlan({
      agent: 'lab',
      document: {
        steps: [
          { id: 'first', description: 'make the value', tool: 'echo', args: { value: 1 } },
          {
            id: 'gated',
            description: 'publish it (needs a person)',
            tool: 'echo',
            args: { value: '$first.got' },
            dependsOn: ['first'],
            requiresApproval: true,
          },
        ],
      },
      options: { timeouts: { heartbeatMs: 3000 } },
    });
    await waitForPlan(plan, (v) => v.status === 'review');
    await page.goto(`${web.url}/plans/${plan.id}`);
    const firstRow = page.locator('tr', { has: page.locator('code', { hasText: /^first$/ }) });
    await firstRow.locator('textarea[name=args]').fill('{"nope": 1}');
    await firstRow.getByRole('button', { name: 'Save args' }).click();
    await expect.poll(() => page.textContent('.problem')).toMatch(/Not applied/);
    await page.goto(`${web.url}/plans/${plan.id}`);
    await firstRow.locator('textarea[name=args]').fill('{"value": 42}');
    await firstRow.getByRole('button', { name: 'Save args' }).click();
    await expect.poll(() => page.textContent('main')).toContain('edited args of step first');
    await shot('plan-review');
    await page.getByRole('button', { name: 'Start' }).click();
    await waitForPlan(plan, awaiting('gated'));
    // the plan's page reloads itself on each change: look again in a page of its own
    page = await lookAgain(page, `${web.url}/`);
    await page.locator('.card', { hasText: plan.id }).getByRole('button', { name: 'Approve' }).click();
    const summary = await plan.result();
    expect(summary.status).toBe('completed');
    page = await lookAgain(page, `${web.url}/plans/${plan.id}`);
    // the step's result as its fields, not JSON
    expect((await page.locator('#step-gated').textContent())!.replace(/\s+/g, ' ')).toMatch(/got 42/);
  }, 120_000);
});
