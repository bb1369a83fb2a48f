/**
 * `navigator demo plan`: the plan executor end to end on a fresh machine. The workspace
 * agent's planner (recorded answers unless NAVIGATOR_MODEL is set) plans "bump the
 * version in config.json to 2.0.0 and keep a backup"; the plan is shown for review,
 * approved, the destructive write waits for its own approval, runs, and the plan is
 * audited against Temporal's history.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { heading, say, demoTarget, startDemoWorker } from './demo.ts';

export const DEMO_REQUEST = 'bump the version in config.json to 2.0.0 and keep a backup';

export async function runPlanDemo(): Promise<void> {
  const { server, target } = await demoTarget();
  const workspace = resolve('.navigator', `demo-workspace-${Date.now()}`);
  mkdirSync(workspace, { recursive: true });
  process.env.WORKSPACE_DIR = workspace;
  const taskQueue = `navigator-demo-${randomBytes(3).toString('hex')}`;
  const stopWorker = await startDemoWorker(target, taskQueue);
  try {
    await runPlan(target, taskQueue, workspace);
  } finally {
    await stopWorker();
    await server?.shutdown();
  }
}

async function runPlan(target: import('../../temporal/connection.ts').TemporalTarget, taskQueue: string, workspace: string): Promise<void> {
  const { connectClient } = await import('../../temporal/connection.ts');
  const { startPlan } = await import('../../client/plans.ts');
  const { renderPlan, settlePlan } = await import('../plan-view.ts');
  const { auditPlan, formatPlanAudit } = await import('../../audit/plans.ts');
  const { client, close } = await connectClient(target);
  try {
    const id = `workspace-plan-demo-${randomBytes(3).toString('hex')}`;
    heading(`Planning: "${DEMO_REQUEST}" (workspace ${workspace}, recorded planner answers)`);
    const plan = await startPlan(client, { agent: 'workspace', request: DEMO_REQUEST, id, taskQueue });
    const review = await settlePlan(plan);
    if (!review.view || review.view.status !== 'review') throw new Error(`the plan did not reach review: ${review.closed?.failure ?? review.view?.status}`);
    say(renderPlan(review.view, { full: true }));

    heading('The reviewer approves the plan (the same update as `navigator plan approve`)');
    await plan.approve({ by: 'demo reviewer' });
    const gated = await settlePlan(plan);
    if (gated.view) say(renderPlan(gated.view));
    for (const a of gated.view?.approvals ?? []) {
      heading(`Step ${a.stepId} is destructive: approving it (\`navigator plan approve-step ${id} ${a.stepId}\`)`);
      await plan.approveStep(a.stepId, { by: 'demo reviewer' });
    }
    const done = await settlePlan(plan, { untilClosed: true });
    heading('Result');
    if (done.view) say(renderPlan(done.view));
    if (done.closed?.failure) say(`plan failed: ${done.closed.failure}`);
    say(`config.json now: ${readFileSync(join(workspace, 'config.json'), 'utf8').trim()}`);

    heading('Audit against Temporal history');
    const report = await auditPlan(client, id);
    say(formatPlanAudit(report));
    printByHand();
    if (!report.ok || done.closed?.failure) process.exitCode = 1;
  } finally {
    await close();
  }
}

function printByHand(): void {
  heading('Do it by hand');
  say(`  terminal 1:  npx navigator dev
  terminal 2:  npx navigator plan create workspace --request '${DEMO_REQUEST}'
               npx navigator plan show <id>; npx navigator plan edit <id> STEP --args '{...}'
               npx navigator plan approve <id>; npx navigator plan approve-step <id> write_config
               npx navigator plan watch <id>; npx navigator plan audit <id>
  or from a file: npx navigator plan start examples/workspace/bump-version.plan.json --agent workspace`);
}
