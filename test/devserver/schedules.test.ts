/**
 * Temporal Schedules driven by the real SDK's ScheduleClient, on either server: interval and
 * calendar specs, overlap policies, pause/unpause/trigger/backfill, limited actions, update
 * with its conflict token, list with a query, delete; each started workflow is an ordinary
 * one (id with the spec time, scheduled-by search attributes) whose history replays; a bad
 * spec is refused in the real server's words. Also the embedded server's spec compiler (its
 * messages are the real server's) and its times, without a server.
 */
import {
  Client,
  Connection,
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type ScheduleDescription,
} from '@temporalio/client';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/devserver/engine.ts';
import { startTestServer } from '../../src/devserver/testing.ts';
import { type ScheduleRecord, scheduleKey } from '../../src/devserver/model.ts';
import { newNamespace } from '../../src/devserver/namespaces.ts';
import { jitterMs, Scheduler } from '../../src/devserver/scheduler.ts';
import { hooks } from '../../src/devserver/timeouts.ts';
import { compileSpec, SpecTimes } from '../../src/devserver/schedule-spec.ts';
import { failing, hello, sleeper } from './fixtures/workflows.ts';
import { fetchAndReplayAll, useTestEnv } from './helpers.ts';

const env = useTestEnv();
const iso = (t: number | undefined) => (t === undefined ? undefined : new Date(t).toISOString());
const times = (spec: object, from: string, n = 3) =>
  new SpecTimes(compileSpec(spec)).upcoming(Date.parse(from), n).map(iso);

let seq = 0;
const uniqueId = (name: string) => `${name}-${Date.now().toString(36)}-${seq++}`;

async function until(
  describeIt: () => Promise<ScheduleDescription>,
  ready: (d: ScheduleDescription) => boolean,
): Promise<ScheduleDescription> {
  for (let i = 0; i < 300; i++) {
    const d = await describeIt();
    if (ready(d)) return d;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the schedule never got there');
}

describe('schedule specs', () => {
  it.each([
    [
      { cronString: ['*/15 * * * *'] },
      ['2026-11-24T08:45:00.000Z', '2026-11-24T09:00:00.000Z', '2026-11-24T09:15:00.000Z'],
    ],
    [
      { cronString: ['0 9 * * MON-FRI'] },
      ['2026-11-24T09:00:00.000Z', '2026-11-25T09:00:00.000Z', '2026-11-26T09:00:00.000Z'],
    ],
    [
      { cronString: ['30 0 9 * * * *'] },
      ['2026-11-24T09:00:30.000Z', '2026-11-25T09:00:30.000Z', '2026-11-26T09:00:30.000Z'],
    ],
    [{ cronString: ['0 0 1 1 * 2028'] }, ['2028-01-01T00:00:00.000Z']],
    [
      { cronString: ['@every 90s'] },
      ['2026-11-24T08:31:30.000Z', '2026-11-24T08:33:00.000Z', '2026-11-24T08:34:30.000Z'],
    ],
    [
      { cronString: ['@every 1h/15m'] },
      ['2026-11-24T09:15:00.000Z', '2026-11-24T10:15:00.000Z', '2026-11-24T11:15:00.000Z'],
    ],
    [{ cronString: ['@weekly'] }, ['2026-11-29T00:00:00.000Z', '2026-12-06T00:00:00.000Z', '2026-12-13T00:00:00.000Z']],
    [
      { calendar: [{ hour: '12', dayOfWeek: 'SAT' }] },
      ['2026-11-28T12:00:00.000Z', '2026-12-05T12:00:00.000Z', '2026-12-12T12:00:00.000Z'],
    ],
    [
      { cronString: ['0 * * * *'], excludeCalendar: [{ hour: '10-11', minute: '*' }] },
      ['2026-11-24T09:00:00.000Z', '2026-11-24T12:00:00.000Z', '2026-11-24T13:00:00.000Z'],
    ],
    // every field must match (not either day field, as in classic cron)
    [
      { cronString: ['0 12 13 * FRI'] },
      ['2027-08-13T12:00:00.000Z', '2028-10-13T12:00:00.000Z', '2029-04-13T12:00:00.000Z'],
    ],
    [
      { interval: [{ interval: { seconds: 3600 } }], endTime: { seconds: Date.parse('2026-11-24T10:30:00Z') / 1000 } },
      ['2026-11-24T09:00:00.000Z', '2026-11-24T10:00:00.000Z'],
    ],
  ])('%j fires at %j', (spec, expected) => {
    expect(times(spec, '2026-11-24T08:30:10Z', 3)).toEqual(expected);
  });

  it('keeps wall-clock times in a time zone across a DST change', () => {
    // New York leaves daylight saving time on 2026-11-01: 9:00 is 13:00Z before, 14:00Z after
    expect(times({ cronString: ['CRON_TZ=America/New_York 0 9 * * *'] }, '2026-10-30T12:00:00Z', 4)).toEqual([
      '2026-10-30T13:00:00.000Z',
      '2026-10-31T13:00:00.000Z',
      '2026-11-01T14:00:00.000Z',
      '2026-11-02T14:00:00.000Z',
    ]);
    expect(compileSpec({ cronString: ['TZ=Europe/Paris @daily'] }).timezoneName).toBe('Europe/Paris');
  });

  it('compiles cron strings into structured calendars, as the server describes them', () => {
    const spec = compileSpec({ cronString: ['5 4 * * MON'] });
    expect(spec.cronString).toBeUndefined();
    expect(spec.structuredCalendar[0]).toMatchObject({
      second: [{ start: 0, end: 0, step: 1 }],
      minute: [{ start: 5, end: 5, step: 1 }],
      hour: [{ start: 4, end: 4, step: 1 }],
      dayOfWeek: [{ start: 1, end: 1, step: 1 }],
      year: [],
    });
  });

  // the real server's messages (service/worker/scheduler calendar.go and spec.go)
  it.each([
    [{ cronString: ['0 9 * *'] }, 'CronString does not have 5-7 fields'],
    [{ cronString: ['61 * * * *'] }, 'Minute is not in range [0-59]'],
    [{ cronString: ['5-1 * * * *'] }, 'Minute End is before Start or not in range [0-59]'],
    [{ cronString: ['0 9 * * FOO'] }, 'DayOfWeek is not in range [0-7]'],
    [{ cronString: ['0 9 ? * *'] }, 'DayOfMonth is not in range [1-31]'],
    [{ cronString: ['*/x * * * *'] }, 'strconv.Atoi: parsing "x": invalid syntax'],
    [{ cronString: ['@every 500ms'] }, 'interval is too small'],
    [{ cronString: ['@every 1x'] }, 'time: unknown unit "x" in duration "1x"'],
    [{ cronString: ['CRON_TZ=Europe/Paris 0 9 * * *', '0 18 * * *'] }, 'conflicting timezone names'],
    [{ calendar: [{ hour: '25', minute: 'x' }] }, 'Minute is not in range [0-59], Hour is not in range [0-23]'],
    [
      { structuredCalendar: [{ dayOfWeek: [{ start: 7 }] }] },
      'invalid calendar spec: DayOfWeek Start is not in range [0-6]',
    ],
    [{ cronString: ['CRON_TZ=Mars/Olympus 0 9 * * *'] }, 'unknown time zone Mars/Olympus'],
  ])('refuses %j', (spec, message) => {
    expect(() => compileSpec(spec)).toThrow(new Error(message));
  });

  it('reads day and month names by prefix and Sunday as 0 or 7', () => {
    expect(times({ cronString: ['0 9 * Dec Sunday'] }, '2026-11-24T08:30:10Z', 2)).toEqual([
      '2026-12-06T09:00:00.000Z',
      '2026-12-13T09:00:00.000Z',
    ]);
    expect(compileSpec({ cronString: ['0 9 * * 5-7'] }).structuredCalendar[0].dayOfWeek).toEqual([
      { start: 0, end: 0, step: 1 },
      { start: 5, end: 6, step: 1 },
    ]);
    expect(times({ cronString: ['@every 1d'] }, '2026-11-24T08:30:10Z', 1)).toEqual(['2026-11-25T00:00:00.000Z']);
  });
});

describe('schedules on a server', () => {
  it('start a workflow at each interval, with the time in its id and the schedule in its search attributes', async () => {
    const scheduleId = uniqueId('every-second');
    const handle = await env.client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: '1s' }] },
      action: {
        type: 'startWorkflow',
        workflowType: hello,
        args: ['schedule'],
        taskQueue: env.taskQueue,
        workflowId: `${scheduleId}-wf`,
      },
    });
    const d = await until(
      () => handle.describe(),
      (x) => x.info.recentActions.length >= 2,
    );
    expect(d.info.numActionsTaken).toBeGreaterThanOrEqual(2);
    expect(d.info.nextActionTimes.length).toBe(10);
    expect(d.policies.overlap).toBe(ScheduleOverlapPolicy.SKIP);
    expect(d.spec.intervals).toMatchObject([{ every: 1000 }]);
    await handle.delete();

    const first = d.info.recentActions[0]!;
    const workflowId = first.action.workflow.workflowId;
    expect(workflowId).toBe(`${scheduleId}-wf-${first.scheduledAt.toISOString().replace('.000Z', 'Z')}`);
    const started = env.client.workflow.getHandle(workflowId);
    expect(await started.result()).toBe('Hello, schedule!');
    const described = await started.describe();
    expect(described.searchAttributes.TemporalScheduledById).toEqual([scheduleId]);
    const listed = [];
    for await (const w of env.client.workflow.list({ query: `TemporalScheduledById = '${scheduleId}'` }))
      listed.push(w.workflowId);
    expect(listed).toContain(workflowId);
    await fetchAndReplayAll(env, [started]);
    await expect(handle.describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
  }, 60_000);

  it('skips a time while the last workflow still runs (overlap SKIP), buffers one with BUFFER_ONE', async () => {
    const skipId = uniqueId('skip');
    const skip = await env.client.schedule.create({
      scheduleId: skipId,
      spec: { intervals: [{ every: '1s' }] },
      action: {
        type: 'startWorkflow',
        workflowType: sleeper,
        args: [60_000],
        taskQueue: env.taskQueue,
        workflowId: skipId,
      },
    });
    const skipped = await until(
      () => skip.describe(),
      (x) => x.info.numActionsSkippedOverlap >= 2,
    );
    expect(skipped.info.numActionsTaken).toBe(1);
    expect(skipped.info.runningActions).toHaveLength(1);

    const bufferId = uniqueId('buffer');
    const buffer = await env.client.schedule.create({
      scheduleId: bufferId,
      spec: { intervals: [{ every: '1s' }] },
      policies: { overlap: ScheduleOverlapPolicy.BUFFER_ONE },
      action: {
        type: 'startWorkflow',
        workflowType: sleeper,
        args: [1500],
        taskQueue: env.taskQueue,
        workflowId: bufferId,
      },
    });
    // the buffered start goes when the running one closes: a second action; a time that finds one buffered is skipped
    const buffered = await until(
      () => buffer.describe(),
      (x) => x.info.numActionsTaken >= 2 && x.info.numActionsSkippedOverlap >= 1,
    );
    expect(Number(buffered.raw.info?.bufferDropped ?? 0)).toBe(0);
    const [a, b] = buffered.info.recentActions;
    const firstClose = (await env.client.workflow.getHandle(a!.action.workflow.workflowId).describe()).closeTime!;
    const secondStart = (await env.client.workflow.getHandle(b!.action.workflow.workflowId).describe()).startTime;
    expect(secondStart.getTime()).toBeGreaterThanOrEqual(firstClose.getTime());

    for (const h of [skip, buffer]) await h.delete();
    for (const run of skipped.info.runningActions)
      await env.client.workflow.getHandle(run.workflow.workflowId).terminate('test over');
  }, 60_000);

  it('pause, trigger while paused (not using up limited actions), unpause, and an update that loses a race (dropped)', async () => {
    const scheduleId = uniqueId('hourly');
    const handle = await env.client.schedule.create({
      scheduleId,
      spec: { calendars: [{ minute: 0, hour: '*' }] },
      action: {
        type: 'startWorkflow',
        workflowType: hello,
        args: ['trigger'],
        taskQueue: env.taskQueue,
        workflowId: scheduleId,
      },
      state: { paused: true, note: 'waiting for the launch', remainingActions: 2 },
    });
    let d = await handle.describe();
    expect(d.state).toEqual({ paused: true, note: 'waiting for the launch', remainingActions: 2 });
    expect(d.info.nextActionTimes).toHaveLength(2);

    await handle.trigger();
    d = await until(
      () => handle.describe(),
      (x) => x.info.numActionsTaken === 1,
    );
    // a manual start uses up none of the remaining actions
    expect(d.state.remainingActions).toBe(2);
    expect(await env.client.workflow.getHandle(d.info.recentActions[0]!.action.workflow.workflowId).result()).toBe(
      'Hello, trigger!',
    );

    await handle.unpause('launched');
    d = await handle.describe();
    expect(d.state).toMatchObject({ paused: false, note: 'launched' });
    await handle.pause('stopped again');

    const stale = d.raw.conflictToken;
    await handle.update((prev) => ({ ...prev, spec: { calendars: [{ minute: 30, hour: '*' }] } }));
    d = await handle.describe();
    expect(d.spec.calendars?.[0]?.minute).toEqual([{ start: 30, end: 30, step: 1 }]);
    // an update carrying a token from before the change loses the race: accepted, and dropped
    const late = {
      ...d.raw.schedule,
      spec: {
        ...d.raw.schedule!.spec,
        structuredCalendar: [{ minute: [{ start: 45 }], hour: [{ start: 0, end: 23 }] }],
      },
    };
    await env.client.workflowService.updateSchedule({
      namespace: 'default',
      scheduleId,
      schedule: late,
      conflictToken: stale,
      requestId: 'raced',
    });
    d = await handle.describe();
    expect(d.spec.calendars?.[0]?.minute).toEqual([{ start: 30, end: 30, step: 1 }]);

    await expect(
      env.client.schedule.create({
        scheduleId,
        spec: { intervals: [{ every: '1h' }] },
        action: { type: 'startWorkflow', workflowType: hello, args: ['x'], taskQueue: env.taskQueue },
      }),
    ).rejects.toBeInstanceOf(ScheduleAlreadyRunning);

    const paused: string[] = [];
    for await (const s of env.client.schedule.list({ query: 'TemporalSchedulePaused = true' }))
      paused.push(s.scheduleId);
    expect(paused).toContain(scheduleId);
    await handle.delete();
  }, 60_000);

  it('limited actions: takes as many spec times as it has actions, then no more', async () => {
    const scheduleId = uniqueId('limited');
    const handle = await env.client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: '1s' }] },
      policies: { overlap: ScheduleOverlapPolicy.ALLOW_ALL },
      action: {
        type: 'startWorkflow',
        workflowType: sleeper,
        args: [60_000],
        taskQueue: env.taskQueue,
        workflowId: scheduleId,
      },
      state: { remainingActions: 2 },
    });
    const d = await until(
      () => handle.describe(),
      (x) => x.state.remainingActions === 0,
    );
    expect(d.info.numActionsTaken).toBe(2);
    expect(d.info.nextActionTimes).toEqual([]);
    // both still sleep, but ALLOW_ALL starts are not tracked as running
    expect(d.info.runningActions).toEqual([]);
    await handle.delete();
    for (const a of d.info.recentActions)
      await env.client.workflow.getHandle(a.action.workflow.workflowId).terminate('test over');
  }, 60_000);

  it('backfills the spec times of a past range (ALLOW_ALL), and lists matching times', async () => {
    const scheduleId = uniqueId('backfill');
    const handle = await env.client.schedule.create({
      scheduleId,
      spec: { calendars: [{ minute: 0, hour: '*' }] },
      action: {
        type: 'startWorkflow',
        workflowType: hello,
        args: ['backfill'],
        taskQueue: env.taskQueue,
        workflowId: scheduleId,
      },
      state: { paused: true },
    });
    const start = new Date('2026-01-01T00:30:00Z');
    const end = new Date('2026-01-01T03:30:00Z');
    await handle.backfill({ start, end, overlap: ScheduleOverlapPolicy.ALLOW_ALL });
    const d = await handle.describe();
    expect(d.info.recentActions.map((a) => a.action.workflow.workflowId)).toEqual(
      ['01', '02', '03'].map((h) => `${scheduleId}-2026-01-01T${h}:00:00Z`),
    );
    const seconds = (d: Date) => ({ seconds: d.getTime() / 1000 }) as never;
    const matching = (await env.client.workflowService.listScheduleMatchingTimes({
      namespace: 'default',
      scheduleId,
      startTime: seconds(start),
      endTime: seconds(end),
    })) as { startTime?: Array<{ seconds?: unknown }> };
    expect(matching.startTime?.map((t) => Number(t.seconds))).toEqual(
      [1, 2, 3].map((h) => Date.UTC(2026, 0, 1, h) / 1000),
    );
    await handle.delete();
  }, 60_000);

  it.each([
    [{ cronExpressions: ['0 9 * *'] }, 'CronString does not have 5-7 fields'],
    [{ cronExpressions: ['61 * * * *'] }, 'Minute is not in range [0-59]'],
    [{ intervals: [{ every: 500 }] }, 'interval is too small'],
    [{ cronExpressions: ['0 9 * * *'], timezone: 'Mars/Olympus' }, 'unknown time zone Mars/Olympus'],
  ])(
    'refuses a bad spec %j with the reason alone (a TypeError)',
    async (spec, message) => {
      const bad = await env.client.schedule
        .create({
          scheduleId: uniqueId('bad'),
          spec,
          action: { type: 'startWorkflow', workflowType: hello, args: ['x'], taskQueue: env.taskQueue },
        })
        .catch((e: Error) => e);
      expect(bad).toBeInstanceOf(TypeError);
      expect((bad as Error).message).toBe(message);
    },
    60_000,
  );
});

describe('schedules that outlive things', () => {
  it('pause themselves when a workflow they started fails (pauseOnFailure)', async () => {
    const scheduleId = uniqueId('fragile');
    const handle = await env.client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: '1s' }] },
      policies: { pauseOnFailure: true },
      action: { type: 'startWorkflow', workflowType: failing, taskQueue: env.taskQueue, workflowId: scheduleId },
    });
    const d = await until(
      () => handle.describe(),
      (x) => x.state.paused,
    );
    expect(d.info.numActionsTaken).toBe(1);
    const workflowId = d.info.recentActions[0]!.action.workflow.workflowId;
    expect(d.state.note).toBe(`paused due to workflow failure: ${workflowId}: workflow gave up`);
    await handle.delete();
  }, 60_000);

  it('survive a restart of a server on --db, paused or not, and go on firing', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'schedules-db-')), 'state.json');
    const action = {
      type: 'startWorkflow' as const,
      workflowType: 'nobodyRunsThis',
      taskQueue: 'no-worker',
      workflowId: 'kept',
    };
    let server = await startTestServer({ db });
    let connection = await Connection.connect({ address: server.address });
    let client = new Client({ connection });
    const live = await client.schedule.create({
      scheduleId: 'kept',
      spec: { intervals: [{ every: '1s' }] },
      policies: { overlap: ScheduleOverlapPolicy.ALLOW_ALL },
      action,
    });
    await client.schedule.create({
      scheduleId: 'kept-paused',
      spec: { intervals: [{ every: '1s' }] },
      state: { paused: true, note: 'hold' },
      action,
    });
    const before = (
      await until(
        () => live.describe(),
        (x) => x.info.numActionsTaken >= 1,
      )
    ).info.numActionsTaken;
    await connection.close();
    await server.shutdown();

    server = await startTestServer({ db });
    connection = await Connection.connect({ address: server.address });
    client = new Client({ connection });
    try {
      const after = await until(
        () => client.schedule.getHandle('kept').describe(),
        (x) => x.info.numActionsTaken > before,
      );
      expect(after.info.recentActions.length).toBeGreaterThan(before);
      const paused = await client.schedule.getHandle('kept-paused').describe();
      expect([paused.state.paused, paused.state.note, paused.info.numActionsTaken]).toEqual([true, 'hold', 0]);
    } finally {
      await connection.close();
      await server.shutdown();
    }
  }, 60_000);
});

describe('catching up after the server was down', () => {
  it('takes the times missed within the catch-up window and counts the older ones as missed', () => {
    const engine = new Engine(
      { namespaces: { default: newNamespace('default') }, runs: {}, chains: {} },
      hooks(() => undefined),
    );
    const scheduler = new Scheduler(engine);
    const now = Date.now();
    const rec: ScheduleRecord = {
      namespace: 'default',
      scheduleId: 'late',
      createdAt: now - 60_000,
      conflictToken: 1,
      // the server stopped 30 s ago; the window is 10 s; one time per second
      processedUntil: now - 30_000,
      schedule: {
        spec: compileSpec({ interval: [{ interval: { seconds: 1 } }] }),
        action: {
          startWorkflow: { workflowId: 'late', workflowType: { name: 'nobody' }, taskQueue: { name: 'none' } },
        },
        policies: { catchupWindow: { seconds: 10 }, overlapPolicy: 'SCHEDULE_OVERLAP_POLICY_ALLOW_ALL' },
        state: {},
      },
      actionCount: 0,
      missedCatchupWindow: 0,
      overlapSkipped: 0,
      bufferDropped: 0,
      buffered: [],
      recent: [],
      running: [],
    };
    scheduler.records[scheduleKey('default', 'late')] = rec;
    scheduler.wake(scheduleKey('default', 'late'));
    scheduler.close();
    engine.close();
    // 30 times passed: about 20 too late for the window, about 10 within it (one boundary either way)
    expect(rec.missedCatchupWindow + rec.actionCount).toBe(30);
    expect(rec.actionCount).toBeGreaterThanOrEqual(9);
    expect(rec.actionCount).toBeLessThanOrEqual(11);
    expect(Object.keys(engine.state.chains)).toHaveLength(rec.actionCount);
  });
});

describe('jitter', () => {
  it('delays each time by up to the jitter, the same amount for the same time on every server start', () => {
    const rec = { scheduleId: 'jittery', schedule: { spec: { jitter: { seconds: 30 } } } } as unknown as ScheduleRecord;
    const times = Array.from({ length: 200 }, (_, i) => Date.UTC(2026, 0, 1, 0, i));
    const delays = times.map((t) => jitterMs(rec, t));
    for (const d of delays) expect(d >= 0 && d < 30_000).toBe(true);
    expect(new Set(delays).size).toBeGreaterThan(150); // spread, not one fixed offset
    expect(times.map((t) => jitterMs(rec, t))).toEqual(delays);
    expect(jitterMs({ ...rec, schedule: { spec: {} } } as ScheduleRecord, times[0]!)).toBe(0);
  });
});
