/**
 * `navigator schedule ...`: missions on Temporal Schedules. `create AGENT --cron EXPR |
 * --every DURATION` makes a schedule whose every run is an ordinary mission
 * (`<schedule id>-<time>`); list, describe, pause, unpause, trigger and delete act on it.
 * A thin user of src/client/mission/schedules.ts.
 */
import { Command } from 'commander';
import { ScheduleAlreadyRunning, ScheduleNotFoundError, type Client } from '@temporalio/client';
import type { MissionSchedule, MissionScheduleView } from '../../../client/mission/schedules.ts';
import type { Json } from '../../../workflows/mission/contract.ts';
import { CliError, action } from '../../errors.ts';
import { parseJson } from '../../input.ts';
import { printJson, withClient } from '../../mission/client.ts';

type JsonFlag = { json?: boolean };

/** Runs `fn` on an existing schedule; unknown ids and refusals become one line. */
async function onSchedule<T>(id: string, fn: (schedule: MissionSchedule, client: Client) => Promise<T>): Promise<T> {
  const { getMissionSchedule, MissionRejected } = await import('../../../client/index.ts');
  return withClient(async (client) => {
    try {
      return await fn(getMissionSchedule(client, id), client);
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) throw new CliError(`no schedule with id ${id}`);
      if (err instanceof MissionRejected) throw new CliError(err.message);
      throw err;
    }
  });
}

const when = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

function renderSchedule(v: MissionScheduleView): string {
  const every = v.every.map(
    (ms) =>
      `every ${ms % 3_600_000 === 0 ? `${ms / 3_600_000}h` : ms % 60_000 === 0 ? `${ms / 60_000}m` : `${ms / 1000}s`}`,
  );
  const lines = [
    `Schedule ${v.id}: agent ${v.agent}, ${[...v.cron.map((c) => `cron "${c}"`), ...every].join(', ')}${v.timezone ? ` (${v.timezone})` : ''}`,
    `  input:    ${JSON.stringify(v.input)}`,
    `  state:    ${v.paused ? 'paused' : 'active'}${v.note ? ` (${v.note})` : ''}; overlap ${v.overlap}`,
    `  missions: ${v.missionsStarted} started, ${v.skippedOverlap} skipped while one ran, ${v.missedCatchupWindow} missed`,
  ];
  if (v.running.length) lines.push(`  running:  ${v.running.join(', ')}`);
  for (const r of v.recent.slice(-5)) lines.push(`  recent:   ${r.missionId} (at ${when(r.scheduledAt)})`);
  lines.push(`  next:     ${v.paused ? 'none while paused' : v.next.slice(0, 3).map(when).join(', ') || 'none'}`);
  return lines.join('\n');
}

interface CreateFlags extends JsonFlag {
  cron?: string[];
  every?: string;
  input?: string;
  id?: string;
  overlap?: string;
  jitter?: string;
  catchupWindow?: string;
  timezone?: string;
  paused?: boolean;
  note?: string;
  taskQueue?: string;
}

const create = new Command('create')
  .description(
    'create a schedule that starts a mission of AGENT at each cron time or interval (each run is a normal mission with its own journal)',
  )
  .argument('<agent>', 'agent name, as registered on the worker')
  .option('--cron <expr...>', 'cron expression(s): "0 9 * * MON-FRI", "@daily"; UTC unless --timezone')
  .option('--every <duration>', 'a fixed interval: 90s, 15m, 1h, 1d')
  .option('--input <json>', 'mission input as a JSON object', '{}')
  .option('--id <id>', 'schedule id, also the start of each mission id (default: AGENT-schedule-<random>)')
  .option(
    '--overlap <policy>',
    'when a time comes while the last mission runs: skip, buffer_one, buffer_all, cancel_other, terminate_other, allow_all',
    'skip',
  )
  .option('--jitter <duration>', 'start each mission up to this much later, at random')
  .option('--catchup-window <duration>', 'times missed while the cluster was down still run if at most this late')
  .option('--timezone <tz>', 'IANA time zone for --cron, e.g. Europe/Paris')
  .option('--paused', 'create it paused')
  .option('--note <text>', 'a note shown with the schedule')
  .option('--task-queue <name>', 'task queue of the worker (or NAVIGATOR_TASK_QUEUE)')
  .option('--json', 'print JSON')
  .action(
    action(async (agent: string, flags: CreateFlags) => {
      if (!flags.cron?.length && flags.every === undefined)
        throw new CliError('give --cron EXPR or --every DURATION', 2);
      const input = parseJson(flags.input ?? '{}', '--input') as Json;
      const { taskQueueFrom } = await import('../../../temporal/connection.ts');
      const { createMissionSchedule, MissionRejected, StartRefused } = await import('../../../client/index.ts');
      await withClient(async (client) => {
        const schedule = await createMissionSchedule(client, {
          agent,
          input,
          taskQueue: taskQueueFrom(flags.taskQueue),
          id: flags.id,
          cron: flags.cron,
          every: flags.every,
          timezone: flags.timezone,
          overlap: flags.overlap as never,
          jitter: flags.jitter,
          catchupWindow: flags.catchupWindow,
          paused: flags.paused,
          note: flags.note,
        }).catch((err: Error) => {
          if (err instanceof MissionRejected || err instanceof StartRefused) throw new CliError(err.message, 2);
          if (err instanceof ScheduleAlreadyRunning)
            throw new CliError(`a schedule with id ${flags.id} already exists`);
          const cause = (err as Error & { cause?: Error & { details?: string } }).cause;
          throw new CliError(cause?.details ?? cause?.message ?? err.message);
        });
        const view = await schedule.describe();
        if (flags.json) return printJson(view);
        process.stdout.write(
          `Created ${renderSchedule(view)}\n  missions: npx navigator schedule describe ${schedule.id}\n`,
        );
      });
    }),
  );

const list = new Command('list')
  .description('schedules that start missions')
  .option('--json', 'print JSON')
  .action(
    action(async (flags: JsonFlag) => {
      const { listMissionSchedules } = await import('../../../client/index.ts');
      await withClient(async (client) => {
        const schedules = await listMissionSchedules(client);
        if (flags.json) return printJson(schedules);
        if (!schedules.length) return void process.stdout.write('no mission schedules\n');
        for (const s of schedules)
          process.stdout.write(
            `${s.id}  ${s.paused ? `paused${s.note ? ` (${s.note})` : ''}` : `next ${s.next ? when(s.next) : 'none'}`}\n`,
          );
      });
    }),
  );

const describeCommand = new Command('describe')
  .description('a schedule: spec, state, the missions it started, the next times')
  .argument('<id>', 'schedule id')
  .option('--json', 'print JSON')
  .action(
    action(async (id: string, flags: JsonFlag) =>
      onSchedule(id, async (schedule) => {
        const view = await schedule.describe();
        const missions = await schedule.missions();
        if (flags.json) return printJson({ ...view, missions });
        process.stdout.write(`${renderSchedule(view)}\n`);
        for (const m of missions) process.stdout.write(`  mission:  ${m.workflowId}  ${m.status.toLowerCase()}\n`);
      }),
    ),
  );

function simple(
  name: string,
  description: string,
  run: (s: MissionSchedule, note?: string) => Promise<void>,
  done: string,
) {
  const command = new Command(name).description(description).argument('<id>', 'schedule id');
  if (name === 'pause' || name === 'unpause') command.option('--note <text>', 'why (shown with the schedule)');
  return command.action(
    action(async (id: string, flags: { note?: string }) =>
      onSchedule(id, async (schedule) => {
        await schedule.describe(); // a schedule of something else is refused here
        await run(schedule, flags.note);
        process.stdout.write(`${done.replace('ID', id)}\n`);
      }),
    ),
  );
}

export const scheduleCommand = new Command('schedule')
  .description('missions on Temporal Schedules: create, list, describe, pause, unpause, trigger, delete')
  .addCommand(create)
  .addCommand(list)
  .addCommand(describeCommand)
  .addCommand(
    simple(
      'pause',
      'pause a schedule (no missions start until unpaused; trigger still works)',
      (s, note) => s.pause(note),
      'Paused schedule ID.',
    ),
  )
  .addCommand(
    simple(
      'unpause',
      'unpause a schedule (times that passed while paused are not run)',
      (s, note) => s.unpause(note),
      'Unpaused schedule ID.',
    ),
  )
  .addCommand(
    simple(
      'trigger',
      'start a mission now',
      (s) => s.trigger(),
      'Triggered schedule ID: a mission starts now (see `navigator schedule describe ID`).',
    ),
  )
  .addCommand(
    simple('delete', 'delete a schedule (missions it started go on)', (s) => s.delete(), 'Deleted schedule ID.'),
  );
