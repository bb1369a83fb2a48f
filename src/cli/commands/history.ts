/** `navigator history`, `audit` and `replay`: a mission seen through Temporal's history. */
import { Command } from 'commander';
import { Worker } from '@temporalio/worker';
import { fetchChain } from '../../audit/history.ts';
import { timeline } from '../../audit/timeline.ts';
import { CliError, action } from '../errors.ts';
import { explain, printJson, quietTemporalLogs, withClient } from '../mission-client.ts';

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
        for (const l of lines) process.stdout.write(`${l.time.slice(11, 23)}  #${String(l.eventId).padEnd(4)} ${l.text}\n`);
      });
    }),
  );

export const auditCommand = new Command('audit')
  .description('cross-check the journal against Temporal history and replay it')
  .argument('<id>', 'workflow id')
  .option('--json', 'print the full report as JSON')
  .action(
    action(async (id: string, flags: Flags) => {
      const { auditMission } = await import('../../audit/index.ts');
      const { bundleMissionWorkflows } = await import('../../worker/index.ts');
      await quietTemporalLogs();
      await withClient(async (client) => {
        const report = await auditMission(client, id, { workflowBundle: await bundleMissionWorkflows() }).catch((e) => Promise.reject(explain(e, id)));
        if (flags.json) printJson(report);
        else {
          process.stdout.write(`Audit of ${id} (${report.runs.length} run(s))\n`);
          process.stdout.write(`  journal rebuilt from history: ${report.journal.fromHistory.length} task(s), ${report.journal.matches ? 'matches the workflow' : 'DIFFERS'}\n`);
          for (const d of report.journal.differences) process.stdout.write(`    ${d}\n`);
          for (const p of report.provenance) process.stdout.write(`  ${p.key}: committed by ${p.source}, event ${p.eventId}\n`);
          process.stdout.write(`  external effects run twice: ${report.duplicateEffects.length === 0 ? 'none' : JSON.stringify(report.duplicateEffects)}\n`);
          process.stdout.write(`  replay: ${report.replay.ok ? 'deterministic' : report.replay.errors.join('; ')}\n`);
          for (const p of report.problems) process.stdout.write(`  problem: ${p}\n`);
          process.stdout.write(report.ok ? 'audit passed\n' : 'audit FAILED\n');
        }
        if (!report.ok) throw new CliError(`audit of ${id} failed`);
      });
    }),
  );

export const replayCommand = new Command('replay')
  .description('download the history and replay it against the current workflow code')
  .argument('<id>', 'workflow id')
  .action(
    action(async (id: string) => {
      const { bundleMissionWorkflows } = await import('../../worker/index.ts');
      await quietTemporalLogs();
      const workflowBundle = await bundleMissionWorkflows();
      await withClient(async (client) => {
        const chain = await fetchChain(client, id).catch((e) => Promise.reject(explain(e, id)));
        const histories = chain.map((r) => ({ workflowId: r.workflowId, history: r.history }));
        let failed = 0;
        for await (const r of Worker.runReplayHistories({ workflowBundle, replayName: 'navigator-replay' }, histories)) {
          if (r.error) failed++;
          process.stdout.write(`run ${r.runId}: ${r.error ? `NOT deterministic: ${r.error.message}` : 'replays cleanly'}\n`);
        }
        if (failed) throw new CliError(`${failed} run(s) of ${id} do not replay`);
      });
    }),
  );
