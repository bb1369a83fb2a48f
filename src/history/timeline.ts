/**
 * A readable timeline of a mission from its history: passes, task ids, tools,
 * decisions, waits, with the event id of each line.
 */
import type { PassRequest, PassResponse, ToolRequest } from '../workflows/mission/contract.ts';
import { EventType, type HistoryEvent, type RunHistory, decodeAll, decodeFirst, eventId } from './fetch.ts';
import { duration } from '../kernel/time.ts';

export interface TimelineLine {
  runId: string;
  eventId: number;
  time: string;
  text: string;
}

export function timeline(chain: RunHistory[]): TimelineLine[] {
  const lines: TimelineLine[] = [];
  for (const run of chain) {
    const scheduled = new Map<number, { type: string; input: unknown }>();
    for (const event of run.history.events ?? []) {
      const text = describeEvent(event, scheduled);
      if (text) lines.push({ runId: run.runId, eventId: eventId(event), time: timeOf(event), text });
    }
  }
  return lines;
}

function timeOf(e: HistoryEvent): string {
  const seconds = Number(e.eventTime?.seconds ?? 0);
  return new Date(seconds * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6)).toISOString();
}

function describeEvent(e: HistoryEvent, scheduled: Map<number, { type: string; input: unknown }>): string | null {
  switch (e.eventType) {
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED: {
      const input = decodeFirst<{ agent?: string; carried?: unknown }>(
        e.workflowExecutionStartedEventAttributes?.input,
      );
      return input?.carried ? `run continued as new (agent ${input.agent})` : `mission started (agent ${input?.agent})`;
    }
    case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED: {
      const a = e.activityTaskScheduledEventAttributes!;
      const type = a.activityType?.name ?? '';
      const input = decodeFirst(a.input);
      scheduled.set(eventId(e), { type, input });
      if (type === 'runPass') {
        const req = input as PassRequest;
        return `pass ${req.pass}${req.resume ? ' resumes after its effects' : ' starts'}`;
      }
      if (type === 'runTool') {
        const req = input as ToolRequest;
        return `effect ${req.tool}${req.taskId ? ` for task ${req.taskId}` : ''} scheduled (key ${req.idempotencyKey.slice(0, 12)}…)`;
      }
      return null;
    }
    case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED: {
      const a = e.activityTaskCompletedEventAttributes!;
      const origin = scheduled.get(Number(a.scheduledEventId));
      const result = decodeFirst(a.result);
      if (origin?.type === 'runPass') return passResult(origin.input as PassRequest, result as PassResponse);
      if (origin?.type === 'runTool') {
        const req = origin.input as ToolRequest;
        return `  ${req.tool}${req.taskId ? ` (task ${req.taskId})` : ''} → ${short((result as { result: unknown }).result)}`;
      }
      return null;
    }
    case EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED:
    case EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT: {
      const a = e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes;
      const origin = scheduled.get(Number(a?.scheduledEventId));
      return `  ${origin?.type ?? 'activity'} ${e.activityTaskFailedEventAttributes ? 'failed' : 'timed out'}: ${a?.failure?.message ?? ''}`;
    }
    case EventType.EVENT_TYPE_TIMER_STARTED:
      return `waits for a decision (deadline in ${duration(Number(e.timerStartedEventAttributes?.startToFireTimeout?.seconds ?? 0) * 1000)})`;
    case EventType.EVENT_TYPE_TIMER_FIRED:
      return `decision deadline passed`;
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED: {
      const input = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
      return `${input?.name} (update) ${short(decodeAll(input?.args)[0])}`;
    }
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED: {
      const a = e.workflowExecutionSignaledEventAttributes!;
      return `${a.signalName} (signal) ${short(decodeFirst(a.input))}`;
    }
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
      return `mission completed: ${short(decodeFirst(e.workflowExecutionCompletedEventAttributes?.result))}`;
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED:
      return `mission failed: ${e.workflowExecutionFailedEventAttributes?.failure?.message}`;
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
      return `continued as new`;
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED:
      return `mission terminated: ${e.workflowExecutionTerminatedEventAttributes?.reason ?? ''}`;
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED:
      return `mission cancelled`;
    default:
      return null;
  }
}

function passResult(req: PassRequest, res: PassResponse): string {
  if (res.kind === 'effects')
    return `  pass ${req.pass} stops at ${res.effects.length} effect(s): ${res.effects.map((e) => e.taskId ?? e.tool).join(', ')}`;
  const commits = res.journalDelta.map(([k]) => k);
  const o = res.outcome;
  const outcome = o.kind === 'error' ? `error: ${o.message}` : `${o.kind} ${short(o.value)}`;
  return `  pass ${req.pass} ${outcome}${commits.length ? `; commits ${commits.join(', ')}` : ''}`;
}

function short(v: unknown): string {
  const s = JSON.stringify(v) ?? 'nil';
  return s.length > 120 ? s.slice(0, 117) + '...' : s;
}
