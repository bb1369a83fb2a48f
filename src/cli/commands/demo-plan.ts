/**
 * `navigator demo plan`: the plan executor end to end on a fresh machine. The workspace
 * agent's planner (recorded answers unless NAVIGATOR_MODEL is set) plans a release: three
 * files edited with values computed from what their read steps returned (`$expr`), the
 * tests run after the edits, the tag created only when no test failed (`when`). The plan
 * is shown for review, approved, each destructive or gated step waits for its own
 * approval, and the plan is audited against Temporal's history.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { endDemo, heading, say, demoTarget, startDemoWorker } from './demo.ts';

export const DEMO_REQUEST =
  'Release version 1.5.0: set the version in package.json and src/version.ts, add a CHANGELOG entry, run the tests, and create the release tag only after the tests pass';

export async function runPlanDemo(): Promise<void> {
  const { server, target } = await demoTarget();
  const workspace = resolve('.navigator', `demo-workspace-${Date.now()}`);
  mkdirSync(workspace, { recursive: true });
  process.env.WORKSPACE_DIR = workspace;
  const taskQueue = `navigator-demo-${randomBytes(3).toString('hex')}`;
  const stopWorker = await startDemoWorker(target, taskQueue);
  try {
    await runPlan(target, taskQueue, workspace);
    await endDemo('plan', target, taskQueue, server !== null);
  } finally {
    await stopWorker();
    await server?.shutdown();
  }
}

async function runPlan(
  target: import('../../temporal/connection.ts').TemporalTarget,
  taskQueue: string,
  workspace: string,
): Promise<void> {
  const { connectClient } = await import('../../temporal/connection.ts');
  const { startPlan } = await import('../../client/plan/client.ts');
  const { renderPlan, settlePlan } = await import('../plan/view.ts');
  const { auditPlan, formatPlanAudit } = await import('../../audit/plan/audit.ts');
  const { client, close } = await connectClient(target);
  try {
    const id = `workspace-plan-demo-${randomBytes(3).toString('hex')}`;
    heading(`Planning: "${DEMO_REQUEST}" (workspace ${workspace}, recorded planner answers)`);
    const plan = await startPlan(client, { agent: 'workspace', request: DEMO_REQUEST, id, taskQueue });
    const review = await settlePlan(plan);
    if (!review.view || review.view.status !== 'review')
      throw new Error(`the plan did not reach review: ${review.closed?.failure ?? review.view?.status}`);
    say(renderPlan(review.view, { full: true }));

    heading('The reviewer approves the plan (the same update as `navigator plan approve`)');
    await plan.approve({ by: 'demo reviewer' });
    for (let settled = await settlePlan(plan); !settled.closed; settled = await settlePlan(plan)) {
      if (settled.view) say(renderPlan(settled.view));
      for (const a of settled.view?.approvals ?? []) {
        heading(
          `Step ${a.stepId} waits for approval: approving it with the args computed on the worker (\`navigator plan approve-step ${id} ${a.stepId}\`)`,
        );
        say(`  ${a.tool} ${JSON.stringify(a.args).slice(0, 300)}`);
        await plan.approveStep(a.stepId, { by: 'demo reviewer' });
      }
    }
    const done = await settlePlan(plan, { untilClosed: true });
    heading('Result');
    if (done.view) say(renderPlan(done.view));
    if (done.closed?.failure) say(`plan failed: ${done.closed.failure}`);
    showWorkspace(workspace);

    heading('Audit against Temporal history');
    const report = await auditPlan(client, id);
    say(formatPlanAudit(report));
    printByHand();
    if (!report.ok || done.closed?.failure) process.exitCode = 1;
  } finally {
    await close();
  }
}

function showWorkspace(workspace: string): void {
  const file = (path: string) =>
    existsSync(join(workspace, path)) ? readFileSync(join(workspace, path), 'utf8').trim() : '(missing)';
  say(`package.json now:   ${file('package.json').replace(/\s+/g, ' ')}`);
  say(`src/version.ts now: ${file('src/version.ts')}`);
  say(`CHANGELOG.md now:\n${file('CHANGELOG.md').replace(/^/gm, '    ')}`);
  say(`tag v1.5.0: ${file('.tags/v1.5.0.json').replace(/\s+/g, ' ')}`);
}

function printByHand(): void {
  heading('Do it by hand');
  say(`  terminal 1:  npx navigator dev
  terminal 2:  npx navigator plan create workspace --request '${DEMO_REQUEST}'
               npx navigator plan show <id>; npx navigator plan edit <id> STEP --args '{...}'
               npx navigator plan approve <id>; npx navigator plan approve-step <id> write_pkg
               npx navigator plan watch <id>; npx navigator plan audit <id>
  or from the template: npx navigator plan start examples/workspace/release.plan.json --agent workspace --params '{"version": "1.5.0"}'`);
}
