/**
 * Embedded Temporal dev server: a loopback gRPC server speaking Temporal's
 * WorkflowService (and the OperatorService search-attribute calls) well enough for the
 * real `@temporalio/worker` and `@temporalio/client`. For development and tests only;
 * nothing in the product may rely on behaviour a real cluster does not have.
 *
 * ```ts
 * const server = await startDevServer({ port: 0 });
 * const connection = await Connection.connect({ address: server.address });
 * ...
 * await server.shutdown();
 * ```
 * @module
 */
import type * as grpc from '@grpc/grpc-js';
import { enqueueActivity } from './activities.ts';
import { Engine } from './engine.ts';
import { listen } from './grpc.ts';
import { restoreTaskIds } from './history.ts';
import { RUNNING, type ServerState } from './model.ts';
import { newNamespace } from './namespaces.ts';
import { startRetention } from './retention.ts';
import { FileStore } from './persistence.ts';
import { healthHandlers, operatorServiceHandlers, workflowServiceHandlers } from './service.ts';
import { hooks } from './timeouts.ts';
import { restoreWorkflowTask } from './workflow-tasks.ts';
import { Scheduler } from './scheduler.ts';
import { scheduleHandlers } from './schedules.ts';
import type { DevServer, DevServerOptions } from '../temporal/server.ts';

export type { DevServer, DevServerOptions } from '../temporal/server.ts';

function emptyState(): ServerState {
  return { namespaces: {}, runs: {}, chains: {} };
}

/** Puts restored work back on queues and re-arms every deadline. */
function restore(engine: Engine): void {
  const runs = Object.values(engine.state.runs);
  restoreTaskIds(runs);
  for (const run of runs) {
    if (run.status !== RUNNING) continue;
    for (const update of Object.values(run.updates)) {
      if (!run.wft?.startedEventId) update.deliveredInTask = undefined;
    }
    restoreWorkflowTask(engine, run);
    for (const activity of Object.values(run.activities)) {
      if (activity.phase === 'SCHEDULED') enqueueActivity(engine, run, activity);
    }
  }
  engine.rearmAll();
}

function normalizeAttributeType(type: string): string {
  const upper = type.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
  return upper.startsWith('INDEXED_VALUE_TYPE_') ? upper : `INDEXED_VALUE_TYPE_${upper}`;
}

export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const ip = options.ip ?? '127.0.0.1';
  const namespace = options.namespace ?? 'default';
  const store = options.db ? new FileStore(options.db) : undefined;
  const state = store ? store.open(emptyState()) : emptyState();
  const ns = (state.namespaces[namespace] ??= newNamespace(namespace));
  for (const [name, type] of Object.entries(options.searchAttributes ?? {}))
    ns.searchAttributes[name] = normalizeAttributeType(type);
  if (options.retentionDays !== undefined) {
    if (!(options.retentionDays > 0))
      throw new Error(`retention must be a positive number of days, got ${options.retentionDays}`);
    ns.retentionDays = options.retentionDays;
  }

  const engine = new Engine(
    state,
    hooks((collection, key) => store?.changed(collection, key)),
  );
  restore(engine);
  const scheduler = new Scheduler(engine);
  scheduler.restoreAll();
  // One fresh snapshot per start: it holds the changes above, turns an old-format file
  // into the log format and starts the log afresh.
  store?.compact();
  const stopRetention = startRetention(engine, (ns.retentionDays * 86_400_000) / 10);
  const handlers = {
    workflow: { ...workflowServiceHandlers(engine), ...scheduleHandlers(engine, scheduler) },
    operator: operatorServiceHandlers(engine),
    health: healthHandlers(),
  };
  // A reply acknowledges a change, so it goes out once the change is on disk (persistence.ts).
  const { server, port } = await listen(
    ip,
    options.port ?? 7233,
    handlers,
    () => engine.isClosed(),
    () => store?.persisted(),
  );
  return {
    address: `${ip}:${port}`,
    namespace,
    shutdown: () => {
      stopRetention();
      scheduler.close();
      return shutdown(server, engine, () => store?.close());
    },
  };
}

async function shutdown(server: grpc.Server, engine: Engine, flush: () => void): Promise<void> {
  if (engine.isClosed()) return;
  // Refuse new calls and answer waiting long polls, write the final state, then stop.
  engine.close();
  flush();
  await new Promise<void>((resolve) => {
    const force = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, 1000);
    server.tryShutdown(() => {
      clearTimeout(force);
      resolve();
    });
  });
}

/**
 * `navigator dev`: runs the server until SIGINT or SIGTERM.
 * Prints exactly `Temporal dev server listening on IP:PORT`.
 */
export async function runDevCommand(options: {
  port?: number;
  ip?: string;
  db?: string;
  retentionDays?: number;
}): Promise<void> {
  const server = await startDevServer({
    port: options.port ?? 7233,
    ip: options.ip,
    db: options.db,
    retentionDays: options.retentionDays,
  });
  console.log(`Temporal dev server listening on ${server.address}`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await server.shutdown();
}
