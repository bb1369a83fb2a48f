/**
 * axe-core (the accessibility engine) on the console's pages in headless Chromium
 * (Debian's package, playwright-core; skipped when none is installed): the inbox, a
 * mission waiting for an approval, a batch of payments waiting together, a plan in review (and its form for a new step), a running plan at an approval, the
 * pass view, the start form and the lists (schedules too), at 1280 px and on a 390 px phone. No serious or critical
 * violation; Tab alone reaches an Approve button and a step of the plan picture. The page's CSP allows only its own script, so the test's context bypasses it
 * to inject axe.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserConsole, DESKTOP, PHONE, axeViolations, chromiumFor, startBrowserConsole } from './chromium.ts';
import labAgents from '../plans/fixtures/lab-agents.ts';
import vendorAgents from './fixtures/vendor-payments.ts';
import { bumpVersionPlanFile } from '../../examples/workspace/agent.ts';
import { freshBankFile, waitForStatus } from '../mission/harness.ts';
import { type PlanEnv, awaiting, planEnv, waitForPlan } from '../plans/plan-harness.ts';

const executablePath = chromiumFor('accessibility');

describe.skipIf(!executablePath)('the console with axe-core', () => {
  let env: PlanEnv;
  let web: BrowserConsole['web'];
  let browser: BrowserConsole['browser'];
  let navigator: BrowserConsole['navigator'];
  let running: BrowserConsole;

  beforeAll(async () => {
    process.env.WORKSPACE_DIR = mkdtempSync(join(tmpdir(), 'console-a11y-'));
    process.env.VENDOR_PAYMENTS_FILE = join(mkdtempSync(join(tmpdir(), 'a11y-payments-')), 'payments.jsonl');
    env = await planEnv();
    await env.startWorker(Object.values(vendorAgents));
    running = await startBrowserConsole({
      client: env.client,
      taskQueue: env.taskQueue,
      executablePath: executablePath!,
      agents: [...Object.values(labAgents), ...Object.values(vendorAgents)],
    });
    ({ web, browser, navigator } = running);
  }, 120_000);
  afterAll(async () => {
    await running?.close();
    await env?.shutdown();
  });

  it('finds no serious violation on the inbox, an approval, plan pages, the pass view and the start form, at 1280 and 390 px (no sideways scrolling on the phone)', async () => {
    freshBankFile();
    const m = await navigator.start(
      'wire-transfer',
      { recipient: 'bob', amount: 5000 },
      { options: { timeouts: { heartbeatMs: 3000 } } },
    );
    await waitForStatus(m.workflow, (s) => s.status === 'waiting');
    const bump = JSON.parse(readFileSync(bumpVersionPlanFile, 'utf8'));
    const running = await env.startPlan({ agent: 'workspace', approve: true, document: bump });
    await waitForPlan(running, awaiting('write_config'));
    const review = await env.startPlan({ agent: 'workspace', approve: false, document: bump });
    await waitForPlan(review, (v) => v.status === 'review');
    // a batch of payments waiting together (one card in the inbox and on its mission's page)
    const invoices = [
      { invoice: 'A-1', vendor: 'Acme Industrial GmbH', iban: 'DE44500105175407324931', amount: 2100 },
      { invoice: 'A-2', vendor: 'Baumann Logistik AG', iban: 'DE89370400440532013000', amount: 14500 },
    ];
    const batch = await navigator.start(
      'vendor-payments',
      { invoices },
      { options: { timeouts: { heartbeatMs: 3000 } } },
    );
    await waitForStatus(batch.workflow, (s) => (s.effectApprovals?.length ?? 0) === 2);
    // the plan in review also with the form for a new step of a picked tool
    const paths = [
      '/',
      `/missions/${m.id}`,
      `/missions/${m.id}/passes`,
      `/plans/${review.id}`,
      `/plans/${review.id}?add=write_file`,
      `/plans/${running.id}`,
      `/missions/${batch.id}`,
      '/start?agent=wire-transfer',
      '/missions',
      '/plans',
      '/schedules',
    ];
    const contexts: BrowserContext[] = [
      await browser.newContext({ ...DESKTOP, bypassCSP: true }),
      await browser.newContext({ ...PHONE, bypassCSP: true }),
    ];
    const found: string[] = [];
    for (const [i, ctx] of contexts.entries()) {
      const page = await ctx.newPage();
      for (const path of paths) {
        await page.goto(`${web.url}${path}`);
        for (const v of await axeViolations(page)) found.push(`${i ? '390' : '1280'} px ${path}: ${v}`);
        // no two elements share an id (every decision card was id="decision")
        const twice = (await page.evaluate(
          '(() => { const ids = [...document.querySelectorAll("[id]")].map((e) => e.id); return ids.filter((id, i) => ids.indexOf(id) !== i); })()',
        )) as string[];
        if (twice.length)
          found.push(`${i ? '390' : '1280'} px ${path}: ids used twice: ${[...new Set(twice)].join(', ')}`);
        // on the phone, no page scrolls sideways (the pass view's code and tables included)
        const wide = (await page.evaluate('document.documentElement.scrollWidth')) as number;
        if (i && wide > 390) found.push(`390 px ${path}: ${wide} px wide, scrolls sideways`);
      }
      await ctx.close();
    }
    expect(found).toEqual([]);
    // by keyboard alone: Tab reaches the Approve of the waiting decision, and a step's box in the plan picture
    const keys = await browser.newContext(DESKTOP);
    const page = await keys.newPage();
    const tabTo = async (path: string, match: RegExp) => {
      await page.goto(`${web.url}${path}`);
      const seen: string[] = [];
      for (let i = 0; i < 80; i++) {
        await page.keyboard.press('Tab');
        const at = (await page.evaluate(
          '(() => { const e = document.activeElement; return e.tagName + " " + (e.getAttribute("aria-label") || e.textContent || "").trim().slice(0, 60); })()',
        )) as string;
        if (match.test(at)) return at;
        seen.push(at);
      }
      throw new Error(`Tab never reached ${match} on ${path}; it went through: ${seen.join(' | ')}`);
    };
    expect(await tabTo(`/missions/${m.id}`, /^BUTTON Approve$/)).toBe('BUTTON Approve');
    // the picture's boxes are SVG links (lower-case tag names)
    expect(await tabTo(`/plans/${running.id}`, /^a write_config/)).toMatch(/^a write_config waiting for you: /);
    await keys.close();
    await m.cancel('test done');
    await running.cancel('test done');
    await review.cancel('test done');
    await batch.cancel('test done');
  }, 180_000);
});
