/**
 * `navigator plan` review and decisions: edit, skip, add, remove, reorder, regenerate,
 * approve, approve-step, deny-step, answer, cancel. Each sends one message to the plan,
 * then prints the new version (or one line saying why it was refused).
 */
import { Command, InvalidArgumentError } from 'commander';
import { type PlanHandle, parseItem } from '../../../client/plan/client.ts';
import type { Json } from '../../../plans/schema.ts';
import { blockedAfterWarning } from '../../../plans/scheduler.ts';
import { CliError, action } from '../../errors.ts';
import { parseJson, parseValue } from '../../input.ts';
import { renderPlan } from '../../plan/view.ts';
import { onPlan } from './common.ts';

/** A review action: send it, then print the new version (or the problems). */
function reviewAction(
  name: string,
  description: string,
  build: (cmd: Command) => Command,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each action's own argument types, checked where it is declared
  send: (plan: PlanHandle, ...args: any[]) => Promise<unknown>,
) {
  return build(new Command(name).description(description)).action(
    action(async (...args: unknown[]) => {
      const id = args[0] as string;
      await onPlan(id, async (plan) => {
        await send(plan, ...args.slice(1));
        const view = await plan.status();
        process.stdout.write(renderPlan(view) + '\n');
      });
    }),
  );
}

export const edit = reviewAction(
  'edit',
  "change a step's args and/or description (validated; a new version)",
  (c) =>
    c
      .argument('<id>', 'plan id')
      .argument('<step>', 'step id')
      .option('--args <json>', 'the new args (a JSON object)')
      .option('--description <text>', 'the new description')
      .option('--depends-on <ids>', 'the new dependencies, comma-separated ("" for none)')
      .option('--by <name>', 'who edits'),
  async (plan, step: string, flags: { args?: string; description?: string; dependsOn?: string; by?: string }) => {
    if (flags.args === undefined && flags.description === undefined && flags.dependsOn === undefined)
      throw new CliError('give --args JSON, --description TEXT and/or --depends-on IDS', 2);
    const args = flags.args !== undefined ? parseJson(flags.args, '--args') : undefined;
    const dependsOn = flags.dependsOn
      ?.split(',')
      .map((d) => d.trim())
      .filter(Boolean);
    const edit = {
      kind: 'edit',
      stepId: step,
      ...(args !== undefined ? { args } : {}),
      ...(flags.description !== undefined ? { description: flags.description } : {}),
      ...(dependsOn ? { dependsOn } : {}),
    };
    await plan.edit(edit, { by: flags.by });
  },
);
export const skip = reviewAction(
  'skip',
  'skip a step (its dependents run unless they use its result)',
  (c) => c.argument('<id>').argument('<step>').option('--reason <text>'),
  (plan, step: string, flags: { reason?: string }) =>
    plan.edit({ kind: 'skip', stepId: step, ...(flags.reason ? { reason: flags.reason } : {}) }),
);
export const add = reviewAction(
  'add',
  'add a step: {"id", "description", "tool", "args", "dependsOn"}',
  (c) => c.argument('<id>').argument('<step-json>'),
  (plan, stepJson: string) => plan.edit({ kind: 'add', step: parseJson(stepJson, 'STEP_JSON') }),
);
export const remove = reviewAction(
  'remove',
  'remove a step (refused while others depend on it)',
  (c) => c.argument('<id>').argument('<step>'),
  (plan, step: string) => plan.edit({ kind: 'remove', stepId: step }),
);
export const reorder = reviewAction(
  'reorder',
  'put the steps in this order (every step after its dependencies)',
  (c) => c.argument('<id>').argument('<steps...>', 'every step id, in the new order'),
  (plan, order: string[]) => plan.edit({ kind: 'reorder', order }),
);
export const regenerate = reviewAction(
  'regenerate',
  'ask the planner again with feedback and the current plan',
  (c) => c.argument('<id>').requiredOption('--feedback <text>'),
  (plan, flags: { feedback: string }) => plan.regenerate(flags.feedback),
);
export const approve = reviewAction(
  'approve',
  'approve the plan: execution starts',
  (c) => c.argument('<id>').option('--by <name>'),
  (plan, flags: { by?: string }) => plan.approve({ by: flags.by }),
);
const ROLE = [
  '--role <role>',
  "the role you decide with, recorded with the verdict (or NAVIGATOR_ROLE): required when the step's tool names its approvers",
] as const;

export const approveStep = reviewAction(
  'approve-step',
  'let a step that awaits approval run (each item of a for-each step waits for its own: --item N)',
  (c) =>
    c
      .argument('<id>')
      .argument('<step>')
      .option('--item <n>', 'the item of a for-each step', itemNumber)
      .option(
        '--args-hash <hash>',
        'the hash of the args you looked at (`plan show` prints it in the command): refused if the step now waits with other args',
      )
      .option('--by <name>', 'who approves (recorded)')
      .option('--note <text>', 'a note kept with the approval')
      .option(...ROLE),
  async (
    plan,
    step: string,
    flags: { by?: string; note?: string; item?: number; argsHash?: string; role?: string },
  ) => {
    // the reviewer is told, not stopped: the step may still be worth running on its own
    const current = (await plan.status()).plan;
    const warning = current && blockedAfterWarning(current, step);
    if (warning) process.stderr.write(`warning: ${warning}\n`);
    await plan.approveStep(step, { ...flags, ...roleOf(flags.role) });
  },
);
export const denyStep = reviewAction(
  'deny-step',
  "deny a step that awaits approval; the plan's onDenial says what follows (block: skipped, dependents blocked; ask: the model revises it; abort)",
  (c) =>
    c
      .argument('<id>')
      .argument('<step>')
      .option('--item <n>', 'the item of a for-each step', itemNumber)
      .option('--reason <text>', 'why (recorded; the model reads it with onDenial: ask)')
      .option('--by <name>', 'who denies (recorded)')
      .option(...ROLE),
  (plan, step: string, flags: { by?: string; reason?: string; item?: number; role?: string }) =>
    plan.denyStep(step, { ...flags, ...roleOf(flags.role) }),
);

/** The role you decide with: --role, else NAVIGATOR_ROLE (a step whose tool names approvers needs one of them). */
function roleOf(flag: string | undefined): { role?: string } {
  const role = flag || process.env.NAVIGATOR_ROLE || undefined;
  return role ? { role } : {};
}

function itemNumber(text: string): number {
  try {
    return parseItem(text);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
}
export const answer = reviewAction(
  'answer',
  "answer a question step (JSON matching its schema; the answer is the step's result)",
  (c) =>
    c
      .argument('<id>', 'plan id')
      .argument('<step>', 'the question step')
      .argument('<value-json>', 'the answer as JSON, or a bare word for a string: staging, \'{"n": 2}\'')
      .option('--by <name>', 'who answers'),
  (plan, step: string, value: string, flags: { by?: string }) =>
    plan.answer(step, parseValue(value, 'VALUE') as Json, { by: flags.by }),
);
export const cancel = reviewAction(
  'cancel',
  'cancel the plan (running steps are cancelled, nothing new starts)',
  (c) => c.argument('<id>').option('--reason <text>'),
  (plan, flags: { reason?: string }) => plan.cancel(flags.reason),
);
