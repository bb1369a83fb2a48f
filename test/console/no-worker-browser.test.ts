/**
 * The console with every worker stopped, in headless Chromium (issue 44; Debian's package,
 * playwright-core; skipped when none is installed). A real worker runs a mission and a
 * plan to their ends and leaves another mission waiting for a decision, then stops. The
 * finished mission's page, its passes and its audit, and the plan's page render from their
 * histories, without a banner; the waiting mission's page has the banner that says no
 * worker polls its task queue and how to start one, above the rest of the page read from
 * its history (what it waits for), and no serious accessibility violation. Runs on both
 * servers (the real lane includes test/console).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserConsole, DESKTOP, axeViolations, chromiumFor, startBrowserConsole } from './chromium.ts';
import { NavigatorClient } from '../../src/client/index.ts';
import { freshBankFile, waitForStatus } from '../mission/harness.ts';
import { type PlanEnv, planEnv } from '../plans/plan-harness.ts';

const executablePath = chromiumFor('no-worker');

describe.skipIf(!executablePath)('the console with every worker stopped', () => {
  let env: PlanEnv;
  let running: BrowserConsole;
  let desktop: BrowserContext;
  let finished: string;
  let waiting: string;
  let plan: string;

  beforeAll(async () => {
    process.env.WORKSPACE_DIR = mkdtempSync(join(tmpdir(), 'no-worker-browser-ws-'));
    env = await planEnv();
    const worker: Worker = await env.startWorker();
    const navigator = new NavigatorClient({ client: env.client, taskQueue: env.taskQueue });
    freshBankFile();
    const done = await navigator.start('wire-transfer', { recipient: 'bob', amount: 5000 });
    await waitForStatus(done.workflow, (s) => s.status === 'waiting');
    await done.approve({ by: 'ana' });
    await done.result();
    finished = done.id;
    const left = await navigator.start('wire-transfer', { recipient: 'cy', amount: 7000 });
    await waitForStatus(left.workflow, (s) => s.status === 'waiting');
    waiting = left.id;
    const p = await env.startPlan({
      agent: 'lab',
      approve: true,
      document: { steps: [{ id: 'list', description: 'make a list', tool: 'make_list', args: { n: 2 } }] },
    });
    expect((await p.result()).status).toBe('completed');
    plan = p.id;

    // every worker stops: nothing polls the task queue from here on
    worker.shutdown();
    while (worker.getState() !== 'STOPPED' && worker.getState() !== 'FAILED')
      await new Promise((r) => setTimeout(r, 50));
    running = await startBrowserConsole({
      client: env.client,
      taskQueue: env.taskQueue,
      executablePath: executablePath!,
    });
    desktop = await running.browser.newContext({ ...DESKTOP, bypassCSP: true });
  }, 180_000);
  afterAll(async () => {
    await running?.close();
    await env?.shutdown();
  });

  it(
    "a finished mission's page, its passes and its audit, and a finished plan's page render from history, without a banner",
    { timeout: 120_000 },
    async () => {
      const page = await desktop.newPage();
      const visit = async (path: string) => {
        const res = await page.goto(`${running.web.url}${path}`);
        expect({ path, status: res?.status() }).toEqual({ path, status: 200 });
        return (await page.locator('body').innerText()).replace(/\s+/g, ' ');
      };
      const mission = await visit(`/missions/${finished}`);
      expect(mission).toMatch(/completed/);
      expect(mission).toMatch(/execute_wire/);
      expect(await page.getByRole('alert').filter({ hasText: 'No worker answered' }).count()).toBe(0);
      expect(await visit(`/missions/${finished}/passes`)).toMatch(/Pass 2/);
      expect(await visit(`/missions/${finished}/audit`)).toMatch(/audit passed/);
      const planPage = await visit(`/plans/${plan}`);
      expect(planPage).toMatch(/completed/);
      expect(planPage).toMatch(/make a list/);
      expect(planPage).toMatch(/item-1/);
      await page.close();
    },
  );

  it(
    "a running mission's page: the banner names the task queue and the command, the rest of the page from its history",
    { timeout: 300_000 },
    async () => {
      const page = await desktop.newPage();
      const banner = page.getByRole('alert').filter({ hasText: 'No worker answered' });
      // a real server lists a stopped worker with its last poll for a while: until it says that
      // nobody polls, the banner says the worker may have stopped just now (reload until then;
      // the page reloads itself too when what it shows changes, which aborts a navigation of ours)
      const deadline = Date.now() + 240_000;
      for (;;) {
        const res = await page.goto(`${running.web.url}/missions/${waiting}`).catch((err: Error) => {
          if (!/ERR_ABORTED/.test(err.message)) throw err;
          return null;
        });
        if (res) expect(res.status()).toBe(200);
        if (
          res &&
          (await banner.count()) > 0 &&
          /no worker is polling task queue/.test(await banner.innerText().catch(() => ''))
        )
          break;
        if (Date.now() > deadline)
          throw new Error(
            `no banner saying that no worker polls; the page: ${(await page.locator('body').innerText()).slice(0, 800)}`,
          );
        await new Promise((r) => setTimeout(r, 1000));
      }
      const text = (await banner.innerText()).replace(/\s+/g, ' ');
      const queue = env.taskQueue.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      expect(text).toMatch(
        new RegExp(
          `no worker is polling task queue ${queue}; start one with \`?navigator worker --task-queue ${queue}\`?`,
        ),
      );
      expect(text).toMatch(/This page shows what the history holds \(up to event \d+\)/);
      // the rest of the page: what it waits for, as its history has it
      expect(await page.locator('body').innerText()).toMatch(/manager_decision_cy_7000/);
      expect(await axeViolations(page)).toEqual([]);
      await page.close();
    },
  );
});
