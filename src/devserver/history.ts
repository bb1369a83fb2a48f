/**
 * History events: construction in the stored proto shape, appending with ids, and the
 * buffer for events that arrive while a workflow task is running (the worker must not
 * see them mid-task; they are written after the task's completion and its commands).
 */
import type { RunState } from './model.ts';
import { type Msg, timestamp } from './proto.ts';

/**
 * Task ids start where a real server's do (its first shard range, 1 << 20), so events
 * encode to the same size as there: the history size the SDK and tests see matches.
 */
let nextTaskId = 2 ** 20;

/** 'ActivityTaskScheduled' → 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED' */
function eventTypeName(type: string): string {
  return 'EVENT_TYPE_' + type.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
}

/** 'ActivityTaskScheduled' → 'activityTaskScheduledEventAttributes' */
function attributesKey(type: string): string {
  return type[0]!.toLowerCase() + type.slice(1) + 'EventAttributes';
}

/** The attributes of `event` if it has the given short type name. */
export function attributesOf(event: Msg, type: string): Msg | undefined {
  return event.eventType === eventTypeName(type) ? event[attributesKey(type)] : undefined;
}

export function newEvent(type: string, attributes: Msg, extra: Msg = {}): Msg {
  return {
    eventTime: timestamp(Date.now()),
    eventType: eventTypeName(type),
    ...extra,
    [attributesKey(type)]: attributes,
  };
}

export function nextEventId(run: RunState): number {
  return run.events.length + 1;
}

export function append(run: RunState, event: Msg): number {
  event.eventId = nextEventId(run);
  event.taskId = nextTaskId++;
  run.events.push(event);
  run.historySizeBytes = (run.historySizeBytes ?? 0) + JSON.stringify(event).length;
  return event.eventId;
}

export function appendNew(run: RunState, type: string, attributes: Msg, extra?: Msg): number {
  return append(run, newEvent(type, attributes, extra));
}

/**
 * A completion that also records its ActivityTaskStarted event refers to it with this
 * marker, resolved to the preceding event's id when the pair is written.
 */
export const PREVIOUS_EVENT = -1;

function linkPrevious(event: Msg): void {
  for (const key of Object.keys(event)) {
    const attrs = event[key];
    if (key.endsWith('EventAttributes') && attrs?.startedEventId === PREVIOUS_EVENT) {
      attrs.startedEventId = event.eventId - 1;
    }
  }
}

/** Writes buffered events in arrival order; returns how many were written. */
export function flushBuffered(run: RunState): number {
  const events = run.buffered.splice(0);
  for (const event of events) {
    append(run, event);
    linkPrevious(event);
  }
  return events.length;
}

/** Appends events now, or buffers them while a workflow task is running. */
export function record(run: RunState, events: Msg[]): void {
  if (run.wft?.startedEventId) {
    run.buffered.push(...events);
    return;
  }
  for (const event of events) {
    append(run, event);
    linkPrevious(event);
  }
}

export function lastEvent(run: RunState): Msg | undefined {
  return run.events[run.events.length - 1];
}

/** Highest task id used by restored state, so new events keep increasing. */
export function restoreTaskIds(runs: Iterable<RunState>): void {
  for (const run of runs) for (const e of run.events) nextTaskId = Math.max(nextTaskId, Number(e.taskId ?? 0) + 1);
}
