/**
 * Rebuilds a mission's journal from its history events alone, by feeding every event
 * that changed the journal (pass results, decisions, writes, resets) through the same
 * MissionState rules the workflow uses, run after run along the continue-as-new chain.
 * Records which event committed each task id, and counts completions of each external
 * effect so that a repeated side effect shows up.
 */
import type { AgentDescription, Json, MissionInput, PassResponse, ToolRequest } from '../workflows/contract.ts';
import { MissionInput as MissionInputSchema } from '../workflows/contract.ts';
import { MissionState, decisionProblem, expire, waitingKey } from '../workflows/mission-state.ts';
import { EventType, type HistoryEvent, type RunHistory, decodeAll, decodeFirst, eventId } from './history.ts';

export interface Provenance {
  key: string;
  runId: string;
  eventId: number;
  /** `pass 3`, `decide update`, `writeJournal signal`, `initial journal` */
  source: string;
}

export interface EffectRun {
  idempotencyKey: string;
  taskId: string | null;
  tool: string;
  completions: Array<{ runId: string; eventId: number }>;
}

export interface Reconstruction {
  journal: Array<[string, Json]>;
  provenance: Map<string, Provenance>;
  effects: Map<string, EffectRun>;
  /** places where the chain disagrees with itself, e.g. carried state ≠ rebuilt state */
  problems: string[];
}

export function reconstruct(chain: RunHistory[]): Reconstruction {
  const provenance = new Map<string, Provenance>();
  const effects = new Map<string, EffectRun>();
  const problems: string[] = [];
  let state: MissionState | null = null;
  for (const run of chain) {
    state = replayRun(run, state, { provenance, effects, problems });
  }
  return { journal: state ? state.journalEntries() : [], provenance, effects, problems };
}

interface Sinks {
  provenance: Map<string, Provenance>;
  effects: Map<string, EffectRun>;
  problems: string[];
}

function replayRun(run: RunHistory, previous: MissionState | null, sinks: Sinks): MissionState {
  const events = run.history.events ?? [];
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  const input = MissionInputSchema.parse(decodeFirst<MissionInput>(started?.input));
  const state = new MissionState(input, run.workflowId, 0);
  if (previous) checkCarried(previous, state, run.runId, sinks.problems);
  else for (const [key] of state.journal) sinks.provenance.set(key, { key, runId: run.runId, eventId: eventId(events[0]!), source: 'initial journal' });
  state.agent = previous?.agent ?? null;
  const scheduled = new Map<number, { type: string; input: unknown }>();
  const wait: WaitTracker = { key: null };
  for (const event of events) applyEvent(event, state, scheduled, wait, run.runId, sinks);
  return state;
}

function checkCarried(previous: MissionState, next: MissionState, runId: string, problems: string[]): void {
  const a = JSON.stringify(previous.journalEntries());
  const b = JSON.stringify(next.journalEntries());
  if (a !== b) problems.push(`run ${runId} started with a journal that differs from the one rebuilt from the run before it`);
}

/** The decision the mission waits for, known from the last pass's waiting return. */
interface WaitTracker {
  key: string | null;
}

function applyEvent(
  event: HistoryEvent,
  state: MissionState,
  scheduled: Map<number, { type: string; input: unknown }>,
  wait: WaitTracker,
  runId: string,
  sinks: Sinks,
): void {
  const id = eventId(event);
  switch (event.eventType) {
    case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED: {
      const a = event.activityTaskScheduledEventAttributes!;
      scheduled.set(id, { type: a.activityType?.name ?? '', input: decodeFirst(a.input) });
      return;
    }
    case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED: {
      const a = event.activityTaskCompletedEventAttributes!;
      const origin = scheduled.get(Number(a.scheduledEventId));
      if (!origin) return;
      onActivityResult(origin, decodeFirst(a.result), state, wait, { runId, eventId: id }, sinks);
      return;
    }
    case EventType.EVENT_TYPE_TIMER_FIRED: {
      // The only timer of a mission is a decision deadline: the workflow expired the wait.
      if (wait.key && expire(state, wait.key)) sinks.provenance.set(wait.key, { key: wait.key, runId, eventId: id, source: 'decision deadline' });
      wait.key = null;
      return;
    }
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED: {
      const req = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
      onPersonMessage(req?.name ?? '', decodeAll(req?.args)[0], 'update', state, { runId, eventId: id }, sinks);
      return;
    }
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED: {
      const a = event.workflowExecutionSignaledEventAttributes!;
      onPersonMessage(a.signalName ?? '', decodeFirst(a.input), 'signal', state, { runId, eventId: id }, sinks);
      return;
    }
  }
}

function onActivityResult(
  origin: { type: string; input: unknown },
  result: unknown,
  state: MissionState,
  wait: WaitTracker,
  at: { runId: string; eventId: number },
  sinks: Sinks,
): void {
  if (origin.type === 'describeAgent') {
    state.agent = result as AgentDescription;
    return;
  }
  if (origin.type === 'runTool') {
    const req = origin.input as ToolRequest;
    const run = sinks.effects.get(req.idempotencyKey) ?? { idempotencyKey: req.idempotencyKey, taskId: req.taskId, tool: req.tool, completions: [] };
    run.completions.push(at);
    sinks.effects.set(req.idempotencyKey, run);
    return;
  }
  if (origin.type !== 'runPass') return;
  const response = result as PassResponse;
  if (response.kind !== 'done') return;
  const pass = (origin.input as { pass: number }).pass;
  const before = new Map(state.journal);
  state.applyPass(response);
  wait.key = response.outcome.kind === 'return' ? waitingKey(state, response.outcome.value) : null;
  for (const [key, value] of state.journal) {
    if (!before.has(key) || JSON.stringify(before.get(key)) !== JSON.stringify(value)) {
      sinks.provenance.set(key, { key, ...at, source: `pass ${pass}` });
    }
  }
}

function onPersonMessage(
  name: string,
  arg: unknown,
  kind: 'update' | 'signal',
  state: MissionState,
  at: { runId: string; eventId: number },
  sinks: Sinks,
): void {
  const msg = (arg ?? {}) as { key?: string; value?: Json };
  if (typeof msg.key !== 'string') return;
  const source = `${name} ${kind}`;
  if (name === 'decide') {
    // Accepted updates passed the validator; signals are re-checked as the workflow did.
    if (kind === 'signal' && decisionProblem(state, msg.key, msg.value ?? null)) return;
    state.writeByPerson(msg.key, msg.value ?? null);
  } else if (name === 'writeJournal') {
    state.writeByPerson(msg.key, msg.value ?? null);
  } else if (name === 'resetTask') {
    if (!state.journal.has(msg.key)) return;
    state.resetByPerson(msg.key);
    sinks.provenance.delete(msg.key);
    return;
  } else {
    return;
  }
  sinks.provenance.set(msg.key, { key: msg.key, ...at, source });
}
