/**
 * `npm run bench -- history-reads`: reading a finished mission from its history, with no
 * worker running (issue 44). The mission is the audit bench's counter (bench/audit.ts): N
 * passes (BENCH_READ_PASSES, default 500), here in ONE run (no continue-as-new), the
 * worst case for a read (a continued mission's reads replay only its latest run). Its
 * worker is shut down before anything is read.
 *
 * Rows: the first read of the process (bundle loaded, replay worker built, history fetched,
 * decoded, replayed), a read of another reader with the replay worker up (fetch + decode +
 * replay), a read the reader has (describe only), every query's answer of the overview, the
 * online audit, and the CLI's `navigator status ID` / `navigator journal ID` as a user runs
 * them (a process each: its start-up included, shown beside `navigator --help`).
 * BENCH_READ_SAVE=FILE keeps the history (`navigator audit --history FILE`).
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { createActivities } from '../src/activities/index.ts';
import type { AgentRegistry, RegisteredAgent } from '../src/activities/agents.ts';
import { auditMission } from '../src/audit/mission/audit.ts';
import { getMission } from '../src/client/mission/client.ts';
import { createTestEnv } from '../src/devserver/testing.ts';
import { RunReader } from '../src/history/reader.ts';
import { closeReadReplayer, readReplayer, readerBundle } from '../src/history/replay.ts';
import type { Agent } from '../src/navigator/index.ts';
import { silentSpanSinks } from '../src/telemetry/setup.ts';
import { workflowInterceptorModules, workflowsPath } from '../src/worker/index.ts';
import { counter, counterProgram, drive, resetCounter } from './audit.ts';
import { repeatingModel } from './agents/mission-agents.ts';
import { type BenchRow, medianMs } from './types.ts';

const PASSES = Number(process.env.BENCH_READ_PASSES ?? 500);

export async function benchHistoryReads(): Promise<BenchRow[]> {
  const env = await createTestEnv({ workflowsPath, workflowInterceptorModules, worker: { sinks: silentSpanSinks }, startWorker: false });
  const entry: RegisteredAgent = { agent: counter as unknown as Agent, model: repeatingModel(counterProgram) };
  const agents: AgentRegistry = new Map([[counter.name, entry]]);
  const worker = await env.createWorker({ activities: createActivities({ agents, client: env.client, heartbeatEveryMs: 500 }) });
  const running = worker.run();
  let workerDone = false;
  try {
    resetCounter();
    const handle = await env.client.workflow.start('navigatorMission', {
      taskQueue: env.taskQueue,
      workflowId: `bench-read-${Date.now()}`,
      args: [{ agent: counter.name, input: { passes: PASSES }, options: { continueAsNewAfterEvents: 1_000_000 } }],
    });
    await drive(handle, PASSES);
    await handle.result();
    // every read below is without a worker
    worker.shutdown();
    await running;
    workerDone = true;
    const id = handle.workflowId;
    const history = await handle.fetchHistory();
    const events = history.events?.length ?? 0;
    const bytes = Buffer.byteLength(JSON.stringify(historyToJSON(history)));
    if (process.env.BENCH_READ_SAVE) writeFileSync(process.env.BENCH_READ_SAVE, historyToJSON(history));

    await closeReadReplayer();
    let t = performance.now();
    const first = await new RunReader(env.client.workflow).fromHistory(id);
    const firstMs = performance.now() - t;
    if (first.answers.status && 'ok' in first.answers.status && (first.answers.status.ok as { passes: number }).passes !== PASSES) throw new Error('the read status does not have every pass');
    const replayerUp = await medianMs(() => new RunReader(env.client.workflow).fromHistory(id), 3, 0);
    const cachedReader = new RunReader(env.client.workflow);
    await cachedReader.fromHistory(id);
    const cached = await medianMs(() => cachedReader.fromHistory(id), 5, 0);
    const mission = getMission(env.client, id);
    const overview = await medianMs(() => mission.overview(), 5, 1);
    const [workflowBundle, replayer] = await Promise.all([readerBundle(), readReplayer()]);
    let ok = false;
    const audit = await medianMs(async () => (ok = (await auditMission(env.client, id, { workflowBundle, replayer })).ok), 3, 0);

    // as a user runs them: a process each (tsx from the sources; bundle from the cache)
    // (asynchronously: the embedded server answering them runs in this process)
    const cli = (...args: string[]) =>
      new Promise<number>((resolve, reject) => {
        const s = performance.now();
        execFile(process.execPath, ['bin/navigator.mjs', ...args], { env: { ...process.env, TEMPORAL_ADDRESS: env.server.address, TEMPORAL_NAMESPACE: env.server.namespace }, maxBuffer: 64 * 1024 * 1024 }, (err, _out, stderr) =>
          err ? reject(new Error(`navigator ${args.join(' ')} failed: ${err.message} ${stderr}`)) : resolve(performance.now() - s),
        );
      });
    const median3 = async (...args: string[]) => [await cli(...args), await cli(...args), await cli(...args)].sort((a, b) => a - b)[1]!;
    const help = await median3('--help');
    const status = await median3('status', id);
    const journal = await median3('journal', id);
    const note = `${PASSES} passes in one run, ${events} events, ${(bytes / 1024 / 1024).toFixed(1)} MB of history as JSON; no worker`;
    return [
      { name: `first read of a ${PASSES}-pass mission (bundle, replay worker, fetch, decode, replay)`, median_ms: firstMs, note },
      { name: '  read again, replay worker up (fetch, decode, replay)', median_ms: replayerUp, note: 'another reader: nothing cached' },
      { name: '  read the reader has (describe only)', median_ms: cached, note: 'same run id and history length' },
      { name: '  overview (status, journal, ledger, progress, summaries, decisions)', median_ms: overview, note: 'the client, its reader warm' },
      { name: '  online audit, same mission', median_ms: audit, note: ok ? 'audit passed' : 'AUDIT FAILED' },
      { name: '  CLI: navigator status ID (a process)', median_ms: status, note: `exit 0; navigator --help takes ${Math.round(help)} ms here` },
      { name: '  CLI: navigator journal ID (a process)', median_ms: journal, note: 'exit 0' },
    ];
  } finally {
    if (!workerDone) {
      worker.shutdown();
      await running;
    }
    await closeReadReplayer();
    await env.shutdown();
  }
}
