/**
 * `navigator effect approve|deny`: a person's verdict on a mission effect that waits for
 * approval (an agent's `approvals`). The approval is bound to the args shown by
 * `navigator status`; a denial reaches the program as the tool's error.
 */
import { Command } from 'commander';
import { userInfo } from 'node:os';
import { action } from '../errors.ts';
import { onMission } from '../mission-client.ts';

const who = (): string => process.env.NAVIGATOR_USER ?? userInfo().username;

const approve = new Command('approve')
  .description('let an effect that waits for approval run (KEY defaults to the only one waiting)')
  .argument('<id>', 'workflow id')
  .argument('[key]', 'the effect key shown by `navigator status`')
  .option('--note <text>', 'note recorded with the approval')
  .option('--by <name>', 'who approves (default NAVIGATOR_USER or the login name)')
  .action(
    action(async (id: string, key: string | undefined, flags: { note?: string; by?: string }) => {
      const done = await onMission(id, (mission) => mission.approveEffect({ key, by: flags.by ?? who(), note: flags.note }), { running: true });
      process.stdout.write(`effect ${done.key} approved on ${id}\n`);
    }),
  );

const deny = new Command('deny')
  .description('refuse an effect that waits for approval: the program gets the tool error with the reason')
  .argument('<id>', 'workflow id')
  .argument('[key]', 'the effect key shown by `navigator status`')
  .requiredOption('--reason <text>', 'why: the program (and the model) sees it')
  .option('--by <name>', 'who denies (default NAVIGATOR_USER or the login name)')
  .action(
    action(async (id: string, key: string | undefined, flags: { reason: string; by?: string }) => {
      const done = await onMission(id, (mission) => mission.denyEffect(flags.reason, { key, by: flags.by ?? who() }), { running: true });
      process.stdout.write(`effect ${done.key} denied on ${id}\n`);
    }),
  );

export const effectCommand = new Command('effect').description('approve or deny a mission effect that waits for a person').addCommand(approve).addCommand(deny);
