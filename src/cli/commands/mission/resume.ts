/** `navigator resume ID`: restart a stopped mission from its journal, as a new workflow. */
import { Command } from 'commander';
import { CliError, action } from '../../errors.ts';
import { parseJson, parsePositiveInt } from '../../input.ts';
import { printJson, withClient } from '../../mission/client.ts';

export const resumeCommand = new Command('resume')
  .description(
    'restart a mission that failed, was cancelled or terminated, or ran out of budget, from its journal: completed tasks are not run again',
  )
  .argument('<id>', 'workflow id of the stopped mission')
  .option('--id <new-id>', 'workflow id of the new mission (default: ID-resumed-<random>)')
  .option('--max-passes <n>', 'passes that may end in an error before the mission fails')
  .option('--budget <json>', 'fresh budgets, e.g. \'{"passes": 10, "tokens": 200000}\'')
  .option('--json', 'print JSON')
  .action(
    action(async (id: string, flags: { id?: string; maxPasses?: string; budget?: string; json?: boolean }) => {
      const options: Record<string, unknown> = {};
      if (flags.maxPasses !== undefined) options.maxPasses = parsePositiveInt(flags.maxPasses, '--max-passes');
      if (flags.budget !== undefined) options.budgets = parseJson(flags.budget, '--budget');
      const { MissionRejected } = await import('../../../client/mission/client.ts');
      const { resumeMission } = await import('../../../client/mission/resume.ts');
      await withClient(async (client) => {
        const mission = await resumeMission(client, id, { id: flags.id, options }).catch((err: Error) => {
          throw err instanceof MissionRejected
            ? new CliError(err.message)
            : new CliError(/not found/i.test(err.message) ? `no mission with id ${id}` : err.message);
        });
        if (flags.json) return printJson({ workflowId: mission.id, resumedFrom: id });
        process.stdout.write(
          `Resumed ${id} as ${mission.id}: its journal carried over, completed tasks will not run again.\n  follow:   npx navigator watch ${mission.id}\n  audit:    npx navigator audit ${mission.id}\n`,
        );
      });
    }),
  );
