/** `navigator console`: the web console against the cluster of Temporal's environment configuration. */
import { Command } from 'commander';
import { userInfo } from 'node:os';
import { CliError, action } from '../errors.ts';
import { withClient } from '../mission-client.ts';

export const consoleCommand = new Command('console')
  .description('serve the web console: inbox of decisions and approvals, missions, plan review (127.0.0.1 unless --host; other hosts need --token)')
  .option('--port <n>', 'port', '8233')
  .option('--host <h>', 'address to bind', '127.0.0.1')
  .option('--token <t>', 'required for every request (or NAVIGATOR_CONSOLE_TOKEN); NAME:SECRET records NAME as who decided, several comma-separated; open /?token=SECRET once in the browser')
  .option('--user <name>', 'recorded as who decided when the token has no name (default: NAVIGATOR_USER or your login)')
  .option('--task-queue <name>', 'task queue of the workers (or NAVIGATOR_TASK_QUEUE)')
  .option('--agents <module>', 'module with your agents (or NAVIGATOR_AGENTS), as for the worker: named in the start form, input checked before a start')
  .action(
    action(async (flags: { port: string; host: string; token?: string; user?: string; taskQueue?: string; agents?: string }) => {
      const port = Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be a port number, got ${flags.port}`, 2);
      const { NavigatorClient } = await import('../../client/navigator-client.ts');
      const { startConsole } = await import('../../console/server.ts');
      const { buildRegistry } = await import('../../worker/agents.ts');
      const agents = await buildRegistry(flags.agents ?? process.env.NAVIGATOR_AGENTS).catch((err: Error) => {
        throw new CliError(`cannot load the agents: ${err.message}`, 2);
      });
      await withClient(async (client) => {
        const navigator = new NavigatorClient({ client, taskQueue: flags.taskQueue });
        const token = flags.token ?? process.env.NAVIGATOR_CONSOLE_TOKEN;
        const user = flags.user ?? process.env.NAVIGATOR_USER ?? userInfo().username;
        const running = await startConsole({ navigator, user, token, host: flags.host, port, agents }).catch((err: Error) => {
          throw new CliError(err.message, 2);
        });
        process.stdout.write(`Console at ${running.url}${token ? ' (open /?token=... once)' : ''}\n`);
        await new Promise<void>((resolve) => {
          process.once('SIGINT', () => resolve());
          process.once('SIGTERM', () => resolve());
        });
        await running.close();
      });
    }),
  );
