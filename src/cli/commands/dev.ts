/**
 * `navigator dev`: the embedded Temporal dev server and, unless `--no-worker`, a Navigator
 * worker on it, until interrupted. Other terminals reach it at the printed address, which
 * is the default (127.0.0.1:7233) of every navigator command and Temporal SDK.
 */
import { Command } from 'commander';
import { CliError, action } from '../errors.ts';
import { parsePositiveInt } from '../input.ts';

interface DevFlags {
  port: string;
  ip: string;
  db?: string;
  worker: boolean;
  agents?: string;
  taskQueue?: string;
  console: boolean;
  consolePort: string;
  retention: string;
}

export const devCommand = new Command('dev')
  .description('run the embedded Temporal dev server (and a Navigator worker) until interrupted')
  .option('--port <port>', 'gRPC port', '7233')
  .option('--ip <ip>', 'address to listen on', '127.0.0.1')
  .option('--db <file>', 'keep server state in this file across restarts')
  .option('--retention <days>', 'days a closed workflow is kept (fractions allowed)', '1')
  .option('--no-worker', 'do not run a Navigator worker on the server')
  .option('--agents <module>', 'module with your agents, for the worker (or NAVIGATOR_AGENTS)')
  .option('--task-queue <name>', 'task queue of the worker (or NAVIGATOR_TASK_QUEUE)')
  .option('--console-port <port>', 'port of the web console (8233 when free, else any free port)', '8233')
  .option('--no-console', 'do not serve the web console')
  .action(
    action(async (flags: DevFlags) => {
      // Loaded on demand so that commands without Temporal start fast.
      const { runDevCommand, startDevServer } = await import('../../devserver/index.ts');
      const port = parsePositiveInt(flags.port, '--port');
      const retentionDays = Number(flags.retention);
      if (!(retentionDays > 0)) throw new CliError(`--retention must be a positive number of days, got ${flags.retention}`, 2);
      if (!flags.worker) return runDevCommand({ port, ip: flags.ip, db: flags.db, retentionDays });
      const { taskQueueFrom } = await import('../../temporal/connection.ts');
      const { runWorker } = await import('../../worker/run.ts');
      // NavigatorStatus is registered so that `run --status-attribute NavigatorStatus` works here.
      const server = await startDevServer({ port, ip: flags.ip, db: flags.db, retentionDays, searchAttributes: { NavigatorStatus: 'Keyword' } });
      console.log(`Temporal dev server listening on ${server.address}`);
      const taskQueue = taskQueueFrom(flags.taskQueue);
      const agentsModule = flags.agents ?? process.env.NAVIGATOR_AGENTS;
      const webConsole = flags.console ? await serveConsole(server.address, server.namespace, taskQueue, parsePositiveInt(flags.consolePort, '--console-port'), agentsModule) : null;
      try {
        // Returns once the Temporal runtime has shut the worker down on SIGINT/SIGTERM.
        await runWorker({
          target: { address: server.address, namespace: server.namespace, connectionOptions: {}, configured: true },
          taskQueue,
          agentsModule,
          onReady: (agents) => console.log(`Navigator worker on task queue ${taskQueue} running agents: ${agents.join(', ')}`),
        });
      } finally {
        await webConsole?.close();
        await server.shutdown();
      }
    }),
  );

/** The web console on the dev server, on `port` when free, else on any free port. */
async function serveConsole(address: string, namespace: string, taskQueue: string, port: number, agentsModule: string | undefined) {
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
  const running = await startConsole({ navigator, user, port, agents }).catch(() => startConsole({ navigator, user, port: 0, agents }));
  console.log(`Console at ${running.url}`);
  return {
    close: async () => {
      await running.close();
      await close();
    },
  };
}
