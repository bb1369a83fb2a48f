/**
 * Scheduled missions on Temporal Schedules: each time the schedule fires it starts an
 * ordinary mission (its own journal, its own logical run id) whose id is the schedule's
 * action id and the spec time, `<schedule id>-2026-11-24T09:00:00Z`. Overlap, catch-up,
 * jitter and pausing are Temporal's; the missions a schedule started are found by
 * Temporal's `TemporalScheduledById` search attribute.
 *
 * ```ts
 * const s = await createMissionSchedule(client, { agent: 'report', input: {}, every: '1d', taskQueue: 'navigator' });
 * await s.trigger();
 * console.log(await s.describe());
 * ```
 */
import { ScheduleOverlapPolicy, type Client, type ScheduleHandle, type ScheduleSpec } from '@temporalio/client';
// with its extension: Node's ESM resolver (the compiled package) does not guess one
import { msToNumber } from '@temporalio/common/lib/time.js';
import type { Json } from '../../workflows/mission/contract.ts';
import { MISSION_WORKFLOW, MissionRejected, missionStart } from './client.ts';
import { checkStart } from '../served-agents.ts';

export const OVERLAP_POLICIES = {
  skip: ScheduleOverlapPolicy.SKIP,
  buffer_one: ScheduleOverlapPolicy.BUFFER_ONE,
  buffer_all: ScheduleOverlapPolicy.BUFFER_ALL,
  cancel_other: ScheduleOverlapPolicy.CANCEL_OTHER,
  terminate_other: ScheduleOverlapPolicy.TERMINATE_OTHER,
  allow_all: ScheduleOverlapPolicy.ALLOW_ALL,
} as const;
export type OverlapPolicy = keyof typeof OVERLAP_POLICIES;

export interface MissionScheduleOptions {
  agent: string;
  input?: Json;
  taskQueue: string;
  /** refuse (StartRefused) an agent or input the task queue's workers do not serve, as startMission does @default true */
  check?: boolean;
  /** schedule id, also the start of every mission id @default `AGENT-schedule-<random>` */
  id?: string;
  /** cron expressions (`0 9 * * MON-FRI`, `@daily`); several fire on each one's times */
  cron?: string[];
  /** a fixed interval: `90s`, `15m`, `1h`, `1d` (or ms) */
  every?: string | number;
  /** IANA time zone the cron expressions are read in @default UTC */
  timezone?: string;
  /** what to do when a time comes while the last mission still runs @default skip */
  overlap?: OverlapPolicy;
  /** start each mission up to this much later, spread at random (`30s`) */
  jitter?: string | number;
  /** times missed while the cluster was down are still run if at most this late @default Temporal's (1 year) */
  catchupWindow?: string | number;
  /** created paused (trigger still works) */
  paused?: boolean;
  note?: string;
  /** mission options (budgets, timeouts, approval, ...) for every mission */
  options?: Record<string, unknown>;
}

/** A schedule of missions as a person reads it. */
export interface MissionScheduleView {
  id: string;
  agent: string;
  input: Json;
  cron: string[];
  every: number[];
  timezone?: string;
  overlap: string;
  paused: boolean;
  note?: string;
  /** missions started so far, and times skipped because one was still running */
  missionsStarted: number;
  skippedOverlap: number;
  missedCatchupWindow: number;
  running: string[];
  recent: Array<{ missionId: string; scheduledAt: Date; startedAt: Date }>;
  next: Date[];
}

function durationOf(value: string | number, what: string): number {
  try {
    const ms = msToNumber(value as never);
    if (ms > 0) return ms;
  } catch {
    // fall through to one message for every bad form
  }
  throw new MissionRejected(`${what} must be a duration like 90s, 15m, 1h or 1d, got ${JSON.stringify(value)}`);
}

function specOf(opts: MissionScheduleOptions): ScheduleSpec {
  const cron = opts.cron ?? [];
  if (!cron.length && opts.every === undefined) throw new MissionRejected('a schedule needs --cron or --every');
  return {
    ...(cron.length ? { cronExpressions: cron } : {}),
    ...(opts.every !== undefined ? { intervals: [{ every: durationOf(opts.every, 'every') }] } : {}),
    ...(opts.timezone ? { timezone: opts.timezone } : {}),
    ...(opts.jitter !== undefined ? { jitter: durationOf(opts.jitter, 'jitter') } : {}),
  };
}

/** The spec as it was given, for a message: `cron "0 9 * *"`, `every 1h`, `time zone Europe/Paris`. */
function specText(opts: MissionScheduleOptions): string {
  return [
    ...(opts.cron ?? []).map((c) => `cron ${JSON.stringify(c)}`),
    ...(opts.every !== undefined ? [`every ${opts.every}`] : []),
    ...(opts.timezone ? [`time zone ${opts.timezone}`] : []),
    ...(opts.jitter !== undefined ? [`jitter ${opts.jitter}`] : []),
  ].join(', ');
}

/**
 * Creates a schedule that starts a mission of `agent` with `input` at each time. A spec the
 * cluster refuses is a MissionRejected naming what was given and the cluster's reason
 * (`invalid schedule spec: cron "0 9 * *": CronString does not have 5-7 fields`): a real
 * Temporal server's reason names no cron, and the SDK throws it as a bare TypeError.
 */
export async function createMissionSchedule(client: Client, opts: MissionScheduleOptions): Promise<MissionSchedule> {
  const start = missionStart({ agent: opts.agent, input: opts.input, options: opts.options });
  if (opts.overlap && !(opts.overlap in OVERLAP_POLICIES))
    throw new MissionRejected(
      `overlap must be one of ${Object.keys(OVERLAP_POLICIES).join(', ')}, got ${opts.overlap}`,
    );
  // a schedule of an agent no worker serves would start a doomed mission at each time
  if (opts.check !== false)
    await checkStart(client, { taskQueue: opts.taskQueue, agent: opts.agent, input: opts.input ?? {} });
  const id = opts.id ?? `${opts.agent}-schedule-${Math.random().toString(16).slice(2, 8)}`;
  const spec = specOf(opts);
  const handle = await client.schedule
    .create({
      scheduleId: id,
      spec,
      action: {
        type: 'startWorkflow',
        workflowType: MISSION_WORKFLOW,
        workflowId: id,
        taskQueue: opts.taskQueue,
        ...start,
      },
      policies: {
        overlap: OVERLAP_POLICIES[opts.overlap ?? 'skip'],
        ...(opts.catchupWindow !== undefined ? { catchupWindow: durationOf(opts.catchupWindow, 'catchupWindow') } : {}),
      },
      state: { paused: opts.paused ?? false, ...(opts.note ? { note: opts.note } : {}) },
    })
    .catch((err: unknown) => {
      // the SDK's form of INVALID_ARGUMENT 'Invalid schedule spec: REASON' (ServiceError for anything else)
      if (err instanceof TypeError)
        throw new MissionRejected(`invalid schedule spec: ${specText(opts)}: ${err.message}`);
      throw err;
    });
  return new MissionSchedule(handle, client);
}

export function getMissionSchedule(client: Client, id: string): MissionSchedule {
  return new MissionSchedule(client.schedule.getHandle(id), client);
}

/** Schedules whose action starts missions, by id. */
export async function listMissionSchedules(
  client: Client,
): Promise<Array<{ id: string; paused: boolean; note?: string; next?: Date }>> {
  const out = [];
  for await (const s of client.schedule.list()) {
    if (s.action?.workflowType !== MISSION_WORKFLOW) continue;
    out.push({ id: s.scheduleId, paused: s.state.paused, note: s.state.note, next: s.info.nextActionTimes[0] });
  }
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

export class MissionSchedule {
  constructor(
    readonly handle: ScheduleHandle,
    private readonly client: Client,
  ) {}

  get id(): string {
    return this.handle.scheduleId;
  }

  async describe(): Promise<MissionScheduleView> {
    const d = await this.handle.describe();
    if (d.action.type !== 'startWorkflow' || d.action.workflowType !== MISSION_WORKFLOW) {
      throw new MissionRejected(
        `schedule ${this.id} does not start missions (it starts ${d.action.type === 'startWorkflow' ? d.action.workflowType : d.action.type})`,
      );
    }
    const mission = (d.action.args?.[0] ?? {}) as { agent?: string; input?: Json };
    return {
      id: this.id,
      agent: mission.agent ?? '?',
      input: mission.input ?? {},
      cron: cronTexts(
        (d.raw.schedule?.spec?.structuredCalendar ?? []) as unknown as ReadonlyArray<Record<string, unknown>>,
      ),
      every: d.spec.intervals?.map((i) => i.every) ?? [],
      timezone: d.spec.timezone,
      overlap: String(d.policies.overlap).toLowerCase(),
      paused: d.state.paused,
      note: d.state.note,
      missionsStarted: d.info.numActionsTaken,
      skippedOverlap: d.info.numActionsSkippedOverlap,
      missedCatchupWindow: d.info.numActionsMissedCatchupWindow,
      running: d.info.runningActions.map((a) => a.workflow.workflowId),
      recent: d.info.recentActions.map((a) => ({
        missionId: a.action.workflow.workflowId,
        scheduledAt: a.scheduledAt,
        startedAt: a.takenAt,
      })),
      next: d.info.nextActionTimes,
    };
  }

  /** Missions this schedule started, in Temporal's order: running first, then the most recently closed (from visibility, so closed ones too). */
  async missions(limit = 20): Promise<Array<{ workflowId: string; status: string; startTime: Date }>> {
    const out = [];
    for await (const w of this.client.workflow.list({
      query: `TemporalScheduledById = '${this.id.replace(/'/g, "\\'")}'`,
    })) {
      out.push({ workflowId: w.workflowId, status: w.status.name, startTime: w.startTime });
      if (out.length >= limit) break;
    }
    return out;
  }

  pause(note = 'paused with navigator'): Promise<void> {
    return this.handle.pause(note);
  }
  unpause(note = 'unpaused with navigator'): Promise<void> {
    return this.handle.unpause(note);
  }
  /** Starts a mission now (also while paused). */
  trigger(): Promise<void> {
    return this.handle.trigger();
  }
  /** Deletes the schedule; missions it started go on. */
  delete(): Promise<void> {
    return this.handle.delete();
  }
}

/** Structured calendars back as cron-like text (`0 9 * * 1-5`), for people. */
function cronTexts(calendars: ReadonlyArray<Record<string, unknown>>): string[] {
  const field = (ranges: unknown, all: [number, number]) => {
    const list = (ranges ?? []) as Array<{ start?: number; end?: number; step?: number }>;
    if (!list.length) return '*';
    return list
      .map(({ start = 0, end = 0, step = 1 }) => {
        const hi = Math.max(start, end);
        if (start === all[0] && hi === all[1]) return step > 1 ? `*/${step}` : '*';
        const base = hi === start ? `${start}` : `${start}-${hi}`;
        return step > 1 ? `${base}/${step}` : base;
      })
      .join(',');
  };
  return calendars.map((c) => {
    const parts = [
      field(c.minute, [0, 59]),
      field(c.hour, [0, 23]),
      field(c.dayOfMonth, [1, 31]),
      field(c.month, [1, 12]),
      field(c.dayOfWeek, [0, 6]),
    ];
    const second = field(c.second, [0, 59]);
    const year = field(c.year, [0, 0]);
    return [...(second !== '0' ? [second] : []), ...parts, ...(year !== '*' || second !== '0' ? [year] : [])].join(' ');
  });
}
