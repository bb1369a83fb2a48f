/**
 * Commands that change a mission through validated updates: approve, reject, decide,
 * write, reset-task, cancel. A bad key or value is rejected by the workflow's validator
 * and reported as one line with a non-zero exit.
 */
import { Command } from 'commander';
import { userInfo } from 'node:os';
import type { MissionHandle } from '../../../client/mission/client.ts';
import type { Json } from '../../../workflows/mission/contract.ts';
import { action } from '../../errors.ts';
import { parseValue } from '../../input.ts';
import { onMission } from '../../mission/client.ts';

const who = (): string => process.env.NAVIGATOR_USER ?? userInfo().username;
/** The role you decide with: --role, else NAVIGATOR_ROLE (a decision naming approvers needs one of them). */
const roleOf = (flag: string | undefined): { role?: string } => {
  const role = flag ?? (process.env.NAVIGATOR_ROLE || undefined);
  return role ? { role } : {};
};
const ROLE = [
  '--role <role>',
  'the role you decide with, recorded with the decision (or NAVIGATOR_ROLE): required when the decision names its approvers',
] as const;

/**
 * Writes the agent's approve or reject value for `key` (default: the pending decision)
 * through the validated `decide` update. Returns the key and value written.
 */
export function recordVerdict(
  mission: MissionHandle,
  kind: 'approve' | 'reject',
  key?: string,
  note?: string,
  role?: string,
): Promise<{ key: string; value: Json }> {
  const opts = { key, by: who(), note, ...roleOf(role) };
  return kind === 'approve' ? mission.approve(opts) : mission.reject(opts);
}

function verdict(kind: 'approve' | 'reject') {
  return action(async (id: string, key: string | undefined, flags: { note?: string; role?: string }) => {
    const written = await onMission(id, (mission) => recordVerdict(mission, kind, key, flags.note, flags.role), {
      running: true,
    });
    process.stdout.write(`${written.key} = ${JSON.stringify(written.value)} recorded on ${id}\n`);
  });
}

export const approveCommand = new Command('approve')
  .description('approve the decision a mission waits for (KEY defaults to the pending one)')
  .argument('<id>', 'workflow id')
  .argument('[key]', 'decision key')
  .option('--note <text>', 'note recorded with the decision')
  .option(...ROLE)
  .action(verdict('approve'));

export const rejectCommand = new Command('reject')
  .description('reject the decision a mission waits for (KEY defaults to the pending one)')
  .argument('<id>', 'workflow id')
  .argument('[key]', 'decision key')
  .option('--note <text>', 'note recorded with the decision')
  .option(...ROLE)
  .action(verdict('reject'));

export const decideCommand = new Command('decide')
  .description('record a decision value (JSON) under KEY')
  .argument('<id>', 'workflow id')
  .argument('<key>', 'decision key')
  .argument('<value>', 'the value as JSON, or a bare word for a string: approved, \'"two words"\', 5000, true')
  .option('--note <text>', 'note recorded with the decision')
  .option(...ROLE)
  .action(
    action(async (id: string, key: string, raw: string, flags: { note?: string; role?: string }) => {
      const value = parseValue(raw, 'VALUE') as Json;
      await onMission(
        id,
        (mission) => mission.decide(key, value, { by: who(), note: flags.note, ...roleOf(flags.role) }),
        { running: true },
      );
      process.stdout.write(`${key} = ${JSON.stringify(value)} recorded on ${id}\n`);
    }),
  );

export const writeCommand = new Command('write')
  .description("write a journal entry (a person's value always wins over the Navigator's)")
  .argument('<id>', 'workflow id')
  .argument('<key>', 'journal key')
  .argument('<value>', 'the value as JSON, or a bare word for a string')
  .action(
    action(async (id: string, key: string, raw: string) => {
      const value = parseValue(raw, 'VALUE') as Json;
      await onMission(id, (mission) => mission.write(key, value), { running: true });
      process.stdout.write(`journal ${key} = ${JSON.stringify(value)} on ${id}\n`);
    }),
  );

export const resetTaskCommand = new Command('reset-task')
  .description('remove a task from the journal so the next pass runs it again')
  .argument('<id>', 'workflow id')
  .argument('<key>', 'task id')
  .action(
    action(async (id: string, key: string) => {
      await onMission(id, (mission) => mission.resetTask(key), { running: true });
      process.stdout.write(`task ${key} reset on ${id}\n`);
    }),
  );

export const cancelCommand = new Command('cancel')
  .description('stop a mission at its next safe point')
  .argument('<id>', 'workflow id')
  .option('--reason <text>', 'why', 'cancelled from the CLI')
  .action(
    action(async (id: string, flags: { reason: string }) => {
      await onMission(id, (mission) => mission.cancel(flags.reason), { running: true });
      process.stdout.write(`cancel requested for ${id}\n`);
    }),
  );
