/**
 * Reading without a live worker (issue 44): a real worker runs a mission to its end, a
 * plan to its end and leaves a second mission waiting for a decision, then it is shut
 * down. Everything of the finished ones is still read, from their histories replayed in
 * the reading process: the client (status, journal, ledger, progress, decisions, the
 * overview, the Mission Log, the timeline, both audits), the CLI as a user types it
 * (status, journal, ledger, progress, history, audit; plan show, ledger, audit: exit 0)
 * and the console's mission, pass and plan pages. The waiting mission's reads say that no
 * worker polls its task queue and how to start one: a typed error from the client, a
 * non-zero exit with the status from history in the CLI, a banner over the page built
 * from history in the console. Runs on both servers (the real lane includes test/history).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NavigatorClient, WorkerUnavailableError } from '../../src/client/index.ts';
import { createConsoleApp } from '../../src/console/server.ts';
import { runCli, type CliRun } from '../cli/run-cli.ts';
import { freshBankFile, until, waitForStatus } from '../mission/harness.ts';
import { type PlanEnv, planEnv } from '../plans/plan-harness.ts';

let env: PlanEnv;
let navigator: NavigatorClient;
let finished: string;
let waiting: string;
let plan: string;
let noWorker: RegExp;

beforeAll(async () => {
  process.env.WORKSPACE_DIR = mkdtempSync(join(tmpdir(), 'no-worker-ws-'));
  env = await planEnv();
  const worker: Worker = await env.startWorker();
  navigator = new NavigatorClient({ client: env.client, taskQueue: env.taskQueue });

  freshBankFile();
  const done = await navigator.start(
    'wire-transfer',
    { recipient: 'bob', amount: 5000 },
    { options: { timeouts: { heartbeatMs: 3000 } } },
  );
  await waitForStatus(done.workflow, (s) => s.status === 'waiting');
  await done.approve({ by: 'ana' });
  await done.result();
  finished = done.id;

  const left = await navigator.start(
    'wire-transfer',
    { recipient: 'cy', amount: 7000 },
    { options: { timeouts: { heartbeatMs: 3000 } } },
  );
  await waitForStatus(left.workflow, (s) => s.status === 'waiting');
  waiting = left.id;

  const p = await env.startPlan({
    agent: 'lab',
    approve: true,
    document: {
      steps: [
        { id: 'list', description: 'make a list', tool: 'make_list', args: { n: 2 } },
        { id: 'use', description: 'use it', tool: 'echo', args: { value: '$list.items.1.id' }, dependsOn: ['list'] },
      ],
    },
  });
  expect((await p.result()).status).toBe('completed');
  plan = p.id;

  // every worker stops: nothing polls the task queue from here on
  worker.shutdown();
  while (worker.getState() !== 'STOPPED' && worker.getState() !== 'FAILED') await new Promise((r) => setTimeout(r, 50));
  const queue = env.taskQueue.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  noWorker = new RegExp(
    `no worker is polling task queue ${queue}; start one with \`navigator worker --task-queue ${queue}\``,
  );
}, 180_000);
afterAll(() => env?.shutdown());

function cli(...args: string[]): Promise<CliRun> {
  return runCli(args, {
    ...process.env,
    TEMPORAL_ADDRESS: env.env.server.address,
    TEMPORAL_NAMESPACE: env.env.server.namespace,
    NAVIGATOR_TASK_QUEUE: env.taskQueue,
  });
}

const T = { timeout: 120_000 };

describe('with every worker stopped', () => {
  it('the client reads a finished mission and plan from their histories, audits included', T, async () => {
    const mission = navigator.mission(finished);
    const status = await mission.status();
    expect(status).toMatchObject({ workflowId: finished, status: 'completed', result: { status: 'sent' } });
    expect((await mission.journal()).entries.map(([k]) => k)).toContain('manager_decision_bob_5000');
    expect((await mission.ledger()).some((e) => e.tool === 'execute_wire' && e.status === 'completed')).toBe(true);
    expect(await mission.progress()).toContain('Put a hold on the funds and ask a manager');
    expect((await mission.decisions()).map((d) => d.key)).toEqual(['manager_decision_bob_5000']);
    expect(await mission.missionLog()).toContain('manager_decision_bob_5000');
    expect(await mission.pending()).toBeNull();
    const overview = await mission.overview();
    expect(overview.status).toEqual(status);
    expect((await mission.timeline()).length).toBeGreaterThan(0);
    const audit = await mission.audit();
    expect(audit.problems).toEqual([]);
    expect(audit.journal.matches).toBe(true);
    expect(audit.journal.fromWorkflow.length).toBeGreaterThan(0);
    expect(audit.ok).toBe(true);

    const p = navigator.plan(plan);
    const view = await p.status();
    expect(view.status).toBe('completed');
    expect(view.plan!.steps.map((s) => [s.id, s.status])).toEqual([
      ['list', 'completed'],
      ['use', 'completed'],
    ]);
    expect((await p.ledger()).map((e) => e.stepId).sort()).toEqual(['list', 'use']);
    expect((await p.versions()).length).toBeGreaterThan(0);
    const planAudit = await env.auditPlan(plan);
    expect(planAudit.problems).toEqual([]);
    expect(planAudit.ok).toBe(true);
  });

  it(
    'a running mission: the client gets a WorkerUnavailableError naming the task queue, and reads what its history holds',
    { timeout: 300_000 },
    async () => {
      const mission = navigator.mission(waiting);
      // the embedded server lists only workers that poll now; a real one lists a worker that
      // stopped with its last poll, so for a few seconds the answer is that it may have stopped
      // (and polling: true), until the server itself says nobody polls
      const err = await until(
        () => mission.status().catch((e: unknown) => e),
        (e) => e instanceof WorkerUnavailableError && !e.polling,
        120_000,
        'the answer that no worker polls',
      );
      expect(err).toBeInstanceOf(WorkerUnavailableError);
      expect((err as WorkerUnavailableError).message).toMatch(noWorker);
      expect(err).toMatchObject({ workflowId: waiting, taskQueue: env.taskQueue, polling: false });
      await expect(mission.overview()).rejects.toThrow(WorkerUnavailableError);
      const known = await mission.overviewFromHistory();
      expect(known.temporalStatus).toBe('RUNNING');
      expect(known.status).toMatchObject({ status: 'waiting', pending: { key: 'manager_decision_cy_7000' } });
      expect(known.at).toBeGreaterThan(0);
      // the list says so too, without waiting on each run in turn
      const runs = await navigator.runs({ kinds: ['mission'], limit: 50 });
      expect(runs.find((r) => r.workflowId === waiting)?.status).toMatch(/waiting|no worker/);
    },
  );

  it(
    'the CLI: every read of a finished mission and plan exits 0; status of a running one shows its history and exits 1',
    { timeout: 600_000 },
    async () => {
      const runs = new Map<string, CliRun>();
      for (const args of [
        ['status', finished],
        ['journal', finished],
        ['ledger', finished],
        ['progress', finished],
        ['history', finished],
        ['audit', finished],
        ['plan', 'show', plan],
        ['plan', 'ledger', plan],
        ['plan', 'audit', plan],
      ]) {
        const run = await cli(...args);
        expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: '' });
        runs.set(args[0] === 'plan' ? `plan ${args[1]}` : args[0]!, run);
      }
      expect(runs.get('status')!.stdout).toMatch(new RegExp(`Mission ${finished}: completed`));
      expect(runs.get('journal')!.stdout).toMatch(/manager_decision_bob_5000: "approved"/);
      expect(runs.get('ledger')!.stdout).toMatch(/execute_wire/);
      expect(runs.get('audit')!.stdout).toMatch(/journal rebuilt from history: \d+ task\(s\), matches the workflow/);
      expect(runs.get('plan show')!.stdout).toMatch(/version 1 · (done|completed)/);
      expect(runs.get('plan ledger')!.stdout).toMatch(/#\d+ use echo/);

      const text = await cli('status', waiting);
      expect(text.code).toBe(1);
      expect(text.stdout).toMatch(
        new RegExp(`from its history: no worker answered\\)\\nMission ${waiting}: waiting after 1 pass`),
      );
      expect(text.stdout).toMatch(/waiting for manager_decision_cy_7000/);
      expect(text.stderr).toMatch(noWorker);
      const running = await cli('status', waiting, '--json');
      expect(running.code).toBe(1);
      expect(running.stderr).toMatch(noWorker);
      expect(JSON.parse(running.stdout)).toMatchObject({
        workflowId: waiting,
        status: { status: 'waiting', pending: { key: 'manager_decision_cy_7000' } },
        closed: null,
        workerUnavailable: { taskQueue: env.taskQueue, polling: false },
      });
      const journal = await cli('journal', waiting);
      expect(journal.code).toBe(1);
      expect(journal.stderr).toMatch(noWorker);
    },
  );

  it(
    "the console: a finished mission's page, pass view and audit and the plan's page render; a running mission's page and the inbox have the banner, the page its history",
    T,
    async () => {
      const app = createConsoleApp({ navigator, user: 'ana', noAuth: true });
      const get = async (path: string) => {
        const res = await app.request(path);
        return { status: res.status, text: await res.text() };
      };
      const page = await get(`/missions/${finished}`);
      expect(page.status).toBe(200);
      expect(page.text).toMatch(/completed/);
      expect(page.text).toMatch(/execute_wire/);
      expect(page.text).not.toMatch(/No worker answered/);
      const passes = await get(`/missions/${finished}/passes`);
      expect(passes.status).toBe(200);
      expect(passes.text).toMatch(/Pass 2/);
      const audit = await get(`/missions/${finished}/audit`);
      expect(audit.status).toBe(200);
      expect(audit.text).toMatch(/audit passed/);
      const planPage = await get(`/plans/${plan}`);
      expect(planPage.status).toBe(200);
      expect(planPage.text).toMatch(/completed/);

      const open = await get(`/missions/${waiting}`);
      expect(open.status).toBe(200);
      expect(open.text).toMatch(/No worker answered/);
      expect(open.text).toMatch(/no worker is polling task queue/);
      expect(open.text).toMatch(/manager_decision_cy_7000/);
      // the inbox cannot tell whether it waits for you: it says why, and links it
      const inbox = await get('/');
      expect(inbox.status).toBe(200);
      expect(inbox.text).toMatch(/No worker answered/);
      expect(inbox.text).toContain(`href="/missions/${waiting}"`);
    },
  );
});
