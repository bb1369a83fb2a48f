/**
 * What an approver sees of what waits (issue 41), in headless Chromium (Debian's package,
 * playwright-core; skipped when none is installed): a program's payments asked together
 * in one pmap reach them as one batch card (each payment with its tool's description, the
 * vendor's name and the amount with its currency, the total per currency, the mission's
 * input and what it did, the engineer's details folded), one denied and the others approved
 * together, each verdict recorded on its own against its own args hash; "Approve" asks
 * "are you sure?" by the tool's class (external, destructive) on mission effects and plan
 * steps alike, and on nothing else; a running plan's page shows no raw JSON.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { valueHash } from '../../src/history/hash.ts';
import { acceptedUpdates } from '../../src/client/verdicts.ts';
import { describeSettled } from '../../src/cli/mission/view.ts';
import { type BrowserConsole, DESKTOP, chromiumFor, lookAgain, startBrowserConsole } from './chromium.ts';
import labAgents from '../plans/fixtures/lab-agents.ts';
import vendorAgents, { vendorPayments } from './fixtures/vendor-payments.ts';
import { bumpVersionPlanFile } from '../../examples/workspace/agent.ts';
import { waitForStatus } from '../mission/harness.ts';
import { runCli } from '../cli/run-cli.ts';
import { type PlanEnv, awaiting, expectPlanAuditOk, planEnv, waitForPlan } from '../plans/plan-harness.ts';

const executablePath = chromiumFor('batches');

let env: PlanEnv;
const navigatorCli = (...args: string[]) =>
  runCli(args, {
    ...process.env,
    TEMPORAL_ADDRESS: env.env.server.address,
    TEMPORAL_NAMESPACE: env.env.server.namespace,
    NAVIGATOR_TASK_QUEUE: env.taskQueue,
    NAVIGATOR_USER: 'cli-user',
  });

const invoices = [
  { invoice: 'INV-1', vendor: 'Acme Industrial GmbH', iban: 'DE44500105175407324931', amount: 2100 },
  { invoice: 'INV-2', vendor: 'Baumann Logistik AG', iban: 'DE89370400440532013000', amount: 14500 },
  { invoice: 'INV-3', vendor: 'Cordes & Kinder KG', iban: 'DE02120300000000202051', amount: 600 },
];
const argsOf = (i: (typeof invoices)[number]) => ({
  vendor: i.vendor,
  iban: i.iban,
  invoice: i.invoice,
  amount: i.amount,
  currency: 'EUR',
});

describe.skipIf(!executablePath)('an approver sees the whole picture', () => {
  let running: BrowserConsole;
  let desktop: BrowserContext;

  beforeAll(async () => {
    process.env.WORKSPACE_DIR = mkdtempSync(join(tmpdir(), 'console-batches-'));
    process.env.VENDOR_PAYMENTS_FILE = join(mkdtempSync(join(tmpdir(), 'vendor-payments-')), 'payments.jsonl');
    env = await planEnv();
    await env.startWorker(Object.values(vendorAgents));
    running = await startBrowserConsole({
      client: env.client,
      taskQueue: env.taskQueue,
      executablePath: executablePath!,
      agents: [...Object.values(labAgents), ...Object.values(vendorAgents)],
    });
    desktop = await running.browser.newContext(DESKTOP);
  }, 120_000);
  afterAll(async () => {
    await running?.close();
    await env?.shutdown();
  });

  /** The questions the page asked (each accepted). */
  const dialogs = (page: Page) => {
    const asked: string[] = [];
    page.on('dialog', (d) => (asked.push(d.message()), void d.accept()));
    return asked;
  };

  it('three payments asked together are one card; one denied, the other two approved together, each recorded on its own', async () => {
    const m = await running.navigator.start(
      'vendor-payments',
      { invoices },
      { options: { timeouts: { heartbeatMs: 3000 } } },
    );
    const waiting = await waitForStatus(m.workflow, (s) => (s.effectApprovals?.length ?? 0) === 3);
    // the client and the CLI show the whole set waiting
    expect(waiting.effectApprovals.map((e) => e.args)).toEqual(invoices.map(argsOf));
    const cli = describeSettled(m.id, { status: waiting } as Parameters<typeof describeSettled>[1]);
    expect(cli).toContain('3 effects wait for approval together (17,200 EUR in all)');
    expect(cli).toContain('Baumann Logistik AG');
    const listed = await navigatorCli('effect', 'list', m.id);
    expect(listed.stdout).toContain(
      `Mission ${m.id}: 3 effects wait for approval together (17,200 EUR in all); each is approved or denied on its own`,
    );
    expect(listed.stdout).toContain(
      `approve: npx navigator effect approve ${m.id} ${waiting.effectApprovals[1]!.key} --args-hash ${valueHash(argsOf(invoices[1]!))}`,
    );
    expect(listed.stdout).toContain('Done so far: nothing out in the world yet');
    expect((await running.navigator.mission(m.id).effects()).waiting).toHaveLength(3);

    let page = await desktop.newPage();
    // dialogs are accepted (none is expected before the batch's Approve all)
    dialogs(page);
    await page.goto(`${running.web.url}/`);
    const card = page.locator('section.card.batch', { hasText: m.id });
    const text = (await card.textContent())!.replace(/\s+/g, ' ');
    expect(text).toContain('3 calls wait for your approval together');
    expect(text).toContain('Total asked for: 17,200 EUR');
    expect(text).toContain('Pays this month’s approved vendor invoices.');
    // each payment under its tool's own description, with the vendor's name and the amount in its currency
    expect(await card.locator('article.effect h4').allTextContents()).toEqual([
      '1. Pays a vendor’s invoice by bank transfer.',
      '2. Pays a vendor’s invoice by bank transfer.',
      '3. Pays a vendor’s invoice by bank transfer.',
    ]);
    for (const i of invoices) expect(text).toContain(i.vendor);
    expect(text).toContain('the vendor’s registered name');
    expect(text).toContain('14,500 EUR');
    expect(text).toContain('Nothing done out in the world yet.');
    // the engineer's details are there, folded
    const details = card.locator('article.effect').nth(1).locator('details.engineer-details');
    expect(await details.getAttribute('open')).toBeNull();
    expect(await details.textContent()).toContain('pay_INV-2');
    expect(await details.textContent()).toContain(valueHash(argsOf(invoices[1]!)));
    // no two elements share an id
    expect(
      await page.evaluate(
        '(() => { const ids = [...document.querySelectorAll("[id]")].map((e) => e.id); return ids.filter((id, i) => ids.indexOf(id) !== i); })()',
      ),
    ).toEqual([]);

    // deny the 14,500 EUR one with a reason
    const second = card.locator('article.effect').nth(1);
    await second.getByRole('textbox', { name: /^why deny/ }).fill('not before the audit');
    await second.getByRole('button', { name: 'Deny 2' }).click();
    await page.waitForURL(`**/missions/${m.id}`);
    await expect.poll(async () => (await m.status()).effectApprovals.length).toBe(2);
    // the mission page reloads itself on the change: the test looks again in a page of its own
    page = await lookAgain(page, `${running.web.url}/missions/${m.id}`);
    const asked = dialogs(page);
    // the two left, approved together: asked first, with the total
    const rest = page.locator('section.card.batch');
    expect(await rest.locator('article.effect').count()).toBe(2);
    await rest.getByRole('textbox', { name: 'note for all 2' }).fill('invoices checked');
    await rest.getByRole('button', { name: 'Approve all 2' }).click();
    expect(asked).toEqual([
      expect.stringMatching(
        /^Approve all 2\? pay_vendor acts on an outside system: it cannot be taken back from here\.\n\nIn all: 2,700 EUR\.$/,
      ),
    ]);

    const result = (await m.result()) as { payments: Array<{ invoice: string; status: string }> };
    expect(result.payments.map((p) => [p.invoice, p.status])).toEqual([
      ['INV-1', 'paid'],
      ['INV-2', 'denied'],
      ['INV-3', 'paid'],
    ]);
    expect(vendorPayments().map((p) => [p.vendor, p.amount, p.currency])).toEqual(
      expect.arrayContaining([
        ['Acme Industrial GmbH', 2100, 'EUR'],
        ['Cordes & Kinder KG', 600, 'EUR'],
      ]),
    );
    expect(vendorPayments()).toHaveLength(2);
    // each verdict on its own: its record and its own update in history, bound to its own args
    const done = await m.status();
    expect(
      done.approvals.map((a) => [(a.args as { invoice: string }).invoice, a.outcome, a.by, a.note, a.argsHash]),
    ).toEqual(
      expect.arrayContaining([
        ['INV-2', 'denied', 'ana', 'not before the audit', valueHash(argsOf(invoices[1]!))],
        ['INV-1', 'approved', 'ana', 'invoices checked', valueHash(argsOf(invoices[0]!))],
        ['INV-3', 'approved', 'ana', 'invoices checked', valueHash(argsOf(invoices[2]!))],
      ]),
    );
    const updates = await acceptedUpdates(env.client, m.id, ['approveEffect']);
    expect(updates.map((u) => [u.arg.approved, u.arg.argsHash])).toEqual(
      expect.arrayContaining([
        [false, valueHash(argsOf(invoices[1]!))],
        [true, valueHash(argsOf(invoices[0]!))],
        [true, valueHash(argsOf(invoices[2]!))],
      ]),
    );
    expect(updates).toHaveLength(3);
    // what the mission did, in words: committed tasks and effects done
    expect(done.effectsDone?.filter((e) => e.status === 'completed')).toHaveLength(2);
    expect(describeSettled(m.id, { status: done } as Parameters<typeof describeSettled>[1])).toMatch(
      /2 tasks committed, 2 effects done/,
    );
    const after = (await navigatorCli('effect', 'list', m.id)).stdout;
    expect(after).toContain('no effect waits for approval');
    expect(after).toMatch(
      /Done so far \(2\):\n {2}done pay_vendor \(task pay_INV-1\), pass 1\n {2}done pay_vendor \(task pay_INV-3\), pass 1/,
    );
    expect(after).toMatch(/pay_vendor \(task pay_INV-2\) denied by ana: not before the audit/);

    // the mission page says who decided what, when, with the note, for effects too
    page = await lookAgain(page, `${running.web.url}/missions/${m.id}`);
    const decided = (await page.locator('.card.decided').textContent())!.replace(/\s+/g, ' ');
    expect(decided).toMatch(
      /Denied by ana .* — “not before the audit” · Pays a vendor’s invoice by bank transfer\. \(vendor: Baumann Logistik AG, .*amount: 14,500 EUR\)/,
    );
    expect(decided.match(/Approved by ana .*? — “invoices checked”/g)).toHaveLength(2);
    // the inbox keeps what was just decided
    await page.goto(`${running.web.url}/`);
    const recent = (await page.locator('ul.recent').textContent())!.replace(/\s+/g, ' ');
    expect(recent).toContain('Denied by ana');
    expect(recent.match(/Approved by ana/g)).toHaveLength(2);
    expect(recent).toContain('Cordes & Kinder KG');
    await page.close();
    const report = await env.audit(m.id);
    expect(report.problems).toEqual([]);
    expect(report.duplicateEffects).toEqual([]);
    expect(report.ok).toBe(true);
  }, 180_000);

  it('Approve asks "are you sure?" for external and destructive tools, the same on mission and plan cards, and for nothing else', async () => {
    const bump = JSON.parse(readFileSync(bumpVersionPlanFile, 'utf8')) as { steps: Array<Record<string, unknown>> };
    // the backup step (copy_file: local, not destructive) also waits for a person
    bump.steps = bump.steps.map((s) => (s.id === 'backup' ? { ...s, requiresApproval: true } : s));
    const plan = await env.startPlan({ agent: 'workspace', approve: true, document: bump });
    await waitForPlan(plan, awaiting('backup'));
    const m = await running.navigator.start(
      'vendor-payments',
      { invoices: [invoices[0]!] },
      { options: { timeouts: { heartbeatMs: 3000 } } },
    );
    await waitForStatus(m.workflow, (s) => (s.effectApprovals?.length ?? 0) === 1);

    const page = await desktop.newPage();
    const asked = dialogs(page);
    await page.goto(`${running.web.url}/`);
    // every Approve on the page: asks exactly when its tool is external or destructive
    const buttons = await page.locator('main button', { hasText: /^Approve/ }).evaluateAll((bs) =>
      bs.map((b) => ({
        card: (b.closest('.card')?.textContent ?? '').replace(/\s+/g, ' ').slice(0, 200),
        confirm: b.getAttribute('data-confirm'),
      })),
    );
    const payment = buttons.filter((b) => b.card.includes(m.id));
    expect(payment.length).toBe(1);
    expect(payment[0]!.confirm).toMatch(
      /^Approve\? pay_vendor acts on an outside system: it cannot be taken back from here\./,
    );
    const backup = buttons.filter((b) => b.card.includes(plan.id) && b.card.includes('backup'));
    expect(backup.length).toBe(1);
    expect(backup[0]!.confirm).toBeNull();
    // the card's words follow from the same class: nothing says it cannot be undone
    expect(backup[0]!.card).not.toMatch(/confirm|cannot be/);

    // approving the local step asks nothing; the destructive write that follows asks
    await page.locator('.card.approval', { hasText: 'backup' }).getByRole('button', { name: 'Approve' }).click();
    await waitForPlan(plan, awaiting('write_config'));
    expect(asked).toEqual([]);
    await page.goto(`${running.web.url}/plans/${plan.id}`);
    const write = page.locator('.card.approval', { hasText: 'write_config' });
    expect((await write.textContent())!.replace(/\s+/g, ' ')).toContain(
      'write_file overwrites or deletes what is there: you will be asked to confirm.',
    );
    await write.getByRole('button', { name: 'Approve' }).click();
    expect(asked).toEqual([
      expect.stringMatching(
        /^Approve\? write_file overwrites or deletes what is there: it cannot be taken back from here\./,
      ),
    ]);
    await waitForPlan(plan, (v) => v.status === 'completed');
    await expectPlanAuditOk(env, plan.id);
    await m.cancel('test done');
    await page.close();
  }, 180_000);

  it('a running plan’s page shows statuses in words, args and results as values and the Summary as a table: no raw JSON', async () => {
    const plan = await env.startPlan({
      agent: 'workspace',
      approve: true,
      document: JSON.parse(readFileSync(bumpVersionPlanFile, 'utf8')),
    });
    await waitForPlan(plan, awaiting('write_config'));
    const page = await desktop.newPage();
    await page.goto(`${running.web.url}/plans/${plan.id}`);
    // a file's own text (here JSON: config.json) is shown as text, and is not what is checked
    const main = (await page.evaluate(
      '(() => { const m = document.querySelector("main").cloneNode(true); m.querySelectorAll("pre.text, pre.diff").forEach((e) => e.remove()); return m.textContent; })()',
    )) as string;
    expect(main).not.toMatch(/[{[]\s*"|"\s*:|\\"|\\n/);
    expect(main).not.toContain('awaiting_approval');
    expect(await page.locator('#step-write_config td.status').textContent()).toMatch(/^waiting for approval/);
    const summary = (await page.locator('.card.summary').textContent())!.replace(/\s+/g, ' ');
    expect(summary).toMatch(/running · version 1 · 2 completed · 1 waiting for approval · 1 not started/);
    expect(await page.locator('.card.summary tr').count()).toBe(5);
    // the new file content as text, not an escaped string
    expect(await page.locator('#step-write_config pre.text').textContent()).toContain('"version": "2.0.0"');
    await page.close();
    await plan.cancel('test done');
  }, 120_000);
});
