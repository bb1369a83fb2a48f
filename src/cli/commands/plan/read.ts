/**
 * `navigator plan show|watch|export|versions|ledger|audit`: reading a plan, changing
 * nothing. A closed plan is read from its history, so most of them need no worker.
 */
import { Command } from 'commander';
import { CliError, action } from '../../errors.ts';
import { readHistoryFile } from '../../input.ts';
import { printJson } from '../../mission/client.ts';
import { orFromHistory } from '../../../history/reader.ts';
import type { PlanStatusView } from '../../../workflows/plan/contract.ts';
import { checklistLine, renderPlan, settlePlan } from '../../plan/view.ts';
import { stepApprovalLine } from '../../approval-view.ts';
import { failedAttemptLines } from '../../attempts-view.ts';
import { type JsonFlag, onPlan, showEnd } from './common.ts';

export const show = new Command('show')
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

export const watch = new Command('watch')
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
        showEnd(settled);
      });
    }),
  );

export const exportCommand = new Command('export')
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

export const versions = new Command('versions')
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

export const ledger = new Command('ledger')
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

export const audit = new Command('audit')
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
