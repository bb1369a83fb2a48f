/**
 * `navigator list` shows missions and plans side by side (a KIND column), `--kind` keeps
 * one of them, and `--status` filters both by their Navigator status: the real CLI in a
 * child process against the embedded server and an in-process worker. A plan cancelled in
 * review is `cancelled` (the status it published), not Temporal's `failed`.
 */
import { runCli } from './run-cli.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getMission } from '../../src/client/mission/client.ts';
import { getPlan } from '../../src/client/plan/client.ts';
import { until, waitForStatus } from '../mission/harness.ts';
import { type PlanEnv, planEnv, waitForPlan } from '../plans/plan-harness.ts';

let env: PlanEnv;
beforeAll(async () => {
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
  });

interface Row {
  kind: string;
  workflowId: string;
  status: string;
}

/** `list ARGS --json` once visibility shows what `ok` wants. */
const listed = (args: string[], ok: (rows: Row[]) => boolean) =>
  until(async () => {
    const r = await cli('list', ...args, '--json');
    expect(r.stderr).toBe('');
    return JSON.parse(r.stdout) as Row[];
  }, ok);

const ids = (rows: Row[]) => rows.map((r) => r.workflowId);
const options = { statusSearchAttribute: 'NavigatorStatus' };
const readStep = { steps: [{ id: 'read', description: 'read', tool: 'read_file', args: { path: 'config.json' } }] };

describe('navigator list', () => {
  it('missions and plans, each kind and each status filtered', { timeout: 240_000 }, async () => {
    const mission = await env.start({ agent: 'wire-transfer', input: { recipient: 'bob', amount: 5000 }, options });
    await waitForStatus(mission, (s) => s.status === 'waiting');
    const review = await env.startPlan({ agent: 'lab', document: readStep, options });
    await waitForPlan(review, (v) => v.status === 'review');
    const cancelled = await env.startPlan({ agent: 'lab', document: readStep, options });
    await waitForPlan(cancelled, (v) => v.status === 'review');
    await cancelled.cancel('not needed');
    await getPlan(env.client, cancelled.id)
      .result()
      .catch(() => undefined);

    // both kinds, each with its Navigator status
    const all = await listed([], (rows) =>
      [mission.workflowId, review.id, cancelled.id].every((id) => ids(rows).includes(id)),
    );
    expect(all).toContainEqual(
      expect.objectContaining({ kind: 'mission', workflowId: mission.workflowId, status: 'waiting' }),
    );
    expect(all).toContainEqual(expect.objectContaining({ kind: 'plan', workflowId: review.id, status: 'review' }));
    expect(all).toContainEqual(
      expect.objectContaining({ kind: 'plan', workflowId: cancelled.id, status: 'cancelled' }),
    );

    // --kind keeps one kind
    const missions = await listed(['--kind', 'mission'], (rows) => ids(rows).includes(mission.workflowId));
    expect(new Set(missions.map((r) => r.kind))).toEqual(new Set(['mission']));
    const plans = await listed(['--kind', 'plan'], (rows) => ids(rows).includes(review.id));
    expect(new Set(plans.map((r) => r.kind))).toEqual(new Set(['plan']));

    // --status filters missions and plans alike, running and closed
    expect(ids(await listed(['--status', 'waiting'], (rows) => ids(rows).includes(mission.workflowId)))).toEqual([
      mission.workflowId,
    ]);
    expect(ids(await listed(['--status', 'review'], (rows) => ids(rows).includes(review.id)))).toEqual([review.id]);
    expect(ids(await listed(['--kind', 'plan', '--status', 'cancelled'], (rows) => rows.length > 0))).toEqual([
      cancelled.id,
    ]);
    expect(await listed(['--kind', 'mission', '--status', 'review'], () => true)).toEqual([]);
    expect(await listed(['--kind', 'plan', '--status', 'failed'], () => true)).toEqual([]);

    // the table: a header naming the columns, one row per run
    const table = await cli('list', '--status', 'review');
    expect(table.code).toBe(0);
    const [header, ...rows] = table.stdout.trim().split('\n');
    expect(header).toMatch(/^STARTED\s+KIND\s+STATUS\s+WORKFLOW ID$/);
    expect(rows).toEqual([expect.stringMatching(new RegExp(`^\\S+\\s+plan\\s+review\\s+${review.id}$`))]);
    expect((await cli('list', '--kind', 'mission', '--status', 'review')).stdout).toBe('(no missions review)\n');

    // a mission that failed, and the waiting one cancelled: closed, each in its own status
    const failed = await env.start({ agent: 'no-such-agent', input: {}, options });
    await failed.result().catch(() => undefined);
    await getMission(env.client, mission.workflowId).cancel('not today');
    await mission.result().catch(() => undefined);
    expect(ids(await listed(['--kind', 'mission', '--status', 'failed'], (rows) => rows.length > 0))).toEqual([
      failed.workflowId,
    ]);
    expect(ids(await listed(['--kind', 'mission', '--status', 'cancelled'], (rows) => rows.length > 0))).toEqual([
      mission.workflowId,
    ]);
    expect(await listed(['--status', 'waiting'], (rows) => rows.length === 0)).toEqual([]);
  });

  it('refuses a kind or a status it does not know, naming the choices', { timeout: 60_000 }, async () => {
    const kind = await cli('list', '--kind', 'missions');
    expect(kind.code).not.toBe(0);
    expect(kind.stderr).toMatch(/Allowed choices are mission, plan/);
    const status = await cli('list', '--status', 'wating');
    expect(status.code).toBe(2);
    expect(status.stderr).toContain('--status wating: not a status; one of');
    expect(status.stderr).toContain('waiting');
    expect((await cli('list', '--plans', '--missions')).code).toBe(2);
  });
});
