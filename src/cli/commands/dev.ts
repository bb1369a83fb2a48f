/**
 * `navigator dev`: a Temporal dev server, the web console and, unless `--no-worker`, a
 * Navigator worker on it, until interrupted. Other terminals reach it at the printed address, which is the
 * default (127.0.0.1:7233) of every navigator command and Temporal SDK.
 *
 * Two servers: the embedded one (default; pure Node, nothing to install) or, with
 * `--server temporal`, the real `temporal server start-dev` of the Temporal CLI with the
 * Temporal UI.
 */
import { Command } from 'commander';
import { CliError, action } from '../errors.ts';
import { parsePositiveInt } from '../input.ts';

interface DevFlags {
  server?: string;
  port: string;
  ip: string;
  uiPort?: string;
  db?: string;
  inMemory?: boolean;
  worker: boolean;
  agents?: string;
  taskQueue?: string;
  console: boolean;
  consolePort?: string;
  consoleAuth: boolean;
  retention: string;
}

/** What `dev` needs of either server. */
interface RunningServer {
  address: string;
  namespace: string;
  /** the Temporal UI (real server only) */
  uiUrl: string | null;
  shutdown(): Promise<void>;
}

const SERVERS = ['embedded', 'temporal'] as const;
type ServerKind = (typeof SERVERS)[number];

export const devCommand = new Command('dev')
  .description(
    'run a Temporal dev server (embedded, or the real one with --server temporal) and a Navigator worker until interrupted',
  )
  .option(
    '--server <kind>',
    "embedded (pure Node) or temporal (the Temporal CLI's real dev server with its UI); or NAVIGATOR_DEV_SERVER",
  )
  .option('--port <port>', 'gRPC port', '7233')
  .option('--ip <ip>', 'address to listen on', '127.0.0.1')
  .option('--ui-port <port>', 'Temporal UI port with --server temporal (default: gRPC port + 1000)')
  .option(
    '--db <file>',
    'keep server state in this file across restarts (default: a file per server and port in the per-user data folder, NAVIGATOR_DATA_DIR)',
  )
  .option(
    '--in-memory',
    'keep server state in memory only: it ends with this process (a crash of the worker or the console loses every run)',
  )
  .option('--retention <days>', 'days a closed workflow is kept (fractions allowed)', '1')
  .option('--no-worker', 'do not run a Navigator worker on the server (the console still runs unless --no-console)')
  .option('--agents <module>', 'module with your agents, for the worker (or NAVIGATOR_AGENTS)')
  .option('--task-queue <name>', 'task queue of the worker (or NAVIGATOR_TASK_QUEUE)')
  .option(
    '--console-port <port>',
    'port of the web console (8233, or the UI port + 1 with --server temporal; any free port when taken)',
  )
  .option('--no-console', 'do not serve the web console')
  .option(
    '--no-console-auth',
    'serve the console without its one-time sign-in link: any process of this machine may act as you',
  )
  .action(
    action(async (flags: DevFlags) => {
      const kind = serverKind(flags.server ?? process.env.NAVIGATOR_DEV_SERVER);
      const port = parsePositiveInt(flags.port, '--port');
      const retentionDays = Number(flags.retention);
      if (!(retentionDays > 0))
        throw new CliError(`--retention must be a positive number of days, got ${flags.retention}`, 2);
      const uiPort = flags.uiPort === undefined ? port + 1000 : parsePositiveInt(flags.uiPort, '--ui-port');
      if (flags.inMemory && flags.db)
        throw new CliError('--db FILE and --in-memory ask for different things; give one', 2);
      // the state outlives this process unless told otherwise: the worker, the sandbox and the
      // console run here too, and a native crash of any of them would take an in-memory state along
      const { defaultStateFile, lockStateFile } = await import('../../devserver/persistence.ts');
      const db = flags.inMemory ? undefined : (flags.db ?? defaultStateFile(kind, port));
      let release: (() => void) | undefined;
      try {
        release = db ? lockStateFile(db) : undefined;
      } catch (err) {
        throw new CliError((err as Error).message);
      }
      const server = await startServer(kind, { port, ip: flags.ip, db, retentionDays, uiPort }).catch((err) => {
        release?.();
        throw err;
      });
      console.log(
        `Temporal dev server listening on ${server.address}${kind === 'temporal' ? ' (temporal server start-dev)' : ''}`,
      );
      console.log(
        db
          ? `Server state kept in ${db}: a crash of this process loses no run (--db FILE for another file, --in-memory for none)`
          : 'Server state in memory only (--in-memory): it ends with this process',
      );
      if (server.uiUrl) console.log(`Temporal UI at ${server.uiUrl}`);
      const { configuredOffload } = await import('../../codec/load.ts');
      const store = await configuredOffload();
      console.log(
        store
          ? `Payloads over ${Math.round(store.thresholdBytes / 1024)} KB kept in ${store.store.location} (NAVIGATOR_PAYLOAD_STORE)`
          : 'No payload store (NAVIGATOR_PAYLOAD_STORE=off): large results stay in history',
      );
      try {
        await runWorkerAndConsole(server, flags, kind === 'temporal' ? uiPort + 1 : 8233);
      } finally {
        await server.shutdown();
        release?.();
      }
    }),
  );

function serverKind(value: string | undefined): ServerKind {
  if (value === undefined || value === '') return 'embedded';
  if ((SERVERS as readonly string[]).includes(value)) return value as ServerKind;
  throw new CliError(`--server must be one of ${SERVERS.join(', ')}, got ${value}`, 2);
}

interface ServerFlags {
  port: number;
  ip: string;
  db?: string;
  retentionDays: number;
  uiPort: number;
}

async function startServer(kind: ServerKind, o: ServerFlags): Promise<RunningServer> {
  // NavigatorStatus is registered so that `run --status-attribute NavigatorStatus` works here.
  const searchAttributes = { NavigatorStatus: 'Keyword' };
  if (kind === 'embedded') {
    // Loaded on demand so that commands without Temporal start fast.
    const { startDevServer } = await import('../../devserver/index.ts');
    const server = await startDevServer({
      port: o.port,
      ip: o.ip,
      db: o.db,
      retentionDays: o.retentionDays,
      searchAttributes,
    });
    return { ...server, uiUrl: null };
  }
  const { startTemporalCliServer, setRetention } = await import('../../temporal/cli-server.ts');
  const server = await startTemporalCliServer({
    port: o.port,
    ip: o.ip,
    db: o.db,
    uiPort: o.uiPort,
    searchAttributes,
  }).catch((e: Error) => {
    throw new CliError(e.message, 1);
  });
  await setRetention(server, o.retentionDays);
  return server;
}

/** Resolves on SIGINT or SIGTERM. */
export function untilInterrupted(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

async function runWorkerAndConsole(server: RunningServer, flags: DevFlags, defaultConsolePort: number): Promise<void> {
  const { taskQueueFrom } = await import('../../temporal/connection.ts');
  const { runWorker } = await import('../../worker/run.ts');
  const taskQueue = taskQueueFrom(flags.taskQueue);
  const agentsModule = flags.agents ?? process.env.NAVIGATOR_AGENTS;
  const consolePort =
    flags.consolePort === undefined ? defaultConsolePort : parsePositiveInt(flags.consolePort, '--console-port');
  const webConsole = flags.console
    ? await serveConsole(server.address, server.namespace, taskQueue, consolePort, agentsModule, !flags.consoleAuth)
    : null;
  try {
    if (!flags.worker) {
      // say so: without a worker, missions started here wait until one runs
      console.log(
        `No Navigator worker (--no-worker): start one with \`npx navigator worker\`${flags.console ? '' : '; no console (--no-console)'}`,
      );
      return await untilInterrupted();
    }
    await (await import('../worker-log.ts')).installWorkerLog();
    // Returns once the Temporal runtime has shut the worker down on SIGINT/SIGTERM.
    await runWorker({
      target: { address: server.address, namespace: server.namespace, connectionOptions: {}, configured: true },
      taskQueue,
      agentsModule,
      onReady: (agents) =>
        console.log(`Navigator worker on task queue ${taskQueue} running agents: ${agents.join(', ')}`),
    });
  } finally {
    await webConsole?.close();
  }
}

/** The web console on the dev server, on `port` when free, else on any free port; signed into through a printed one-time link unless `noAuth`. */
async function serveConsole(
  address: string,
  namespace: string,
  taskQueue: string,
  port: number,
  agentsModule: string | undefined,
  noAuth: boolean,
) {
  const { connectClient } = await import('../../temporal/connection.ts');
  const { NavigatorClient } = await import('../../client/navigator-client.ts');
  const { startConsole } = await import('../../console/server.ts');
  const { userInfo } = await import('node:os');
  const { client, close } = await connectClient({ address, namespace, connectionOptions: {}, configured: true });
  const navigator = new NavigatorClient({ client, taskQueue });
  const user = process.env.NAVIGATOR_USER ?? userInfo().username;
  // the worker's agents: the start form names them and checks their input
  const { buildRegistry } = await import('../../worker/agents.ts');
  const agents = await buildRegistry(agentsModule);
  const running = await startConsole({ navigator, user, port, agents, noAuth }).catch(() =>
    startConsole({ navigator, user, port: 0, agents, noAuth }),
  );
  const { consoleLine } = await import('./console.ts');
  console.log(consoleLine(running));
  // `navigator run` against this server prints the mission's page here
  const { rememberConsole } = await import('../console-link.ts');
  rememberConsole(address, running.url);
  return {
    close: async () => {
      rememberConsole(address, null);
      await running.close();
      await close();
    },
  };
}
