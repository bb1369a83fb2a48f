/**
 * The console's mission pages in headless Chromium. The start form made from the agent's
 * input schema: a bad value is named next to its field and starts nothing. The pass view (Debian's package, playwright-core; skipped
 * when none is installed): what the model did in each pass, read from Temporal history:
 * the programs (escaped), what they printed (long output folded, all of it there), their
 * errors, their tool calls and the effects they requested with outcomes and verdicts; an
 * approval card links to the program that asked for it. The Progress box and `navigator
 * progress` are a checklist for people. Real worker, client, CLI and audit.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserConsole, DESKTOP, chromiumFor, startBrowserConsole } from './chromium.ts';
import passAgent, { firstProgram, secondProgram } from './fixtures/pass-agent.ts';
import { runCli } from '../cli/run-cli.ts';
import { freshBankFile, missionEnv, waitForStatus, type MissionEnv } from '../mission/harness.ts';

const executablePath = chromiumFor('pass view');
const shots = process.env.CONSOLE_SCREENSHOTS;

describe.skipIf(!executablePath)("the console's mission pages", () => {
  let env: MissionEnv;
  let running: BrowserConsole;
  let navigator: BrowserConsole['navigator'];
  let web: BrowserConsole['web'];
  let desktop: BrowserContext;

  beforeAll(async () => {
    process.env.PAYOUT_FILE = join(mkdtempSync(join(tmpdir(), 'payouts-')), 'payouts.jsonl');
    env = await missionEnv();
    await env.startWorker([passAgent]);
    running = await startBrowserConsole({
      client: env.client,
      taskQueue: env.taskQueue,
      executablePath: executablePath!,
      agents: [passAgent],
    });
    ({ navigator, web } = running);
    desktop = await running.browser.newContext(DESKTOP);
    if (shots) mkdirSync(shots, { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await running?.close();
    await env?.shutdown();
  });

  it("starts a mission from a form made from the agent's input schema; a bad value is named at its field and starts nothing", async () => {
    freshBankFile();
    const page = await desktop.newPage();
    await page.goto(`${web.url}/start`);
    await page.getByLabel('Agent', { exact: true }).selectOption('wire-transfer');
    await page.getByRole('button', { name: 'Show its input as a form' }).click();
    await page.waitForURL('**/start?agent=wire-transfer');
    const form = page.locator('form[action="/start/mission"]');
    expect(await form.locator('label[for="f:number:amount"] + small').textContent()).toBe(
      '(amount in USD; more than 0)',
    );
    expect(await form.locator('input[name="f:number:amount"]').getAttribute('type')).toBe('number');
    const before = (await navigator.list({ kind: 'missions', limit: 500 })).length;
    await form.getByLabel('recipient').fill('zoe <b>');
    await form.getByLabel('amount').fill('-5');
    await form.getByRole('button', { name: 'Start mission' }).click();
    await page.waitForLoadState();
    const refused = page.locator('form[action="/start/mission"]');
    // the problem sits at its field, which points at it; what was typed stays
    expect(await refused.locator('[id="problem-f:number:amount"]').textContent()).toMatch(
      /Too small: expected number to be >0/,
    );
    expect(await refused.locator('input[name="f:number:amount"]').getAttribute('aria-describedby')).toBe(
      'problem-f:number:amount',
    );
    expect(await refused.locator('input[name="f:number:amount"]').inputValue()).toBe('-5');
    expect(await refused.locator('input[name="f:string:recipient"]').inputValue()).toBe('zoe <b>');
    expect(await refused.locator('input[name="f:string:recipient"]').getAttribute('aria-invalid')).toBeNull();
    expect(await page.locator('.problem').first().textContent()).toMatch(
      /Not started: the input does not fit agent wire-transfer: amount/,
    );
    expect((await navigator.list({ kind: 'missions', limit: 500 })).length).toBe(before);
    if (shots) await page.screenshot({ path: join(shots, 'start-refused.png'), fullPage: true });
    // an empty required field is named too
    await refused.getByLabel('recipient').fill('');
    await refused.getByLabel('amount').fill('250');
    await refused.getByRole('button', { name: 'Start mission' }).click();
    await page.waitForLoadState();
    expect(await page.locator('[id="problem-f:string:recipient"]').textContent()).toMatch(/expected string/);
    await page.getByLabel('recipient').fill('zoe');
    await page.getByRole('button', { name: 'Start mission' }).click();
    await page.waitForURL(/\/missions\/wire-transfer-/);
    const id = decodeURIComponent(new URL(page.url()).pathname.replace('/missions/', ''));
    expect((await navigator.mission(id).status()).input).toEqual({ recipient: 'zoe', amount: 250 });
    await page.close();
    await navigator.mission(id).cancel('test done');
  }, 120_000);

  it('shows each program, what it printed (folded, whole), its error and calls; the effect card links to the program that asked', async () => {
    const m = await navigator.start(
      'pass-view',
      { name: 'bob', amount: 40 },
      { options: { timeouts: { heartbeatMs: 3000 } } },
    );
    const waiting = await waitForStatus(m.workflow, (s) => (s.effectApprovals?.length ?? 0) > 0);
    const key = waiting.effectApprovals[0]!.key;
    const page = await desktop.newPage();
    await page.goto(`${web.url}/`);
    const card = page.locator('.card.approval', { hasText: m.id });
    await card.getByRole('link', { name: 'the program that asked for it' }).click();
    await page.waitForURL(`**/missions/${m.id}/passes#effect-${key}`);
    // the row the card points at: the pass still running, asked by its second program, waiting
    const row = page.locator(`tr#effect-${key}`);
    expect((await row.innerText())!.replace(/\s+/g, ' ')).toMatch(
      /send_payout payout turn 2 .*"account": "acct_bob".*no outcome yet/,
    );
    expect(await page.locator('#pass-1 > p').first().textContent()).toMatch(/running/);

    // the first program: code escaped, prints whole and folded, its error
    const first = page.locator('#pass-1-turn-1');
    expect(await first.locator('pre.code').textContent()).toBe(firstProgram);
    expect(await page.locator('main script').count()).toBe(0);
    const fold = first.locator('details.fold');
    expect(await fold.locator('summary').textContent()).toBe('Printed: all 31 lines, 255 characters');
    const printedAll = (await fold.locator('pre').textContent())!.split('\n');
    expect(printedAll).toHaveLength(31);
    expect(printedAll[0]).toBe('<script>alert(1)</script>');
    expect(printedAll[30]).toBe('line 29');
    expect(await first.locator('.problem').textContent()).toMatch(/Error: .*expected number, got string/);
    // the second: the program that waits, its print so far and its call
    const second = page.locator('#pass-1-turn-2');
    expect(await second.locator('pre.code').textContent()).toBe(secondProgram);
    expect(await second.locator('details.answer').count()).toBe(0);
    expect(await second.textContent()).toContain('It waits for the results of its effects');
    expect(await second.locator('pre.code .t').allTextContents()).toEqual([
      'data/name',
      'tool/lookup_account',
      'data/name',
      'tool/send_payout',
      'data/amount',
    ]);

    await m.approveEffect({ by: 'ana', note: 'ok' });
    expect(await m.result()).toEqual({ status: 'sent', reference: 'payout_acct_bob_40' });
    await page.goto(`${web.url}/missions/${m.id}/passes`);
    const pass = page.locator('#pass-1');
    expect((await pass.locator('> p').first().textContent())!.replace(/\s+/g, ' ')).toMatch(
      /^returned · 2 programs · [\d,]+ model tokens$/,
    );
    // after the pass, its prints come from running its recorded programs again (value replay)
    expect((await page.locator('#pass-1-turn-1 details.fold pre').textContent())!.split('\n')).toHaveLength(31);
    expect(await page.locator('#pass-1-turn-2 pre.prints').textContent()).toBe('paying bob');
    const calls = (await page.locator('#pass-1-turn-2 table.calls').innerText())!.replace(/\s+/g, ' ');
    expect(calls).toMatch(/lookup_account read_only .*"name": "bob".*"id": "acct_bob"/);
    expect(calls).toMatch(/send_payout external payout .*"reference": "payout_acct_bob_40"/);
    expect(await page.locator('#pass-1-turn-2').textContent()).toMatch(/It returned[\s\S]*"status": "sent"/);
    expect((await page.locator(`tr#effect-${key}`).innerText())!.replace(/\s+/g, ' ')).toMatch(
      /approved by ana: “ok”.*"reference": "payout_acct_bob_40"/,
    );
    expect(await page.locator('.problem', { hasText: 'does not give what it recorded' }).count()).toBe(0);
    if (shots) await page.screenshot({ path: join(shots, 'passes.png'), fullPage: true });
    // the mission page leads here
    await page.goto(`${web.url}/missions/${m.id}`);
    await page.getByRole('link', { name: /What the model did/ }).click();
    await page.waitForURL(`**/missions/${m.id}/passes`);
    await page.close();
    const audit = await env.audit(m.id);
    expect(audit.problems).toEqual([]);
    expect(audit.ok).toBe(true);
  }, 120_000);

  it('a decision card links to the program whose return asked for the decision', async () => {
    freshBankFile();
    const m = await navigator.start(
      'wire-transfer',
      { recipient: 'bob', amount: 5000 },
      { options: { timeouts: { heartbeatMs: 3000 } } },
    );
    await waitForStatus(m.workflow, (s) => s.status === 'waiting');
    const page = await desktop.newPage();
    await page.goto(`${web.url}/missions/${m.id}`);
    await page.locator('.card.decision').getByRole('link', { name: 'the program that asked for it' }).click();
    await page.waitForURL(`**/missions/${m.id}/passes#decision-manager_decision_bob_5000`);
    const asks = page.locator('#decision-manager_decision_bob_5000');
    expect(await asks.textContent()).toBe('This program asked a person for the decision manager_decision_bob_5000.');
    // it sits in the last program of the pass that asked, which shows its code
    const program = page.locator('article.program', { has: asks });
    expect(await program.locator('pre.code').textContent()).toContain('manager_decision');
    // the Progress box and `navigator progress` are a checklist for people; the model's text stays behind --for-model
    await page.goto(`${web.url}/missions/${m.id}`);
    expect(await page.locator('ul.checklist li.done strong').allTextContents()).toEqual([
      'Put a hold on the funds and ask a manager',
    ]);
    await page.close();
    const cliEnv = {
      ...process.env,
      TEMPORAL_ADDRESS: env.env.server.address,
      TEMPORAL_NAMESPACE: env.env.server.namespace,
      NAVIGATOR_TASK_QUEUE: env.taskQueue,
    };
    const people = await runCli(['progress', m.id], cliEnv);
    expect(people.stderr).toBe('');
    expect(people.stdout).toMatch(
      /^1 of 3 steps done\n  ✓ Put a hold on the funds and ask a manager\n      \S.*\n  ○ Get the manager decision\n  ○ Send the wire or release the hold\n$/,
    );
    expect(people.stdout).not.toContain('step-done');
    expect((await runCli(['progress', '--for-model', m.id], cliEnv)).stdout).toContain(
      'Batch independent steps into one program',
    );
    await m.cancel('test done');
  }, 120_000);
});
