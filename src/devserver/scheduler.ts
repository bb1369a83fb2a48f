/**
 * What makes schedules act: one timer per schedule armed for its next spec time (jitter
 * included), the due times taken, skipped (paused, out of the catch-up window, out of
 * remaining actions) or put through the overlap policy, and the workflows it started
 * watched so buffered starts go when they close and pause-on-failure pauses it. As the real
 * server's scheduler (service/worker/scheduler): a trigger or backfill (a manual start) goes
 * even while paused and does not use up remaining actions; a time that finds the one buffered
 * start of BUFFER_ONE taken counts as skipped; only a buffer of 1000 drops starts; ALLOW_ALL
 * starts are not tracked as running (they take no part in overlap or pause-on-failure).
 *
 * Started workflows are ordinary ones: id `<action workflow id>-<spec time, RFC 3339 to
 * the second>` (the action's id unchanged with keepOriginalWorkflowId), with the search
 * attributes TemporalScheduledById and TemporalScheduledStartTime, as on a real server.
 */
import { createHash } from 'node:crypto';
import { Engine } from './engine.ts';
import type { CallContext } from './grpc.ts';
import { cancelRun, startWorkflowExecution, terminateRun } from './lifecycle.ts';
import { type BufferedStart, RUNNING, type ScheduleRecord, scheduleKey } from './model.ts';
import { durationMs, type Msg } from './proto.ts';
import { SpecTimes } from './schedule-spec.ts';

/** Temporal's defaults: one year of catch-up, and never less than ten seconds. */
export const DEFAULT_CATCHUP_MS = 365 * 86_400_000;
const MIN_CATCHUP_MS = 10_000;
const RECENT_ACTIONS = 10;
const MAX_BUFFER = 1000;
/** Timers are re-armed at least this often (setTimeout cannot wait for months). */
const MAX_TIMER_MS = 3_600_000;
const IDENTITY = 'temporal-scheduler';

/** A buffered start; a manual one (trigger, backfill) goes even while paused and uses up no action. */
type Start = BufferedStart & { manual?: boolean };

/** A call that never ends by itself: the scheduler's waits on runs. */
const FOREVER: CallContext = { deadline: undefined, cancelled: () => false, onCancel: () => {} };

const utf8 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const searchAttribute = (type: string, value: unknown): Msg => ({
  metadata: { encoding: utf8('json/plain'), type: utf8(type) },
  data: utf8(JSON.stringify(value)),
});

/** The spec time a workflow id carries: RFC 3339 in UTC, to the second. */
export const idTime = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

export function overlapOf(rec: ScheduleRecord, requested?: string): string {
  if (requested && requested !== 'SCHEDULE_OVERLAP_POLICY_UNSPECIFIED') return requested;
  const own = rec.schedule.policies?.overlapPolicy;
  return own && own !== 'SCHEDULE_OVERLAP_POLICY_UNSPECIFIED' ? own : 'SCHEDULE_OVERLAP_POLICY_SKIP';
}

export function catchupMs(rec: ScheduleRecord): number {
  const ms = durationMs(rec.schedule.policies?.catchupWindow);
  return ms > 0 ? Math.max(ms, MIN_CATCHUP_MS) : DEFAULT_CATCHUP_MS;
}

/** Jitter for one spec time: the same on every server start (derived, not drawn). */
export function jitterMs(rec: ScheduleRecord, nominal: number): number {
  const max = durationMs(rec.schedule.spec?.jitter);
  if (max <= 0) return 0;
  const digest = createHash('sha256').update(`${rec.scheduleId}|${nominal}`).digest();
  return digest.readUInt32BE(0) % max;
}

export class Scheduler {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly watched = new Set<string>();
  private closed = false;

  constructor(private readonly engine: Engine) {}

  get records(): Record<string, ScheduleRecord> {
    return (this.engine.state.schedules ??= {});
  }

  /** After a restart: catch up on what was missed, re-arm timers, watch running workflows. */
  restoreAll(): void {
    for (const key of Object.keys(this.records)) this.wake(key);
    this.watchAll();
  }

  /** The spec's next times after now (at most `count`, fewer when actions are limited). */
  futureTimes(rec: ScheduleRecord, count = 10): number[] {
    const state = rec.schedule.state ?? {};
    const limit = state.limitedActions ? Math.max(0, Number(state.remainingActions ?? 0)) : count;
    return new SpecTimes(rec.schedule.spec ?? {})
      .upcoming(Math.max(Date.now(), rec.processedUntil), Math.min(count, limit))
      .map((t) => t + jitterMs(rec, t));
  }

  /** Takes every due spec time, then arms the timer for the next one. */
  wake(key: string): void {
    const rec = this.records[key];
    if (!rec || this.closed || this.engine.isClosed()) return;
    this.refreshRunning(rec);
    const spec = new SpecTimes(rec.schedule.spec ?? {});
    const now = Date.now();
    for (let t = spec.next(rec.processedUntil); t !== undefined; t = spec.next(t)) {
      const scheduledAt = t + jitterMs(rec, t);
      if (scheduledAt > now) break;
      rec.processedUntil = t;
      if (rec.schedule.state?.paused || this.noActionsLeft(rec)) continue;
      if (now - scheduledAt > catchupMs(rec)) rec.missedCatchupWindow++;
      else this.act(rec, { nominal: t, scheduledAt, overlapPolicy: overlapOf(rec) });
    }
    this.saved(rec);
    this.arm(rec);
  }

  /** TriggerImmediately: one action now, paused or not. */
  trigger(rec: ScheduleRecord, overlapPolicy?: string): void {
    this.refreshRunning(rec);
    const now = Date.now();
    this.act(rec, { nominal: now, scheduledAt: now, overlapPolicy: overlapOf(rec, overlapPolicy), manual: true });
    this.saved(rec);
  }

  /** Backfill: the spec times in [start, end], as if each came now (no catch-up window). */
  backfill(rec: ScheduleRecord, startMs: number, endMs: number, overlapPolicy?: string): void {
    this.refreshRunning(rec);
    const spec = new SpecTimes(rec.schedule.spec ?? {});
    for (let t = spec.next(startMs - 1); t !== undefined && t <= endMs; t = spec.next(t)) {
      this.act(rec, { nominal: t, scheduledAt: t, overlapPolicy: overlapOf(rec, overlapPolicy), manual: true });
    }
    this.saved(rec);
  }

  /** Re-arms after a change (update, pause, unpause). */
  arm(rec: ScheduleRecord): void {
    const key = scheduleKey(rec.namespace, rec.scheduleId);
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    if (this.closed || rec.schedule.state?.paused || this.noActionsLeft(rec)) return;
    const next = new SpecTimes(rec.schedule.spec ?? {}).next(rec.processedUntil);
    if (next === undefined) return;
    const delay = Math.min(Math.max(0, next + jitterMs(rec, next) - Date.now()), MAX_TIMER_MS);
    const timer = setTimeout(() => this.wake(key), delay);
    timer.unref();
    this.timers.set(key, timer);
  }

  /** Tells persistence this schedule changed (only it is written). */
  saved(rec: ScheduleRecord): void {
    this.engine.changed('schedules', scheduleKey(rec.namespace, rec.scheduleId));
  }

  forget(key: string): void {
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private noActionsLeft(rec: ScheduleRecord): boolean {
    const state = rec.schedule.state;
    return Boolean(state?.limitedActions) && Number(state?.remainingActions ?? 0) <= 0;
  }

  /** One time (a spec time, or a manual one) through the overlap policy. */
  private act(rec: ScheduleRecord, start: Start): void {
    const policy = start.overlapPolicy;
    if (policy === 'SCHEDULE_OVERLAP_POLICY_ALLOW_ALL') return this.start(rec, start, false);
    if (!rec.running.length) return this.start(rec, start, true);
    const buffer = (s: Start) => {
      if (rec.buffered.length >= MAX_BUFFER) rec.bufferDropped++;
      else rec.buffered.push(s);
    };
    switch (policy) {
      case 'SCHEDULE_OVERLAP_POLICY_BUFFER_ONE':
        if (rec.buffered.length) rec.overlapSkipped++;
        else buffer(start);
        return;
      case 'SCHEDULE_OVERLAP_POLICY_BUFFER_ALL':
        buffer(start);
        return;
      case 'SCHEDULE_OVERLAP_POLICY_CANCEL_OTHER':
        for (const run of this.runningRuns(rec))
          cancelRun(this.engine, run, {
            cause: `cancelled by schedule ${rec.scheduleId} (overlap policy CANCEL_OTHER)`,
            identity: IDENTITY,
          });
        rec.buffered = [start];
        return;
      case 'SCHEDULE_OVERLAP_POLICY_TERMINATE_OTHER':
        for (const run of this.runningRuns(rec))
          terminateRun(
            this.engine,
            run,
            `terminated by schedule ${rec.scheduleId} (overlap policy TERMINATE_OTHER)`,
            undefined,
            IDENTITY,
          );
        this.refreshRunning(rec);
        return this.start(rec, start, true);
      default:
        rec.overlapSkipped++;
    }
  }

  /** Starts the action's workflow; `track`: watched as running (not ALLOW_ALL's). */
  private start(rec: ScheduleRecord, { nominal, scheduledAt, manual }: Start, track: boolean): void {
    const action: Msg | undefined = rec.schedule.action?.startWorkflow;
    if (!action) return;
    // a buffered start the schedule may no longer take (paused, no actions left) is dropped
    if (!manual && (rec.schedule.state?.paused || this.noActionsLeft(rec))) return;
    const workflowId = rec.schedule.policies?.keepOriginalWorkflowId
      ? action.workflowId
      : `${action.workflowId}-${idTime(nominal)}`;
    const searchAttributes = {
      indexedFields: {
        ...(action.searchAttributes?.indexedFields ?? {}),
        TemporalScheduledById: searchAttribute('Keyword', rec.scheduleId),
        TemporalScheduledStartTime: searchAttribute('Datetime', new Date(scheduledAt).toISOString()),
      },
    };
    let runId: string;
    try {
      const started = startWorkflowExecution(this.engine, {
        ...action,
        namespace: rec.namespace,
        workflowId,
        searchAttributes,
        identity: IDENTITY,
        requestId: `${rec.scheduleId}|${nominal}|${rec.actionCount}`,
      });
      runId = started.runId;
    } catch (err) {
      // e.g. the id is taken by a running workflow the schedule did not start
      console.warn(`schedule ${rec.scheduleId}: could not start ${workflowId}: ${(err as Error).message}`);
      return;
    }
    rec.actionCount++;
    const state = rec.schedule.state;
    if (state?.limitedActions && !manual) state.remainingActions = Math.max(0, Number(state.remainingActions ?? 0) - 1);
    rec.recent = [...rec.recent, { scheduledAt, takenAt: Date.now(), workflowId, runId }].slice(-RECENT_ACTIONS);
    if (!track) return;
    rec.running.push({ workflowId, runId });
    this.watch(scheduleKey(rec.namespace, rec.scheduleId), rec.namespace, workflowId);
  }

  /** The current runs of the workflows it started that are still running. */
  private runningRuns(rec: ScheduleRecord) {
    return rec.running
      .map((w) => this.engine.currentRun(rec.namespace, w.workflowId))
      .filter((run) => run?.status === RUNNING)
      .map((run) => run!);
  }

  /** Drops closed workflows (pausing on a failure if asked), then starts what was buffered. */
  private refreshRunning(rec: ScheduleRecord): void {
    rec.running = rec.running.filter((w) => {
      const current = this.engine.currentRun(rec.namespace, w.workflowId);
      if (current?.status === RUNNING) return true;
      const failed =
        current?.status === 'WORKFLOW_EXECUTION_STATUS_FAILED' ||
        current?.status === 'WORKFLOW_EXECUTION_STATUS_TIMED_OUT';
      if (failed && rec.schedule.policies?.pauseOnFailure && !rec.schedule.state?.paused) {
        // the real server's notes
        const failure: Msg | undefined = current.events.at(-1)?.workflowExecutionFailedEventAttributes?.failure;
        const notes =
          current.status === 'WORKFLOW_EXECUTION_STATUS_FAILED'
            ? `paused due to workflow failure: ${w.workflowId}: ${failure?.message ?? ''}`
            : `paused due to workflow timeout: ${w.workflowId}`;
        rec.schedule.state = { ...(rec.schedule.state ?? {}), paused: true, notes };
        this.forget(scheduleKey(rec.namespace, rec.scheduleId));
      }
      return false;
    });
    while (!rec.running.length && rec.buffered.length) {
      const next: Start = rec.buffered.shift()!;
      this.start(rec, next, true);
    }
  }

  /** Wakes the schedule when the workflow closes (following retries and continue-as-new). */
  private watch(key: string, namespace: string, workflowId: string): void {
    const run = this.engine.currentRun(namespace, workflowId);
    if (!run || run.status !== RUNNING) return;
    const id = Engine.keyOf(run);
    if (this.watched.has(id)) return;
    this.watched.add(id);
    void this.engine
      .waitFor(run, FOREVER, MAX_TIMER_MS, () => run.status !== RUNNING)
      .then(() => {
        this.watched.delete(id);
        if (this.closed || this.engine.isClosed()) return;
        const current = this.engine.currentRun(namespace, workflowId);
        if (current?.status === RUNNING) return this.watch(key, namespace, workflowId);
        this.wake(key);
      });
  }

  /** Watches every running workflow of every schedule (after a restart). */
  watchAll(): void {
    for (const [key, rec] of Object.entries(this.records)) {
      for (const w of rec.running) this.watch(key, rec.namespace, w.workflowId);
    }
  }
}
