/**
 * Large values in the console (issue 38): a mission whose journal holds a 3 MB result and
 * a plan whose step answered 3 MB. Their pages show the start of each value and its size
 * (a page, not 3 MB of JSON), with a link that downloads the whole value, resolved from
 * the payload store.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NavigatorClient } from '../../src/client/index.ts';
import { createConsoleApp } from '../../src/console/server.ts';
import { largeEffect, largeRead } from '../mission/fixtures/large-agents.ts';
import { type MissionEnv, missionEnv } from '../mission/harness.ts';

const ORIGIN = 'http://localhost';
const BYTES = 3 * 1024 * 1024;

describe('large values in the console', () => {
  let env: MissionEnv;
  let app: ReturnType<typeof createConsoleApp>;
  let navigator: NavigatorClient;
  beforeAll(async () => {
    process.env.LARGE_TOOL_LOG = join(mkdtempSync(join(tmpdir(), 'console-large-')), 'calls.jsonl');
    env = await missionEnv();
    await env.startWorker([largeEffect, largeRead]);
    navigator = new NavigatorClient({ client: env.client, taskQueue: env.taskQueue });
    app = createConsoleApp({ navigator, user: 'ana', pollMs: 50, noAuth: true });
  }, 120_000);
  afterAll(() => env?.shutdown());

  it('a mission page shows a 3 MB journal value by its start and size, and downloads it whole', async () => {
    const handle = await env.start({ agent: 'large-effect', input: { bytes: BYTES } });
    await handle.result();
    const res = await app.request(`${ORIGIN}/missions/${handle.workflowId}`);
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page.length).toBeLessThan(200 * 1024);
    expect(page).toMatch(
      /M characters in all · <a href="\/missions\/[^"]+\/journal\/publish" download>download the whole value<\/a>/,
    );
    const whole = await app.request(`${ORIGIN}/missions/${handle.workflowId}/journal/publish`);
    expect(whole.headers.get('content-disposition')).toContain('attachment');
    const value = (await whole.json()) as { body: string };
    expect(value.body.length).toBe(BYTES);
    expect((await app.request(`${ORIGIN}/missions/${handle.workflowId}/journal/nosuch`)).status).toBe(404);
  }, 120_000);

  it('a plan page shows a 3 MB step result by its start and size, and downloads it whole', async () => {
    const plan = await navigator.startPlan({
      id: `large-plan-${process.pid}`,
      agent: 'large-read',
      approve: true,
      document: { steps: [{ id: 'read', description: 'read the dump', tool: 'fetch_dump', args: { bytes: BYTES } }] },
    });
    await plan.result();
    const page = await (await app.request(`${ORIGIN}/plans/${plan.id}`)).text();
    expect(page.length).toBeLessThan(200 * 1024);
    expect(page).toContain(`<a href="/plans/${plan.id}/steps/read/result" download>download the whole value</a>`);
    const value = (await (await app.request(`${ORIGIN}/plans/${plan.id}/steps/read/result`)).json()) as {
      text: string;
    };
    expect(value.text.length).toBe(BYTES);
  }, 120_000);
});
