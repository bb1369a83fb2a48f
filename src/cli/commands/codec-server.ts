/** `navigator codec-server`: the /encode and /decode endpoints for the Temporal UI and CLI. */
import { Command } from 'commander';
import { CliError, action } from '../errors.ts';

export const codecServerCommand = new Command('codec-server')
  .description('serve /encode and /decode with the configured codec (--codec / NAVIGATOR_CODEC), for the Temporal UI (--codec-endpoint)')
  .option('--port <n>', 'port', '8888')
  .option('--host <h>', 'address to bind', '127.0.0.1')
  .option('--origin <url>', "the Temporal UI's origin, for CORS (e.g. http://localhost:8233)")
  .option('--authorization <value>', 'require this exact Authorization header (or NAVIGATOR_CODEC_AUTHORIZATION)')
  .action(
    action(async (flags: { port: string; host: string; origin?: string; authorization?: string }) => {
      const { configuredCodec } = await import('../../codec/load.ts');
      const { startCodecServer } = await import('../../codec/server.ts');
      const codec = await configuredCodec();
      if (!codec) throw new CliError('no codec configured: pass --codec aes-gcm (keys in NAVIGATOR_CODEC_KEYS) or --codec MODULE, or set NAVIGATOR_CODEC', 2);
      const port = Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be a port number, got ${flags.port}`, 2);
      const server = await startCodecServer({ codec, port, host: flags.host, origin: flags.origin, authorization: flags.authorization ?? process.env.NAVIGATOR_CODEC_AUTHORIZATION });
      process.stdout.write(`Codec server at ${server.url} (POST /encode, /decode)${flags.origin ? `, CORS for ${flags.origin}` : ''}\n`);
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await server.close();
    }),
  );
