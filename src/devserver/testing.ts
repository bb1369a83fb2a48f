/**
 * Test helper: one dev server per test file, workflow code bundled once per file, real
 * `Worker`s on it and a real `Client`.
 *
 * ```ts
 * const env = await createTestEnv({ workflowsPath, activities });
 * const handle = await env.client.workflow.start(hello, { taskQueue: env.taskQueue, workflowId, args });
 * await env.shutdown();
 * ```
 *
 * With `NAVIGATOR_TEST_SERVER=temporal` every env runs on a real `temporal server start-dev`
 * of its own (the Temporal CLI: `npm run temporal:build`) instead of the embedded server, so
 * the same tests prove the same behaviour on both.
 */
import { Client, Connection } from '@temporalio/client';
import {
  bundleWorkflowCode,
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  type WorkerOptions,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import type { DataConverter } from '@temporalio/common';
import { configuredDataConverter } from '../codec/load.ts';
import { LARGE_MESSAGES } from '../temporal/connection.ts';
import { randomUUID } from 'node:crypto';
import { type DevServer, type DevServerOptions, startDevServer } from './index.ts';
import { cachedBundle } from '../workflows/bundle-cache.ts';
import { HistoryReplayer } from '../history/replayer.ts';
import { silentSpanSinks } from '../telemetry/setup.ts';
import { workflowPreloadModules } from '../workflows/path.ts';

export interface TestEnvOptions {
  /** Module exporting the workflows (bundled once per process). */
  workflowsPath: string;
  /** workflow interceptor modules bundled with them */
  workflowInterceptorModules?: readonly string[];
  activities?: object;
  /** Start a worker on `taskQueue` right away. @default true */
  startWorker?: boolean;
  server?: DevServerOptions;
  /** Starts the server instead of {@link startTestServer} (e.g. a real one with its UI). */
  startServer?: () => Promise<DevServer>;
  worker?: Partial<WorkerOptions>;
  /** for the client and every worker (e.g. a payload codec) */
  dataConverter?: DataConverter;
}

export interface TestEnv {
  server: DevServer;
  client: Client;
  connection: Connection;
  nativeConnection: NativeConnection;
  taskQueue: string;
  bundle: WorkflowBundleWithSourceMap;
  /** Creates (not runs) another worker on the same server and bundle. */
  createWorker(options?: Partial<WorkerOptions>): Promise<Worker>;
  /** Replays histories with the bundle; throws on nondeterminism. */
  replay(histories: Array<{ workflowId: string; history: unknown }>): Promise<void>;
  /** one replay worker with the bundle and the env's codec, for every audit and replay of the env */
  replayer: HistoryReplayer;
  shutdown(): Promise<void>;
}

const bundles = new Map<string, Promise<WorkflowBundleWithSourceMap>>();

export function bundleOnce(
  workflowsPath: string,
  workflowInterceptorModules: readonly string[] = [],
): Promise<WorkflowBundleWithSourceMap> {
  const key = [workflowsPath, ...workflowInterceptorModules].join('\n');
  let bundle = bundles.get(key);
  if (!bundle) {
    // the modules every cached run shares, as a worker's bundle has them (workflows-path.ts)
    const preloadModules = [...workflowPreloadModules];
    const make = () =>
      bundleWorkflowCode({
        workflowsPath,
        workflowInterceptorModules: [...workflowInterceptorModules],
        preloadModules,
        logger: new DefaultLogger('WARN'),
      });
    bundle = cachedBundle([workflowsPath, ...workflowInterceptorModules, ...preloadModules], make);
    bundles.set(key, bundle);
  }
  return bundle;
}

let runtimeInstalled = false;

function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Already installed by someone else: keep theirs.
  }
}

/** Which server test envs run on: `NAVIGATOR_TEST_SERVER` (`embedded`, the default, or `temporal`). */
export function testServerKind(env: NodeJS.ProcessEnv = process.env): 'embedded' | 'temporal' {
  const kind = env.NAVIGATOR_TEST_SERVER ?? 'embedded';
  if (kind !== 'embedded' && kind !== 'temporal')
    throw new Error(`NAVIGATOR_TEST_SERVER must be embedded or temporal, got ${kind}`);
  return kind;
}

/** A server for one test file: the embedded one, or the real one under `NAVIGATOR_TEST_SERVER=temporal`. */
export async function startTestServer(options: DevServerOptions = {}): Promise<DevServer> {
  if (testServerKind() === 'embedded') return startDevServer({ port: 0, ...options });
  const { startTemporalDevServer } = await import('../temporal/cli-server.ts');
  return startTemporalDevServer({ port: 0, ...options });
}

export async function createTestEnv(options: TestEnvOptions): Promise<TestEnv> {
  quietRuntime();
  const [server, bundle] = await Promise.all([
    options.startServer?.() ?? startTestServer(options.server),
    bundleOnce(options.workflowsPath, options.workflowInterceptorModules),
  ]);
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address, channelArgs: LARGE_MESSAGES });
  // what a user's worker and client use unless told otherwise: the payload store, NAVIGATOR_CODEC
  const dataConverter = options.dataConverter ?? (await configuredDataConverter());
  const client = new Client({ connection, namespace: server.namespace, dataConverter });
  const taskQueue = `tq-${randomUUID()}`;
  const running: Array<{ worker: Worker; done: Promise<void> }> = [];
  const created: Worker[] = [];

  const createWorker = async (extra: Partial<WorkerOptions> = {}) => {
    const worker = await Worker.create({
      connection: nativeConnection,
      namespace: server.namespace,
      taskQueue,
      workflowBundle: bundle,
      activities: options.activities,
      shutdownGraceTime: '1s',
      ...(dataConverter ? { dataConverter } : {}),
      ...options.worker,
      ...extra,
    });
    created.push(worker);
    return worker;
  };

  if (options.startWorker !== false) {
    const worker = await createWorker();
    running.push({ worker, done: worker.run() });
  }

  const replayer = new HistoryReplayer({
    workflowBundle: bundle,
    dataConverter,
    sinks: options.worker?.sinks ?? silentSpanSinks,
  });

  return {
    server,
    client,
    connection,
    nativeConnection,
    taskQueue,
    bundle,
    createWorker,
    replayer,
    async replay(histories) {
      for (const outcome of await replayer.replay(histories as never)) {
        if (outcome.error) throw outcome.error;
      }
    },
    async shutdown() {
      await replayer.close();
      for (const worker of created) if (worker.getState() === 'RUNNING') worker.shutdown();
      await Promise.allSettled(running.map((r) => r.done));
      // Workers a test ran itself (and left running after a failure) must stop before the connection closes.
      while (created.some((w) => !['STOPPED', 'FAILED', 'INITIALIZED'].includes(w.getState()))) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await connection.close();
      await nativeConnection.close();
      await server.shutdown();
    },
  };
}
