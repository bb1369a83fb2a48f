/**
 * Measuring the history one pass adds, shared by the mission bench and the history-size
 * test: which events belong to the pass, and their protobuf size with each worker
 * identity (`pid@hostname`, which varies by machine) counted as a fixed 12 characters.
 */
import proto from '@temporalio/proto';
import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const HistoryEventProto = proto.temporal.api.history.v1.HistoryEvent;

/** The pass's events (first runPass scheduled to last runPass completed) and its runPass completions. */
export function passEvents(evs: HistoryEvent[]): { events: HistoryEvent[]; completions: HistoryEvent[] } {
  const runPass = new Set<number>();
  let first = -1;
  let last = -1;
  evs.forEach((e, i) => {
    if (e.activityTaskScheduledEventAttributes?.activityType?.name === 'runPass') {
      runPass.add(Number(e.eventId));
      if (first < 0) first = i;
    }
    if (runPass.has(Number(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? -1))) last = i;
  });
  const completions = evs.filter((e) =>
    runPass.has(Number(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? -1)),
  );
  return { events: first < 0 ? [] : evs.slice(first, last + 1), completions };
}

/** Encoded size of events, identities counted at a fixed length. */
export function historySize(evs: HistoryEvent[]): number {
  const fixed = evs.map((e) => {
    const copy = HistoryEventProto.fromObject(HistoryEventProto.toObject(e as never));
    for (const value of Object.values(copy)) {
      if (value && typeof value === 'object' && typeof (value as { identity?: unknown }).identity === 'string')
        (value as { identity: string }).identity = '1234@worker1';
    }
    return copy;
  });
  return proto.temporal.api.history.v1.History.encode({ events: fixed }).finish().length;
}
