/**
 * `navigator codec-server`: the /encode and /decode endpoints for the Temporal UI and CLI.
 * It decrypts for whoever may call it, so it is never open by default: beyond 127.0.0.1 it
 * needs --authorization or --secret; on 127.0.0.1 it makes a secret and prints it once
 * with the endpoint to give the UI, unless --no-auth says the machine is yours alone.
 */
import { Command } from 'commander';
import { CliError, action } from '../errors.ts';

interface Flags {
  port: string;
  host: string;
  origin?: string;
  authorization?: string;
  secret?: string;
  auth: boolean;
  allowHost?: string[];
}

export const codecServerCommand = new Command('codec-server')
  .description(
    'serve /encode and /decode with the configured codecs (the payload store, --codec / NAVIGATOR_CODEC), for the Temporal UI (--codec-endpoint); authorized by a secret (generated and printed once on 127.0.0.1)',
  )
  .option('--port <n>', 'port', '8888')
  .option('--host <h>', 'address to bind (beyond 127.0.0.1 needs --authorization or --secret)', '127.0.0.1')
  .option('--origin <url>', "the Temporal UI's origin, for CORS (e.g. http://localhost:8233)")
  .option(
    '--authorization <value>',
    'accept this exact Authorization header, e.g. "Bearer $TOKEN" for temporal --codec-auth (or NAVIGATOR_CODEC_AUTHORIZATION)',
  )
  .option(
    '--secret <s>',
    'the secret: Authorization: Bearer SECRET, or the endpoint URL/SECRET for the Temporal UI (or NAVIGATOR_CODEC_SECRET; generated on 127.0.0.1 when neither is given)',
  )
  .option('--no-auth', 'no authorization at all (127.0.0.1 only): any process of this machine may decrypt')
  .option(
    '--allow-host <name...>',
    "Host names to answer besides 127.0.0.1, localhost and the machine's own (e.g. a reverse proxy's)",
  )
  .action(
    action(async (flags: Flags) => {
      const { chainCodecs, configuredCodecs } = await import('../../codec/load.ts');
      const { startCodecServer } = await import('../../codec/server.ts');
      // the payload store's references (resolved to their values) and NAVIGATOR_CODEC's encryption
      const codecs = await configuredCodecs();
      if (!codecs.length)
        throw new CliError(
          'no codec configured: pass --codec aes-gcm (keys in NAVIGATOR_CODEC_KEYS) or --codec MODULE, or set NAVIGATOR_CODEC; or use the payload store (NAVIGATOR_PAYLOAD_STORE, not off)',
          2,
        );
      const codec = chainCodecs(codecs);
      const port = Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new CliError(`--port must be a port number, got ${flags.port}`, 2);
      const noAuth = !flags.auth;
      const server = await startCodecServer({
        codec,
        port,
        host: flags.host,
        origin: flags.origin,
        authorization: noAuth
          ? undefined
          : (flags.authorization ?? nonEmpty(process.env.NAVIGATOR_CODEC_AUTHORIZATION)),
        secret: noAuth ? undefined : (flags.secret ?? nonEmpty(process.env.NAVIGATOR_CODEC_SECRET)),
        noAuth,
        allowedHosts: flags.allowHost,
      }).catch((err: Error) => {
        throw new CliError(err.message, 2);
      });
      process.stdout.write(
        `Codec server at ${server.url} (POST /encode, /decode)${flags.origin ? `, CORS for ${flags.origin}` : ''}\n`,
      );
      if (server.generated) process.stdout.write(howToCall(server.url, server.endpoint, server.secret!));
      if (noAuth)
        process.stdout.write('No authorization (--no-auth): any process of this machine can decrypt through it\n');
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await server.close();
    }),
  );

/** An env variable set to '' counts as unset (what `VAR="$OTHER"` gives when OTHER is unset is checked by the flag's own rule). */
const nonEmpty = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);

/** Printed once for a generated secret: nobody else knows it. */
const howToCall = (url: string, endpoint: string, secret: string) =>
  [
    `Secret generated for this run (shown once): ${secret}`,
    `  Temporal UI codec endpoint: ${endpoint}`,
    `    (temporal server start-dev --ui-codec-endpoint ${endpoint}, or the UI's Data Encoder setting)`,
    `  temporal CLI: --codec-endpoint ${url} --codec-auth "Bearer ${secret}"`,
    '',
  ].join('\n');
