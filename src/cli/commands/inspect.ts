/** Read-only views of a mission: status, journal, progress, ledger, watch, list. */
import { Command } from 'commander';
import { journalQuery, ledgerQuery, missionLogQuery, progressQuery } from '../../workflows/messages.ts';
import { action } from '../errors.ts';
import { onMission, printJson, withClient } from '../mission-client.ts';
import { follow } from '../follow.ts';
import { describeSettled, settle } from '../mission-view.ts';

type Flags = { json?: boolean };

export const statusCommand = new Command('status')
  .description('where a mission stands and what it waits for')
  .argument('<id>', 'workflow id')
  .option('--json', 'print JSON')
  .action(
    action(async (id: string, flags: Flags) => {
      await onMission(id, async (handle) => {
        const settled = await settle(handle, { timeoutMs: 0 });
        if (flags.json) printJson({ workflowId: id, ...settled });
        else process.stdout.write(describeSettled(id, settled) + '\n');
      });
    }),
  );

export const journalCommand = new Command('journal')
  .description('the journal in commit order')
  .argument('<id>', 'workflow id')
  .option('--json', 'print JSON (entries in commit order)')
  .option('--log', 'print it as the Mission Log the model sees')
  .action(
    action(async (id: string, flags: Flags & { log?: boolean }) => {
      await onMission(id, async (handle) => {
        if (flags.log) return void process.stdout.write((await handle.query(missionLogQuery)) + '\n');
        const { version, entries } = await handle.query(journalQuery);
        if (flags.json) return printJson({ version, entries });
        if (entries.length === 0) return void process.stdout.write('(empty journal)\n');
        for (const [key, value] of entries) process.stdout.write(`${key}: ${JSON.stringify(value)}\n`);
      });
    }),
  );

export const progressCommand = new Command('progress')
  .description('the plan checklist with step summaries')
  .argument('<id>', 'workflow id')
  .action(
    action(async (id: string) => {
      await onMission(id, async (handle) => void process.stdout.write((await handle.query(progressQuery)) + '\n'));
    }),
  );

export const ledgerCommand = new Command('ledger')
  .description('every tool call of the mission')
  .argument('<id>', 'workflow id')
  .option('--json', 'print JSON')
  .action(
    action(async (id: string, flags: Flags) => {
      await onMission(id, async (handle) => {
        const ledger = await handle.query(ledgerQuery);
        if (flags.json) return printJson(ledger);
        if (ledger.length === 0) return void process.stdout.write('(no tool calls)\n');
        for (const e of ledger) {
          const outcome = e.status === 'failed' ? `failed: ${e.error}` : e.status === 'running' ? 'running' : JSON.stringify(e.result);
          process.stdout.write(
            `#${e.seq} pass ${e.pass} ${e.tool} [${e.sideEffect}]${e.taskId ? ` task ${e.taskId}` : ''} attempts ${e.attempts} via ${e.activity} → ${outcome}\n`,
          );
        }
      });
    }),
  );

export const watchCommand = new Command('watch')
  .description('follow a mission live (pass, turn, model answering, effects) until it ends or waits')
  .argument('<id>', 'workflow id')
  .option('--until-closed', 'keep following past a wait, until the mission ends')
  .action(
    action(async (id: string, flags: { untilClosed?: boolean }) => {
      await onMission(id, async (handle) => {
        const stop = new AbortController();
        const onInterrupt = () => stop.abort();
        process.once('SIGINT', onInterrupt);
        const settled = await follow(handle, { write: (line) => process.stdout.write(`${line}\n`), untilClosed: flags.untilClosed, signal: stop.signal }).finally(() =>
          process.off('SIGINT', onInterrupt),
        );
        if (stop.signal.aborted) return void process.stdout.write(`Stopped following; mission ${id} goes on.\n`);
        process.stdout.write((await handle.query(progressQuery).catch(() => '')) + '\n');
        process.stdout.write(describeSettled(id, settled) + '\n');
        if (settled.closed?.failure) process.exitCode = 1;
      });
    }),
  );

export const listCommand = new Command('list')
  .description('missions on the cluster: running ones first, then the most recently closed')
  .option('--query <q>', 'extra visibility filter, e.g. "ExecutionStatus = \'Running\'"')
  .option('--status <status>', 'only missions in this Navigator status (waiting, completed, ...): needs the status search attribute')
  .option('--status-attribute <name>', 'the status search attribute (or NAVIGATOR_STATUS_ATTRIBUTE)', process.env.NAVIGATOR_STATUS_ATTRIBUTE ?? 'NavigatorStatus')
  .option('--limit <n>', 'at most this many', '50')
  .option('--json', 'print JSON')
  .action(
    action(async (flags: Flags & { query?: string; limit: string; status?: string; statusAttribute: string }) => {
      await withClient(async (client) => {
        const { NavigatorClient } = await import('../../client/navigator-client.ts');
        const byStatus = flags.status ? `${flags.statusAttribute} = '${flags.status.replace(/'/g, "\\'")}'` : undefined;
        const query = [byStatus, flags.query].filter(Boolean).join(' AND ') || undefined;
        const listed = await new NavigatorClient({ client }).list({ kind: 'missions', query, limit: Number(flags.limit) });
        const rows = listed.map((w) => ({ workflowId: w.workflowId, status: w.status, startTime: w.startTime.toISOString() }));
        if (flags.json) return printJson(rows);
        if (rows.length === 0) return void process.stdout.write('(no missions)\n');
        for (const r of rows) process.stdout.write(`${r.startTime}  ${r.status.padEnd(10)}  ${r.workflowId}\n`);
      });
    }),
  );
