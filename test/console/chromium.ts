/**
 * What the console's browser tests share: Debian's Chromium (or another installed Chrome),
 * a console on a test server's task queue with headless Chromium beside it, a 390 px
 * phone, and axe-core's serious and critical violations of a page.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Client } from '@temporalio/client';
import { type Browser, type BrowserContextOptions, type Page, chromium } from 'playwright-core';
import type { RegisteredAgent } from '../../src/activities/agents.ts';
import { NavigatorClient } from '../../src/client/index.ts';
import { type RunningConsole, startConsole } from '../../src/console/server.ts';
import { buildRegistry } from '../../src/worker/agents.ts';

export function chromiumPath(): string | null {
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    try {
      const path = execFileSync('which', [name], { encoding: 'utf8' }).trim();
      if (path && existsSync(path)) return path;
    } catch {
      // not installed under this name
    }
  }
  return null;
}

/** Chromium's path for the suite, or null with a warning saying the suite is skipped. */
export function chromiumFor(suite: string): string | null {
  const path = chromiumPath();
  if (!path) console.warn(`console ${suite} tests skipped: no Chromium found (apt-get install -y chromium)`);
  return path;
}

export interface BrowserConsole {
  navigator: NavigatorClient;
  web: RunningConsole;
  browser: Browser;
  /** closes the browser and the console (the test server is the caller's) */
  close(): Promise<void>;
}

/**
 * A console acting as `ana` on the task queue (live streams polling every 100 ms) and a
 * headless Chromium; `signIn`: pages need the console's one-time link first (else --no-auth). `agents`: the console knows the example agents plus these (its start
 * form, its generated forms); absent, it knows none.
 */
export async function startBrowserConsole(o: {
  client: Client;
  taskQueue: string;
  executablePath: string;
  agents?: readonly RegisteredAgent[];
  signIn?: boolean;
}): Promise<BrowserConsole> {
  const navigator = new NavigatorClient({ client: o.client, taskQueue: o.taskQueue });
  let agents: Map<string, RegisteredAgent> | undefined;
  if (o.agents) {
    agents = new Map(await buildRegistry());
    for (const entry of o.agents) agents.set(entry.agent.name, entry);
  }
  // signIn: the console's own session, entered through its one-time link (web.loginUrl); else --no-auth
  const web = await startConsole({ navigator, user: 'ana', port: 0, pollMs: 100, agents, noAuth: !o.signIn });
  const browser = await chromium.launch({ executablePath: o.executablePath, headless: true, args: ['--no-sandbox'] });
  return {
    navigator,
    web,
    browser,
    async close() {
      await browser.close();
      await web.close();
    },
  };
}

/** A 390 px phone: its browser honours the viewport tag (without one it lays out 980 px and shrinks). */
export const PHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  isMobile: true,
  hasTouch: true,
  deviceScaleFactor: 2,
};
/**
 * `url` in a new page of `old`'s context (its cookies: a signed-in console stays signed in).
 * The page of a running mission or plan reloads itself when the run changes
 * (src/console/page-script.ts), so a test that reloads or navigates that same page after a
 * change races the page's own reload and can be cut short (net::ERR_ABORTED); a test that
 * looks again after a change opens a page of its own. `old` is left open: a page made by
 * `browser.newPage()` owns its context, and closing it would close the new page too.
 */
export async function lookAgain(old: Page, url: string): Promise<Page> {
  const page = await old.context().newPage();
  await page.goto(url);
  return page;
}

export const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 900 } };

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/**
 * axe-core's serious and critical violations of the page, one line each with where. The
 * page's CSP allows only its own script: its context must bypass CSP (`bypassCSP: true`).
 */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axeSource });
  const found = (await page.evaluate(
    'axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations)',
  )) as Violation[];
  return found
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${v.help} at ${n.target.join(' ')}`));
}
