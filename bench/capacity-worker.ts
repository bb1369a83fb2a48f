/**
 * A Navigator worker in a process of its own, for the capacity bench (bench/capacity.ts):
 * its RSS is the worker's alone (no server, no client of the bench in it). It runs the
 * bench agents on the task queue it is given and answers the parent over IPC:
 *
 * - `{op: 'mem'}`: after full GCs, `process.memoryUsage()`, the main isolate's heap and,
 *   when the workflows run in this thread (`debugMode`), the workflow isolate's too;
 * - `{op: 'snapshot', path}`: a heap snapshot of the main thread (with `debugMode` it
 *   holds the workflow context and every cached workflow);
 * - `{op: 'counts'}`: the worker's pass-context counts and the cached workflows;
 * - `{op: 'stop'}`: shuts the worker down and exits.
 *
 * Options in `CAPACITY_WORKER` (JSON): address, namespace, taskQueue, worker options
 * (maxCachedWorkflows, reuseV8Context, debugMode, ...).
 */
import { setFlagsFromString, writeHeapSnapshot, getHeapStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Context } from '@temporalio/activity';
import { Client, Connection } from '@temporalio/client';
import {
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  bundleWorkflowCode,
  type WorkerOptions,
} from '@temporalio/worker';
import { createActivities } from '../src/activities/index.ts';
import { PassContexts } from '../src/activities/pass-contexts.ts';
import type { AgentRegistry } from '../src/activities/agents.ts';
import { bundleOnce } from '../src/devserver/testing.ts';
import { silentSpanSinks, workflowInterceptorModules } from '../src/telemetry/setup.ts';
import { workflowPreloadModules } from '../src/workflows/path.ts';
import { workflowsPath } from '../src/worker/index.ts';
import { benchAgents } from './agents/mission-agents.ts';

export interface CapacityWorkerConfig {
  address: string;
  namespace: string;
  taskQueue: string;
  worker?: Partial<
    Pick<
      WorkerOptions,
      | 'maxCachedWorkflows'
      | 'reuseV8Context'
      | 'debugMode'
      | 'workflowThreadPoolSize'
      | 'maxConcurrentWorkflowTaskExecutions'
      | 'maxConcurrentActivityTaskExecutions'
    >
  >;
  /** workflow code other than the shipped one (a variant under test): bundled anew, not cached */
  workflowsPath?: string;
  interceptorModules?: string[];
  preloadModules?: string[];
  /**
   * tell the parent (IPC `{event}` messages) when a pass stops at effects (their keys) and
   * when an effect's activity starts, with `Date.now()` (one machine: the parent's clock)
   */
  notify?: boolean;
}

/** What a worker started with `notify` tells its parent. */
export type WorkerEvent =
  | { event: 'effects'; workflowId: string; keys: string[]; t: number }
  | { event: 'tool'; workflowId: string; key: string; t: number };

export interface MemReport {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  /** V8's malloced memory and the main isolate's total physical heap */
  mallocedMemory: number;
  totalPhysicalSize: number;
}

const gc: () => void = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

const config = JSON.parse(process.env.CAPACITY_WORKER ?? '{}') as CapacityWorkerConfig;

Runtime.install({ logger: new DefaultLogger('ERROR') });
const connection = await NativeConnection.connect({ address: config.address });
const clientConnection = await Connection.connect({ address: config.address });
const client = new Client({ connection: clientConnection, namespace: config.namespace });
const agents: AgentRegistry = new Map(benchAgents.map((e) => [e.agent.name, e]));
const passContexts = new PassContexts();
/** runPass activities this worker completed (a parked mission is waiting once its pass is done and applied) */
let passes = 0;
const activities = createActivities({ agents, client, passContexts });
const runPass = activities.runPass;
const tell = (e: WorkerEvent) => {
  if (config.notify) process.send!(e);
};
activities.runPass = (async (...args: Parameters<typeof runPass>) => {
  const out = await runPass(...args);
  passes++;
  if (out.kind === 'effects')
    tell({
      event: 'effects',
      workflowId: Context.current().info.workflowExecution?.workflowId ?? '',
      keys: out.effects.map((e) => e.idempotencyKey),
      t: Date.now(),
    });
  return out;
}) as typeof runPass;
const runTool = activities.runTool;
activities.runTool = (async (...args: Parameters<typeof runTool>) => {
  tell({
    event: 'tool',
    workflowId: Context.current().info.workflowExecution?.workflowId ?? '',
    key: args[0].idempotencyKey,
    t: Date.now(),
  });
  return runTool(...args);
}) as typeof runTool;
const variant =
  config.workflowsPath !== undefined || config.interceptorModules !== undefined || config.preloadModules !== undefined;
const bundle = variant
  ? await bundleWorkflowCode({
      workflowsPath: config.workflowsPath ?? workflowsPath,
      workflowInterceptorModules: config.interceptorModules ?? [...workflowInterceptorModules],
      preloadModules: config.preloadModules ?? [...workflowPreloadModules],
      logger: new DefaultLogger('ERROR'),
    })
  : await bundleOnce(workflowsPath, workflowInterceptorModules);
if (process.env.CAPACITY_DUMP_BUNDLE)
  (await import('node:fs')).writeFileSync(process.env.CAPACITY_DUMP_BUNDLE, JSON.stringify({ code: bundle.code }));
const worker = await Worker.create({
  connection,
  namespace: config.namespace,
  taskQueue: config.taskQueue,
  workflowBundle: bundle,
  activities,
  sinks: silentSpanSinks,
  shutdownGraceTime: '1s',
  stickyQueueScheduleToStartTimeout: '3 seconds',
  ...config.worker,
});
const running = worker.run();

async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function onMessage(msg: { id: number; op: string; path?: string }): Promise<void> {
  const reply = (body: unknown) => process.send!({ id: msg.id, body });
  try {
    if (msg.op === 'mem') {
      await settle();
      const m = process.memoryUsage();
      const h = getHeapStatistics();
      const report: MemReport = {
        rss: m.rss,
        heapUsed: m.heapUsed,
        heapTotal: m.heapTotal,
        external: m.external,
        arrayBuffers: m.arrayBuffers,
        mallocedMemory: h.malloced_memory,
        totalPhysicalSize: h.total_physical_size,
      };
      reply(report);
    } else if (msg.op === 'snapshot') {
      await settle();
      reply(writeHeapSnapshot(msg.path));
    } else if (msg.op === 'counts') {
      reply({
        passes,
        passContexts: { ...passContexts.counts, kept: passContexts.size },
        worker: worker.getStatus(),
        maxCachedWorkflows: (worker.options as { maxCachedWorkflows?: number }).maxCachedWorkflows,
      });
    } else if (msg.op === 'stop') {
      worker.shutdown();
      await running.catch(() => undefined);
      await connection.close();
      await clientConnection.close();
      reply('stopped');
      setTimeout(() => process.exit(0), 50);
    }
  } catch (e) {
    reply({ error: (e as Error).message });
  }
}
// onMessage replies with its own errors: nothing is left to reject
process.on('message', (msg: { id: number; op: string; path?: string }) => void onMessage(msg));
process.send!({ id: 0, body: 'ready' });
