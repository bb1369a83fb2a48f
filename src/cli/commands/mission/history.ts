/** `navigator history`, `audit` and `replay`: a mission seen through Temporal's history. */
import { Command } from 'commander';
import { Worker } from '@temporalio/worker';
import { fetchChain } from '../../../history/fetch.ts';
import { timeline } from '../../../history/timeline.ts';
import { CliError, action } from '../../errors.ts';
import { explain, printJson, quietTemporalLogs, withClient } from '../../mission/client.ts';

type Flags = { json?: boolean };

export const historyCommand = new Command('history')
  .description('a readable timeline of the mission from its Temporal history')
  .argument('<id>', 'workflow id')
  .option('--json', 'print JSON')
  .action(
    action(async (id: string, flags: Flags) => {
      await withClient(async (client) => {
        const chain = await fetchChain(client, id).catch((e) => Promise.reject(explain(e, id)));
        const lines = timeline(chain);
        if (flags.json) return printJson(lines);
        for (const l of lines)
          process.stdout.write(`${l.time.slice(11, 23)}  #${String(l.eventId).padEnd(4)} ${l.text}\n`);
      });
    }),
  );

export const auditCommand = new Command('audit')
  .description(
    'cross-check the journal against Temporal history and replay it (online by id, or offline from an exported history)',
  )
  .argument('[id]', 'workflow id (not needed with --history)')
  .option(
    '--history <file>',
    'audit a history exported as JSON (temporal workflow show --output json), or a JSON list of them for a chain, without a cluster',
  )
  .option('--json', 'print the full report as JSON')
  .action(
    action(async (id: string | undefined, flags: Flags & { history?: string }) => {
      const { auditChain, auditMission, formatValueChecks } = await import('../../../audit/mission/audit.ts');
      const { readReplayer, closeReadReplayer } = await import('../../../history/replay.ts');
      const { readHistoryFile } = await import('../../input.ts');
      if (!id && !flags.history) throw new CliError('give a workflow id, or --history FILE', 2);
      await quietTemporalLogs();
      // online, the audit replays on the process's read replayer, which also reads the mission's journal from its history
      const report = flags.history
        ? await auditChain(await readHistoryFile(flags.history), null, {
            replayer: await readReplayer(),
            requireClosed: true,
          }).finally(closeReadReplayer)
        : await withClient((client) => auditMission(client, id!).catch((e) => Promise.reject(explain(e, id!))));
      if (flags.json) printJson(report);
      else printAudit(report, formatValueChecks, { offline: Boolean(flags.history) });
      if (!report.ok) throw new CliError(`audit of ${report.workflowId || flags.history} failed`);
    }),
  );

/** How the rebuilt journal compares: online an empty journal on both sides matches too. */
export function journalVerdict(journal: { matches: boolean; fromWorkflow: unknown[] }, offline: boolean): string {
  if (offline) return 'no workflow journal to compare (offline)';
  return journal.matches ? 'matches the workflow' : 'DIFFERS';
}

function printAudit(
  report: import('../../../audit/mission/audit.ts').AuditReport,
  formatValueChecks: typeof import('../../../audit/mission/audit.ts').formatValueChecks,
  opts: { offline: boolean },
): void {
  const say = (line: string) => process.stdout.write(line + '\n');
  say(`Audit of ${report.workflowId} (${report.runs.length} run(s))`);
  say(
    `  journal rebuilt from history: ${report.journal.fromHistory.length} task(s), ${journalVerdict(report.journal, opts.offline)}`,
  );
  for (const d of report.journal.differences) say(`    ${d}`);
  for (const p of report.provenance) say(`  ${p.key}: committed by ${p.source}, event ${p.eventId}`);
  say(
    `  external effects run twice: ${report.duplicateEffects.length === 0 ? 'none' : JSON.stringify(report.duplicateEffects)}`,
  );
  say(`  replay: ${report.replay.ok ? 'deterministic' : report.replay.errors.join('; ')}`);
  if (report.storedPayloads.checked)
    say(
      `  stored payloads: ${report.storedPayloads.checked} reference(s) to ${(report.storedPayloads.bytes / 1024 / 1024).toFixed(1)} MB, each found in the payload store with its digest`,
    );
  for (const u of report.unavailableResults)
    say(
      `  result not kept: ${u.tool}${u.taskId ? ` (task ${u.taskId})` : ''} ran once, event ${u.eventId}: ${u.message}`,
    );
  for (const line of formatValueChecks(report)) say(line);
  for (const p of report.problems) say(`  problem: ${p}`);
  say(report.ok ? 'audit passed' : 'audit FAILED');
}

export const replayCommand = new Command('replay')
  .description('download the history and replay it against the current workflow code')
  .argument('<id>', 'workflow id')
  .action(
    action(async (id: string) => {
      const { bundleMissionWorkflows } = await import('../../../worker/index.ts');
      await quietTemporalLogs();
      const workflowBundle = await bundleMissionWorkflows();
      await withClient(async (client) => {
        const chain = await fetchChain(client, id).catch((e) => Promise.reject(explain(e, id)));
        const histories = chain.map((r) => ({ workflowId: r.workflowId, history: r.history }));
        let failed = 0;
        const dataConverter = client.options.dataConverter;
        const { silentSpanSinks } = await import('../../../telemetry/setup.ts');
        for await (const r of Worker.runReplayHistories(
          { workflowBundle, sinks: silentSpanSinks, replayName: 'navigator-replay', dataConverter },
          histories,
        )) {
          if (r.error) failed++;
          process.stdout.write(
            `run ${r.runId}: ${r.error ? `NOT deterministic: ${r.error.message}` : 'replays cleanly'}\n`,
          );
        }
        if (failed) throw new CliError(`${failed} run(s) of ${id} do not replay`);
      });
    }),
  );
