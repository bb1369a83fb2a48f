/**
 * Mission benchmarks, in one run on the embedded dev server with one in-process worker
 * (client, worker and server share this process and its cores) and scripted models:
 *  1. Temporal overhead per pass: a one-pass mission (start → result) vs the same pass
 *     in library mode (runNavigator);
 *  2. overhead per effect: a pass with N external effects, N = 1 and 10, both ways;
 *  3. history bytes per pass with an initial journal of 10, 100 and 1,000 entries
 *     (protobuf-encoded size of the events each pass adds), and of one pass of a 4 KB
 *     program with 0, 1 and 3 sequential external effects;
 *  4. one mission of 500 passes under continue-as-new, audited at the end;
 *  5. 200 concurrent missions waiting for a decision on one worker; then the memory a waiting
 *     mission costs a worker, measured on a worker in a process of its own against a bound
 *     (bench/capacity.ts: a figure past it fails the run).
 * Every part is bounded by a timeout; a part that fails or runs out of time reports
 * what it got in its row instead of stopping the suite.
 */
import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import proto from '@temporalio/proto';
import type { temporal } from '@temporalio/proto';
import { createTestEnv, testServerKind, type TestEnv } from '../src/devserver/testing.ts';
import { type Lane, waitingMemory } from './capacity.ts';
import { createActivities } from '../src/activities/index.ts';
import type { AgentRegistry } from '../src/activities/agents.ts';
import { auditMission } from '../src/audit/mission/audit.ts';
import { runNavigator } from '../src/navigator/index.ts';
import { workflowInterceptorModules, workflowsPath } from '../src/worker/index.ts';
import { silentSpanSinks } from '../src/telemetry/setup.ts';
import type { Json, MissionInput, StatusView } from '../src/workflows/mission/contract.ts';
import { cancelUpdate, decideUpdate, statusQuery } from '../src/workflows/mission/messages.ts';
import { benchAgents, effects, onePass } from './agents/mission-agents.ts';
import { type BenchRow, medianMs } from './types.ts';
import { historySize, passEvents } from './pass-history.ts';

const JOURNAL_SIZES = [10, 100, 1000];
/** passes measured per journal size (after the first, which also describes the agent) */
const MEASURED_PASSES = 6;
const LONG_PASSES = 500;
/** small enough for a continue-as-new every few dozen passes */
const LONG_CAN_EVENTS = 400;
const LONG_TIMEOUT_MS = 240_000;
const PARKED = 200;
const PART_TIMEOUT_MS = 120_000;
/** status polling of the parked missions (each query is a round trip to the worker) */
const PARKED_POLL_MS = 200;

const History = proto.temporal.api.history.v1.History;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function bounded<T>(what: string, ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A full GC when the runtime lets us ask for one (heap figures are then comparable). */
const gc: () => void = (() => {
  try {
    setFlagsFromString('--expose-gc');
    const fn = runInNewContext('gc') as () => void;
    return fn;
  } catch {
    return () => undefined;
  }
})();

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const errorRow = (name: string, err: unknown): BenchRow => ({
  name,
  median_ms: NaN,
  note: `FAILED: ${(err as Error).message}`,
});

interface Ctx {
  env: TestEnv;
  client: Client;
  start(input: MissionInput, workflowId?: string): Promise<WorkflowHandle>;
  execute(input: MissionInput): Promise<Json>;
}

export async function benchMission(): Promise<BenchRow[]> {
  try {
    // Cancelled missions fail on purpose (part 5): keep their WARN lines out of the table.
    // When another suite already installed the runtime, its logger stays.
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // already installed
  }
  // the shipped workflow code: the tracing interceptors are always bundled (src/telemetry/setup.ts)
  const env = await createTestEnv({
    workflowsPath,
    workflowInterceptorModules,
    worker: { sinks: silentSpanSinks },
    startWorker: false,
  });
  const agents: AgentRegistry = new Map(benchAgents.map((e) => [e.agent.name, e]));
  // Enough cache for every parked mission of part 5 to stay in memory.
  const worker = await env.createWorker({
    activities: createActivities({ agents, client: env.client }),
    maxCachedWorkflows: 1000,
  });
  const running = worker.run();
  let seq = 0;
  const ctx: Ctx = {
    env,
    client: env.client,
    async start(input, workflowId = `bench-${++seq}-${randomUUID().slice(0, 8)}`) {
      await env.client.workflow.start('navigatorMission', { taskQueue: env.taskQueue, workflowId, args: [input] });
      return env.client.workflow.getHandle(workflowId);
    },
    async execute(input) {
      const handle = await ctx.start(input);
      return (await handle.result()) as Json;
    },
  };
  const rows: BenchRow[] = [];
  try {
    rows.push(
      ...(await bounded('pass overhead', PART_TIMEOUT_MS, passOverhead(ctx)).catch((e) => [
        errorRow('pass overhead', e),
      ])),
    );
    rows.push(
      ...(await bounded('history bytes', PART_TIMEOUT_MS, historyBytes(ctx)).catch((e) => [
        errorRow('history bytes per pass', e),
      ])),
    );
    rows.push(
      ...(await bounded('history bytes per effect', PART_TIMEOUT_MS, effectHistoryBytes(ctx)).catch((e) => [
        errorRow('history bytes per effect', e),
      ])),
    );
    rows.push(...(await longMission(ctx).catch((e) => [errorRow(`${LONG_PASSES}-pass mission`, e)])));
    rows.push(
      ...(await bounded('parked missions', PART_TIMEOUT_MS, parkedMissions(ctx)).catch((e) => [
        errorRow(`${PARKED} waiting missions`, e),
      ])),
    );
    const lane: Lane = {
      kind: testServerKind() === 'embedded' ? 'embedded' : 'temporal start-dev',
      address: env.server.address,
      namespace: env.server.namespace,
      client: env.client,
    };
    rows.push(
      ...(await bounded('waiting memory', 600_000, waitingMemory(lane)).catch((e) => [
        { ...errorRow('waiting missions: memory per mission', e), failed: `not measured: ${(e as Error).message}` },
      ])),
    );
  } finally {
    worker.shutdown();
    await running.catch(() => undefined);
    await env.shutdown();
  }
  return rows;
}

// ---------------------------------------------------------------- 1 and 2

async function passOverhead(ctx: Ctx): Promise<BenchRow[]> {
  const lib1 = await medianMs(() => runNavigator(onePass, { input: {}, model: model('bench-one-pass') }), 50, 10);
  const wf1 = await medianMs(() => ctx.execute({ agent: 'bench-one-pass' }), 30, 5);
  const rows: BenchRow[] = [
    {
      name: 'one-pass mission (dev server) vs runNavigator',
      median_ms: wf1,
      baseline_ms: lib1,
      ratio: wf1 / lib1,
      note: `Temporal overhead ${(wf1 - lib1).toFixed(1)} ms/pass: start, describeAgent + runPass activities (pass reads journal by query), result`,
    },
  ];
  const perN = new Map<number, { wf: number; lib: number }>();
  for (const n of [1, 10]) {
    const lib = await medianMs(
      () => runNavigator(effects, { input: { n }, model: model('bench-effects'), effects: 'suspend' }),
      30,
      5,
    );
    const wf = await medianMs(() => ctx.execute({ agent: 'bench-effects', input: { n } }), 25, 3);
    perN.set(n, { wf, lib });
    rows.push({
      name: `pass with ${n} external effect${n > 1 ? 's' : ''} vs runNavigator (suspend)`,
      median_ms: wf,
      baseline_ms: lib,
      ratio: wf / lib,
      note: `${n} runTool activit${n > 1 ? 'ies in parallel' : 'y'} + 1 resume runPass activity; ${((wf - wf1) / n).toFixed(1)} ms/effect over the no-effect mission`,
    });
  }
  const a = perN.get(1)!;
  const b = perN.get(10)!;
  const wfPer = (b.wf - a.wf) / 9;
  const libPer = (b.lib - a.lib) / 9;
  rows.push({
    name: 'marginal cost of one more effect (10 vs 1)',
    median_ms: wfPer,
    baseline_ms: libPer,
    ratio: libPer > 0 ? wfPer / libPer : undefined,
    note: `dev server ${wfPer.toFixed(2)} ms vs library ${libPer.toFixed(3)} ms per effect; first effect adds ${(a.wf - wf1).toFixed(1)} ms (runTool + resume pass)`,
  });
  return rows;
}

function model(name: string) {
  return benchAgents.find((e) => e.agent.name === name)!.model();
}

// ---------------------------------------------------------------- 3

/** Polls the status query until the mission waits for `key` (or ends). */
export async function waitFor(handle: WorkflowHandle, key: string, timeoutMs = 60_000): Promise<StatusView> {
  const deadline = Date.now() + timeoutMs;
  let last: StatusView | null;
  for (;;) {
    last = await handle.query(statusQuery).catch(() => null);
    if (last && last.status === 'waiting' && last.pending?.key === key) return last;
    if (last && ['completed', 'failed', 'cancelled', 'budget_exhausted'].includes(last.status)) {
      throw new Error(`${handle.workflowId} ended (${last.status}: ${last.error ?? ''}) before waiting for ${key}`);
    }
    if (Date.now() > deadline)
      throw new Error(`${handle.workflowId} never waited for ${key}; last: ${JSON.stringify(last)?.slice(0, 300)}`);
    await sleep(5);
  }
}

async function events(handle: WorkflowHandle): Promise<HistoryEvent[]> {
  return (await handle.fetchHistory()).events ?? [];
}

const encodedSize = (evs: HistoryEvent[]) => History.encode({ events: evs }).finish().length;

const millis = (e: HistoryEvent) => Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;

/** scheduled → completed of the runPass activities among `evs`, in ms (event times). */
function runPassSpans(evs: HistoryEvent[]): number[] {
  const scheduled = new Map<number, number>();
  const spans: number[] = [];
  for (const e of evs) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s?.activityType?.name === 'runPass') scheduled.set(Number(e.eventId), millis(e));
    const c = e.activityTaskCompletedEventAttributes;
    const at = c ? scheduled.get(Number(c.scheduledEventId)) : undefined;
    if (at !== undefined) spans.push(millis(e) - at);
  }
  return spans;
}

async function historyBytes(ctx: Ctx): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  let first: number | undefined;
  for (const size of JOURNAL_SIZES) {
    const journal: Array<[string, Json]> = Array.from({ length: size }, (_, i) => [
      `seed_${String(i).padStart(4, '0')}`,
      { i, note: `seed entry ${i}`, ok: true },
    ]);
    const handle = await ctx.start({ agent: 'bench-stepper', input: { n: MEASURED_PASSES + 10 }, journal });
    await waitFor(handle, 'step_1');
    let before = await events(handle);
    const startedBytes = encodedSize(before.slice(0, 1));
    const bytes: number[] = [];
    const counts: number[] = [];
    const passMs: number[] = [];
    const activityMs: number[] = [];
    for (let k = 1; k <= MEASURED_PASSES; k++) {
      const t = performance.now();
      await handle.executeUpdate(decideUpdate, { args: [{ key: `step_${k}`, value: 'go' }] });
      await waitFor(handle, `step_${k + 1}`);
      passMs.push(performance.now() - t);
      const after = await events(handle);
      const added = after.slice(before.length);
      bytes.push(encodedSize(added));
      counts.push(added.length);
      activityMs.push(...runPassSpans(added));
      before = after;
    }
    await handle.executeUpdate(cancelUpdate, { args: [{ reason: 'bench done' }] });
    await handle.result().catch(() => undefined);
    const perPass = median(bytes);
    first ??= perPass;
    const growth = perPass / first;
    const verdict =
      size === JOURNAL_SIZES[0]
        ? 'baseline for the ratio column'
        : growth < 1.1
          ? 'flat: target met'
          : 'GROWS with the journal: target missed';
    rows.push({
      name: `history bytes per pass, journal of ${size}`,
      median_ms: median(passMs),
      ratio: growth,
      note:
        `${perPass} B/pass (${verdict}; protobuf History.encode of the events one pass adds, decide update included; min ${Math.min(...bytes)}, max ${Math.max(...bytes)}); ` +
        `${median(counts)} events/pass; runPass activity ${median(activityMs).toFixed(1)} ms; start event ${startedBytes} B carries the initial journal once`,
    });
  }
  return rows;
}

/**
 * History of a one-pass mission of a 4 KB program with N sequential effects: `passBytes`
 * from the pass's first runPass scheduled event to its last runPass completed event (the
 * pass itself, its effects and their workflow tasks), `bytes` every event after the start.
 */
export async function passHistoryBytes(
  start: Ctx['start'],
  n: number,
): Promise<{ bytes: number; passBytes: number; events: number }> {
  const handle = await start({ agent: 'bench-sequential', input: { n } });
  await handle.result();
  const evs = ((await handle.fetchHistory()).events ?? []).slice(1);
  return { bytes: historySize(evs), passBytes: historySize(passEvents(evs).events), events: evs.length };
}

async function effectHistoryBytes(ctx: Ctx): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  let base: number | undefined;
  for (const n of [0, 1, 3]) {
    const t = performance.now();
    const got = await passHistoryBytes(ctx.start, n);
    base ??= got.passBytes;
    const kb = (b: number) => `${(b / 1024).toFixed(1)} KB`;
    rows.push({
      name: `history bytes of a pass with ${n} sequential effect${n === 1 ? '' : 's'} (4 KB program)`,
      median_ms: performance.now() - t,
      ratio: got.passBytes / base,
      note:
        `${kb(got.passBytes)} from the pass's first runPass to its result (whole mission ${kb(got.bytes)}, ${got.events} events)` +
        (n === 3 ? `; goal under 12 KB: ${got.passBytes < 12 * 1024 ? 'met' : 'MISSED'}` : ''),
    });
  }
  return rows;
}

// ---------------------------------------------------------------- 4

async function longMission(ctx: Ctx): Promise<BenchRow[]> {
  const name = `${LONG_PASSES}-pass mission under continue-as-new`;
  const handle = await ctx.start({
    agent: 'bench-stepper',
    input: { n: LONG_PASSES },
    options: { continueAsNewAfterEvents: LONG_CAN_EVENTS, maxPasses: 5 },
  });
  const t0 = performance.now();
  const deadline = Date.now() + LONG_TIMEOUT_MS;
  const stamps: number[] = [];
  let reached = 0;
  let timedOut = false;
  for (let k = 1; k <= LONG_PASSES; k++) {
    if (Date.now() > deadline) {
      timedOut = true;
      break;
    }
    await waitFor(handle, `step_${k}`, Math.max(1000, deadline - Date.now()));
    reached = k;
    stamps.push(performance.now() - t0);
    await handle.executeUpdate(decideUpdate, { args: [{ key: `step_${k}`, value: 'go' }] });
  }
  let result: Json = null;
  if (!timedOut) result = (await bounded('final pass', 60_000, handle.result())) as Json;
  else {
    await handle.executeUpdate(cancelUpdate, { args: [{ reason: 'bench out of time' }] }).catch(() => undefined);
    await handle.result().catch(() => undefined);
  }
  const totalMs = performance.now() - t0;
  // passes completed: every wait reached is one pass, plus the final returning pass
  const passes = timedOut ? reached : reached + 1;
  const auditT = performance.now();
  const report = await bounded(
    'audit',
    120_000,
    auditMission(ctx.client, handle.workflowId, { workflowBundle: ctx.env.bundle }),
  );
  const auditMs = performance.now() - auditT;
  const runBytes = await Promise.all(
    report.runs.map(async (runId) =>
      encodedSize((await ctx.client.workflow.getHandle(handle.workflowId, runId).fetchHistory()).events ?? []),
    ),
  );
  const chainBytes = runBytes.reduce((a, b) => a + b, 0);
  const window = 50;
  const rate = (from: number, to: number) => ((to - from) / window).toFixed(1);
  const early = stamps.length > window + 1 ? rate(stamps[1]!, stamps[1 + window]!) : '?';
  const late = stamps.length > window + 1 ? rate(stamps[stamps.length - 1 - window]!, stamps[stamps.length - 1]!) : '?';
  const auditNote = report.ok
    ? `audit ok in ${auditMs.toFixed(0)} ms (${report.provenance.length} tasks traced, replay of ${report.runs.length} runs)`
    : `AUDIT FAILED: ${[...report.journal.differences, ...report.problems, ...report.replay.errors].slice(0, 3).join('; ')}`;
  return [
    {
      name: timedOut ? `${name}: OUT OF TIME after ${passes} passes` : name,
      median_ms: totalMs,
      note:
        `${passes} passes in ${(totalMs / 1000).toFixed(1)} s = ${((passes / totalMs) * 1000).toFixed(1)} passes/s ` +
        `(${(totalMs / passes).toFixed(1)} ms/pass incl. client poll + decide update); ` +
        `${report.runs.length} runs in the chain (continueAsNewAfterEvents ${LONG_CAN_EVENTS}), history ${(chainBytes / 1024).toFixed(0)} KB in all, largest run ${(Math.max(...runBytes) / 1024).toFixed(0)} KB; ` +
        `result ${JSON.stringify(result)}; ${auditNote}`,
    },
    {
      name: `${name}: ms/pass early vs late`,
      median_ms: Number(late),
      baseline_ms: Number(early),
      ratio: Number(late) / Number(early),
      note: `mean ms per pass over passes 2-${window + 1} (baseline) vs the last ${window}; the program re-walks all k steps and the journal grows to ${2 * passes} entries`,
    },
  ];
}

// ---------------------------------------------------------------- 5

async function parkedMissions(ctx: Ctx): Promise<BenchRow[]> {
  // warm the parked agent's path so first-use costs do not count
  const warm = await ctx.start({ agent: 'bench-parked' });
  await waitFor(warm, 'go_ahead');
  await warm.executeUpdate(decideUpdate, { args: [{ key: 'go_ahead', value: 'approved' }] });
  await warm.result();

  gc();
  const before = process.memoryUsage();
  const t0 = performance.now();
  const handles = await Promise.all(
    Array.from({ length: PARKED }, (_, i) => ctx.start({ agent: 'bench-parked', input: { id: i } })),
  );
  const startMs = performance.now() - t0;
  const waiting = new Set<number>();
  const deadline = Date.now() + 90_000;
  while (waiting.size < PARKED) {
    if (Date.now() > deadline) throw new Error(`only ${waiting.size}/${PARKED} missions reached waiting in 90 s`);
    const todo = handles.map((_, i) => i).filter((i) => !waiting.has(i));
    const seen = await Promise.all(todo.map((i) => handles[i]!.query(statusQuery).catch(() => null)));
    seen.forEach((s, j) => {
      if (s?.status === 'waiting') waiting.add(todo[j]!);
    });
    if (waiting.size < PARKED) await sleep(PARKED_POLL_MS);
  }
  const allWaitingMs = performance.now() - t0;
  gc();
  const after = process.memoryUsage();

  const t1 = performance.now();
  const half = PARKED / 2;
  await Promise.all(
    handles.map((h, i) =>
      i < half
        ? h.executeUpdate(decideUpdate, { args: [{ key: 'go_ahead', value: 'approved', by: 'bench' }] })
        : h.executeUpdate(cancelUpdate, { args: [{ reason: 'bench' }] }),
    ),
  );
  const outcomes = await Promise.all(
    handles.map((h) =>
      h.result().then(
        (v) => ((v as { decision?: string }).decision === 'approved' ? 'approved' : `unexpected ${JSON.stringify(v)}`),
        (e: Error & { cause?: { type?: string } }) =>
          e.cause?.type === 'MissionCancelled' ? 'cancelled' : `failed: ${e.message}`,
      ),
    ),
  );
  const finishMs = performance.now() - t1;
  gc();
  const finished = process.memoryUsage();
  const tally = new Map<string, number>();
  for (const o of outcomes) tally.set(o, (tally.get(o) ?? 0) + 1);
  const ok = tally.get('approved') === half && tally.get('cancelled') === PARKED - half;
  const perMission = (after.rss - before.rss) / PARKED;
  return [
    {
      name: `${PARKED} concurrent missions → all waiting, one worker`,
      median_ms: allWaitingMs,
      note:
        `${((PARKED / allWaitingMs) * 1000).toFixed(0)} missions/s to waiting (start + describeAgent + 1 pass each; starts took ${startMs.toFixed(0)} ms; status polled every ${PARKED_POLL_MS} ms); ` +
        `this process (embedded server, client and worker together) after GC: rss ${mb(before.rss)} → ${mb(after.rss)} (+${mb(after.rss - before.rss)}, ${(perMission / 1024).toFixed(0)} KB/mission: ` +
        `the server's state and ${PARKED} missions started at once included, not what a waiting mission costs a worker: see the rows below), ` +
        `heapUsed ${mb(before.heapUsed)} → ${mb(after.heapUsed)} (+${mb(after.heapUsed - before.heapUsed)}); all ${PARKED} stay cached (maxCachedWorkflows 1000)`,
    },
    {
      name: `${PARKED} waiting missions: approve ${half}, cancel ${PARKED - half} → all finished`,
      median_ms: finishMs,
      note: `${ok ? 'all finished as expected' : 'UNEXPECTED OUTCOMES'}: ${[...tally].map(([k, v]) => `${v} ${k}`).join(', ')}; rss after they finished ${mb(finished.rss)}, heapUsed ${mb(finished.heapUsed)}`,
    },
  ];
}
