/**
 * The console as the person it is for (a manager or reviewer, on a laptop or a phone), in
 * headless Chromium (Debian's package, playwright-core; skipped when none is installed):
 * pages fit a 390 px phone with tap targets a finger can hit; an approval card says what
 * Approve and Reject do, shows values with their units and file edits as diffs, asks
 * before an irreversible approval and confirms the outcome live; what waits for a person
 * says so; engineer tools sit apart behind a confirmation; a plan in review takes new
 * steps through forms made from their tools' schemas. CONSOLE_SCREENSHOTS=DIR keeps
 * screenshots.
 */
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrowserConsole,
  DESKTOP,
  PHONE,
  axeViolations,
  chromiumFor,
  lookAgain,
  startBrowserConsole,
} from './chromium.ts';
import labAgents from '../plans/fixtures/lab-agents.ts';
import { bumpVersionPlanFile } from '../../examples/workspace/agent.ts';
import { freshBankFile, waitForStatus } from '../mission/harness.ts';
import { type PlanEnv, awaiting, planEnv, waitForPlan } from '../plans/plan-harness.ts';

const executablePath = chromiumFor('approver');
const shots = process.env.CONSOLE_SCREENSHOTS;

describe.skipIf(!executablePath)('the console for an approver', () => {
  let env: PlanEnv;
  let running: BrowserConsole;
  let navigator: BrowserConsole['navigator'];
  let web: BrowserConsole['web'];
  let browser: BrowserConsole['browser'];
  let desktop: BrowserContext;

  beforeAll(async () => {
    process.env.WORKSPACE_DIR = mkdtempSync(join(tmpdir(), 'console-ws-'));
    env = await planEnv();
    await env.startWorker();
    running = await startBrowserConsole({
      client: env.client,
      taskQueue: env.taskQueue,
      executablePath: executablePath!,
      agents: Object.values(labAgents),
    });
    ({ navigator, web, browser } = running);
    desktop = await browser.newContext(DESKTOP);
    if (shots) mkdirSync(shots, { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await running?.close();
    await env?.shutdown();
  });

  const phone = () => browser.newContext(PHONE);
  const shot = async (page: Page, name: string) => {
    if (shots) await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  };
  const waitingWire = async (recipient: string, amount: number) => {
    freshBankFile();
    const m = await navigator.start(
      'wire-transfer',
      { recipient, amount },
      { options: { timeouts: { heartbeatMs: 3000 } } },
    );
    await waitForStatus(m.workflow, (s) => s.status === 'waiting');
    return m;
  };
  const bumpPlan = async (approve: boolean) => {
    const plan = await env.startPlan({
      agent: 'workspace',
      approve,
      document: JSON.parse(readFileSync(bumpVersionPlanFile, 'utf8')),
    });
    await waitForPlan(plan, approve ? awaiting('write_config') : (v) => v.status === 'review');
    return plan;
  };

  /** No horizontal scrolling, and every visible button, field and link in main at least 40 px high. */
  async function fitsPhone(page: Page, what: string) {
    // evaluated in the page (strings: the project's TypeScript has no DOM types)
    const size = (await page.evaluate(
      '({ inner: window.innerWidth, scroll: document.documentElement.scrollWidth })',
    )) as { inner: number; scroll: number };
    expect(size.inner, `${what}: the page lays out at the phone's width`).toBe(390);
    expect(size.scroll, `${what}: no horizontal scrolling`).toBeLessThanOrEqual(390);
    const small =
      await page.evaluate(`[...document.querySelectorAll('main button, main input:not([type=hidden]), main select, header a')]
        .map((e) => ({ e, r: e.getBoundingClientRect() }))
        .filter(({ r }) => r.width > 0 && (r.height < 40 || r.width < 44))
        .map(({ e, r }) => e.tagName + ' ' + (e.textContent || e.getAttribute('name') || '').trim() + ' ' + Math.round(r.width) + 'x' + Math.round(r.height))`);
    expect(small, `${what}: tap targets smaller than 44x40 px`).toEqual([]);
  }

  it('the inbox, an approval and a plan page work at 390 px: no horizontal scroll, tap targets a finger can hit', async () => {
    const m = await waitingWire('bob', 5000);
    const running = await bumpPlan(true);
    const review = await bumpPlan(false);
    const ctx = await phone();
    const page = await ctx.newPage();
    for (const [path, name] of [
      ['/', 'phone-inbox'],
      [`/missions/${m.id}`, 'phone-mission'],
      [`/plans/${running.id}`, 'phone-plan-running'],
      [`/plans/${review.id}`, 'phone-plan-review'],
    ] as const) {
      await page.goto(`${web.url}${path}`);
      await fitsPhone(page, path);
      if (name === 'phone-inbox') await shot(page, name); // the one docs/console.md shows
    }
    // stacked table cells keep their column's name
    expect(await page.locator('td[data-label="step"]').count()).toBe(4);
    await ctx.close();
    await m.cancel('test done');
    await running.cancel('test done');
    await review.cancel('test done');
  }, 120_000);

  it('an approval card says what Approve and Reject do, shows the amount with its unit, and asks before an irreversible Approve', async () => {
    const m = await waitingWire('cy', 5000);
    const page = await desktop.newPage();
    await page.goto(`${web.url}/`);
    const card = page.locator('.card', { hasText: m.id });
    const text = (await card.textContent())!.replace(/\s+/g, ' ');
    expect(text).toContain('A manager approves or rejects the wire.');
    // the decision's own words (onApprove / onReject in the wire agent's defineDecision)
    // and why Approve asks first, from the class of the tool it leads to
    expect(text).toMatch(
      /On Approve: The wire is sent to the recipient and the money leaves the account\. A sent wire cannot be undone\. execute_wire acts on an outside system: you will be asked to confirm\. On Reject:/,
    );
    expect(text).toMatch(/On Reject: The hold on the funds is released; nothing is sent\./);
    expect(text).toContain('5,000 USD');
    expect(text).toContain('account name of the recipient');
    expect(await card.locator(`a[href="/missions/${m.id}/passes#decision-manager_decision_cy_5000"]`).count()).toBe(1);
    await shot(page, 'inbox');
    // the first time the approver thinks again: nothing is sent
    const asked: string[] = [];
    page.once('dialog', (d) => (asked.push(d.message()), void d.dismiss()));
    await card.getByRole('button', { name: 'Approve' }).click();
    expect(asked[0]).toMatch(
      /^Approve\? execute_wire acts on an outside system: it cannot be taken back from here\.[\s\S]*The wire is sent to the recipient/,
    );
    expect((await m.status()).status).toBe('waiting');
    page.once('dialog', (d) => void d.accept());
    await card.getByRole('button', { name: 'Approve' }).click();
    expect(await m.result()).toMatchObject({ status: 'sent' });
    await page.close();
  }, 120_000);

  it("a plan step that writes a file shows the edit as a diff against what the plan read, and what Deny blocks; approved, the page says by whom and the step's outcome", async () => {
    const plan = await bumpPlan(true);
    const page = await desktop.newPage();
    for (const path of ['/', `/plans/${plan.id}`]) {
      await page.goto(`${web.url}${path}`);
      const card = page.locator('.card.approval', { hasText: 'write_config' });
      expect(await card.locator('pre.diff .del').allTextContents()).toEqual(['-   "version": "1.4.2"\n']);
      expect(await card.locator('pre.diff .add').allTextContents()).toEqual(['+   "version": "2.0.0"\n']);
      const text = (await card.textContent())!.replace(/\s+/g, ' ');
      expect(text).not.toContain('\\"name\\"');
      expect(text).toMatch(
        /On Approve: Runs write_file: Writes \(creates or overwrites\) a text file of the workspace\. Changes data on our side\. Overwrites or deletes what is there\./,
      );
      expect(text).toContain(
        'On Deny: The step is skipped; nothing runs. Steps that depend on it are blocked: verify.',
      );
      expect(await card.locator(`a[href="/plans/${plan.id}#step-write_config"]`).count()).toBe(1);
    }
    // write_file overwrites (destructive): Approve asks first, by its class
    const asked: string[] = [];
    page.once('dialog', (d) => (asked.push(d.message()), void d.accept()));
    await page.locator('.card.approval', { hasText: 'write_config' }).getByRole('button', { name: 'Approve' }).click();
    await expect
      .poll(() => page.locator('.decided').textContent(), { timeout: 60_000 })
      .toMatch(/Step write_config approved by ana[\s\S]*now\s*completed/);
    expect(asked).toEqual([
      expect.stringMatching(
        /^Approve\? write_file overwrites or deletes what is there: it cannot be taken back from here\./,
      ),
    ]);
    expect((await plan.result()).status).toBe('completed');
    // the finished plan's page opens no stream
    const after = await lookAgain(page, `${web.url}/plans/${plan.id}`);
    expect(await after.locator('script[data-live]').count()).toBe(0);
    await Promise.all([page.close(), after.close()]);
  }, 120_000);

  it('after Approve the page confirms who approved when, and shows the outcome live when the mission finishes', async () => {
    const m = await waitingWire('dee', 700);
    const page = await desktop.newPage();
    page.on('dialog', (d) => void d.accept());
    await page.goto(`${web.url}/missions/${m.id}`);
    expect(await page.locator('script[data-live]').getAttribute('data-live')).toMatch(/\?seen=[0-9a-f]+$/);
    await page.locator('.card.decision').getByRole('button', { name: 'Approve' }).click();
    // no reload by the test: the live stream brings the outcome
    await expect.poll(() => page.locator('.decided').textContent(), { timeout: 60_000 }).toMatch(/Approved by ana/);
    await expect
      .poll(() => page.locator('.decided .outcome').textContent(), { timeout: 60_000 })
      .toMatch(/The mission completed[\s\S]*status\s*sent[\s\S]*reference/);
    // the finished mission's page opens no stream: nothing polls a closed mission's status
    expect(await page.locator('script[data-live]').count()).toBe(0);
    expect(await page.locator('.decided time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    // times read in the reader's zone and relative, not ISO
    expect(await page.locator('.decided time').textContent()).toMatch(
      /^(just now|now|\d+ seconds? ago) \(\w{3} \d+, \d{4}/,
    );
    // the progress box is the plan as a checklist for people, not the model's instructions
    expect(await page.locator('ul.checklist li strong').allTextContents()).toEqual([
      'Put a hold on the funds and ask a manager',
      'Get the manager decision',
      'Send the wire or release the hold',
    ]);
    expect(await page.locator('main').textContent()).not.toContain('Batch independent steps');
    await shot(page, 'mission');
    await page.close();
  }, 120_000);

  it('a live stream told what the page was rendered from announces a change that came before its first reading', async () => {
    const m = await waitingWire('eve', 800);
    const page = await desktop.newPage();
    await page.goto(`${web.url}/missions/${m.id}`);
    const live = (await page.locator('script[data-live]').getAttribute('data-live'))!;
    await page.close();
    await m.approve({ by: 'test' });
    await m.result();
    const res = await fetch(`${web.url}${live}`);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(first).toContain('event: change');
  }, 120_000);

  it('what waits for a person says "waiting for you" in the lists, and a plan in review is in the inbox', async () => {
    const m = await waitingWire('fay', 900);
    const review = await bumpPlan(false);
    const page = await desktop.newPage();
    await page.goto(`${web.url}/`);
    const card = page.locator('.card.review', { hasText: review.id });
    expect((await card.textContent())!.replace(/\s+/g, ' ')).toMatch(
      /waiting for you · plan .* \(workspace\), version 1: review it, then Start.*Write config\.json with version 2\.0\.0/,
    );
    await card.getByRole('link', { name: 'Review the plan' }).click();
    await page.waitForURL(`**/plans/${review.id}`);
    expect(await page.locator('.card .status').first().textContent()).toBe('waiting for you');
    await page.goto(`${web.url}/missions`);
    expect(await page.locator('tr', { hasText: m.id }).locator('.status').textContent()).toBe('waiting for you');
    await page.goto(`${web.url}/plans`);
    expect(await page.locator('tr', { hasText: review.id }).locator('.status').textContent()).toBe('waiting for you');
    expect(await page.locator('main').textContent()).not.toContain('RUNNING');
    await page.close();
    await m.cancel('test done');
    await review.cancel('test done');
  }, 120_000);

  it('names the acting user; engineer tools sit apart, closed, and each asks before it acts', async () => {
    const m = await waitingWire('gus', 1000);
    const page = await desktop.newPage();
    await page.goto(`${web.url}/missions/${m.id}`);
    expect((await page.locator('header .who').textContent())!.trim()).toBe('You act as ana');
    const tools = page.locator('details.engineer');
    expect(await tools.getAttribute('open')).toBeNull();
    expect(await page.locator('.card.decision button').allTextContents()).toEqual(['Approve', 'Reject']);
    await tools.locator('summary').click();
    const asked: string[] = [];
    page.on('dialog', (d) => (asked.push(d.message()), void d.dismiss()));
    await tools.getByRole('button', { name: 'Cancel mission' }).click();
    await tools.getByLabel('Task key').fill('note');
    await tools.getByLabel('Value (JSON)').fill('1');
    await tools.getByRole('button', { name: 'Write journal entry' }).click();
    await tools.getByRole('button', { name: 'Reset task' }).click();
    expect(asked).toEqual([
      `Cancel mission ${m.id}? It stops for good; a waiting decision is dropped.`,
      "Write this value into the mission's journal? The mission takes it as the task's outcome and does not run the task.",
      'Reset this task? The next pass runs it again, and its tool may act again.',
    ]);
    // all three declined: nothing changed
    expect((await m.status()).status).toBe('waiting');
    expect((await m.journal()).entries.map(([k]) => k)).not.toContain('note');
    await page.close();
    await m.cancel('test done');
  }, 120_000);

  it('draws the plan as a picture: boxes by dependency layer, coloured by live status, a click opens the step', async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      approve: true,
      document: {
        steps: [
          { id: 'first', description: 'make the value', tool: 'echo', args: { value: 1 } },
          { id: 'other', description: 'another value', tool: 'echo', args: { value: 2 } },
          {
            id: 'gated',
            description: 'publish it',
            tool: 'echo',
            args: { value: '$first.got' },
            dependsOn: ['first', 'other'],
            requiresApproval: true,
          },
        ],
      },
    });
    await waitForPlan(plan, awaiting('gated'));
    const page = await desktop.newPage();
    await page.goto(`${web.url}/plans/${plan.id}`);
    const node = (id: string) => page.locator(`figure.dag a[data-step="${id}"]`);
    expect(await node('first').getAttribute('class')).toBe('node s-completed');
    expect(await node('gated').getAttribute('class')).toBe('node s-awaiting_approval');
    expect(await node('gated').textContent()).toContain('waiting for you');
    // the dependent sits one layer below both of its dependencies, which share a layer
    const y = async (id: string) => Number(await node(id).locator('rect').getAttribute('y'));
    expect(await y('first')).toBe(await y('other'));
    expect(await y('gated')).toBeGreaterThan(await y('first'));
    expect(await page.locator('figure.dag path.edge').count()).toBe(2);
    await plan.approveStep('gated', { by: 'test' });
    // no reload by the test: the page's live stream recolours the box
    await expect.poll(() => node('gated').getAttribute('class'), { timeout: 60_000 }).toBe('node s-completed');
    await node('first').click();
    expect(new URL(page.url()).hash).toBe('#step-first');
    await shot(page, 'plan-running');
    await page.close();
  }, 120_000);

  it("edits a step's args through a form made from its tool's schema; a bad value is refused with the validator's message", async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      document: {
        steps: [
          { id: 'list', description: 'make a list', tool: 'make_list', args: { n: 5 } },
          { id: 'flag', description: 'check the flag', tool: 'needs_flag', args: { flag: true } },
          {
            id: 'say',
            description: 'say the items',
            tool: 'echo',
            args: { value: '$list.items', label: 'items' },
            dependsOn: ['list'],
          },
        ],
      },
    });
    await waitForPlan(plan, (v) => v.status === 'review');
    const page = await desktop.newPage();
    await page.goto(`${web.url}/plans/${plan.id}`);
    const row = (id: string) => page.locator(`tr#step-${id}`);
    const n = row('list').locator('input[name="f:integer:n"]');
    expect(await n.getAttribute('type')).toBe('number');
    expect(await n.inputValue()).toBe('5');
    // each step's form has ids of its own: a label names its own step's field
    expect(await row('list').locator('label[for="list-f:integer:n"] + small').textContent()).toBe('(from 0 to 100)');
    expect(await row('list').getByLabel('n', { exact: true }).getAttribute('name')).toBe('f:integer:n');
    expect(await row('flag').locator('select[name="f:boolean:flag"]').inputValue()).toBe('true');
    expect(await row('say').locator('input.ref').inputValue()).toBe('$list.items');
    await n.fill('500');
    await row('list').getByRole('button', { name: 'Save args' }).click();
    await expect.poll(() => page.locator('.problem').textContent()).toMatch(/Not applied[\s\S]*n[\s\S]*100/);
    await shot(page, 'plan-review');
    await page.goto(`${web.url}/plans/${plan.id}`);
    await row('list').locator('input[name="f:integer:n"]').fill('7');
    await row('list').getByRole('button', { name: 'Save args' }).click();
    await expect.poll(() => page.locator('main').textContent()).toContain('edited args of step list');
    // each step is its own form: one at a time
    await row('say').locator('input[name="f:string:label"]').fill('the items');
    await row('say').getByRole('button', { name: 'Save args' }).click();
    await expect
      .poll(async () => (await plan.plan())?.steps.find((st) => st.id === 'say')?.args)
      .toEqual({ value: '$list.items', label: 'the items' });
    expect((await plan.plan())?.steps.find((st) => st.id === 'list')?.args).toEqual({ n: 7 });
    await page.close();
    await plan.cancel('test done');
  }, 120_000);

  it("adds a step through a form made from the picked tool's schema; a refused value is named at its field and what was typed stays", async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      document: { steps: [{ id: 'list', description: 'make a list', tool: 'make_list', args: { n: 2 } }] },
    });
    await waitForPlan(plan, (v) => v.status === 'review');
    const own = await browser.newContext({ ...DESKTOP, bypassCSP: true });
    const page = await own.newPage();
    await page.goto(`${web.url}/plans/${plan.id}`);
    await page.locator('#add-step').getByLabel('Tool').selectOption('make_list');
    await page.locator('#add-step').getByRole('button', { name: 'Show its args as a form' }).click();
    await page.waitForURL(`**/plans/${plan.id}?add=make_list#add-step`);
    const form = page.locator('form.new-step');
    expect(await form.locator('label[for="f:integer:n"] + small').textContent()).toBe('(from 0 to 100)');
    await form.getByLabel('Step id').fill('more');
    await form.getByLabel('What it does, in words').fill('a longer list');
    await form.locator('input[name=dependsOn][value=list]').check();
    await form.getByLabel('Waits for a person’s approval').selectOption('true');
    await form.locator('input[name="f:integer:n"]').fill('500');
    await form.getByRole('button', { name: 'Add step' }).click();
    await page.waitForLoadState();
    // the validator's message at its field, which points at it; everything typed stays
    const refused = page.locator('form.new-step');
    expect(await refused.locator('[id="problem-f:integer:n"]').textContent()).toMatch(
      /^args\.n: Too big: expected number to be <=100$/,
    );
    expect(await refused.locator('input[name="f:integer:n"]').getAttribute('aria-describedby')).toBe(
      'problem-f:integer:n',
    );
    expect(await refused.locator('input[name="f:integer:n"]').inputValue()).toBe('500');
    expect(await refused.getByLabel('Step id').inputValue()).toBe('more');
    expect(await refused.getByLabel('What it does, in words').inputValue()).toBe('a longer list');
    expect(await refused.locator('input[name=dependsOn][value=list]').isChecked()).toBe(true);
    expect(await refused.getByLabel('Waits for a person’s approval').inputValue()).toBe('true');
    expect(await page.locator('.problem').first().textContent()).toMatch(/Not applied/);
    expect((await plan.plan())?.steps.map((st) => st.id)).toEqual(['list']);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'plan-add-step');
    // a $ reference to a step it does not run after: refused at its field, shown as a reference as typed
    await page.goto(`${web.url}/plans/${plan.id}?add=echo`);
    await form.getByLabel('Step id').fill('say');
    await form.locator('textarea[name="f:json:value"]').fill('$list.items');
    await form.locator('input[name="f:string:label"]').fill('the items');
    await form.getByRole('button', { name: 'Add step' }).click();
    await page.waitForLoadState();
    expect(await page.locator('[id="problem-f:ref:value"]').textContent()).toMatch(
      /^args\.value: uses the result of list, which is not among its dependencies/,
    );
    expect(await page.locator('input.ref[name="f:ref:value"]').inputValue()).toBe('$list.items');
    expect(await page.locator('input[name="f:string:label"]').inputValue()).toBe('the items');
    await form.locator('input[name=dependsOn][value=list]').check();
    await form.getByRole('button', { name: 'Add step' }).click();
    await expect
      .poll(async () => (await plan.plan())?.steps.find((st) => st.id === 'say'))
      .toMatchObject({ tool: 'echo', args: { value: '$list.items', label: 'the items' }, dependsOn: ['list'] });
    expect(await page.locator('main').textContent()).toContain('added step say');
    // the whole step as JSON stays the fallback: refused, its text is kept
    const typed = '{"id": "again", "tool": "make_list", "args": {"n": -1}}';
    await page.locator('#add-step details summary', { hasText: 'Or a whole step as JSON' }).click();
    await page.getByLabel('the new step as JSON').fill(typed);
    await page.locator('#add-step').getByRole('button', { name: 'Add step' }).last().click();
    await page.waitForLoadState();
    expect(await page.locator('.problem').first().textContent()).toMatch(/args\.n: Too small/);
    expect(await page.getByLabel('the new step as JSON').inputValue()).toBe(typed);
    await own.close();
    await plan.cancel('test done');
  }, 120_000);

  it('reorders a plan in review by drag and drop, and refuses an order that puts a step before one it depends on', async () => {
    const plan = await env.startPlan({
      agent: 'lab',
      document: {
        steps: [
          { id: 'list', description: 'make a list', tool: 'make_list', args: { n: 2 } },
          { id: 'flag', description: 'check the flag', tool: 'needs_flag', args: { flag: true } },
          {
            id: 'say',
            description: 'say the items',
            tool: 'echo',
            args: { value: '$list.items' },
            dependsOn: ['list'],
          },
        ],
      },
    });
    await waitForPlan(plan, (v) => v.status === 'review');
    const own = await browser.newContext(DESKTOP);
    const page = await own.newPage();
    await page.goto(`${web.url}/plans/${plan.id}`);
    const item = (id: string) => page.locator(`ol.reorder li[data-step="${id}"]`);
    let loads = 0;
    page.on('load', () => loads++);
    await item('say').dragTo(item('list'));
    expect(await page.locator('.reorder-problem').textContent()).toBe(
      'Not reordered: say depends on list, so it must come after it.',
    );
    expect((await plan.plan())?.steps.map((st) => st.id)).toEqual(['list', 'flag', 'say']);
    // a page whose plan does not change is not reloaded (its stream knows what it was rendered from)
    await new Promise((r) => setTimeout(r, 1500));
    expect(loads).toBe(0);
    await item('flag').dragTo(item('list'));
    await expect
      .poll(async () => (await plan.plan())?.steps.map((st) => st.id), { timeout: 60_000 })
      .toEqual(['flag', 'list', 'say']);
    await own.close();
    await plan.cancel('test done');
  }, 120_000);
});
