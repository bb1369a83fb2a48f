/**
 * Scheduled missions: a schedule every second starts wire-transfer missions, each a normal
 * mission with its own journal and idempotency keys (the bank prepares each wire once per
 * mission, never twice in one), skipping times while one still waits for its approval;
 * each mission passes its audit. The CLI creates, lists, describes, pauses, triggers and
 * deletes schedules, and refuses bad input with one line.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NavigatorClient } from '../../src/client/index.ts';
import { appliedOperations } from '../../examples/wire-transfer/index.ts';
import { type MissionEnv, eventually, freshBankFile, missionEnv, until, waitForStatus } from './harness.ts';

let m: MissionEnv;
let navigator: NavigatorClient;
beforeAll(async () => {
  m = await missionEnv();
  await m.startWorker();
  navigator = new NavigatorClient({ client: m.client, taskQueue: m.taskQueue });
}, 60_000);
afterAll(() => m?.shutdown());

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/navigator.mjs', ...args], {
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: m.env.server.address,
        TEMPORAL_NAMESPACE: m.env.server.namespace,
        NAVIGATOR_TASK_QUEUE: m.taskQueue,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe('scheduled missions', () => {
  it('each time starts its own mission; a time is skipped while the last one waits; every mission audits', async () => {
    const bank = freshBankFile();
    const schedule = await navigator.schedule(
      'wire-transfer',
      { recipient: 'bob', amount: 10 },
      { id: 'wires-every-second', every: '1s', options: { timeouts: { heartbeatMs: 3000 } } },
    );
    let view = await schedule.describe();
    expect(view).toMatchObject({
      agent: 'wire-transfer',
      input: { recipient: 'bob', amount: 10 },
      every: [1000],
      overlap: 'skip',
      paused: false,
    });

    // the first mission waits for its approval; meanwhile later times are skipped
    await eventually(() => appliedOperations(bank).length >= 2, 60_000, 'the first mission to ask for approval');
    const first = navigator.mission((await schedule.describe()).running[0]!);
    expect(first.id).toMatch(/^wires-every-second-\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    await waitForStatus(first.workflow, (s) => s.status === 'waiting');
    for (let i = 0; i < 100 && (await schedule.describe()).skippedOverlap < 1; i++)
      await new Promise((r) => setTimeout(r, 100));
    view = await schedule.describe();
    expect(view.missionsStarted).toBe(1);
    expect(view.skippedOverlap).toBeGreaterThanOrEqual(1);

    // approved, it sends its wire and the next time starts a second mission
    await first.approve({ by: 'ana' });
    expect(await first.result()).toMatchObject({ status: 'sent' });
    await eventually(
      () => appliedOperations(bank).filter((r) => r.operation === 'prepare_wire').length >= 2,
      60_000,
      'a second mission',
    );
    await schedule.pause('enough');
    const missions = await schedule.missions();
    expect(missions.length).toBeGreaterThanOrEqual(2);
    const second = navigator.mission(missions.find((x) => x.workflowId !== first.id)!.workflowId);
    await waitForStatus(second.workflow, (s) => s.status === 'waiting');
    await second.reject({ by: 'ana' });
    await second.result();

    // two missions, two journals under their own ids: each prepared its wire once
    const keys = appliedOperations(bank)
      .filter((r) => r.operation === 'prepare_wire')
      .map((r) => r.idempotencyKey);
    expect(new Set(keys).size).toBe(keys.length);
    for (const mission of [first, second]) {
      const audit = await mission.audit({ workflowBundle: m.env.bundle });
      expect(audit.ok, JSON.stringify(audit.problems)).toBe(true);
    }
    await schedule.delete();
  }, 120_000);

  it('the CLI creates, lists, describes, pauses, triggers and deletes schedules', async () => {
    freshBankFile();
    const created = await cli(
      'schedule',
      'create',
      'wire-transfer',
      '--cron',
      '0 9 * * MON-FRI',
      '--timezone',
      'Europe/Paris',
      '--input',
      '{"recipient":"cy","amount":5}',
      '--id',
      'weekday-wires',
      '--note',
      'weekdays',
    );
    expect(created.stderr).toBe('');
    expect(created.stdout).toMatch(
      /Created Schedule weekday-wires: agent wire-transfer, cron "0 9 \* \* 1-5" \(Europe\/Paris\)/,
    );
    expect(created.stdout).toMatch(/next: +\d{4}-\d\d-\d\dT0[78]:00:00Z/);

    expect(
      (
        await until(
          () => cli('schedule', 'list'),
          (r) => /^weekday-wires {2}next /m.test(r.stdout),
        )
      ).stdout,
    ).toMatch(/^weekday-wires {2}next /m);
    expect((await cli('schedule', 'pause', 'weekday-wires', '--note', 'holiday')).stdout).toMatch(
      /Paused schedule weekday-wires/,
    );
    expect((await cli('schedule', 'trigger', 'weekday-wires')).stdout).toMatch(/Triggered/);
    const described = await cli('schedule', 'describe', 'weekday-wires', '--json');
    const view = JSON.parse(described.stdout);
    expect(view).toMatchObject({
      id: 'weekday-wires',
      paused: true,
      note: 'holiday',
      missionsStarted: 1,
      input: { recipient: 'cy', amount: 5 },
    });
    const started = navigator.mission(view.recent[0].missionId);
    await waitForStatus(started.workflow, (s) => s.status === 'waiting');
    await started.cancel('test over');

    expect((await cli('schedule', 'delete', 'weekday-wires')).stdout).toMatch(/Deleted schedule weekday-wires/);
    const gone = await cli('schedule', 'describe', 'weekday-wires');
    expect([gone.code, gone.stderr.trim()]).toEqual([1, 'navigator: no schedule with id weekday-wires']);
    const noSpec = await cli('schedule', 'create', 'wire-transfer');
    expect([noSpec.code, noSpec.stderr.trim()]).toEqual([2, 'navigator: give --cron EXPR or --every DURATION']);
    // the cron named, and the cluster's reason (a real server's names no cron)
    const badCron = await cli('schedule', 'create', 'wire-transfer', '--cron', '0 9 * *');
    expect([badCron.code, badCron.stderr.trim()]).toEqual([
      2,
      'navigator: invalid schedule spec: cron "0 9 * *": CronString does not have 5-7 fields',
    ]);
    const badZone = await cli(
      'schedule',
      'create',
      'wire-transfer',
      '--cron',
      '0 9 * * *',
      '--timezone',
      'Mars/Olympus',
    );
    expect([badZone.code, badZone.stderr.trim()]).toEqual([
      2,
      'navigator: invalid schedule spec: cron "0 9 * * *", time zone Mars/Olympus: unknown time zone Mars/Olympus',
    ]);
    const badEvery = await cli('schedule', 'create', 'wire-transfer', '--every', 'soon');
    expect([badEvery.code, badEvery.stderr.trim()]).toEqual([
      2,
      'navigator: every must be a duration like 90s, 15m, 1h or 1d, got "soon"',
    ]);
  }, 120_000);
});
