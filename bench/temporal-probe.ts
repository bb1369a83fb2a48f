/**
 * What `npm run bench -- temporal` needs to tell Temporal's time from our own: a probe
 * around the worker's activities (when each ran, and how long its journal query took)
 * and the activity spans of a workflow's history, joined by activity id.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Context } from '@temporalio/activity';
import { Client, type Connection, type WorkflowClientInterceptor } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

let clockOffset = Date.now() - performance.now();

/**
 * Sets the wall clock against the monotonic one: the servers stamp history events with
 * the wall clock, which drifts from performance.now by a few ms over a run. Waits for
 * Date.now to tick (up to 1 ms: call it outside timed code), since it truncates to the ms.
 */
export function calibrateClock(): void {
  const start = Date.now();
  let now = start;
  while (now === start) now = Date.now();
  clockOffset = now - performance.now();
}
calibrateClock();

/** The wall clock in ms with sub-ms precision, comparable with history event times. */
export const nowMs = (): number => performance.now() + clockOffset;

/** One activity execution as the worker saw it. */
export interface ActivityRun {
  type: string;
  workflowId: string;
  activityId: string;
  attempt: number;
  /** `pass` of a runPass request */
  pass?: number;
  start: number;
  end: number;
  /** time spent in workflow queries the activity made (runPass reads the journal by query) */
  queryMs: number;
}

/** Records every activity run of the activities it wraps, and the queries they make. */
export class ActivityProbe {
  readonly runs: ActivityRun[] = [];
  private readonly current = new AsyncLocalStorage<ActivityRun>();

  /** The same activities, each run recorded. */
  wrap<T extends object>(activities: T): T {
    const out: Record<string, unknown> = {};
    for (const [name, fn] of Object.entries(activities)) {
      if (typeof fn !== 'function') continue;
      out[name] = async (...args: unknown[]) => {
        const info = Context.current().info;
        const pass = (args[0] as { pass?: unknown } | undefined)?.pass;
        const run: ActivityRun = {
          type: info.activityType,
          workflowId: info.workflowExecution?.workflowId ?? '',
          activityId: info.activityId,
          attempt: info.attempt,
          ...(typeof pass === 'number' ? { pass } : {}),
          start: nowMs(),
          end: NaN,
          queryMs: 0,
        };
        this.runs.push(run);
        try {
          return await this.current.run(run, () => (fn as (...a: unknown[]) => Promise<unknown>)(...args));
        } finally {
          run.end = nowMs();
        }
      };
    }
    return out as T;
  }

  /** A client for the activities whose workflow queries count against the activity making them. */
  client(connection: Connection, namespace: string): Client {
    const timing: WorkflowClientInterceptor = {
      query: async (input, next) => {
        const t = nowMs();
        try {
          return await next(input);
        } finally {
          const run = this.current.getStore();
          if (run) run.queryMs += nowMs() - t;
        }
      },
    };
    return new Client({ connection, namespace, interceptors: { workflow: [timing] } });
  }

  /** The runs of one workflow, last attempt per activity id. */
  of(workflowId: string): Map<string, ActivityRun> {
    const out = new Map<string, ActivityRun>();
    for (const r of this.runs) if (r.workflowId === workflowId) out.set(r.activityId, r);
    return out;
  }

  /** Forgets what was recorded (between measurements, so memory stays flat). */
  clear(): void {
    this.runs.length = 0;
  }
}

/** An activity's life in history, event times in ms, joined with the worker's run of it. */
export interface ActivitySpan {
  type: string;
  activityId: string;
  /** when the workflow task whose commands scheduled it started: when the workflow saw it was due */
  decided: number;
  scheduled: number;
  started: number;
  completed: number;
  /** the end of the first workflow task completed after the activity completed: the workflow has acted on it */
  applied: number;
  run?: ActivityRun;
  /** the activity's own time (the worker's run minus its queries); 0 when it was not seen */
  ownMs: number;
}

const millis = (e: HistoryEvent) => Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;

/** Every completed activity of a history, in schedule order. */
export function activitySpans(events: HistoryEvent[], runs: Map<string, ActivityRun>): ActivitySpan[] {
  const byScheduled = new Map<number, ActivitySpan>();
  const waitingForTask: ActivitySpan[] = [];
  const spans: ActivitySpan[] = [];
  const taskStarted = new Map<number, number>();
  let decided = NaN;
  for (const e of events) {
    const at = millis(e);
    if (e.workflowTaskStartedEventAttributes) taskStarted.set(Number(e.eventId), at);
    const s = e.activityTaskScheduledEventAttributes;
    if (s) {
      const span: ActivitySpan = {
        type: s.activityType?.name ?? '?',
        activityId: s.activityId ?? '?',
        decided,
        scheduled: at,
        started: NaN,
        completed: NaN,
        applied: NaN,
        ownMs: 0,
      };
      byScheduled.set(Number(e.eventId), span);
      spans.push(span);
    }
    const started = e.activityTaskStartedEventAttributes;
    if (started) byScheduled.get(Number(started.scheduledEventId))!.started = at;
    const done = e.activityTaskCompletedEventAttributes;
    if (done) {
      const span = byScheduled.get(Number(done.scheduledEventId))!;
      span.completed = at;
      waitingForTask.push(span);
    }
    const taskDone = e.workflowTaskCompletedEventAttributes;
    if (taskDone) {
      decided = taskStarted.get(Number(taskDone.startedEventId)) ?? NaN;
      for (const span of waitingForTask.splice(0)) span.applied = at;
    }
  }
  for (const span of spans) {
    span.run = runs.get(span.activityId);
    span.ownMs = span.run ? span.run.end - span.run.start - span.run.queryMs : 0;
  }
  return spans.filter((s) => !Number.isNaN(s.completed));
}

/** A workflow task's life in history, event times in ms. */
export interface TaskSpan {
  scheduled: number;
  started: number;
  completed: number;
}

/** Every completed workflow task of a history: scheduled → started is dispatch, started → completed the worker's turn. */
export function workflowTaskSpans(events: HistoryEvent[]): TaskSpan[] {
  const byScheduled = new Map<number, TaskSpan>();
  const byStarted = new Map<number, TaskSpan>();
  const done: TaskSpan[] = [];
  for (const e of events) {
    const at = millis(e);
    if (e.workflowTaskScheduledEventAttributes)
      byScheduled.set(Number(e.eventId), { scheduled: at, started: NaN, completed: NaN });
    const started = e.workflowTaskStartedEventAttributes;
    const span = started ? byScheduled.get(Number(started.scheduledEventId)) : undefined;
    if (span) {
      span.started = at;
      byStarted.set(Number(e.eventId), span);
    }
    const completed = e.workflowTaskCompletedEventAttributes;
    const ended = completed ? byStarted.get(Number(completed.startedEventId)) : undefined;
    if (ended) {
      ended.completed = at;
      done.push(ended);
    }
  }
  return done;
}

/** p50, p90, p95 and max of samples (nearest rank). */
export function percentiles(xs: number[]): { p50: number; p90: number; p95: number; max: number; n: number } {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return { p50: NaN, p90: NaN, p95: NaN, max: NaN, n: 0 };
  const rank = (q: number) => s[Math.max(0, Math.ceil(s.length * q) - 1)]!;
  return { p50: s[Math.floor(s.length / 2)]!, p90: rank(0.9), p95: rank(0.95), max: s.at(-1)!, n: s.length };
}

/** The most of these activities running on the worker at one time. */
export function maxInFlight(spans: ActivitySpan[]): number {
  const edges = spans
    .flatMap((s) => (s.run ? [[s.run.start, 1] as const, [s.run.end, -1] as const] : []))
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, d] of edges) most = Math.max(most, (now += d));
  return most;
}

/** ms for a table: whole above 100, one decimal below. */
export const fmtMs = (ms: number): string => (Number.isFinite(ms) ? (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1)) : '?');
