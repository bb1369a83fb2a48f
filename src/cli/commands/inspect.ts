/** Read-only views of a mission: status, journal, progress, ledger, watch, list. */
import { Command } from 'commander';
import { listMissions } from '../../client/missions.ts';
import type { StatusView } from '../../workflows/contract.ts';
import { action } from '../errors.ts';
import { onMission, printJson, withClient } from '../mission-client.ts';
import { describeSettled } from '../mission-view.ts';

type Flags = { json?: boolean };

export const statusCommand = new Command('status')
  .description('where a mission stands and what it waits for')
  .argument('<id>', 'workflow id')
  .option('--json', 'print JSON')
  .action(
    action(async (id: string, flags: Flags) => {
      await onMission(id, async (mission) => {
        const settled = await mission.settle({ timeoutMs: 0 });
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
      await onMission(id, async (mission) => {
        if (flags.log) return void process.stdout.write((await mission.missionLog()) + '\n');
        const { version, entries } = await mission.journal();
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
      await onMission(id, async (mission) => void process.stdout.write((await mission.progress()) + '\n'));
    }),
  );

export const ledgerCommand = new Command('ledger')
  .description('every tool call of the mission')
  .argument('<id>', 'workflow id')
  .option('--json', 'print JSON')
  .action(
    action(async (id: string, flags: Flags) => {
      await onMission(id, async (mission) => {
        const ledger = await mission.ledger();
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
  .description('follow a mission live until it ends or waits')
  .argument('<id>', 'workflow id')
  .action(
    action(async (id: string) => {
      await onMission(id, async (mission) => {
        let last = '';
        const show = (s: StatusView) => {
          const line = `${s.status}: pass ${s.passes}, ${s.journalSize} task(s), ${s.budgets.used.toolCalls} tool call(s)`;
          if (line !== last) process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
          last = line;
        };
        const settled = await mission.settle({ timeoutMs: 24 * 3600_000, onStatus: show });
        process.stdout.write((await mission.progress().catch(() => '')) + '\n');
        process.stdout.write(describeSettled(id, settled) + '\n');
      });
    }),
  );

export const listCommand = new Command('list')
  .description('missions on the cluster, newest first')
  .option('--query <q>', 'extra visibility filter, e.g. "ExecutionStatus = \'Running\'"')
  .option('--status <status>', 'only missions in this Navigator status (waiting, completed, ...): needs the status search attribute')
  .option('--status-attribute <name>', 'the status search attribute (or NAVIGATOR_STATUS_ATTRIBUTE)', process.env.NAVIGATOR_STATUS_ATTRIBUTE ?? 'NavigatorStatus')
  .option('--limit <n>', 'at most this many', '50')
  .option('--json', 'print JSON')
  .action(
    action(async (flags: Flags & { query?: string; limit: string; status?: string; statusAttribute: string }) => {
      await withClient(async (client) => {
        const found = await listMissions(client, { query: flags.query, status: flags.status, statusAttribute: flags.statusAttribute, limit: Number(flags.limit) });
        const rows = found.map((r) => ({ workflowId: r.workflowId, status: r.status, startTime: r.startTime }));
        if (flags.json) return printJson(rows);
        if (rows.length === 0) return void process.stdout.write('(no missions)\n');
        for (const r of rows) process.stdout.write(`${r.startTime}  ${r.status.padEnd(10)}  ${r.workflowId}\n`);
      });
    }),
  );
