/**
 * `npm run bench -- audit`: the audit of a 500-pass mission under continue-as-new.
 *
 * The mission comes from a scripted run on the embedded dev server (one in-process
 * worker): every pass takes the next number N from an inline tool, commits `work_N`,
 * every tenth pass also runs an external `ping` effect (a suspension, a `runTool`, a
 * resume), records a step summary and waits for the decision `go_N`, which the bench
 * sends by update as soon as the mission waits; pass 500 returns. Each pass's
 * result records its program and the journal it read, so the audit checks every value
 * link and re-runs all 500 programs (value replay) besides rebuilding the journal and
 * replaying the workflow code over the whole chain.
 *
 * Rows: the full online audit (median of 3), and the value checks alone (links + value
 * replay, the history already fetched and decoded).
 */
import { writeFileSync } from 'node:fs';
import type { WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { z } from 'zod';
import { createActivities } from '../src/activities/index.ts';
import type { AgentRegistry, RegisteredAgent } from '../src/activities/agents.ts';
import { auditChain, auditMission } from '../src/audit/mission/audit.ts';
import { fetchChain } from '../src/history/fetch.ts';
import { createTestEnv } from '../src/devserver/testing.ts';
import { type Agent, defineAgent, defineTool } from '../src/navigator/index.ts';
import { silentSpanSinks } from '../src/telemetry/setup.ts';
import { workflowInterceptorModules, workflowsPath } from '../src/worker/index.ts';
import { decideUpdate, pendingQuery } from '../src/workflows/mission/messages.ts';
import { ping, repeatingModel } from './agents/mission-agents.ts';
import { type BenchRow, medianMs } from './types.ts';

/** passes of the mission (BENCH_AUDIT_PASSES for a quicker look) */
export const AUDIT_PASSES = Number(process.env.BENCH_AUDIT_PASSES ?? 500);
/** a continue-as-new every few dozen passes */
const CAN_EVENTS = 400;

let next = 0;
/** Starts the counter's numbers again at 1, for the next mission. */
export const resetCounter = (): void => {
  next = 0;
};
const nextNumber = defineTool({
  name: 'next_number',
  description: 'The next number of a counter.',
  input: z.object({}),
  output: z.object({ n: z.number() }),
  sideEffect: 'local',
  handler: () => ({ n: ++next }),
});

export const counterProgram = `
(let [n (:n (tool/next_number {}))
      go (str "go_" n)]
  (task (str "work_" n) {:n n :square (* n n)})
  (when (= 0 (mod n 10))
    (task (str "ping_" n) (tool/ping {:i n})))
  (step-done "work" (str "did " n))
  (if (>= n data/passes)
    (return {:passes n})
    (task go (return {:status :waiting :decision go}))))`;

export const counter = defineAgent({
  name: 'bench-audit-counter',
  prompt: 'Count to {{passes}}, one pass each, waiting for a go after each.',
  input: z.object({ passes: z.number().int().positive() }),
  output: z.object({ passes: z.number() }),
  tools: [nextNumber, ping],
  limits: { maxTurns: 2 },
});

/** Sends go_N as soon as the mission waits for it, until it ends; `times` gets each pass's time. */
export async function drive(handle: WorkflowHandle, passes: number, times?: number[]): Promise<void> {
  let last = performance.now();
  for (let k = 1; k < passes; k++) {
    for (;;) {
      const pending = await handle.query(pendingQuery);
      if (pending?.key === `go_${k}`) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    // the time of pass k: from the decision that let it start to the mission waiting again
    const now = performance.now();
    times?.push(now - last);
    last = now;
    await handle.executeUpdate(decideUpdate, { args: [{ key: `go_${k}`, value: 'go' }] });
  }
}

export async function benchAudit(): Promise<BenchRow[]> {
  const env = await createTestEnv({
    workflowsPath,
    workflowInterceptorModules,
    worker: { sinks: silentSpanSinks },
    startWorker: false,
  });
  const entry: RegisteredAgent = { agent: counter as unknown as Agent, model: repeatingModel(counterProgram) };
  const agents: AgentRegistry = new Map([[counter.name, entry]]);
  const worker = await env.createWorker({
    activities: createActivities({ agents, client: env.client, heartbeatEveryMs: 500 }),
  });
  const running = worker.run();
  try {
    resetCounter();
    const t0 = performance.now();
    const handle = await env.client.workflow.start('navigatorMission', {
      taskQueue: env.taskQueue,
      workflowId: `bench-audit-${Date.now()}`,
      args: [
        { agent: counter.name, input: { passes: AUDIT_PASSES }, options: { continueAsNewAfterEvents: CAN_EVENTS } },
      ],
    });
    await drive(handle, AUDIT_PASSES);
    const outcome = JSON.stringify(await handle.result());
    const runMs = performance.now() - t0;
    let report = await auditMission(env.client, handle.workflowId, { workflowBundle: env.bundle });
    const auditMs = await medianMs(
      async () => (report = await auditMission(env.client, handle.workflowId, { workflowBundle: env.bundle })),
      3,
      0,
    );
    const chain = await fetchChain(env.client, handle.workflowId);
    // BENCH_AUDIT_SAVE=FILE keeps the chain, for `navigator audit --history FILE`
    if (process.env.BENCH_AUDIT_SAVE)
      writeFileSync(process.env.BENCH_AUDIT_SAVE, `[${chain.map((r) => historyToJSON(r.history)).join(',')}]`);
    const events = chain.reduce((n, r) => n + (r.history.events?.length ?? 0), 0);
    const valuesMs = await medianMs(() => auditChain(chain, null, { skipReplay: true }), 3, 1);
    const replayed = report.valueReplay.passes.filter((p) => p.status === 'ok').length;
    const verdict = report.ok
      ? 'audit passed'
      : `AUDIT FAILED: ${[...report.problems, ...report.values.mismatches.map((m) => m.message), ...report.valueReplay.mismatches.map((m) => m.message)].slice(0, 3).join('; ')}`;
    return [
      {
        name: `audit of a ${AUDIT_PASSES}-pass mission under continue-as-new`,
        median_ms: auditMs,
        note:
          `${verdict}; ${report.runs.length} runs, ${events} events; ${report.values.checked} value links checked, ${replayed}/${report.valueReplay.passes.length} passes re-derived by value replay; ` +
          `online: fetch, journal query, rebuild, links, value replay, workflow replay of every run; the run itself took ${(runMs / 1000).toFixed(1)} s (${outcome})`,
      },
      {
        name: `  value checks only (links + value replay), same history`,
        median_ms: valuesMs,
        note: 'offline on the fetched chain, workflow replay skipped',
      },
    ];
  } finally {
    worker.shutdown();
    await running;
    await env.shutdown();
  }
}
