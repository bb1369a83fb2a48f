/**
 * How long the pass view (`/missions/ID/passes`) of a long mission takes to load:
 * `npx tsx test/console/pass-view-timing.ts [PASSES...]` (default 50 100 200).
 *
 * For each size, the audit bench's counter mission (bench/audit.ts: each pass takes the
 * next number, commits `work_N`, every tenth runs an external `ping` effect, then waits
 * for the decision `go_N`, sent as soon as it waits; the last pass returns) runs on the
 * embedded dev server. Then the page is loaded over HTTP from a running console: the
 * first load, and the median of 5 loads after it; and its two parts alone: reading the
 * passes from history (fetch + running the recorded programs again) and the status query.
 */
import type { RegisteredAgent } from '../../src/activities/agents.ts';
import { NavigatorClient } from '../../src/client/index.ts';
import { missionPasses } from '../../src/console/passes.ts';
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
  const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
  const env = await missionEnv();
  const entry: RegisteredAgent = { agent: counter as unknown as Agent, model: repeatingModel(counterProgram) };
  await env.startWorker([entry]);
  const navigator = new NavigatorClient({ client: env.client, taskQueue: env.taskQueue });
  const web = await startConsole({ navigator, user: 'ana', port: 0 });
  try {
    for (const passes of sizes.length ? sizes : [50, 100, 200]) {
      resetCounter();
      const handle = await env.start({ agent: counter.name, input: { passes } }, `pass-view-timing-${passes}-${Date.now()}`);
      await drive(handle, passes);
      await handle.result();
      let bytes = 0;
      const load = async () => {
        const res = await fetch(`${web.url}/missions/${encodeURIComponent(handle.workflowId)}/passes`);
        const body = await res.text();
        if (!res.ok || !body.includes(`id="pass-${passes}"`)) throw new Error(`the pass view of ${handle.workflowId} did not load: ${res.status}`);
        bytes = body.length;
      };
      const first = await medianMs(1, load);
      const again = await medianMs(5, load);
      const read = await medianMs(3, () => missionPasses(env.client, handle.workflowId));
      const status = await medianMs(3, () => navigator.mission(handle.workflowId).status());
      console.log(
        `${passes} passes: first load ${first.toFixed(0)} ms, then median ${again.toFixed(0)} ms of 5 (page ${(bytes / 1024).toFixed(0)} KiB); ` +
          `reading the passes ${read.toFixed(0)} ms, the status query ${status.toFixed(0)} ms (medians of 3)`,
      );
    }
  } finally {
    await web.close();
    await env.shutdown();
  }
}

await main();
