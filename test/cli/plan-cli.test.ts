/**
 * Plan commands as a new user types them (real CLI, embedded server, in-process worker):
 * `plan create` says at once that it waits for the planner's model; `plan watch` of a
 * failed plan says "plan failed" once and exits 1.
 */
import { runCli } from './run-cli.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPlan } from '../../src/client/plan/client.ts';
import { planEnv, type PlanEnv } from '../plans/plan-harness.ts';

let env: PlanEnv;
let workspace: string;
beforeAll(async () => {
  workspace = mkdtempSync(join(tmpdir(), 'plan-cli-ws-'));
  process.env.WORKSPACE_DIR = workspace;
  writeFileSync(join(workspace, 'config.json'), '{"name": "demo-app", "version": "1.0.0"}\n');
  env = await planEnv();
  await env.startWorker();
}, 120_000);
afterAll(async () => env?.shutdown());

const cli = (...args: string[]) =>
  runCli(args, {
    ...process.env,
    TEMPORAL_ADDRESS: env.env.server.address,
    TEMPORAL_NAMESPACE: env.env.server.namespace,
    NAVIGATOR_TASK_QUEUE: env.taskQueue,
    WORKSPACE_DIR: workspace,
  });

describe('plan create', () => {
  it('says at once that it waits for the model, then shows the plan for review', { timeout: 120_000 }, async () => {
    const r = await cli('plan', 'create', 'workspace', '--request', 'bump the version in config.json to 2.0.0');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^Started plan \S+; waiting for the model of agent workspace to write it/);
    expect(r.stdout).toMatch(/review/);
  });
});

describe('plan watch', () => {
  it('a plan that did not complete: its end said once, exit 1', { timeout: 120_000 }, async () => {
    const plan = await env.startPlan({
      agent: 'workspace',
      document: { steps: [{ id: 'read', description: 'read', tool: 'read_file', args: { path: 'config.json' } }] },
    });
    await plan.cancel('changed my mind');
    await getPlan(env.client, plan.id)
      .result()
      .catch(() => undefined);
    const r = await cli('plan', 'watch', plan.id);
    expect(r.code).toBe(1);
    const end = r.stdout.trim().split('\n').at(-1)!;
    expect(end).toMatch(/^plan (failed|cancelled): .*changed my mind/);
    expect(end).not.toMatch(/plan \w+: plan \w+:/);
  });
});
