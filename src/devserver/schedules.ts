/**
 * Temporal Schedules on the embedded server: CreateSchedule, DescribeSchedule,
 * UpdateSchedule, PatchSchedule (pause, unpause, trigger, backfill), ListSchedules,
 * DeleteSchedule and ListScheduleMatchingTimes, as the SDK's ScheduleClient and
 * `temporal schedule` use them. Specs are compiled by schedule-spec.ts; what happens at
 * each time lives in scheduler.ts.
 */
import { status } from '@grpc/grpc-js';
import type { Engine } from './engine.ts';
import { invalidArgument, RpcError } from './errors.ts';
import type { Handlers } from './grpc.ts';
import { type ScheduleRecord, scheduleKey } from './model.ts';
import { checkSearchAttributes } from './namespaces.ts';
import { duration, durationMs, type Msg, textOf, timestamp } from './proto.ts';
import { catchupMs, overlapOf, type Scheduler } from './scheduler.ts';
import { compileSpec, SpecError, SpecTimes } from './schedule-spec.ts';
import { parseVisibilityQuery, matchesVisibilityQuery, type VisibilityRecord } from './visibility-query.ts';
import { attributeTypes, decodeAttribute } from './visibility.ts';

const MAX_MATCHING_TIMES = 1000;

const tokenOf = (n: number) => Buffer.from(String(n)).toString('base64');

function scheduleNotFound(id: string): RpcError {
  return new RpcError(status.NOT_FOUND, `schedule "${id}" not found`);
}

function find(engine: Engine, scheduler: Scheduler, r: Msg): ScheduleRecord {
  engine.namespace(r.namespace);
  const rec = scheduler.records[scheduleKey(r.namespace || 'default', r.scheduleId ?? '')];
  if (!rec) throw scheduleNotFound(r.scheduleId ?? '');
  return rec;
}

/** The schedule as stored: spec compiled, action checked, search attributes known. */
function checkedSchedule(
  engine: Engine,
  namespace: string,
  schedule: Msg | undefined,
  searchAttributes: Msg | undefined,
): Msg {
  const ns = engine.namespace(namespace);
  const start = schedule?.action?.startWorkflow;
  if (!start) throw invalidArgument('the schedule has no action: set action.startWorkflow');
  if (!start.workflowId) throw invalidArgument('the schedule action has no workflow id');
  if (!start.workflowType?.name) throw invalidArgument('the schedule action has no workflow type');
  if (!start.taskQueue?.name) throw invalidArgument('the schedule action has no task queue');
  checkSearchAttributes(ns, start.searchAttributes);
  checkSearchAttributes(ns, searchAttributes);
  let spec: Msg;
  try {
    spec = compileSpec(schedule?.spec);
  } catch (err) {
    // the real server's prefix, which the SDKs strip to throw the reason alone (a TypeError in TypeScript)
    if (err instanceof SpecError) throw invalidArgument(`Invalid schedule spec: ${err.message}`);
    throw err;
  }
  return { ...schedule, spec, state: { ...(schedule?.state ?? {}) }, policies: { ...(schedule?.policies ?? {}) } };
}

function applyPatch(scheduler: Scheduler, rec: ScheduleRecord, patch: Msg | undefined): void {
  if (!patch) return;
  if (patch.pause) {
    rec.schedule.state = { ...rec.schedule.state, paused: true, notes: patch.pause };
    scheduler.forget(scheduleKey(rec.namespace, rec.scheduleId));
  }
  if (patch.unpause) {
    // times that passed while paused are skipped, not caught up
    rec.schedule.state = { ...rec.schedule.state, paused: false, notes: patch.unpause };
    rec.processedUntil = Math.max(rec.processedUntil, Date.now());
  }
  if (patch.triggerImmediately) scheduler.trigger(rec, patch.triggerImmediately.overlapPolicy);
  for (const b of (patch.backfillRequest ?? []) as Msg[]) {
    scheduler.backfill(rec, durationMs(b.startTime), durationMs(b.endTime), b.overlapPolicy);
  }
  scheduler.arm(rec);
}

export function scheduleHandlers(engine: Engine, scheduler: Scheduler): Handlers {
  return {
    CreateSchedule: (r) => {
      const namespace = r.namespace || 'default';
      if (!r.scheduleId) throw invalidArgument('ScheduleId is not set on request.');
      const key = scheduleKey(namespace, r.scheduleId);
      if (scheduler.records[key])
        throw new RpcError(status.ALREADY_EXISTS, `schedule "${r.scheduleId}" is already registered`);
      const now = Date.now();
      const rec: ScheduleRecord = {
        namespace,
        scheduleId: r.scheduleId,
        schedule: checkedSchedule(engine, namespace, r.schedule, r.searchAttributes),
        memo: r.memo,
        searchAttributes: r.searchAttributes,
        createdAt: now,
        conflictToken: 1,
        processedUntil: now,
        actionCount: 0,
        missedCatchupWindow: 0,
        overlapSkipped: 0,
        bufferDropped: 0,
        buffered: [],
        recent: [],
        running: [],
      };
      scheduler.records[key] = rec;
      applyPatch(scheduler, rec, r.initialPatch);
      scheduler.saved(rec);
      return { conflictToken: tokenOf(rec.conflictToken) };
    },

    DescribeSchedule: (r) => {
      const rec = find(engine, scheduler, r);
      return {
        schedule: described(rec),
        info: {
          actionCount: rec.actionCount,
          missedCatchupWindow: rec.missedCatchupWindow,
          overlapSkipped: rec.overlapSkipped,
          bufferDropped: rec.bufferDropped,
          bufferSize: rec.buffered.length,
          runningWorkflows: rec.running.map((w) => ({ workflowId: w.workflowId, runId: w.runId })),
          recentActions: recentActions(engine, rec),
          futureActionTimes: scheduler.futureTimes(rec).map(timestamp),
          createTime: timestamp(rec.createdAt),
          ...(rec.updatedAt ? { updateTime: timestamp(rec.updatedAt) } : {}),
        },
        memo: rec.memo,
        searchAttributes: rec.searchAttributes,
        conflictToken: tokenOf(rec.conflictToken),
      };
    },

    UpdateSchedule: (r) => {
      const rec = find(engine, scheduler, r);
      const schedule = checkedSchedule(engine, rec.namespace, r.schedule, r.searchAttributes);
      // An update read before a change (its conflict token is stale) loses the race: accepted
      // and dropped without a word, as the real server's scheduler drops it.
      if (r.conflictToken && textOf(r.conflictToken) !== String(rec.conflictToken)) return {};
      rec.schedule = schedule;
      if (r.searchAttributes) rec.searchAttributes = r.searchAttributes;
      if (r.memo) rec.memo = r.memo;
      rec.conflictToken++;
      rec.updatedAt = Date.now();
      rec.processedUntil = Math.max(rec.processedUntil, rec.updatedAt);
      scheduler.arm(rec);
      scheduler.saved(rec);
      return {};
    },

    PatchSchedule: (r) => {
      const rec = find(engine, scheduler, r);
      applyPatch(scheduler, rec, r.patch);
      rec.conflictToken++;
      rec.updatedAt = Date.now();
      scheduler.saved(rec);
      return {};
    },

    DeleteSchedule: (r) => {
      const rec = find(engine, scheduler, r);
      const key = scheduleKey(rec.namespace, rec.scheduleId);
      scheduler.forget(key);
      delete scheduler.records[key];
      engine.changed('schedules', key);
      return {};
    },

    ListSchedules: (r) => listSchedules(engine, scheduler, r),

    ListScheduleMatchingTimes: (r) => {
      const rec = find(engine, scheduler, r);
      const spec = new SpecTimes(rec.schedule.spec ?? {});
      const end = durationMs(r.endTime);
      const times: number[] = [];
      for (
        let t = spec.next(durationMs(r.startTime) - 1);
        t !== undefined && t <= end && times.length < MAX_MATCHING_TIMES;
        t = spec.next(t)
      )
        times.push(t);
      return { startTime: times.map(timestamp) };
    },
  };
}

/** The schedule as the real server describes it: defaults filled in. */
function described(rec: ScheduleRecord): Msg {
  const { schedule } = rec;
  return {
    ...schedule,
    policies: { ...schedule.policies, overlapPolicy: overlapOf(rec), catchupWindow: duration(catchupMs(rec)) },
  };
}

function recentActions(engine: Engine, rec: ScheduleRecord): Msg[] {
  return rec.recent.map((a) => ({
    scheduleTime: timestamp(a.scheduledAt),
    actualTime: timestamp(a.takenAt),
    startWorkflowResult: { workflowId: a.workflowId, runId: a.runId },
    startWorkflowStatus: engine.currentRun(rec.namespace, a.workflowId)?.status,
  }));
}

/** A schedule as a visibility record, so ListSchedules takes the same query language. */
function visibilityRecord(rec: ScheduleRecord): VisibilityRecord {
  const searchAttributes: Record<string, unknown> = { TemporalSchedulePaused: Boolean(rec.schedule.state?.paused) };
  for (const [name, payload] of Object.entries<Msg>(rec.searchAttributes?.indexedFields ?? {}))
    searchAttributes[name] = decodeAttribute(payload);
  return {
    workflowId: rec.scheduleId,
    runId: '',
    workflowType: rec.schedule.action?.startWorkflow?.workflowType?.name ?? '',
    status: 'Running',
    startTime: rec.createdAt,
    searchAttributes,
  };
}

function listSchedules(engine: Engine, scheduler: Scheduler, r: Msg): Msg {
  const ns = engine.namespace(r.namespace);
  const types = attributeTypes(ns);
  let query;
  try {
    query = parseVisibilityQuery(r.query ?? '', types);
  } catch (err) {
    throw invalidArgument(`invalid query: ${(err as Error).message}`);
  }
  const all = Object.values(scheduler.records)
    .filter((rec) => rec.namespace === ns.name && matchesVisibilityQuery(query, visibilityRecord(rec), types))
    .sort((a, b) => a.scheduleId.localeCompare(b.scheduleId));
  const offset = r.nextPageToken ? Number(textOf(r.nextPageToken)) : 0;
  const page = all.slice(offset, offset + (Number(r.maximumPageSize) || 1000));
  const next = offset + page.length;
  return {
    schedules: page.map((rec) => ({
      scheduleId: rec.scheduleId,
      memo: rec.memo,
      searchAttributes: rec.searchAttributes,
      info: {
        spec: rec.schedule.spec,
        workflowType: rec.schedule.action?.startWorkflow?.workflowType,
        notes: rec.schedule.state?.notes,
        paused: Boolean(rec.schedule.state?.paused),
        recentActions: recentActions(engine, rec),
        futureActionTimes: scheduler.futureTimes(rec, 5).map(timestamp),
      },
    })),
    nextPageToken: next < all.length ? tokenOf(next) : undefined,
  };
}
