/**
 * The Temporal UI (served by the real `temporal server start-dev`) shows what Navigator puts
 * in a mission's workflow, looked at in headless Chromium (Debian's package, playwright-core):
 * activity summaries naming each pass and each effect's task id, the current details with
 * what the mission waits for and the latest Mission Log, the NavigatorStatus search
 * attribute; with the AES-GCM codec, payloads decode in the UI through the codec server.
 * UI_SCREENSHOTS=DIR keeps screenshots (docs/temporal-ui/ holds the published ones).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type Page, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { chromiumPath } from '../console/chromium.ts';
import { AesGcmCodec, keysFromEnv } from '../../src/codec/aes-gcm.ts';
import { type CodecServer, startCodecServer } from '../../src/codec/server.ts';
import { freePort } from '../../src/machine/free-port.ts';
import { type TemporalCliServer, startTemporalCliServer } from '../../src/temporal/cli-server.ts';
import { startMission } from '../../src/client/mission/client.ts';
import { testServerKind } from '../../src/devserver/testing.ts';
import { decideUpdate } from '../../src/workflows/mission/messages.ts';
import { freshBankFile, missionEnv, waitForStatus, type MissionEnv } from '../mission/harness.ts';

const executablePath = chromiumPath();
const shots = process.env.UI_SCREENSHOTS;
const KEY = 'manager_decision_bob_5000';
const wire = {
  agent: 'wire-transfer',
  input: { recipient: 'bob', amount: 5000 },
  options: { statusSearchAttribute: 'NavigatorStatus' },
};

/** The page's text with its frames' (the UI renders user metadata as markdown in iframes). */
async function pageText(page: Page): Promise<string> {
  const texts = await Promise.all(page.frames().map((f) => f.innerText('body').catch(() => '')));
  return texts.join('\n');
}

/** A mission env on a real server with its UI (and the UI's codec endpoint, when given). */
async function envWithUi(
  codecEndpoint?: string,
  codec?: AesGcmCodec,
): Promise<{ m: MissionEnv; server: () => TemporalCliServer }> {
  let server: TemporalCliServer | undefined;
  const m = await missionEnv({
    startServer: async () =>
      (server = await startTemporalCliServer({
        port: 0,
        uiPort: 0,
        searchAttributes: { NavigatorStatus: 'Keyword' },
        uiCodecEndpoint: codecEndpoint,
      })),
    ...(codec ? { dataConverter: { payloadCodecs: [codec] } } : {}),
  });
  await m.startWorker();
  return { m, server: () => server! };
}

describe.runIf(testServerKind() === 'temporal' && executablePath)('the Temporal UI', () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: executablePath!, headless: true, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    if (shots) mkdirSync(shots, { recursive: true });
  }, 60_000);
  afterAll(async () => browser?.close());

  const shot = async (name: string) => {
    if (shots) await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  };

  /** Opens a tab of the workflow page and waits until its text contains every `expected`. */
  async function tabShows(url: string, tab: string | null, expected: string[]): Promise<string> {
    await page.goto(url);
    // the tabs work once the page has loaded the workflow
    await page.getByText('navigatorMission').first().waitFor();
    if (tab) await page.getByText(tab, { exact: true }).first().click();
    let text = '';
    for (let i = 0; i < 100; i++) {
      text = await pageText(page);
      if (expected.every((e) => text.includes(e))) return text;
      await page.waitForTimeout(200);
    }
    throw new Error(
      `the UI page ${url} (${tab ?? 'main'}) never showed ${JSON.stringify(expected.filter((e) => !text.includes(e)))}; it shows:\n${text.slice(0, 3000)}`,
    );
  }

  describe('a mission', () => {
    let m: MissionEnv;
    let ui: string;
    beforeAll(async () => {
      const env = await envWithUi();
      m = env.m;
      ui = env.server().uiUrl!;
    }, 120_000);
    afterAll(async () => m?.shutdown());

    it('shows passes and effects by name, what the mission waits for, its Mission Log and its status attribute', async () => {
      freshBankFile();
      // started as the product starts missions (NavigatorClient, navigator run): with a static summary
      const mission = await startMission(m.client, { ...wire, id: 'wire-ui-1', taskQueue: m.taskQueue });
      const handle = mission.workflow;
      await waitForStatus(handle, (s) => s.status === 'waiting');
      const url = `${ui}/namespaces/default/workflows/${handle.workflowId}`;
      await tabShows(url, null, ['navigatorMission', 'runPass • pass 1', `deadline of ${KEY}`, 'Running']);
      await shot('waiting-history');
      await tabShows(url, 'User Metadata', [
        'Navigator mission: wire-transfer',
        'Current Details',
        'waiting',
        KEY,
        'Mission Log',
        'prepare_wire_bob_5000',
      ]);
      await shot('waiting-current-details');
      await tabShows(url, 'Search Attributes', ['NavigatorStatus', 'waiting']);

      await handle.executeUpdate(decideUpdate, { args: [{ key: KEY, value: 'approved', by: 'ana' }] });
      await handle.result();
      await tabShows(url, null, ['Completed', 'execute_wire_bob_5000', 'runPass • pass 2']);
      await shot('completed-history');
      await tabShows(url, 'Search Attributes', ['NavigatorStatus', 'completed']);
    });
  });

  describe('with the AES-GCM codec', () => {
    const codec = new AesGcmCodec(
      keysFromEnv({ NAVIGATOR_CODEC_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}` }),
    );
    let m: MissionEnv;
    let codecServer: CodecServer;
    let ui: string;
    beforeAll(async () => {
      // the UI's origin must be known to the codec server (CORS) before the UI starts
      const uiPort = await freePort();
      codecServer = await startCodecServer({ codec, port: 0, origin: `http://127.0.0.1:${uiPort}` });
      let server: TemporalCliServer | undefined;
      m = await missionEnv({
        startServer: async () =>
          (server = await startTemporalCliServer({
            port: 0,
            uiPort,
            searchAttributes: { NavigatorStatus: 'Keyword' },
            uiCodecEndpoint: codecServer.endpoint,
          })),
        dataConverter: { payloadCodecs: [codec] },
      });
      await m.startWorker();
      ui = server!.uiUrl!;
    }, 120_000);
    afterAll(async () => {
      await m?.shutdown();
      await codecServer?.close();
    });

    it('decodes the encrypted input and results in the UI through navigator codec-server', async () => {
      freshBankFile();
      const handle = await m.start(wire, 'wire-ui-codec');
      await waitForStatus(handle, (s) => s.status === 'waiting');
      await tabShows(`${ui}/namespaces/default/workflows/${handle.workflowId}`, null, [
        '"recipient": "bob"',
        '"amount": 5000',
      ]);
      await shot('codec-decoded');
    });
  });
});
