/**
 * How long the pages of a long mission take to load: `npx tsx
 * test/console/pass-view-timing.ts [PASSES...]` (default 50 100 200).
 *
 * For each size, the audit bench's counter mission (bench/audit.ts: each pass takes the
 * next number, commits `work_N`, every tenth runs an external `ping` effect, then waits
 * for the decision `go_N`, sent as soon as it waits; the last pass returns) runs on the
 * embedded dev server. Then, from a running console over HTTP, the pass view
 * (/missions/ID/passes) and the mission page (/missions/ID) of the finished mission: the
 * first load and the median of 5 after it; and two parts alone: reading the passes from
 * history (fetch + running the recorded programs again) and the status query (a closed
 * run's query replays its whole history on a worker; the mission page asks six).
 */
import type { RegisteredAgent } from '../../src/activities/agents.ts';
import { NavigatorClient } from '../../src/client/index.ts';
import { missionPasses } from '../../src/console/mission/passes.ts';
import { startConsole } from '../../src/console/server.ts';
import type { Agent } from '../../src/navigator/index.ts';
import { counter, counterProgram, drive, resetCounter } from '../../bench/audit.ts';
import { repeatingModel } from '../../bench/agents/mission-agents.ts';
import { missionEnv } from '../mission/harness.ts';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function medianMs(times: number, f: () => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    await f();
    ms.push(performance.now() - t0);
  }
  return median(ms);
}

async function main(): Promise<void> {
  const sizes = process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 0);
  const env = await missionEnv();
  const entry: RegisteredAgent = { agent: counter as unknown as Agent, model: repeatingModel(counterProgram) };
  await env.startWorker([entry]);
  const navigator = new NavigatorClient({ client: env.client, taskQueue: env.taskQueue });
  const web = await startConsole({ navigator, user: 'ana', port: 0, noAuth: true });
  try {
    for (const passes of sizes.length ? sizes : [50, 100, 200]) {
      resetCounter();
      const handle = await env.start(
        { agent: counter.name, input: { passes } },
        `pass-view-timing-${passes}-${Date.now()}`,
      );
      await drive(handle, passes);
      await handle.result();
      let bytes = 0;
      const load = (path: string, check: (body: string) => boolean) => async () => {
        const res = await fetch(`${web.url}${path}`);
        const body = await res.text();
        if (!res.ok || !check(body)) throw new Error(`${path} did not load: ${res.status}`);
        bytes = body.length;
      };
      const passView = load(`/missions/${encodeURIComponent(handle.workflowId)}/passes`, (body) =>
        body.includes(`id="pass-${passes}"`),
      );
      const first = await medianMs(1, passView);
      const again = await medianMs(5, passView);
      const kib = (bytes / 1024).toFixed(0);
      const missionPage = load(`/missions/${encodeURIComponent(handle.workflowId)}`, (body) =>
        body.includes('completed'),
      );
      const missionFirst = await medianMs(1, missionPage);
      const missionAgain = await medianMs(5, missionPage);
      const read = await medianMs(3, () => missionPasses(env.client, handle.workflowId));
      const status = await medianMs(3, () => navigator.mission(handle.workflowId).status());
      console.log(
        `${passes} passes: pass view first load ${first.toFixed(0)} ms, then median ${again.toFixed(0)} ms of 5 (page ${kib} KiB); ` +
          `mission page first load ${missionFirst.toFixed(0)} ms, then ${missionAgain.toFixed(0)} ms; ` +
          `reading the passes ${read.toFixed(0)} ms, the status query ${status.toFixed(0)} ms (medians of 3)`,
      );
    }
  } finally {
    await web.close();
    await env.shutdown();
  }
}

await main();
