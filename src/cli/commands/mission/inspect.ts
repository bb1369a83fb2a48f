/** Read-only views of a mission: status, journal, progress, ledger, watch; and list (missions and plans). */
import { Command, Option } from 'commander';
import { CliError, action } from '../../errors.ts';
import { onMission, printJson, withClient } from '../../mission/client.ts';
import { follow } from '../../mission/follow.ts';
import { progressForPeople } from '../../mission/progress-view.ts';
import { closedState, describeSettled, ledgerLine, notKeptLines, retriedLines } from '../../mission/view.ts';
import { orFromHistory } from '../../../history/reader.ts';
import type { MissionOverview } from '../../../workflows/mission/contract.ts';
import { effectApprovalLine } from '../../approval-view.ts';

type Flags = { json?: boolean };

export const statusCommand = new Command('status')
  .description('where a mission stands and what it waits for')
  .argument('<id>', 'workflow id')
  .option('--json', 'print JSON')
  .action(
    action(async (id: string, flags: Flags) => {
      await onMission(id, async (mission) => {
        // a closed mission from its history (no worker needed); a running one asked, with a deadline
        const closed = await closedState(mission.workflow);
        // nobody answers: what its history holds, then the reason and a non-zero exit
        const { value: overview, unavailable } = await orFromHistory<MissionOverview | null>(
          () => mission.overview(),
          () => mission.overviewFromHistory().catch(() => null),
        );
        const settled = { status: overview?.status ?? null, closed };
        if (flags.json)
          printJson({
            workflowId: id,
            ...settled,
            ...(unavailable
              ? {
                  workerUnavailable: {
                    message: unavailable.message,
                    taskQueue: unavailable.taskQueue,
                    polling: unavailable.polling,
                  },
                }
              : {}),
          });
        else {
          const lines = [
            describeSettled(id, settled),
            ...retriedLines(overview?.ledger ?? []),
            ...notKeptLines(overview?.ledger ?? []),
          ];
          if (unavailable) lines.unshift(`(from its history: no worker answered)`);
          process.stdout.write(lines.join('\n') + '\n');
        }
        if (unavailable) throw new CliError(`mission ${id}: ${unavailable.message}`);
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
  .description('the plan checklist with what the model reported for each step')
  .argument('<id>', 'workflow id')
  .option('--for-model', 'the text the model reads instead (with its instructions)')
  .action(
    action(async (id: string, flags: { forModel?: boolean }) => {
      await onMission(
        id,
        async (mission) =>
          void process.stdout.write(
            (flags.forModel ? await mission.progress() : await progressForPeople(mission)) + '\n',
          ),
      );
    }),
  );

export const ledgerCommand = new Command('ledger')
  .description('every tool call of the mission')
  .argument('<id>', 'workflow id')
  .option('--json', 'print JSON')
  .action(
    action(async (id: string, flags: Flags) => {
      await onMission(id, async (mission) => {
        if (flags.json) return printJson(await mission.ledger());
        // the ledger and the approvals in one query (each query of a closed run replays it)
        const { ledger, status } = await mission.overview();
        if (ledger.length === 0) process.stdout.write('(no tool calls)\n');
        for (const e of ledger) process.stdout.write(`${ledgerLine(e)}\n`);
        // who approved or denied which effect: a denied effect never ran, so only this shows it
        const records = status.approvals ?? [];
        if (records.length)
          process.stdout.write(`Approvals:\n${records.map((r) => `  ${effectApprovalLine(r)}\n`).join('')}`);
      });
    }),
  );

export const watchCommand = new Command('watch')
  .description('follow a mission live (pass, turn, model answering, effects) until it ends or waits')
  .argument('<id>', 'workflow id')
  .option('--until-closed', 'keep following past a wait, until the mission ends')
  .action(
    action(async (id: string, flags: { untilClosed?: boolean }) => {
      await onMission(id, async (mission) => {
        const stop = new AbortController();
        const onInterrupt = () => stop.abort();
        process.once('SIGINT', onInterrupt);
        const settled = await follow(mission, {
          write: (line) => process.stdout.write(`${line}\n`),
          untilClosed: flags.untilClosed,
          signal: stop.signal,
        }).finally(() => process.off('SIGINT', onInterrupt));
        if (stop.signal.aborted) return void process.stdout.write(`Stopped following; mission ${id} goes on.\n`);
        process.stdout.write((await progressForPeople(mission).catch(() => '')) + '\n');
        process.stdout.write(describeSettled(id, settled) + '\n');
        if (settled.closed?.failure) process.exitCode = 1;
      });
    }),
  );

export const listCommand = new Command('list')
  .description(
    'missions and plans on the cluster, with their Navigator status (waiting, review, ...): running ones first, then the most recently closed',
  )
  .addOption(new Option('--kind <kind>', 'only missions or only plans').choices(['mission', 'plan']))
  .option(
    '--status <status>',
    'only those in this Navigator status: waiting (for a person), review, running, completed, completed_with_failures, failed, ...',
  )
  .option('--query <q>', 'extra visibility filter, e.g. "ExecutionStatus = \'Running\'"')
  .option('--plans', 'plans only (same as --kind plan)')
  .option('--missions', 'missions only (same as --kind mission)')
  .option('--limit <n>', 'at most this many of each kind', '50')
  .option('--json', 'print JSON')
  .action(
    action(
      async (
        flags: Flags & {
          kind?: 'mission' | 'plan';
          query?: string;
          limit: string;
          status?: string;
          plans?: boolean;
          missions?: boolean;
        },
      ) => {
        const { NavigatorClient, RUN_KINDS, RUN_STATUSES } = await import('../../../client/index.ts');
        const asked = new Set(
          [flags.kind, flags.plans ? 'plan' : undefined, flags.missions ? 'mission' : undefined].filter(
            (k) => k !== undefined,
          ),
        );
        if (asked.size > 1)
          throw new CliError(
            '--kind, --plans and --missions ask for different kinds; give one (or none to list both)',
            2,
          );
        const kinds = RUN_KINDS.filter((k) => asked.size === 0 || asked.has(k));
        if (flags.status !== undefined && !RUN_STATUSES.includes(flags.status))
          throw new CliError(`--status ${flags.status}: not a status; one of ${RUN_STATUSES.join(', ')}`, 2);
        const limit = Number(flags.limit);
        if (!Number.isInteger(limit) || limit < 1)
          throw new CliError(`--limit ${flags.limit}: expected a whole number of at least 1`, 2);
        await withClient(async (client) => {
          const runs = await new NavigatorClient({ client }).runs({
            kinds,
            status: flags.status,
            query: flags.query,
            limit,
          });
          const rows = runs.map((r) => ({
            kind: r.kind,
            workflowId: r.workflowId,
            status: r.status,
            startTime: r.startTime.toISOString(),
          }));
          if (flags.json) return printJson(rows);
          if (rows.length === 0)
            return void process.stdout.write(
              `(no ${kinds.length === 1 ? `${kinds[0]}s` : 'missions or plans'}${flags.status ? ` ${flags.status}` : ''})\n`,
            );
          process.stdout.write(`${'STARTED'.padEnd(24)}  ${'KIND'.padEnd(7)}  ${'STATUS'.padEnd(16)}  WORKFLOW ID\n`);
          for (const r of rows)
            process.stdout.write(`${r.startTime}  ${r.kind.padEnd(7)}  ${r.status.padEnd(16)}  ${r.workflowId}\n`);
        });
      },
    ),
  );
