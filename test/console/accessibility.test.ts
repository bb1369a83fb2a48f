/**
 * axe-core (the accessibility engine) on the console's pages in headless Chromium
 * (Debian's package, playwright-core; skipped when none is installed): the inbox, a
 * mission waiting for an approval, a plan in review, a running plan at an approval, the
 * pass view and the start form, at 1280 px and on a 390 px phone. No serious or critical
 * violation; Tab alone reaches an Approve button and a step of the plan picture. The page's CSP allows only its own script, so the test's context bypasses it
 * to inject axe.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath } from './chromium.ts';
import { NavigatorClient } from '../../src/client/index.ts';
import { type RunningConsole, startConsole } from '../../src/console/server.ts';
import { buildRegistry } from '../../src/worker/agents.ts';
import labAgents from '../plans/fixtures/lab-agents.ts';
import { bumpVersionPlanFile } from '../../examples/workspace/agent.ts';
import { freshBankFile, waitForStatus } from '../mission/harness.ts';
import { type PlanEnv, awaiting, planEnv, waitForPlan } from '../plans/plan-harness.ts';

const executablePath = chromiumPath();
if (!executablePath) console.warn('console accessibility tests skipped: no Chromium found (apt-get install -y chromium)');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[]; failureSummary?: string }>;
}

describe.skipIf(!executablePath)('the console with axe-core', () => {
  let env: PlanEnv;
  let web: RunningConsole;
  let browser: Browser;

  beforeAll(async () => {
    process.env.WORKSPACE_DIR = mkdtempSync(join(tmpdir(), 'console-a11y-'));
    env = await planEnv();
    await env.startWorker();
    const navigator = new NavigatorClient({ client: env.client, taskQueue: env.taskQueue });
    const agents = new Map(await buildRegistry());
    for (const entry of Object.values(labAgents)) agents.set(entry.agent.name, entry);
    web = await startConsole({ navigator, user: 'ana', port: 0, pollMs: 100, agents });
    browser = await chromium.launch({ executablePath: executablePath!, headless: true, args: ['--no-sandbox'] });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await web?.close();
    await env?.shutdown();
  });

  /** axe's serious and critical violations of the page, one line each with where. */
  async function violations(page: Page): Promise<string[]> {
    await page.addScriptTag({ content: axeSource });
    const found = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations)')) as Violation[];
    return found
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${v.help} at ${n.target.join(' ')}`));
  }

  it('finds no serious violation on the inbox, an approval, plan pages, the pass view and the start form, at 1280 and 390 px (no sideways scrolling on the phone)', async () => {
    freshBankFile();
    const navigator = new NavigatorClient({ client: env.client, taskQueue: env.taskQueue });
    const m = await navigator.start('wire-transfer', { recipient: 'bob', amount: 5000 }, { options: { timeouts: { heartbeatMs: 3000 } } });
    await waitForStatus(m.workflow, (s) => s.status === 'waiting');
    const bump = JSON.parse(readFileSync(bumpVersionPlanFile, 'utf8'));
    const running = await env.startPlan({ agent: 'workspace', approve: true, document: bump });
    await waitForPlan(running, awaiting('write_config'));
    const review = await env.startPlan({ agent: 'workspace', approve: false, document: bump });
    await waitForPlan(review, (v) => v.status === 'review');
    const paths = ['/', `/missions/${m.id}`, `/missions/${m.id}/passes`, `/plans/${review.id}`, `/plans/${running.id}`, '/start?agent=wire-transfer', '/missions', '/plans'];
    const contexts: BrowserContext[] = [
      await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true }),
      await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, bypassCSP: true }),
    ];
    const found: string[] = [];
    for (const [i, ctx] of contexts.entries()) {
      const page = await ctx.newPage();
      for (const path of paths) {
        await page.goto(`${web.url}${path}`);
        for (const v of await violations(page)) found.push(`${i ? '390' : '1280'} px ${path}: ${v}`);
        // on the phone, no page scrolls sideways (the pass view's code and tables included)
        const wide = (await page.evaluate('document.documentElement.scrollWidth')) as number;
        if (i && wide > 390) found.push(`390 px ${path}: ${wide} px wide, scrolls sideways`);
      }
      await ctx.close();
    }
    expect(found).toEqual([]);
    // by keyboard alone: Tab reaches the Approve of the waiting decision, and a step's box in the plan picture
    const keys = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await keys.newPage();
    const tabTo = async (path: string, match: RegExp) => {
      await page.goto(`${web.url}${path}`);
      const seen: string[] = [];
      for (let i = 0; i < 80; i++) {
        await page.keyboard.press('Tab');
        const at = (await page.evaluate('(() => { const e = document.activeElement; return e.tagName + " " + (e.getAttribute("aria-label") || e.textContent || "").trim().slice(0, 60); })()')) as string;
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
  }, 180_000);
});
