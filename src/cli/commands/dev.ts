/** `navigator dev`: the embedded Temporal dev server (and, later, a worker on it). */
import { Command } from 'commander';
import { action } from '../errors.ts';
import { parsePositiveInt } from '../input.ts';

interface DevFlags {
  port: string;
  ip: string;
  db?: string;
  worker: boolean;
}

export const devCommand = new Command('dev')
  .description('run the embedded Temporal dev server until interrupted')
  .option('--port <port>', 'gRPC port', '7233')
  .option('--ip <ip>', 'address to listen on', '127.0.0.1')
  .option('--db <file>', 'keep server state in this file across restarts')
  .option('--no-worker', 'do not run a Navigator worker on the server')
  .action(
    action(async (flags: DevFlags) => {
      // Loaded on demand so that commands without Temporal start fast.
      const { runDevCommand } = await import('../../devserver/index.ts');
      await runDevCommand({ port: parsePositiveInt(flags.port, '--port'), ip: flags.ip, db: flags.db });
    }),
  );
