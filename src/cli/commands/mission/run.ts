/**
 * `navigator run AGENT`: start a mission on the cluster, print its id at once, then follow
 * it live until it waits or ends (`--detach`: return at once; Ctrl-C: stop following,
 * the mission goes on).
 */
import { Command } from 'commander';
import { randomBytes } from 'node:crypto';
import type { Json } from '../../../workflows/mission/contract.ts';
import { CliError, action } from '../../errors.ts';
import { parseJson } from '../../input.ts';
import { follow } from '../../mission/follow.ts';
import { agentBeforeStart, agentsModuleOf, checkMissionInput } from '../../before-start.ts';
import { describeSettled, settle } from '../../mission/view.ts';
import { printJson, withClient } from '../../mission/client.ts';

interface RunFlags {
  input?: string;
  id?: string;
  wait?: boolean;
  detach?: boolean;
  taskQueue?: string;
  statusAttribute?: string;
  json?: boolean;
  agents?: string;
}

export const runCommand = new Command('run')
  .description('start a Navigator mission and follow it live until it waits or ends (--detach: return at once)')
  .argument('<agent>', 'agent name, as registered on the worker')
  .option('--input <json>', 'mission input as a JSON object', '{}')
  .option('--id <id>', 'workflow id (default: AGENT-<random>)')
  .option('--wait', 'follow until the mission finishes, not only until it waits or ends')
  .option('--detach', 'print the id and return at once; follow later with `navigator watch ID`')
  .option('--task-queue <name>', 'task queue of the worker (or NAVIGATOR_TASK_QUEUE)')
  .option(
    '--status-attribute <name>',
    'Keyword search attribute to keep set to the status (or NAVIGATOR_STATUS_ATTRIBUTE); must be registered',
  )
  .option(
    '--agents <module>',
    'the module the worker runs (or NAVIGATOR_AGENTS): the agent and its input are checked before the mission starts',
  )
  .option('--json', 'print the result as JSON')
  .action(action(runAction));

async function runAction(agent: string, flags: RunFlags): Promise<void> {
  const input = parseJson(flags.input ?? '{}', '--input') as Json;
  const statusSearchAttribute = flags.statusAttribute ?? process.env.NAVIGATOR_STATUS_ATTRIBUTE;
  const { resolveTarget, taskQueueFrom } = await import('../../../temporal/connection.ts');
  const { consoleLink } = await import('../../console-link.ts');
  const { MissionRejected, startMission } = await import('../../../client/mission/client.ts');
  const { StartRefused } = await import('../../../client/served-agents.ts');
  const id = flags.id ?? `${agent}-${randomBytes(4).toString('hex')}`;
  // refused here, nothing starts: an unknown agent, an input its schema refuses
  const known = await agentBeforeStart(agent, agentsModuleOf(flags.agents));
  if (known) await checkMissionInput(known, input);
  await withClient(async (client) => {
    const mission = await startMission(client, {
      agent,
      input,
      id,
      taskQueue: taskQueueFrom(flags.taskQueue),
      ...(statusSearchAttribute ? { options: { statusSearchAttribute } } : {}),
    }).catch((err: Error) => {
      // refused before anything started: an agent the queue's workers do not serve, an input its schema refuses
      if (err instanceof MissionRejected || err instanceof StartRefused) throw new CliError(err.message, 2);
      throw new CliError(/already/i.test(err.message) ? `a mission with id ${id} already exists` : err.message);
    });
    if (mission.startWarning) process.stderr.write(`warning: ${mission.startWarning}\n`);
    if (flags.detach) {
      if (flags.json) printJson({ workflowId: id, agent });
      else {
        const link = consoleLink(resolveTarget().address, `/missions/${encodeURIComponent(id)}`);
        process.stdout.write(
          `Started mission ${id} (agent ${agent}).\n  follow:   npx navigator watch ${id}\n  status:   npx navigator status ${id}\n${link ? `  console:  ${link}\n` : ''}`,
        );
      }
      return;
    }
    if (flags.json) {
      const settled = await settle(mission, {
        untilClosed: flags.wait,
        timeoutMs: flags.wait ? 24 * 3600_000 : 60_000,
      });
      printJson({ workflowId: id, ...settled });
      if (settled.closed?.failure) process.exitCode = 1;
      return;
    }
    // say at once what started: with a real model the first pass can take minutes
    process.stdout.write(
      `Started mission ${id} (agent ${agent}); following it (Ctrl-C stops following, the mission goes on)\n`,
    );
    const link = consoleLink(resolveTarget().address, `/missions/${encodeURIComponent(id)}`);
    if (link) process.stdout.write(`  in the console: ${link}\n`);
    const stop = new AbortController();
    const onInterrupt = () => stop.abort();
    process.once('SIGINT', onInterrupt);
    const settled = await follow(mission, {
      write: (line) => process.stdout.write(`  ${line}\n`),
      untilClosed: flags.wait,
      signal: stop.signal,
    }).finally(() => process.off('SIGINT', onInterrupt));
    if (stop.signal.aborted) {
      process.stdout.write(`Stopped following; mission ${id} goes on. Follow again: npx navigator watch ${id}\n`);
      return;
    }
    process.stdout.write(`${describeSettled(id, settled)}\n`);
    if (settled.closed?.failure) process.exitCode = 1;
  });
}
