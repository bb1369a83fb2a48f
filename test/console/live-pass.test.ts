/**
 * A pass in progress, live (issue 41): a model that answers slowly, token by token (the
 * scripted model's tokenDelayMs), writes a program that calls a slow read-only tool. While
 * the model is still answering, the mission's page (in Chromium) and `navigator watch`
 * (follow) show the program as it arrives, then the tool call as it starts and ends; all
 * of it read through Temporal from the pass activity's heartbeat details. The history of
 * that mission is the size of the same mission answered at once: nothing that streamed is
 * kept there.
 */
import type { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RegisteredAgent } from '../../src/activities/agents.ts';
import { createActivities } from '../../src/activities/index.ts';
import { HEARTBEAT_THROTTLE, buildRegistry } from '../../src/worker/index.ts';
import { follow } from '../../src/cli/mission/follow.ts';
import { createScriptedModel } from '../../src/llm/scripted.ts';
import { type Agent, defineAgent, defineTool } from '../../src/navigator/index.ts';
import { historySize, passEvents } from '../../bench/pass-history.ts';
import { type MissionEnv, missionEnv } from '../mission/harness.ts';
import { type BrowserConsole, DESKTOP, axeViolations, chromiumFor, startBrowserConsole } from './chromium.ts';

const executablePath = chromiumFor('live-pass');

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a note up (slowly).',
  input: z.object({ q: z.string() }),
  output: z.object({ note: z.string() }),
  sideEffect: 'read_only',
  handler: async ({ q }) => {
    await new Promise((r) => setTimeout(r, 1500));
    return { note: `${q} is first` };
  },
});

const PROGRAM = [
  '```clojure',
  ';; look the note up first: the lookup tool is slow',
  '(def found (tool/lookup {:q "alpha"}))',
  ';; then the second one, and finish with both',
  '(def other (tool/lookup {:q "beta"}))',
  '(return {:found [found other]})',
  '```',
].join('\n');

/** Two agents alike but for how their model answers: token by token, or at once. */
function writer(name: string, tokenDelayMs: number): RegisteredAgent {
  const agent = defineAgent({
    name,
    prompt: 'Look the note up and return it.',
    input: z.object({}),
    output: z.any(),
    tools: [lookup],
    limits: { maxTurns: 2 },
  });
  return {
    agent: agent as unknown as Agent,
    model: () => createScriptedModel([{ answer: PROGRAM, repeat: true }], { tokenDelayMs }),
  };
}

let m: MissionEnv;
let running: Promise<void>;
let stop: () => void = () => undefined;
beforeAll(async () => {
  m = await missionEnv();
  // heartbeats as a Navigator worker sends them: at most every 750 ms (createNavigatorWorker's throttle)
  const agents = new Map(await buildRegistry());
  for (const e of [writer('writer-slow', 100), writer('writer-fast', 0)]) agents.set(e.agent.name, e);
  const worker = await m.env.createWorker({
    activities: createActivities({ agents, client: m.client }),
    maxHeartbeatThrottleInterval: HEARTBEAT_THROTTLE,
  });
  running = worker.run();
  stop = () => worker.shutdown();
}, 60_000);
afterAll(async () => {
  stop();
  await running?.catch(() => undefined);
  await m?.shutdown();
});

const FIRST_LINE = '(def found (tool/lookup {:q "alpha"}))';

describe('the pass in progress, in `navigator watch`', () => {
  it('prints the program line by line while the model answers, then the call as it starts and ends', async () => {
    const handle = await m.start({ agent: 'writer-slow', input: {} });
    const lines: string[] = [];
    const settled = await follow(handle, {
      write: (l) => lines.push(l.replace(/^\S+ /, '')),
      pollMs: 100,
      untilClosed: true,
    });
    expect(settled.closed?.failure ?? null).toBeNull();
    const at = (text: string) => lines.findIndex((l) => l === text);
    const firstLine = at(`  | ${FIRST_LINE}`);
    expect(firstLine).toBeGreaterThanOrEqual(0);
    // the program's first lines came while the model was still answering: before it ran, and before its last line
    expect(firstLine).toBeLessThan(at('pass 1, turn 1: running the program'));
    expect(firstLine).toBeLessThan(at('  | (return {:found [found other]})'));
    expect(lines.filter((l) => l.startsWith('  | '))).toEqual(PROGRAM.split('\n').map((l) => `  | ${l}`));
    // each call as it runs, and the first as it ended while the second ran
    const started = lines.findIndex((l) => /turn 1: call 1, tool lookup: started$/.test(l));
    const done = lines.findIndex((l) => /turn 1: call 1, tool lookup: done in \d+ ms$/.test(l));
    const second = lines.findIndex((l) => /turn 1: call 2, tool lookup: started$/.test(l));
    expect(started).toBeGreaterThan(firstLine);
    expect(done).toBeGreaterThan(started);
    expect(second).toBeGreaterThan(started);
  }, 90_000);

  it("keeps none of it in history: the mission's history is the size of the same one answered at once", async () => {
    const run = async (agent: string) => {
      const handle = await m.start({ agent, input: {} });
      await handle.result();
      const events = ((await handle.fetchHistory()).events ?? []) as temporal.api.history.v1.IHistoryEvent[];
      return { events, pass: passEvents(events).events };
    };
    const slow = await run('writer-slow');
    const fast = await run('writer-fast');
    const text = JSON.stringify(slow.events);
    expect(text).not.toContain('model answering');
    expect(text).not.toContain('running the program');
    // the same events; sizes apart from a few bytes of times and ids
    expect(slow.events.length).toBe(fast.events.length);
    expect(Math.abs(historySize(slow.pass) - historySize(fast.pass))).toBeLessThan(64);
  }, 90_000);
});

describe.skipIf(!executablePath)('the pass in progress on the mission page (Chromium)', () => {
  let web: BrowserConsole;
  beforeAll(async () => {
    web = await startBrowserConsole({ client: m.client, taskQueue: m.taskQueue, executablePath: executablePath! });
  }, 60_000);
  afterAll(async () => web?.close());

  it('shows the program as it arrives while the model answers, then the call, then the outcome', async () => {
    const handle = await m.start({ agent: 'writer-slow', input: {} });
    const page = await web.browser.newPage({ ...DESKTOP, bypassCSP: true });
    await page.goto(`${web.web.url}/missions/${handle.workflowId}`);
    // the first line of the program, while the model is still answering (its last line not there yet)
    // (in-page code as strings: this project's types have no DOM)
    const text = (selector: string) => `(document.querySelector(${JSON.stringify(selector)})?.textContent ?? '')`;
    await page.waitForFunction(
      `${text('.live-program')}.includes(${JSON.stringify(FIRST_LINE)}) && !${text('.live-program')}.includes('(return {:found [found other]})') && ${text('.live-line')}.includes('model answering')`,
      undefined,
      { timeout: 60_000, polling: 50 },
    );
    expect(await axeViolations(page)).toEqual([]);
    // the tool call as it runs, then as it ended
    await page.waitForFunction(`/call 1: tool lookup: running/.test(${text('.live-calls')})`, undefined, {
      timeout: 60_000,
      polling: 50,
    });
    await page.waitForFunction(`/call 1: tool lookup: done in \\d+ ms/.test(${text('.live-calls')})`, undefined, {
      timeout: 60_000,
      polling: 50,
    });
    await handle.result();
    // the page reloads when the mission's status changes: completed, and no pass section
    await page.waitForFunction(
      `!document.querySelector('#live-pass') && /completed/.test(${text('main')})`,
      undefined,
      { timeout: 60_000, polling: 100 },
    );
    await page.close();
  }, 120_000);
});
