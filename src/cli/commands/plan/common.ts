/**
 * What the `navigator plan` subcommands of several files share (start.ts, review.ts,
 * read.ts): reaching an existing plan with one line for each refusal, and the end of a
 * plan as words and an exit code. What only one file uses stays in that file.
 */
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import { PLAN_WORKFLOW, type PlanHandle, PlanRejected, getPlan } from '../../../client/plan/client.ts';
import { CliError } from '../../errors.ts';
import { withClient } from '../../mission/client.ts';
import { WorkerUnavailableError } from '../../../history/reader.ts';
import { type PlanSettled, endState, renderPlan } from '../../plan/view.ts';

export type JsonFlag = { json?: boolean };

/** Runs `fn` on an existing plan; unknown ids, refusals and finished plans become one line. */
export async function onPlan<T>(id: string, fn: (plan: PlanHandle, client: Client) => Promise<T>): Promise<T> {
  return withClient(async (client) => {
    const plan = getPlan(client, id);
    try {
      const d = await plan.workflow.describe();
      if (d.type !== PLAN_WORKFLOW) throw new CliError(`${id} is not a plan (it is a ${d.type} workflow)`);
      return await fn(plan, client);
    } catch (err) {
      if (err instanceof CliError) throw err;
      if (err instanceof WorkflowNotFoundError) throw new CliError(`no plan with id ${id}`);
      if (err instanceof PlanRejected) throw new CliError(`rejected: ${err.message}`);
      if (err instanceof WorkerUnavailableError) throw new CliError(`plan ${id}: ${err.message}`);
      throw new CliError(err instanceof Error ? err.message : String(err));
    }
  });
}

/** The plan as it settled, then its end state in words and as the exit code (see endState). */
export function showEnd(settled: PlanSettled): void {
  if (settled.view) process.stdout.write(renderPlan(settled.view) + '\n');
  if (!settled.closed) return;
  const end = endState(settled.view, settled.closed);
  process.stdout.write(`${end.lines.join('\n')}\n`);
  if (end.exitCode) process.exitCode = end.exitCode;
}
