/** Assertion helpers for the dev server suite. */
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;

/** Event types of a history without the EVENT_TYPE_ prefix, in PascalCase. */
export function eventTypes(history: History): string[] {
  return (history.events ?? []).map((e) => {
    const name = temporal.api.enums.v1.EventType[e.eventType!] as string;
    return name
      .replace('EVENT_TYPE_', '')
      .toLowerCase()
      .replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase());
  });
}

export function eventsOfType(history: History, type: string): temporal.api.history.v1.IHistoryEvent[] {
  return (history.events ?? []).filter((_, i) => eventTypes(history)[i] === type);
}

/** Polls describe() until `ready` holds (no time bound: the test timeout is the bound). */
export async function untilDescribed(
  handle: { describe(): Promise<WorkflowExecutionDescription> },
  ready: (d: WorkflowExecutionDescription) => boolean,
): Promise<WorkflowExecutionDescription> {
  for (;;) {
    const d = await handle.describe();
    if (ready(d)) return d;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
