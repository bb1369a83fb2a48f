/**
 * `npm run bench -- history-reads`: reading a finished mission and a finished plan from
 * their histories, with no worker running (issue 44). The mission is the audit bench's
 * counter (bench/audit.ts): N passes (BENCH_READ_PASSES, default 500), here in ONE run (no
 * continue-as-new), the worst case for a read (a continued mission's reads replay only its
 * latest run); the plan has BENCH_READ_PLAN_STEPS (default 50) steps, each after the one
 * before. The worker is shut down before anything is read.
 *
 * Where a read's time goes, in this process: fetching the history, decoding its payloads
 * (the payload store's references resolved), the workflow bundle from the cache (checked
 * against its files, src/devserver/bundle-cache.ts), building the replay worker, the replay
 * that answers every query; then a read the reader has, the overview, the online audit.
 * Then every CLI read as a user types it, a process each (start-up included, shown beside
 * `navigator --help`): status, journal, ledger, progress, history and audit of the mission,
 * plan show, plan ledger and plan audit of the plan (BENCH_READ_CLI_RUNS each, default 1,
 * the median kept), each against the issue's 5 s (BENCH_READ_BOUND_MS); and `status` of a
 * mission left waiting, which must exit 1 saying no worker polls within 10 s. Each row is printed
 * as it is measured. On the real server with NAVIGATOR_TEST_SERVER=temporal (and
 * NAVIGATOR_TEMPORAL_CLI). BENCH_READ_SAVE=FILE keeps the mission's history (`navigator
 * audit --history FILE`).
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { z } from 'zod';
import { createActivities } from '../src/activities/index.ts';
import type { AgentRegistry, RegisteredAgent } from '../src/activities/agents.ts';
import { auditMission } from '../src/audit/mission/audit.ts';
import { getMission } from '../src/client/mission/client.ts';
import { startPlan } from '../src/client/plan/client.ts';
import { decodePayloads } from '../src/codec/history.ts';
import { createTestEnv, testServerKind } from '../src/devserver/testing.ts';
import { RunReader } from '../src/history/reader.ts';
import { closeReadReplayer, readOut, readReplayer, readerBundle } from '../src/history/replay.ts';
import { createScriptedModel } from '../src/llm/index.ts';
import { type Agent, defineAgent, defineTool } from '../src/navigator/index.ts';
import { silentSpanSinks } from '../src/telemetry/setup.ts';
import { pendingQuery } from '../src/workflows/mission/messages.ts';
import { workflowInterceptorModules, workflowsPath } from '../src/worker/index.ts';
import { counter, counterProgram, drive, resetCounter } from './audit.ts';
import { repeatingModel } from './agents/mission-agents.ts';
import { type BenchRow, medianMs } from './types.ts';

const PASSES = Number(process.env.BENCH_READ_PASSES ?? 500);
const PLAN_STEPS = Number(process.env.BENCH_READ_PLAN_STEPS ?? 50);
const CLI_RUNS = Number(process.env.BENCH_READ_CLI_RUNS ?? 1);
const BOUND_MS = Number(process.env.BENCH_READ_BOUND_MS ?? 5000);
/**
 * BENCH_READ_CLI=dist: the CLI as the installed package runs it, compiled JavaScript under
 * plain node (`node scripts/build-package.mjs` first); by default bin/navigator.mjs, which in
 * this repository runs the sources through tsx (about 1 s more start-up per process).
 */
const CLI_ENTRY = process.env.BENCH_READ_CLI === 'dist' ? 'dist/cli.js' : 'bin/navigator.mjs';

const tick = defineTool({
  name: 'tick',
  description: 'Returns its n.',
  input: z.object({ n: z.number() }),
  sideEffect: 'read_only',
  handler: ({ n }) => ({ n }),
});
const planAgent = defineAgent({
  name: 'bench-read-plans',
  prompt: 'bench',
  input: z.object({}),
  output: z.unknown(),
  tools: [tick],
});

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchHistoryReads(): Promise<BenchRow[]> {
  const env = await createTestEnv({
    workflowsPath,
    workflowInterceptorModules,
    worker: { sinks: silentSpanSinks },
    startWorker: false,
  });
  const entry: RegisteredAgent = { agent: counter as unknown as Agent, model: repeatingModel(counterProgram) };
  const agents: AgentRegistry = new Map([
    [counter.name, entry],
    [planAgent.name, { agent: planAgent as unknown as Agent, model: () => createScriptedModel([]) }],
  ]);
  const worker = await env.createWorker({
    activities: createActivities({ agents, client: env.client, heartbeatEveryMs: 500 }),
  });
  const running = worker.run();
  let workerDone = false;
  const server = testServerKind();
  const rows: BenchRow[] = [];
  const row = (r: BenchRow) => {
    rows.push(r);
    console.log(
      `history-reads (${server}): ${r.name.trim()}: ${Math.round(r.median_ms)} ms${r.note ? ` (${r.note})` : ''}${r.failed ? ` FAILED: ${r.failed}` : ''}`,
    );
  };
  try {
    resetCounter();
    const handle = await env.client.workflow.start('navigatorMission', {
      taskQueue: env.taskQueue,
      workflowId: `bench-read-${Date.now()}`,
      args: [{ agent: counter.name, input: { passes: PASSES }, options: { continueAsNewAfterEvents: 1_000_000 } }],
    });
    await drive(handle, PASSES);
    await handle.result();
    const steps = Array.from({ length: PLAN_STEPS }, (_, i) => ({
      id: `s${i}`,
      description: `step ${i}`,
      tool: 'tick',
      args: { n: i },
      dependsOn: i ? [`s${i - 1}`] : [],
    }));
    const plan = await startPlan(env.client, {
      agent: planAgent.name,
      approve: true,
      document: { steps },
      id: `bench-read-plan-${Date.now()}`,
      taskQueue: env.taskQueue,
    });
    await plan.result();
    // and one left waiting for a person, for the answer that no worker polls
    const open = await env.client.workflow.start('navigatorMission', {
      taskQueue: env.taskQueue,
      workflowId: `bench-read-open-${Date.now()}`,
      args: [{ agent: counter.name, input: { passes: 1_000_000 }, options: { continueAsNewAfterEvents: 1_000_000 } }],
    });
    while (!(await open.query(pendingQuery))) await new Promise((r) => setTimeout(r, 10));
    // every read below is without a worker
    worker.shutdown();
    await running;
    workerDone = true;
    const id = handle.workflowId;
    const saved = await handle.fetchHistory();
    const events = saved.events?.length ?? 0;
    const bytes = Buffer.byteLength(JSON.stringify(historyToJSON(saved)));
    if (process.env.BENCH_READ_SAVE) writeFileSync(process.env.BENCH_READ_SAVE, historyToJSON(saved));
    const note = `${PASSES} passes in one run, ${events} events, ${(bytes / 1024 / 1024).toFixed(1)} MB of history as JSON; no worker; ${server} server`;

    // where a read's time goes (a reader does these once per run and history length)
    const codecs = env.client.options.loadedDataConverter.payloadCodecs;
    await closeReadReplayer();
    const bundleMs = await medianMs(() => readerBundle(), 3, 0);
    const fetch: number[] = [];
    const decode: number[] = [];
    const replay: number[] = [];
    let build = 0;
    for (let i = 0; i < 4; i++) {
      let t = performance.now();
      const history = await env.client.workflow.getHandle(id).fetchHistory();
      fetch.push(performance.now() - t);
      t = performance.now();
      await decodePayloads(history, codecs);
      decode.push(performance.now() - t);
      t = performance.now();
      if (i === 0) await readReplayer();
      const out = await readOut(id, history);
      if (i === 0) build = performance.now() - t;
      else replay.push(performance.now() - t);
      if ((out.answers.status as { ok?: { passes?: number } } | undefined)?.ok?.passes !== PASSES)
        throw new Error('the read status does not have every pass');
    }
    row({ name: `read a ${PASSES}-pass mission: fetch its history`, median_ms: median(fetch), note });
    row({ name: '  decode its payloads (payload store)', median_ms: median(decode) });
    row({ name: '  the reader bundle from the cache (its files checked)', median_ms: bundleMs });
    row({ name: '  replay worker built + first replay (every query answered)', median_ms: build });
    row({ name: '  replay, worker up (every query answered)', median_ms: median(replay) });

    await closeReadReplayer();
    const t = performance.now();
    await new RunReader(env.client.workflow).fromHistory(id);
    row({ name: '  first read of the process (all of the above)', median_ms: performance.now() - t });
    row({
      name: '  read again, another reader (fetch, decode, replay)',
      median_ms: await medianMs(() => new RunReader(env.client.workflow).fromHistory(id), 3, 0),
    });
    const cachedReader = new RunReader(env.client.workflow);
    await cachedReader.fromHistory(id);
    row({
      name: '  read the reader has (describe only)',
      median_ms: await medianMs(() => cachedReader.fromHistory(id), 5, 0),
      note: 'same run id and history length',
    });
    const mission = getMission(env.client, id);
    row({
      name: '  overview (status, journal, ledger, progress, summaries, decisions)',
      median_ms: await medianMs(() => mission.overview(), 5, 1),
      note: 'the client, its reader warm',
    });
    let ok = false;
    row({
      name: '  online audit, same mission',
      median_ms: await medianMs(
        // as the CLI audits: the process's read replayer, the latest run replayed once
        async () => (ok = (await auditMission(env.client, id)).ok),
        1,
        0,
      ),
      note: ok ? 'audit passed' : 'AUDIT FAILED',
    });
    await closeReadReplayer();

    // as a user runs them: a process each (CLI_ENTRY; the bundle from the cache)
    // (asynchronously: an embedded server answering them runs in this process)
    const cli = (...args: string[]) =>
      new Promise<number>((resolve, reject) => {
        const s = performance.now();
        execFile(
          process.execPath,
          [CLI_ENTRY, ...args],
          {
            env: { ...process.env, TEMPORAL_ADDRESS: env.server.address, TEMPORAL_NAMESPACE: env.server.namespace },
            maxBuffer: 64 * 1024 * 1024,
          },
          (err, _out, stderr) =>
            err
              ? reject(new Error(`navigator ${args.join(' ')} failed: ${err.message} ${stderr}`))
              : resolve(performance.now() - s),
        );
      });
    // a running mission: exit 1 and the answer that nobody polls (or, on a real server that
    // still lists the stopped worker, that it may have stopped just now), within 10 s
    const unanswered = await new Promise<{ ms: number; answer: string }>((resolve, reject) => {
      const s = performance.now();
      execFile(
        process.execPath,
        [CLI_ENTRY, 'status', open.workflowId],
        { env: { ...process.env, TEMPORAL_ADDRESS: env.server.address, TEMPORAL_NAMESPACE: env.server.namespace } },
        (err, _out, stderr) =>
          err?.code === 1
            ? resolve({
                ms: performance.now() - s,
                answer: /no worker is polling/.test(stderr)
                  ? 'no worker is polling'
                  : /may have stopped/.test(stderr)
                    ? 'may have stopped just now'
                    : stderr.trim().slice(0, 80),
              })
            : reject(
                new Error(
                  `navigator status of a running mission with no worker: expected exit 1, got ${err?.code ?? 0}: ${stderr}`,
                ),
              ),
      );
    });
    row({
      name: 'CLI: navigator status of a running mission, no worker',
      median_ms: unanswered.ms,
      note: `exit 1: ${unanswered.answer}`,
      ...(unanswered.ms > 10_000 ? { failed: 'over 10000 ms' } : {}),
    });
    const timed = async (...args: string[]) => {
      const times: number[] = [];
      for (let i = 0; i < CLI_RUNS; i++) times.push(await cli(...args));
      return median(times);
    };
    const help = await timed('--help');
    row({ name: 'CLI: navigator --help (a process: start-up alone)', median_ms: help, note: CLI_ENTRY });
    const commands = [
      ['status', id],
      ['journal', id],
      ['ledger', id],
      ['progress', id],
      ['history', id],
      ['audit', id],
      ['plan', 'show', plan.id],
      ['plan', 'ledger', plan.id],
      ['plan', 'audit', plan.id],
    ];
    for (const args of commands) {
      const ms = await timed(...args);
      const what =
        args[0] === 'plan'
          ? `plan ${args[1]} of a ${PLAN_STEPS}-step plan`
          : `${args[0]} of the ${PASSES}-pass mission`;
      row({
        name: `CLI: navigator ${what}`,
        median_ms: ms,
        note: `exit 0; ${Math.round(ms - help)} ms past start-up`,
        ...(ms > BOUND_MS ? { failed: `over ${BOUND_MS} ms` } : {}),
      });
    }
    return rows;
  } finally {
    if (!workerDone) {
      worker.shutdown();
      await running;
    }
    await closeReadReplayer();
    await env.shutdown();
  }
}
