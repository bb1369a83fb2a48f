/**
 * `navigator plan validate|create|start`: check a plan file, or start a plan (written by the
 * agent's model, or from a file), then show it for review. What is refused before anything
 * starts (an unknown agent, a cycle, a tool the agent lacks) is refused here.
 */
import { Command } from 'commander';
import { type PlanHandle, PlanRejected, startPlan } from '../../../client/plan/client.ts';
import { StartRefused } from '../../../client/served-agents.ts';
import type { Json, PlanProblem } from '../../../plans/schema.ts';
import { CliError, action } from '../../errors.ts';
import { parseJson, readJsonFile, readText } from '../../input.ts';
import { printJson, withClient } from '../../mission/client.ts';
import { settlePlan } from '../../plan/view.ts';
import { agentBeforeStart, agentsModuleOf, checkPlanDocument } from '../../before-start.ts';
import { type JsonFlag, showEnd } from './common.ts';

async function taskQueue(flag: string | undefined): Promise<string> {
  const { taskQueueFrom } = await import('../../../temporal/connection.ts');
  return taskQueueFrom(flag);
}

async function showAfterStart(plan: PlanHandle, json: boolean | undefined, waitingFor?: string): Promise<void> {
  if (plan.startWarning) process.stderr.write(`warning: ${plan.startWarning}\n`);
  // say at once what started: a planner's model can take a minute to answer
  if (!json) process.stdout.write(`Started plan ${plan.id}${waitingFor ? `; ${waitingFor}` : ''}\n`);
  const settled = await settlePlan(plan);
  if (json) return printJson({ planId: plan.id, ...settled });
  showEnd(settled);
}

export const validate = new Command('validate')
  .description("check a plan file against an agent's tools (no server needed)")
  .argument('<file>', 'plan JSON: {"steps": [...], "params"?, "estimatedDuration"?, "options"?}')
  .requiredOption('--agent <name>', 'the agent whose tools the plan uses')
  .option('--agents <module>', 'a module with more agents (as for `worker --agents`)')
  .option(
    '--params <json>',
    'parameter values to check against the plan\'s "params" (without it only their schemas are checked)',
  )
  .option('--json', 'print {"ok", "problems"}')
  .action(
    action(async (file: string, flags: JsonFlag & { agent: string; agents?: string; params?: string }) => {
      const { buildRegistry } = await import('../../../worker/agents.ts');
      const { catalogOf } = await import('../../../plans/catalog.ts');
      const { PlanDocument } = await import('../../../plans/schema.ts');
      const { validatePlan, formatProblems } = await import('../../../plans/validate.ts');
      const { checkParams } = await import('../../../plans/params.ts');
      const given = flags.params !== undefined ? paramsFlag(flags.params) : undefined;
      const registry = await buildRegistry(flags.agents);
      const entry = registry.get(flags.agent);
      if (!entry) throw new CliError(`unknown agent ${flags.agent}; known: ${[...registry.keys()].join(', ')}`, 2);
      const doc = PlanDocument.safeParse(await readJsonFile(file, 'plan'));
      const problems = doc.success
        ? [
            ...paramProblems(checkParams(doc.data.params ?? {}, given ?? {}), given !== undefined),
            ...validatePlan(doc.data.steps, catalogOf(registry, entry), Object.keys(doc.data.params ?? {}), {
              maxSteps: doc.data.options?.maxSteps,
            }),
          ]
        : doc.error.issues.map((i) => ({
            code: 'invalid_step' as const,
            stepId: null,
            path: i.path.join('.'),
            message: i.message,
          }));
      if (flags.json) printJson({ ok: problems.length === 0, problems });
      else
        process.stdout.write(
          problems.length
            ? `${file}: ${problems.length} problem(s)\n${formatProblems(problems)}\n`
            : `${file}: valid (${doc.success ? doc.data.steps.length : 0} steps)\n`,
        );
      if (problems.length) process.exitCode = 1;
    }),
  );

/** `--params JSON`: an object of parameter values. */
function paramsFlag(text: string): Record<string, Json> {
  const value = parseJson(text, '--params');
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new CliError('--params: expected a JSON object {"name": value, ...}', 2);
  return value as Record<string, Json>;
}

/** The parameter problems; without given values, only those of the schemas themselves. */
function paramProblems(
  checked: { ok: true } | { ok: false; problems: PlanProblem[] },
  valuesGiven: boolean,
): PlanProblem[] {
  if (checked.ok) return [];
  return valuesGiven ? checked.problems : checked.problems.filter((p) => p.code !== 'missing_param');
}

export const create = new Command('create')
  .description("ask the agent's model for a plan, then show it for review")
  .argument('<agent>', 'the agent whose tools and model plan')
  .requiredOption('--request <text>', 'what the plan should do')
  .option('--context <file>', 'a JSON file with a workspace/context snapshot for the planner')
  .option('--id <id>', 'workflow id')
  .option('--approve', 'start executing without review')
  .option('--task-queue <name>', 'task queue of the worker (or NAVIGATOR_TASK_QUEUE)')
  .option(
    '--agents <module>',
    'the module the worker runs (or NAVIGATOR_AGENTS): the agent is checked before the plan starts',
  )
  .option('--json', 'print JSON')
  .action(
    action(
      async (
        agent: string,
        flags: JsonFlag & {
          request: string;
          context?: string;
          id?: string;
          approve?: boolean;
          taskQueue?: string;
          agents?: string;
        },
      ) => {
        const context = flags.context ? ((await readJsonFile(flags.context, '--context')) as Json) : undefined;
        await agentBeforeStart(agent, agentsModuleOf(flags.agents));
        const queue = await taskQueue(flags.taskQueue);
        await withClient(async (client) => {
          const plan = await startPlan(client, {
            agent,
            request: flags.request,
            context,
            id: flags.id,
            approve: flags.approve,
            taskQueue: queue,
          }).catch(startError(flags.id));
          await showAfterStart(
            plan,
            flags.json,
            `waiting for the model of agent ${agent} to write it (Ctrl-C stops waiting, the plan goes on; \`npx navigator plan show ${plan.id}\` later)`,
          );
        });
      },
    ),
  );

export const start = new Command('start')
  .description('start a plan from a file (no model), then show it for review')
  .argument('<file>', 'plan JSON: {"steps": [...], "params"?, "estimatedDuration"?, "options"?} (- for stdin)')
  .requiredOption('--agent <name>', 'the agent whose tools the plan uses')
  .option('--params <json>', "values of the plan's parameters, a JSON object (checked against their schemas)")
  .option('--id <id>', 'workflow id')
  .option('--request <text>', 'what the plan is for (shown to the model on recovery)')
  .option('--approve', 'start executing without review')
  .option('--task-queue <name>', 'task queue of the worker (or NAVIGATOR_TASK_QUEUE)')
  .option(
    '--agents <module>',
    'the module the worker runs (or NAVIGATOR_AGENTS): the agent and the plan are checked before it starts',
  )
  .option('--json', 'print JSON')
  .action(
    action(
      async (
        file: string,
        flags: JsonFlag & {
          agent: string;
          id?: string;
          request?: string;
          approve?: boolean;
          taskQueue?: string;
          params?: string;
          agents?: string;
        },
      ) => {
        const document = parseJson(await readText(file), `plan (${file})`);
        const params = flags.params !== undefined ? paramsFlag(flags.params) : undefined;
        // refused here, nothing starts: an unknown agent, a cycle, a tool the agent lacks
        const known = await agentBeforeStart(flags.agent, agentsModuleOf(flags.agents));
        if (known) await checkPlanDocument(known, document);
        const queue = await taskQueue(flags.taskQueue);
        await withClient(async (client) => {
          const plan = await startPlan(client, {
            agent: flags.agent,
            document,
            params,
            request: flags.request,
            id: flags.id,
            approve: flags.approve,
            taskQueue: queue,
          }).catch(startError(flags.id));
          await showAfterStart(plan, flags.json);
        });
      },
    ),
  );

function startError(id: string | undefined) {
  return (err: Error): never => {
    if (err instanceof PlanRejected || err instanceof StartRefused) throw new CliError(err.message, 2);
    throw new CliError(/already/i.test(err.message) ? `a workflow with id ${id} already exists` : err.message);
  };
}
