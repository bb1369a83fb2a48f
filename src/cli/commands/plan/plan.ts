/**
 * `navigator plan ...`: validate, create (planner), start (from a file), review and edit,
 * approve, approve or deny steps, watch, audit. Every command is a thin user of the
 * plan client (src/client/plan/client.ts).
 */
import { Command, InvalidArgumentError } from 'commander';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  PLAN_WORKFLOW,
  type PlanHandle,
  PlanRejected,
  getPlan,
  parseItem,
  startPlan,
} from '../../../client/plan/client.ts';
import { StartRefused } from '../../../client/served-agents.ts';
import type { Json, PlanProblem } from '../../../plans/schema.ts';
import { blockedAfterWarning } from '../../../plans/scheduler.ts';
import { CliError, action } from '../../errors.ts';
import { parseJson, parseValue, readHistoryFile, readJsonFile, readText } from '../../input.ts';
import { printJson, withClient } from '../../mission/client.ts';
import { WorkerUnavailableError, orFromHistory } from '../../../history/reader.ts';
import type { PlanStatusView } from '../../../workflows/plan/contract.ts';
import { type PlanSettled, checklistLine, endState, renderPlan, settlePlan } from '../../plan/view.ts';
import { stepApprovalLine } from '../../approval-view.ts';
import { failedAttemptLines } from '../../attempts-view.ts';
import { agentBeforeStart, agentsModuleOf, checkPlanDocument } from '../../before-start.ts';

type JsonFlag = { json?: boolean };

/** Runs `fn` on an existing plan; unknown ids, refusals and finished plans become one line. */
async function onPlan<T>(id: string, fn: (plan: PlanHandle, client: Client) => Promise<T>): Promise<T> {
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
  if (settled.view) process.stdout.write(renderPlan(settled.view) + '\n');
  reportEnd(settled);
}

/** The end state in words and as the exit code (see endState). */
function reportEnd(settled: PlanSettled): void {
  if (!settled.closed) return;
  const end = endState(settled.view, settled.closed);
  process.stdout.write(`${end.lines.join('\n')}\n`);
  if (end.exitCode) process.exitCode = end.exitCode;
}

const validate = new Command('validate')
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

const create = new Command('create')
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

const start = new Command('start')
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

const show = new Command('show')
  .description('the plan as a reviewer sees it: steps, tools, args, dependencies, approvals')
  .argument('<id>', 'plan id')
  .option('--json', 'print {id, version, status, steps, summary}')
  .action(
    action(async (id: string, flags: JsonFlag) => {
      await onPlan(id, async (plan) => {
        // a closed plan from its history (no worker needed); a running one asked, with a deadline
        // nobody answers: what its history holds, then the reason and a non-zero exit
        const { value: view, unavailable } = await orFromHistory<PlanStatusView>(
          () => plan.status(),
          async () => (await plan.fromHistory()).status,
        );
        const failIfUnanswered = () => {
          if (unavailable) throw new CliError(`plan ${id}: ${unavailable.message}`);
        };
        if (!flags.json) {
          process.stdout.write(
            (unavailable ? '(from its history: no worker answered)\n' : '') + renderPlan(view, { full: true }) + '\n',
          );
          return failIfUnanswered();
        }
        printJson({
          id: view.planId,
          version: view.version,
          status: view.status,
          params: Object.fromEntries(Object.entries(view.plan?.params ?? {}).map(([k, p]) => [k, p.value])),
          steps: (view.plan?.steps ?? []).map((s) => ({
            id: s.id,
            description: s.description,
            tool: s.tool ?? null,
            agent: s.agent ?? null,
            ...(s.ask ? { ask: s.ask } : {}),
            ...(s.answeredBy ? { answeredBy: s.answeredBy } : {}),
            args: s.args ?? s.input ?? {},
            ...(s.when !== undefined ? { when: s.when } : {}),
            ...(s.forEach !== undefined ? { forEach: s.forEach } : {}),
            ...(s.resolved ? { computed: s.resolved } : {}),
            dependsOn: s.dependsOn,
            status: s.status,
            result: s.result ?? null,
            requiresApproval: s.requiresApproval,
            critical: s.critical,
          })),
          summary: view.summary,
          approvals: view.approvals,
          questions: view.questions,
          error: view.error,
          ...(unavailable
            ? {
                workerUnavailable: {
                  message: unavailable.message,
                  taskQueue: unavailable.taskQueue,
                  polling: unavailable.polling,
                },
              }
            : {}),
        });
        failIfUnanswered();
      });
    }),
  );

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

const edit = reviewAction(
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
const skip = reviewAction(
  'skip',
  'skip a step (its dependents run unless they use its result)',
  (c) => c.argument('<id>').argument('<step>').option('--reason <text>'),
  (plan, step: string, flags: { reason?: string }) =>
    plan.edit({ kind: 'skip', stepId: step, ...(flags.reason ? { reason: flags.reason } : {}) }),
);
const add = reviewAction(
  'add',
  'add a step: {"id", "description", "tool", "args", "dependsOn"}',
  (c) => c.argument('<id>').argument('<step-json>'),
  (plan, stepJson: string) => plan.edit({ kind: 'add', step: parseJson(stepJson, 'STEP_JSON') }),
);
const remove = reviewAction(
  'remove',
  'remove a step (refused while others depend on it)',
  (c) => c.argument('<id>').argument('<step>'),
  (plan, step: string) => plan.edit({ kind: 'remove', stepId: step }),
);
const reorder = reviewAction(
  'reorder',
  'put the steps in this order (every step after its dependencies)',
  (c) => c.argument('<id>').argument('<steps...>', 'every step id, in the new order'),
  (plan, order: string[]) => plan.edit({ kind: 'reorder', order }),
);
const regenerate = reviewAction(
  'regenerate',
  'ask the planner again with feedback and the current plan',
  (c) => c.argument('<id>').requiredOption('--feedback <text>'),
  (plan, flags: { feedback: string }) => plan.regenerate(flags.feedback),
);
const approve = reviewAction(
  'approve',
  'approve the plan: execution starts',
  (c) => c.argument('<id>').option('--by <name>'),
  (plan, flags: { by?: string }) => plan.approve({ by: flags.by }),
);
const ROLE = [
  '--role <role>',
  "the role you decide with, recorded with the verdict (or NAVIGATOR_ROLE): required when the step's tool names its approvers",
] as const;

const approveStep = reviewAction(
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
const denyStep = reviewAction(
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
const answer = reviewAction(
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
const cancel = reviewAction(
  'cancel',
  'cancel the plan (running steps are cancelled, nothing new starts)',
  (c) => c.argument('<id>').option('--reason <text>'),
  (plan, flags: { reason?: string }) => plan.cancel(flags.reason),
);

const watch = new Command('watch')
  .description('follow a plan live (checklist, tool progress and logs) until it ends or needs a person')
  .argument('<id>', 'plan id')
  .action(
    action(async (id: string) => {
      await onPlan(id, async (plan) => {
        let last = '';
        let seen = 0;
        const time = () => new Date().toISOString().slice(11, 19);
        const settled = await settlePlan(plan, {
          timeoutMs: 24 * 3600_000,
          onView: (v) => {
            const line = checklistLine(v);
            if (line !== last) process.stdout.write(`${time()} ${line}\n`);
            last = line;
          },
          onProgress: (events) => {
            for (const e of events.slice(seen)) {
              if (e.progress !== undefined || e.logs)
                process.stdout.write(
                  `${time()}   ${e.stepId}: ${e.progress !== undefined ? `${e.progress}% ` : ''}${(e.logs ?? []).join(' ')}\n`,
                );
            }
            seen = events.length;
          },
        });
        if (settled.view) process.stdout.write(renderPlan(settled.view) + '\n');
        reportEnd(settled);
      });
    }),
  );

const exportCommand = new Command('export')
  .description('save the plan as a plan file that starts again (the latest version; steps skipped in review left out)')
  .argument('<id>', 'plan id')
  .option('--template', 'keep the parameters as declarations: each start gives its values with --params')
  .option('--out <file>', 'write the file here (default: print it)')
  .action(
    action(async (id: string, flags: { template?: boolean; out?: string }) => {
      const { exportPlan } = await import('../../../plans/template.ts');
      await onPlan(id, async (plan) => {
        const current = await plan.plan();
        if (!current) throw new CliError(`plan ${id} has no plan yet (the planner is writing it)`);
        const exported = exportPlan(current, { template: flags.template ?? false });
        if (!exported.ok) throw new CliError(`cannot export plan ${id}: ${exported.message}`);
        const text = JSON.stringify(exported.document, null, 2) + '\n';
        if (!flags.out) return void process.stdout.write(text);
        const { writeFileSync } = await import('node:fs');
        writeFileSync(flags.out, text);
        const params = Object.keys(exported.document.params ?? {});
        process.stdout.write(
          `wrote ${flags.out}: ${exported.document.steps.length} steps${params.length ? `, params ${params.join(', ')}${flags.template ? ' (give them with --params)' : ' (defaults: the values this plan ran with)'}` : ''}\n`,
        );
      });
    }),
  );

const versions = new Command('versions')
  .description('every version of the plan and what changed')
  .argument('<id>', 'plan id')
  .option('--json', 'print JSON')
  .action(
    action(async (id: string, flags: JsonFlag) => {
      await onPlan(id, async (plan) => {
        const list = await plan.versions();
        if (flags.json) return printJson(list);
        for (const v of list)
          process.stdout.write(
            `v${v.version} ${v.at} ${v.change}${v.by ? ` (by ${v.by})` : ''}: ${v.steps.map((s) => s.id).join(', ')}\n`,
          );
      });
    }),
  );

const ledger = new Command('ledger')
  .description('every step execution: tool, class, idempotency key, attempts, outcome')
  .argument('<id>', 'plan id')
  .option('--json', 'print JSON')
  .action(
    action(async (id: string, flags: JsonFlag) => {
      await onPlan(id, async (plan) => {
        const entries = await plan.ledger();
        if (flags.json) return printJson(entries);
        if (entries.length === 0) process.stdout.write('(no steps ran yet)\n');
        for (const e of entries) {
          const outcome =
            e.status === 'failed'
              ? `failed: ${e.error}`
              : e.status === 'running'
                ? 'running'
                : JSON.stringify(e.result);
          process.stdout.write(
            `#${e.seq} ${e.stepId} ${e.tool} [${e.sideEffect}] attempts ${e.attempts} via ${e.activity} → ${outcome}\n`,
          );
          for (const line of failedAttemptLines(e.failedAttempts, '    ')) process.stdout.write(`${line}\n`);
        }
        // who approved or denied what (plan show --json has them as approvalRecords)
        const records = (await plan.status()).approvalRecords ?? [];
        if (records.length)
          process.stdout.write(`Approvals:\n${records.map((r) => `  ${stepApprovalLine(r)}\n`).join('')}`);
      });
    }),
  );

const audit = new Command('audit')
  .description(
    'rebuild every step result from history, check no external step ran twice, replay (online by id, or offline from an exported history)',
  )
  .argument('[id]', 'plan id (not needed with --history)')
  .option(
    '--history <file>',
    'audit a plan history exported as JSON (or a JSON list of them for a chain), without a cluster',
  )
  .option('--json', 'print the full report as JSON')
  .action(
    action(async (id: string | undefined, flags: JsonFlag & { history?: string }) => {
      const { auditPlan, auditPlanChain, formatPlanAudit } = await import('../../../audit/plan/audit.ts');
      const { readReplayer, closeReadReplayer } = await import('../../../history/replay.ts');
      const { quietTemporalLogs } = await import('../../mission/client.ts');
      if (!id && !flags.history) throw new CliError('give a plan id, or --history FILE', 2);
      await quietTemporalLogs();
      // online, the audit replays on the process's read replayer, which also reads the plan's state from its history
      const report = flags.history
        ? await auditPlanChain(await readHistoryFile(flags.history), null, {
            replayer: await readReplayer(),
            requireClosed: true,
          }).finally(closeReadReplayer)
        : await onPlan(id!, (_plan, client) => auditPlan(client, id!));
      if (flags.json) printJson(report);
      else process.stdout.write(formatPlanAudit(report) + '\n');
      if (!report.ok) throw new CliError(`audit of plan ${report.planId || flags.history} failed`);
    }),
  );

export const planCommand = new Command('plan')
  .description('structured plans: a DAG of tool steps, reviewed, then run with approvals')
  .addCommand(validate)
  .addCommand(create)
  .addCommand(start)
  .addCommand(show)
  .addCommand(edit)
  .addCommand(skip)
  .addCommand(add)
  .addCommand(remove)
  .addCommand(reorder)
  .addCommand(regenerate)
  .addCommand(approve)
  .addCommand(approveStep)
  .addCommand(denyStep)
  .addCommand(answer)
  .addCommand(cancel)
  .addCommand(watch)
  .addCommand(versions)
  .addCommand(exportCommand)
  .addCommand(ledger)
  .addCommand(audit);
