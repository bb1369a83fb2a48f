/** `navigator store`: the payload store that keeps large payloads out of Temporal history. */
import { Command } from 'commander';
import { CliError, action } from '../errors.ts';
import { printJson, withClient } from '../mission/client.ts';

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

const infoCommand = new Command('info')
  .description('where the payload store is (NAVIGATOR_PAYLOAD_STORE), its threshold, and what it holds')
  .option('--json', 'print JSON')
  .action(
    action(async (flags: { json?: boolean }) => {
      const { configuredOffload } = await import('../../codec/load.ts');
      const offload = await configuredOffload();
      if (!offload) throw new CliError('no payload store: NAVIGATOR_PAYLOAD_STORE=off (payloads stay in history)', 2);
      let objects = 0;
      let bytes = 0;
      for await (const o of offload.store.list()) {
        objects++;
        bytes += o.size;
      }
      const info = { location: offload.store.location, thresholdBytes: offload.thresholdBytes, objects, bytes };
      if (flags.json) return printJson(info);
      process.stdout.write(
        `payload store ${info.location}: ${objects} object(s), ${mb(bytes)}; payloads over ${info.thresholdBytes} bytes are kept there\n`,
      );
    }),
  );

const gcCommand = new Command('gc')
  .description(
    'delete stored payloads no retained history references (open and closed workflows the namespace still keeps)',
  )
  .requiredOption(
    '--older-than <age>',
    'only objects written longer ago than this (e.g. 7d, 12h): newer ones may belong to work not yet in history',
  )
  .option('--dry-run', 'list what would be deleted, delete nothing')
  .option(
    '--namespaces <list>',
    'every namespace whose histories use this store, comma-separated (default: TEMPORAL_NAMESPACE or default)',
  )
  .option('--json', 'print JSON')
  .action(
    action(async (flags: { olderThan: string; dryRun?: boolean; namespaces?: string; json?: boolean }) => {
      const { configuredCodecs, configuredOffload } = await import('../../codec/load.ts');
      const { collectGarbage, parseAge } = await import('../../payloads/gc.ts');
      const { Client } = await import('@temporalio/client');
      const offload = await configuredOffload();
      if (!offload) throw new CliError('no payload store: NAVIGATOR_PAYLOAD_STORE=off', 2);
      let olderThanMs: number;
      try {
        olderThanMs = parseAge(flags.olderThan);
      } catch (err) {
        throw new CliError(`--older-than: ${(err as Error).message}`, 2);
      }
      const codecs = await configuredCodecs();
      await withClient(async (client, conn) => {
        const names = flags.namespaces
          ?.split(',')
          .map((n) => n.trim())
          .filter(Boolean);
        const clients = names?.length
          ? names.map(
              (namespace) =>
                new Client({ connection: conn.connection, namespace, dataConverter: client.options.dataConverter }),
            )
          : [client];
        const report = await collectGarbage({
          clients,
          store: offload.store,
          codecs,
          olderThanMs,
          dryRun: flags.dryRun,
        });
        if (flags.json) return printJson(report);
        const verb = flags.dryRun ? 'would delete' : 'deleted';
        process.stdout.write(
          `${report.histories} histories reference ${report.referenced} stored payload(s); the store ${offload.store.location} holds ${report.objects}: kept ${report.kept}, ${verb} ${report.deleted.length} (${mb(report.freedBytes)})\n`,
        );
      });
    }),
  );

export const storeCommand = new Command('store')
  .description('the payload store: large payloads kept out of Temporal history')
  .addCommand(infoCommand)
  .addCommand(gcCommand);
