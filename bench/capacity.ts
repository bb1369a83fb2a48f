/**
 * `npm run bench -- capacity`: what one worker holds and how fast workers go, on a real
 * `temporal server start-dev` when the Temporal CLI is there (`npm run temporal:build`),
 * else on the embedded server (`BENCH_CAPACITY_SERVER=embedded` asks for it).
 *
 *  1. Memory per waiting mission ({@link waitingMemory}, also in `npm run bench -- mission`):
 *     RSS of a worker process between two numbers of waiting missions, and the workflow
 *     heap per waiting mission (a `debugMode` worker runs its workflows in its main isolate,
 *     where the heap can be read), each against a bound: a figure past it fails the run.
 *  2. The sticky cache at 1,000 and 10,000 waiting missions (`BENCH_CAPACITY_SIZES`) on a
 *     worker with the SDK's default cache size: memory, how many stay cached, and the time
 *     from a decision to the mission's end for a cached mission and an evicted one (its
 *     history is fetched and replayed first).
 *  3. Three workers and 1,000 missions in flight (`BENCH_CAPACITY_INFLIGHT`), each three
 *     approved effects one after the other: passes per second, approval → effect running.
 *
 * Each worker runs in a process of its own (bench/capacity-worker.ts), so its RSS is the
 * worker's alone: the server and the client that starts the missions live elsewhere.
 * Waiting missions are `bench-parked`: start, describeAgent, one pass that ends waiting for
 * a decision; one counts as waiting once the worker completed its pass and has no workflow
 * activation in flight.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { startDevServer } from '../src/devserver/index.ts';
import { findTemporalCli, startTemporalDevServer } from '../src/temporal/cli-server.ts';
import { approveEffectUpdate, decideUpdate } from '../src/workflows/mission/messages.ts';
import type { CapacityWorkerConfig, MemReport, WorkerEvent } from './capacity-worker.ts';
import { percentiles } from './temporal-probe.ts';
import type { BenchRow } from './types.ts';

export interface WorkerCounts {
  passes: number;
  passContexts: { given: number; rebuilt: number; missed: number; kept: number };
  worker: { numCachedWorkflows: number; numInFlightWorkflowActivations: number; numInFlightActivities: number };
  maxCachedWorkflows?: number;
}

/** A worker process of the capacity bench. */
export class CapacityWorker {
  private nextId = 1;
  private readonly waiting = new Map<number, (body: unknown) => void>();
  private exited = false;
  /** what the worker tells (started with `notify`) */
  onEvent: (e: WorkerEvent) => void = () => undefined;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (msg: { id: number; body: unknown } | WorkerEvent) => {
      if ('event' in msg) return this.onEvent(msg);
      const resolve = this.waiting.get(msg.id);
      this.waiting.delete(msg.id);
      resolve?.(msg.body);
    });
    child.on('exit', () => {
      this.exited = true;
      for (const resolve of this.waiting.values()) resolve({ error: 'worker process exited' });
      this.waiting.clear();
    });
  }

  static async start(config: CapacityWorkerConfig, nodeArgs: string[] = []): Promise<CapacityWorker> {
    const child = fork(fileURLToPath(new URL('./capacity-worker.ts', import.meta.url)), [], {
      env: { ...process.env, CAPACITY_WORKER: JSON.stringify(config) },
      execArgv: ['--import', 'tsx', ...nodeArgs],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const w = new CapacityWorker(child);
    const ready = await w.answer(0, 300_000);
    if (ready !== 'ready') throw new Error(`capacity worker did not start: ${JSON.stringify(ready)}`);
    return w;
  }

  get pid(): number {
    return this.child.pid!;
  }

  mem(): Promise<MemReport> {
    return this.request('mem') as Promise<MemReport>;
  }

  counts(): Promise<WorkerCounts> {
    return this.request('counts') as Promise<WorkerCounts>;
  }

  snapshot(path: string): Promise<string> {
    return this.request('snapshot', { path }, 600_000) as Promise<string>;
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    await this.request('stop', {}, 30_000).catch(() => undefined);
    if (!this.exited) this.child.kill();
  }

  private async request(op: string, extra: object = {}, timeoutMs = 120_000): Promise<unknown> {
    if (this.exited) throw new Error('capacity worker has exited');
    const id = this.nextId++;
    const answer = this.answer(id, timeoutMs);
    this.child.send({ id, op, ...extra });
    const body = await answer;
    if (body && typeof body === 'object' && 'error' in body)
      throw new Error(`capacity worker ${op}: ${(body as { error: string }).error}`);
    return body;
  }

  private answer(id: number, timeoutMs: number): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`capacity worker: no answer to request ${id} in ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(id, (body) => {
        clearTimeout(timer);
        resolve(body);
      });
    });
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts `n` parked missions, `concurrency` starts at a time; their ids. */
export async function startParked(
  client: Client,
  taskQueue: string,
  n: number,
  concurrency = 50,
  prefix = `parked-${randomUUID().slice(0, 8)}`,
): Promise<string[]> {
  const ids = Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < ids.length) {
        const id = ids[next++]!;
        await client.workflow.start('navigatorMission', {
          taskQueue,
          workflowId: id,
          args: [{ agent: 'bench-parked', input: { id: 0 } }],
        });
      }
    }),
  );
  return ids;
}

/** Waits until the workers completed `passes` passes in all and have had no activation in flight for a moment. */
export async function waitForPasses(
  workers: CapacityWorker[],
  passes: number,
  timeoutMs: number,
): Promise<WorkerCounts[]> {
  const deadline = Date.now() + timeoutMs;
  let quiet = 0;
  for (;;) {
    const counts = await Promise.all(workers.map((w) => w.counts()));
    const done = counts.reduce((s, c) => s + c.passes, 0);
    const busy = counts.some((c) => c.worker.numInFlightWorkflowActivations > 0 || c.worker.numInFlightActivities > 0);
    quiet = done >= passes && !busy ? quiet + 1 : 0;
    if (quiet >= 3) return counts;
    if (Date.now() > deadline) throw new Error(`only ${done}/${passes} passes done in ${timeoutMs} ms`);
    await sleep(200);
  }
}

export const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const ms = (x: number) => (Number.isFinite(x) ? `${x.toFixed(0)} ms` : '-');

/** Where the capacity parts run: a server, a client of it, and a task queue per worker group. */
export interface Lane {
  kind: 'embedded' | 'temporal start-dev';
  address: string;
  namespace: string;
  client: Client;
}

/** The bounds the bench holds a waiting mission to (issue 42: 300 KB). */
export const WAITING_RSS_BOUND_KB = Number(process.env.BENCH_WAITING_RSS_KB ?? 300);
export const WAITING_HEAP_BOUND_KB = Number(process.env.BENCH_WAITING_HEAP_KB ?? 200);

/** `failed` when `value` is past `bound`. */
const bounded = (what: string, value: number, bound: number): Pick<BenchRow, 'failed'> =>
  value > bound ? { failed: `${what} ${value.toFixed(0)} KB is over the bound of ${bound} KB` } : {};

/**
 * Memory per waiting mission, two ways, each against its bound:
 *  - RSS of a worker (its own process, the shipped configuration) between `warm` and
 *    `warm + measured` waiting missions: what one more waiting mission costs a worker that
 *    already holds some (the first ones also grow the heaps to their working size);
 *  - the workflow heap per waiting mission, exact: a `debugMode` worker runs the workflow
 *    code in its main isolate, whose heap is read after a full GC, with 1 and then
 *    `1 + heapMissions` missions waiting.
 */
export async function waitingMemory(
  lane: Lane,
  opts: { warm?: number; measured?: number; heapMissions?: number } = {},
): Promise<BenchRow[]> {
  const warm = opts.warm ?? 200;
  const measured = opts.measured ?? 600;
  const heapMissions = opts.heapMissions ?? 200;
  const rows: BenchRow[] = [];
  {
    const taskQueue = `capacity-rss-${randomUUID().slice(0, 8)}`;
    const w = await CapacityWorker.start({
      address: lane.address,
      namespace: lane.namespace,
      taskQueue,
      worker: { maxCachedWorkflows: warm + measured + 10 },
    });
    try {
      await startParked(lane.client, taskQueue, 1);
      await waitForPasses([w], 1, 120_000);
      const base = await w.mem();
      await startParked(lane.client, taskQueue, warm);
      await waitForPasses([w], 1 + warm, 300_000);
      const before = await w.mem();
      const t = performance.now();
      await startParked(lane.client, taskQueue, measured);
      const counts = await waitForPasses([w], 1 + warm + measured, 600_000);
      const took = performance.now() - t;
      const after = await w.mem();
      const per = (after.rss - before.rss) / measured / 1024;
      rows.push({
        name: `waiting missions: worker RSS per mission, ${warm} → ${warm + measured} (${lane.kind})`,
        median_ms: took,
        baseline_ms: undefined,
        ratio: per / WAITING_RSS_BOUND_KB,
        note:
          `${per.toFixed(0)} KB per waiting mission (ratio: to the bound of ${WAITING_RSS_BOUND_KB} KB); worker RSS ${mb(base.rss)} with 1, ${mb(before.rss)} with ${warm + 1}, ${mb(after.rss)} with ${warm + measured + 1} ` +
          `(${counts[0]!.worker.numCachedWorkflows} cached); its main isolate's heap ${kb((after.heapUsed - before.heapUsed) / measured)}/mission (activities, pass contexts); ` +
          `median ms: the ${measured} missions from start to waiting (${((measured / took) * 1000).toFixed(0)}/s)`,
        ...bounded('worker RSS per waiting mission', per, WAITING_RSS_BOUND_KB),
      });
    } finally {
      await w.stop();
    }
  }
  {
    const taskQueue = `capacity-heap-${randomUUID().slice(0, 8)}`;
    const w = await CapacityWorker.start({
      address: lane.address,
      namespace: lane.namespace,
      taskQueue,
      worker: { maxCachedWorkflows: heapMissions + 10, debugMode: true },
    });
    try {
      await startParked(lane.client, taskQueue, 1);
      await waitForPasses([w], 1, 120_000);
      const before = await w.mem();
      const t = performance.now();
      await startParked(lane.client, taskQueue, heapMissions);
      await waitForPasses([w], 1 + heapMissions, 300_000);
      const took = performance.now() - t;
      const after = await w.mem();
      const per = (after.heapUsed - before.heapUsed) / heapMissions / 1024;
      rows.push({
        name: `waiting missions: workflow heap per mission (${lane.kind})`,
        median_ms: took,
        ratio: per / WAITING_HEAP_BOUND_KB,
        note:
          `${per.toFixed(0)} KB of V8 heap per waiting mission (ratio: to the bound of ${WAITING_HEAP_BOUND_KB} KB), read after a full GC with 1 and ${heapMissions + 1} waiting ` +
          `in a debugMode worker (its workflows in the main isolate: the run's state, its copy of the per-run modules, the SDK's activator); heap committed +${kb((after.heapTotal - before.heapTotal) / heapMissions)}/mission`,
        ...bounded('workflow heap per waiting mission', per, WAITING_HEAP_BOUND_KB),
      });
    } finally {
      await w.stop();
    }
  }
  return rows;
}

/**
 * Waiting missions beyond what one worker caches: a worker with the SDK's default cache
 * size parks `n` missions; then decisions reach the 20 oldest (evicted when `n` is past
 * the cache: the worker fetches the history and replays it first) and the 20 newest (in
 * the cache), one at a time, each timed from the update sent to the mission's result.
 */
export async function stickyCache(lane: Lane, n: number): Promise<BenchRow[]> {
  const taskQueue = `capacity-cache-${randomUUID().slice(0, 8)}`;
  const w = await CapacityWorker.start({ address: lane.address, namespace: lane.namespace, taskQueue });
  try {
    await startParked(lane.client, taskQueue, 1, 1, `cache-warm-${taskQueue}`);
    await waitForPasses([w], 1, 120_000);
    const base = await w.mem();
    const t = performance.now();
    const ids = await startParked(lane.client, taskQueue, n, 50);
    const counts = await waitForPasses([w], 1 + n, 1_800_000);
    const parkMs = performance.now() - t;
    const mem = await w.mem();
    const cacheSize = counts[0]!.maxCachedWorkflows;
    const cached = counts[0]!.worker.numCachedWorkflows;
    const decide = async (id: string) => {
      const handle = lane.client.workflow.getHandle(id);
      const t0 = performance.now();
      await handle.executeUpdate(decideUpdate, { args: [{ key: 'go_ahead', value: 'approved', by: 'bench' }] });
      const ack = performance.now() - t0;
      await handle.result();
      return { ack, done: performance.now() - t0 };
    };
    const sample = 20;
    const oldest: Array<{ ack: number; done: number }> = [];
    for (const id of ids.slice(0, sample)) oldest.push(await decide(id));
    const newest: Array<{ ack: number; done: number }> = [];
    for (const id of ids.slice(-sample)) newest.push(await decide(id));
    const after = await w.counts();
    const pc = (xs: number[]) => percentiles(xs);
    const evicted = n + 1 > (cacheSize ?? Infinity);
    return [
      {
        name: `${n} waiting missions on one worker, default cache (${lane.kind})`,
        median_ms: parkMs,
        note:
          `cache size ${cacheSize} (the SDK's default for this heap), ${cached} cached once all waited: ${evicted ? `${n + 1 - cached} evicted` : 'none evicted'}; ` +
          `worker RSS ${mb(base.rss)} → ${mb(mem.rss)} (+${kb((mem.rss - base.rss) / n)}/mission), main heap ${mb(mem.heapUsed)}; ` +
          `median ms: the ${n} from start to waiting (${((n / parkMs) * 1000).toFixed(0)} missions/s); pass contexts kept ${after.passContexts.kept}`,
      },
      {
        name: `${n} waiting: decision → mission done, ${evicted ? 'evicted' : 'cached'} (oldest ${sample}) vs cached (newest ${sample})`,
        median_ms: pc(oldest.map((x) => x.done)).p50,
        baseline_ms: pc(newest.map((x) => x.done)).p50,
        ratio: pc(oldest.map((x) => x.done)).p50 / pc(newest.map((x) => x.done)).p50,
        note:
          `oldest p50 ${ms(pc(oldest.map((x) => x.done)).p50)} (max ${ms(pc(oldest.map((x) => x.done)).max)}, update acknowledged ${ms(pc(oldest.map((x) => x.ack)).p50)}); ` +
          `newest p50 ${ms(pc(newest.map((x) => x.done)).p50)} (max ${ms(pc(newest.map((x) => x.done)).max)}, acknowledged ${ms(pc(newest.map((x) => x.ack)).p50)}); one decision at a time, the final pass included`,
      },
    ];
  } finally {
    await w.stop();
  }
}

/**
 * `workers` worker processes on one task queue, `missions` missions of `bench-approvals`
 * (`effects` approved effects one after the other) started at once; each effect approved
 * as soon as its pass stops at it (the worker tells the bench), the approval retried while
 * the workflow has not applied the pass yet. Passes per second over the whole run, and
 * approval → effect running: from the approveEffect update that was accepted being sent
 * to the effect's activity starting on a worker (one machine, one clock).
 */
export async function inFlight(lane: Lane, workers: number, missions: number, effects: number): Promise<BenchRow[]> {
  const taskQueue = `capacity-flight-${randomUUID().slice(0, 8)}`;
  const ws = await Promise.all(
    Array.from({ length: workers }, () =>
      CapacityWorker.start({ address: lane.address, namespace: lane.namespace, taskQueue, notify: true }),
    ),
  );
  const sentAt = new Map<string, number>();
  const ranAt = new Map<string, number>();
  let retries = 0;
  let failedApprovals = 0;
  const approvals: Array<Promise<void>> = [];
  const approve = async (workflowId: string, key: string) => {
    const handle = lane.client.workflow.getHandle(workflowId);
    for (let attempt = 0; ; attempt++) {
      const t = Date.now();
      try {
        await handle.executeUpdate(approveEffectUpdate, { args: [{ key, approved: true, by: 'bench' }] });
        sentAt.set(key, t);
        return;
      } catch {
        if (attempt >= 200) {
          failedApprovals++;
          return;
        }
        retries++;
        await sleep(20);
      }
    }
  };
  for (const w of ws) {
    w.onEvent = (e) => {
      if (e.event === 'tool') ranAt.set(e.key, e.t);
      else for (const key of e.keys) approvals.push(approve(e.workflowId, key));
    };
  }
  try {
    const t0 = performance.now();
    const ids = await startParkedAgent(lane.client, taskQueue, missions, 'bench-approvals', { n: effects }, 50);
    const started = performance.now() - t0;
    const results = await Promise.allSettled(ids.map((id) => lane.client.workflow.getHandle(id).result()));
    const took = performance.now() - t0;
    await Promise.all(approvals);
    const counts = await Promise.all(ws.map((w) => w.counts()));
    const passes = counts.reduce((s, c) => s + c.passes, 0);
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    const lat = [...sentAt].map(([key, t]) => (ranAt.get(key) ?? NaN) - t);
    const sorted = lat.filter(Number.isFinite).sort((a, b) => a - b);
    const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * p) - 1))] ?? NaN;
    return [
      {
        name: `${workers} workers, ${missions} missions in flight (${effects} approved effects each): passes/s (${lane.kind})`,
        median_ms: took,
        note:
          `${passes} passes in ${(took / 1000).toFixed(1)} s = ${((passes / took) * 1000).toFixed(1)} passes/s (${counts.map((c) => c.passes).join(' / ')} per worker); ` +
          `${ok}/${missions} missions completed; starts took ${(started / 1000).toFixed(1)} s; median ms: start of the first to the end of the last`,
        ...(ok < missions ? { failed: `${missions - ok} missions did not complete` } : {}),
      },
      {
        name: `${workers} workers, ${missions} missions in flight: approval → effect running`,
        median_ms: q(0.5),
        note:
          `p50 ${ms(q(0.5))}, p90 ${ms(q(0.9))}, p99 ${ms(q(0.99))}, max ${ms(sorted.at(-1) ?? NaN)} over ${sorted.length} approvals: the accepted approveEffect update sent → its runTool activity starting on a worker; ` +
          `${retries} approvals sent again (the pass not yet applied by the workflow)${failedApprovals ? `, ${failedApprovals} never accepted` : ''}`,
      },
    ];
  } finally {
    await Promise.all(ws.map((w) => w.stop()));
  }
}

/** Starts `n` missions of `agent` with `input`, `concurrency` starts at a time; their ids. */
export async function startParkedAgent(
  client: Client,
  taskQueue: string,
  n: number,
  agent: string,
  input: object,
  concurrency = 50,
): Promise<string[]> {
  const prefix = `${agent}-${randomUUID().slice(0, 8)}`;
  const ids = Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < ids.length) {
        const id = ids[next++]!;
        await client.workflow.start('navigatorMission', { taskQueue, workflowId: id, args: [{ agent, input }] });
      }
    }),
  );
  return ids;
}

/** The lane: a real start-dev when the CLI is there (unless BENCH_CAPACITY_SERVER=embedded), else the embedded server. */
async function openLane(): Promise<Lane & { close(): Promise<void> }> {
  const real = process.env.BENCH_CAPACITY_SERVER !== 'embedded' && findTemporalCli() !== null;
  const server = real ? await startTemporalDevServer() : await startDevServer({ port: 0 });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: server.namespace });
  return {
    kind: real ? 'temporal start-dev' : 'embedded',
    address: server.address,
    namespace: server.namespace,
    client,
    async close() {
      await connection.close();
      await server.shutdown();
    },
  };
}

const sizes = () =>
  (process.env.BENCH_CAPACITY_SIZES ?? '1000,10000')
    .split(',')
    .map(Number)
    .filter((x) => x > 0);

export async function benchCapacity(): Promise<BenchRow[]> {
  const lane = await openLane();
  const rows: BenchRow[] = [];
  const part = async (name: string, work: () => Promise<BenchRow[]>) => {
    try {
      rows.push(...(await work()));
    } catch (e) {
      rows.push({
        name,
        median_ms: NaN,
        note: `FAILED: ${(e as Error).message.split('\n')[0]}`,
        failed: (e as Error).message.split('\n')[0],
      });
    }
  };
  try {
    await part('waiting missions: memory', () => waitingMemory(lane));
    for (const n of sizes()) await part(`${n} waiting missions`, () => stickyCache(lane, n));
    const [workers, missions, effects] = (process.env.BENCH_CAPACITY_INFLIGHT ?? '3,1000,3').split(',').map(Number);
    if (missions! > 0) await part('missions in flight', () => inFlight(lane, workers!, missions!, effects!));
  } finally {
    await lane.close();
  }
  return rows;
}
