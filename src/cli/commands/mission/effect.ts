/**
 * `navigator effect approve|deny`: a person's verdict on a mission effect that waits for
 * approval (an agent's `approvals`). With `--args-hash` (the commands `navigator status`
 * prints carry it) the verdict is bound to the args status showed: refused if the effect
 * now waits with other args. A denial reaches the program as the tool's error.
 */
import { Command } from 'commander';
import { userInfo } from 'node:os';
import { action } from '../../errors.ts';
import { onMission } from '../../mission/client.ts';
import { effectListText } from '../../approval-view.ts';

const who = (): string => process.env.NAVIGATOR_USER ?? userInfo().username;
/** The role you decide with: --role, else NAVIGATOR_ROLE (an effect whose tool names approvers needs one of them). */
const roleOf = (flag: string | undefined): { role?: string } => {
  const role = flag ?? (process.env.NAVIGATOR_ROLE || undefined);
  return role ? { role } : {};
};
const ROLE = [
  '--role <role>',
  "the role you decide with, recorded with the verdict (or NAVIGATOR_ROLE): required when the effect's tool names its approvers",
] as const;

const ARGS_HASH = [
  '--args-hash <hash>',
  'the hash of the args you looked at (`navigator status` prints it in the command): refused if the effect now waits with other args',
] as const;

const approve = new Command('approve')
  .description('let an effect that waits for approval run (KEY defaults to the only one waiting)')
  .argument('<id>', 'workflow id')
  .argument('[key]', 'the effect key shown by `navigator status`')
  .option('--note <text>', 'note recorded with the approval')
  .option(...ARGS_HASH)
  .option('--by <name>', 'who approves (default NAVIGATOR_USER or the login name)')
  .option(...ROLE)
  .action(
    action(
      async (
        id: string,
        key: string | undefined,
        flags: { note?: string; by?: string; argsHash?: string; role?: string },
      ) => {
        const done = await onMission(
          id,
          (mission) =>
            mission.approveEffect({
              key,
              by: flags.by ?? who(),
              note: flags.note,
              argsHash: flags.argsHash,
              ...roleOf(flags.role),
            }),
          { running: true },
        );
        process.stdout.write(`effect ${done.key} approved on ${id}\n`);
      },
    ),
  );

const deny = new Command('deny')
  .description('refuse an effect that waits for approval: the program gets the tool error with the reason')
  .argument('<id>', 'workflow id')
  .argument('[key]', 'the effect key shown by `navigator status`')
  .requiredOption('--reason <text>', 'why: the program (and the model) sees it')
  .option(...ARGS_HASH)
  .option('--by <name>', 'who denies (default NAVIGATOR_USER or the login name)')
  .option(...ROLE)
  .action(
    action(
      async (
        id: string,
        key: string | undefined,
        flags: { reason: string; by?: string; argsHash?: string; role?: string },
      ) => {
        const done = await onMission(
          id,
          (mission) =>
            mission.denyEffect(flags.reason, {
              key,
              by: flags.by ?? who(),
              argsHash: flags.argsHash,
              ...roleOf(flags.role),
            }),
          { running: true },
        );
        process.stdout.write(`effect ${done.key} denied on ${id}\n`);
      },
    ),
  );

const list = new Command('list')
  .description(
    'the effects that wait for approval now (together, when the program asked for them at once), what the mission already ran, and every verdict',
  )
  .argument('<id>', 'workflow id')
  .option('--json', 'print them as JSON')
  .action(
    action(async (id: string, flags: { json?: boolean }) => {
      const effects = await onMission(id, (mission) => mission.effects());
      process.stdout.write(flags.json ? `${JSON.stringify(effects, null, 2)}\n` : `${effectListText(id, effects)}\n`);
    }),
  );

export const effectCommand = new Command('effect')
  .description('list, approve or deny the mission effects that wait for a person')
  .addCommand(list)
  .addCommand(approve)
  .addCommand(deny);
