/**
 * `navigator console`: the web console against the cluster of Temporal's environment
 * configuration. Never open by accident: on 127.0.0.1 it prints a one-time link that signs
 * a browser in (unless tokens, a proxy or --no-auth say otherwise); any other address
 * needs tokens or an authenticating proxy; empty and short secrets are refused at start.
 */
import { Command } from 'commander';
import { userInfo } from 'node:os';
import { CliError, action } from '../errors.ts';
import { withClient } from '../mission/client.ts';

interface Flags {
  port: string;
  host: string;
  token?: string;
  tokensFile?: string;
  auth: boolean;
  trustProxyHeader?: string;
  trustProxyGroupsHeader?: string;
  trustedProxy?: string[];
  user?: string;
  role?: string[];
  taskQueue?: string;
  agents?: string;
}

export const consoleCommand = new Command('console')
  .description(
    'serve the web console: inbox of decisions and approvals, missions, plan review (127.0.0.1 with a one-time sign-in link unless --host; other hosts need tokens or a proxy); docs/security.md',
  )
  .option('--port <n>', 'port', '8233')
  .option('--host <h>', 'address to bind', '127.0.0.1')
  .option(
    '--token <t>',
    'required for every request (or NAVIGATOR_CONSOLE_TOKEN): NAME:SECRET records NAME as who decided, NAME[role,role]:SECRET gives roles, several comma-separated; secrets of 16+ characters; open /?token=SECRET once in the browser',
  )
  .option(
    '--tokens-file <path>',
    'tokens one a line, as for --token, read again whenever the file changes (or NAVIGATOR_CONSOLE_TOKENS_FILE)',
  )
  .option('--no-auth', 'no authentication (127.0.0.1 only): any process of this machine may act as --user')
  .option(
    '--trust-proxy-header <name>',
    'behind an authenticating reverse proxy: the user is this header (e.g. X-Forwarded-User); only on 127.0.0.1 or with --trusted-proxy',
  )
  .option(
    '--trust-proxy-groups-header <name>',
    "the proxy's header of the user's groups, comma-separated: their roles (e.g. X-Forwarded-Groups)",
  )
  .option(
    '--trusted-proxy <address...>',
    'the addresses the proxy connects from (required with --trust-proxy-header beyond 127.0.0.1)',
  )
  .option(
    '--user <name>',
    'recorded as who decided when the authentication names nobody (no token name): default NAVIGATOR_USER or your login',
  )
  .option('--role <role...>', 'the roles of that user (a decision naming approvers needs one of them)')
  .option('--task-queue <name>', 'task queue of the workers (or NAVIGATOR_TASK_QUEUE)')
  .option(
    '--agents <module>',
    'module with your agents (or NAVIGATOR_AGENTS), as for the worker: named in the start form, input checked before a start',
  )
  .action(
    action(async (flags: Flags) => {
      const port = Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new CliError(`--port must be a port number, got ${flags.port}`, 2);
      const { NavigatorClient } = await import('../../client/navigator-client.ts');
      const { startConsole } = await import('../../console/server.ts');
      const { buildRegistry } = await import('../../worker/agents.ts');
      const agents = await buildRegistry(flags.agents ?? process.env.NAVIGATOR_AGENTS).catch((err: Error) => {
        throw new CliError(`cannot load the agents: ${err.message}`, 2);
      });
      await withClient(async (client) => {
        const navigator = new NavigatorClient({ client, taskQueue: flags.taskQueue });
        const running = await startConsole({ navigator, agents, host: flags.host, port, ...authOf(flags) }).catch(
          (err: Error) => {
            throw new CliError(err.message, 2);
          },
        );
        process.stdout.write(`${consoleLine(running)}\n`);
        await new Promise<void>((resolve) => {
          process.once('SIGINT', () => resolve());
          process.once('SIGTERM', () => resolve());
        });
        await running.close();
      });
    }),
  );

/** An env variable set to '' counts as unset. */
const nonEmpty = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);

/** The console's authentication from the flags and environment. */
function authOf(flags: Flags) {
  const proxy = flags.trustProxyHeader
    ? { userHeader: flags.trustProxyHeader, groupsHeader: flags.trustProxyGroupsHeader, trusted: flags.trustedProxy }
    : undefined;
  if (!proxy && (flags.trustProxyGroupsHeader || flags.trustedProxy))
    throw new CliError('--trust-proxy-groups-header and --trusted-proxy go with --trust-proxy-header', 2);
  return {
    user: flags.user ?? process.env.NAVIGATOR_USER ?? userInfo().username,
    roles: flags.role,
    token: flags.token ?? nonEmpty(process.env.NAVIGATOR_CONSOLE_TOKEN),
    tokensFile: flags.tokensFile ?? nonEmpty(process.env.NAVIGATOR_CONSOLE_TOKENS_FILE),
    noAuth: !flags.auth,
    proxy,
  };
}

/** `Console at URL`: the one-time link when the console keeps its own session (what `navigator dev` prints too). */
export function consoleLine(running: { url: string; loginUrl: string | null }): string {
  return running.loginUrl
    ? `Console at ${running.loginUrl} (a one-time link: it signs this browser in)`
    : `Console at ${running.url}`;
}
