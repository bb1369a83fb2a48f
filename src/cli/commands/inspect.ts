/** Read-only views of a mission: status, journal, progress, ledger, watch, list. */
import { Command } from 'commander';
import type { Client } from '@temporalio/client';
import { journalQuery, ledgerQuery, missionLogQuery, progressQuery, statusQuery } from '../../workflows/messages.ts';
import { planStatusQuery } from '../../workflows/plan-messages.ts';
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
  .description('missions and plans on the cluster, with their Navigator status (waiting, review, ...): running ones first, then the most recently closed')
  .option('--query <q>', 'extra visibility filter, e.g. "ExecutionStatus = \'Running\'"')
  .option('--status <status>', 'only those in this Navigator status: waiting (for a person), running, completed, failed, ...')
  .option('--plans', 'plans only')
  .option('--missions', 'missions only')
  .option('--limit <n>', 'at most this many of each kind', '50')
  .option('--json', 'print JSON')
  .action(
    action(async (flags: Flags & { query?: string; limit: string; status?: string; plans?: boolean; missions?: boolean }) => {
      await withClient(async (client) => {
        const { NavigatorClient } = await import('../../client/navigator-client.ts');
        const navigator = new NavigatorClient({ client });
        const kinds = (['missions', 'plans'] as const).filter((k) => (k === 'plans' ? !flags.missions : !flags.plans));
        const rows: ListedRow[] = [];
        for (const kind of kinds) {
          const running = flags.status && RUNNING_STATUSES.has(flags.status) ? "ExecutionStatus = 'Running'" : undefined;
          const query = [running, flags.query].filter(Boolean).join(' AND ') || undefined;
          const listed = await navigator.list({ kind, query, limit: Number(flags.limit) });
          // the Navigator status is the workflow's own (a waiting mission is RUNNING to Temporal)
          rows.push(...(await Promise.all(listed.map(async (w): Promise<ListedRow> => ({ kind: kind === 'plans' ? 'plan' : 'mission', workflowId: w.workflowId, status: await navigatorStatus(client, kind, w.workflowId, w.status), startTime: w.startTime.toISOString() })))));
        }
        const shown = flags.status ? rows.filter((r) => r.status === flags.status) : rows;
        if (flags.json) return printJson(shown);
        if (shown.length === 0) return void process.stdout.write(flags.status ? `(nothing ${flags.status})\n` : '(no missions or plans)\n');
        for (const r of shown) process.stdout.write(`${r.startTime}  ${r.kind.padEnd(7)}  ${r.status.padEnd(16)}  ${r.workflowId}\n`);
      });
    }),
  );

/** Navigator statuses of workflows Temporal still calls running. */
const RUNNING_STATUSES = new Set(['waiting', 'review', 'running', 'starting', 'executing']);

interface ListedRow {
  kind: 'mission' | 'plan';
  workflowId: string;
  status: string;
  startTime: string;
}

/**
 * A running workflow's status as the Navigator names it, by query: a mission that waits
 * for a decision, a plan in review or waiting for an approval or an answer, is `waiting`
 * (a plan in review: `review`). A closed one: Temporal's status in lower case.
 */
async function navigatorStatus(client: Client, kind: 'missions' | 'plans', id: string, temporalStatus: string): Promise<string> {
  if (temporalStatus !== 'RUNNING') return temporalStatus.toLowerCase();
  const handle = client.workflow.getHandle(id);
  try {
    if (kind === 'missions') return (await handle.query(statusQuery)).status;
    const view = await handle.query(planStatusQuery);
    if (view.status === 'review') return 'review';
    return view.approvals.length > 0 || (view.questions ?? []).length > 0 ? 'waiting' : view.status;
  } catch {
    return 'running (no answer)';
  }
}
