/**
 * Rebuilds a mission's journal from its history events alone, by feeding every event
 * that changed the journal (pass results, decisions, writes, resets) through the same
 * MissionState rules the workflow uses, run after run along the continue-as-new chain.
 * Records which event committed each task id, and counts completions of each external
 * effect so that a repeated side effect shows up.
 */
import type {
  AgentDescription,
  Json,
  MissionInput,
  PassResponse,
  ToolRequest,
  ToolResponse,
} from '../workflows/mission/contract.ts';
import type { ResultUnavailable } from '../kernel/schemas.ts';
import { MissionInput as MissionInputSchema } from '../workflows/mission/contract.ts';
import { MissionState, contractFor, decisionProblem, expire, waitingKey } from '../workflows/mission/state.ts';
import { EventType, type HistoryEvent, type RunHistory, decodeAll, decodeFirst, eventId } from './fetch.ts';

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
  /** it ran but its result could not be kept: why, and the event that recorded it */
  unavailable?: { reason: ResultUnavailable['reason']; message: string; runId: string; eventId: number };
}

/** An effect that ran with its result unavailable, as the audit reports it. */
export type UnavailableResult = Pick<EffectRun, 'idempotencyKey' | 'taskId' | 'tool'> &
  NonNullable<EffectRun['unavailable']>;

export interface Reconstruction {
  journal: Array<[string, Json]>;
  provenance: Map<string, Provenance>;
  effects: Map<string, EffectRun>;
  /** places where the chain disagrees with itself, e.g. carried state ≠ rebuilt state */
  problems: string[];
}

/**
 * Told of every event in the order the workflow saw it, with the state rebuilt so far:
 * `before` it is applied and `after` (the value checks of src/audit/mission/values.ts).
 */
export interface ReconstructObserver {
  before?(event: HistoryEvent, at: ObservedState): void;
  after?(event: HistoryEvent, at: ObservedState): void;
}

export interface ObservedState {
  state: MissionState;
  runId: string;
  provenance: ReadonlyMap<string, Provenance>;
}

export function reconstruct(chain: RunHistory[], observer: ReconstructObserver = {}): Reconstruction {
  const provenance = new Map<string, Provenance>();
  const effects = new Map<string, EffectRun>();
  const problems: string[] = [];
  const requested = new Map<string, string>();
  let state: MissionState | null = null;
  for (const run of chain) {
    state = replayRun(run, state, { provenance, effects, problems, requested }, observer);
  }
  return { journal: state ? state.journalEntries() : [], provenance, effects, problems };
}

interface Sinks {
  provenance: Map<string, Provenance>;
  effects: Map<string, EffectRun>;
  problems: string[];
  /** the tool of every effect a pass stopped at, by idempotency key (whose approvers decide it) */
  requested: Map<string, string>;
}

function replayRun(
  run: RunHistory,
  previous: MissionState | null,
  sinks: Sinks,
  observer: ReconstructObserver,
): MissionState {
  const events = run.history.events ?? [];
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  const input = MissionInputSchema.parse(decodeFirst<MissionInput>(started?.input));
  const state = new MissionState(input, run.workflowId, 0);
  if (previous) checkCarried(previous, state, run.runId, sinks.problems);
  else
    for (const [key] of state.journal)
      sinks.provenance.set(key, { key, runId: run.runId, eventId: eventId(events[0]!), source: 'initial journal' });
  state.agent = previous?.agent ?? null;
  const ctx: RunContext = { state, scheduled: new Map(), wait: { key: null, readVersion: 0 }, runId: run.runId, sinks };
  const at: ObservedState = { state, runId: run.runId, provenance: sinks.provenance };
  for (const batch of activations(events)) {
    for (const event of batch) {
      observer.before?.(event, at);
      applyEvent(event, ctx);
      observer.after?.(event, at);
    }
  }
  return state;
}

/** Event kinds a person sends; the SDK runs their handlers before other jobs of a task. */
const PERSON_EVENTS = new Set<number | null | undefined>([
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED,
]);

/** Events a workflow task's completion writes (its commands and accepted updates). */
const COMPLETION_EVENTS = new Set<number | null | undefined>([
  EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
  EventType.EVENT_TYPE_TIMER_STARTED,
  EventType.EVENT_TYPE_TIMER_CANCELED,
  EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED,
  EventType.EVENT_TYPE_MARKER_RECORDED,
  EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
  EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED,
]);

/**
 * Orders events as the workflow saw them. One workflow task delivers, as one activation,
 * everything that arrived since the previous task (activity results, timers, signals)
 * plus the updates accepted in its own completion, which history writes after the
 * WorkflowTaskCompleted event. Within an activation the SDK runs signal and update
 * handlers before the workflow code resumes on activity results or timers, so person
 * messages come first here too. Commands of a completion are kept in place.
 */
function activations(events: HistoryEvent[]): HistoryEvent[][] {
  const batches: HistoryEvent[][] = [];
  let incoming: HistoryEvent[] = [];
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (e.eventType !== EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
      if (!COMPLETION_EVENTS.has(e.eventType) || !isAfterCompletion(events, i)) incoming.push(e);
      continue;
    }
    const commands: HistoryEvent[] = [];
    for (let j = i + 1; j < events.length && COMPLETION_EVENTS.has(events[j]!.eventType); j++)
      commands.push(events[j]!);
    const persons = [
      ...incoming.filter((x) => PERSON_EVENTS.has(x.eventType)),
      ...commands.filter((x) => PERSON_EVENTS.has(x.eventType)),
    ];
    batches.push([
      ...persons,
      ...incoming.filter((x) => !PERSON_EVENTS.has(x.eventType)),
      e,
      ...commands.filter((x) => !PERSON_EVENTS.has(x.eventType)),
    ]);
    incoming = [];
    i += commands.length;
  }
  if (incoming.length) batches.push(incoming);
  return batches;
}

/** Whether event i belongs to the run of command events right after a task completion. */
function isAfterCompletion(events: HistoryEvent[], i: number): boolean {
  for (let j = i - 1; j >= 0; j--) {
    const t = events[j]!.eventType;
    if (t === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) return true;
    if (!COMPLETION_EVENTS.has(t)) return false;
  }
  return false;
}

function checkCarried(previous: MissionState, next: MissionState, runId: string, problems: string[]): void {
  const a = JSON.stringify(previous.journalEntries());
  const b = JSON.stringify(next.journalEntries());
  if (a !== b)
    problems.push(`run ${runId} started with a journal that differs from the one rebuilt from the run before it`);
}

/** The decision the mission waits for, and the journal version its pass read. */
interface WaitTracker {
  key: string | null;
  readVersion: number;
}

interface RunContext {
  state: MissionState;
  scheduled: Map<number, { type: string; input: unknown }>;
  wait: WaitTracker;
  runId: string;
  sinks: Sinks;
}

function applyEvent(event: HistoryEvent, ctx: RunContext): void {
  const { state, scheduled, wait, runId, sinks } = ctx;
  const id = eventId(event);
  switch (event.eventType) {
    case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED: {
      const a = event.activityTaskScheduledEventAttributes!;
      const input = decodeFirst(a.input);
      const type = a.activityType?.name ?? '';
      scheduled.set(id, { type, input });
      if (type === 'runPass' && !(input as { resume?: boolean }).resume)
        wait.readVersion = (input as { journalVersion: number }).journalVersion;
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
      // While a decision waits, its deadline is the mission's only timer (the pass backoff
      // and effect approval deadlines run at other times, when no key waits); a decision
      // that arrived in the same workflow task still counts, as in the workflow.
      const key = wait.key;
      wait.key = null;
      if (!key || state.personWriteVersion(key) > wait.readVersion) return;
      if (expire(state, key)) sinks.provenance.set(key, { key, runId, eventId: id, source: 'decision deadline' });
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
    const run = sinks.effects.get(req.idempotencyKey) ?? {
      idempotencyKey: req.idempotencyKey,
      taskId: req.taskId,
      tool: req.tool,
      completions: [],
    };
    run.completions.push(at);
    const lost = (result as ToolResponse | null)?.unavailable;
    if (lost) run.unavailable = { reason: lost.reason, message: lost.message, ...at };
    sinks.effects.set(req.idempotencyKey, run);
    return;
  }
  if (origin.type !== 'runPass') return;
  const response = result as PassResponse;
  if (response.kind === 'effects') for (const e of response.effects) sinks.requested.set(e.idempotencyKey, e.tool);
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
  const msg = (arg ?? {}) as { key?: string; value?: Json; by?: unknown; role?: unknown };
  if (typeof msg.key !== 'string') return;
  const source = `${name} ${kind}`;
  const role = typeof msg.role === 'string' && msg.role ? msg.role : undefined;
  if (name === 'approveEffect' && kind === 'update') {
    const tool = sinks.requested.get(msg.key);
    const problem = tool
      ? verdictRoleProblem(state.agent?.approvers?.[tool], msg, `effect ${msg.key} (${tool})`)
      : null;
    if (problem) sinks.problems.push(`event ${at.eventId} (run ${at.runId}), approveEffect update: ${problem}`);
    return;
  }
  if (name === 'decide') {
    // Accepted updates passed the validator (one whose role the decision does not allow is
    // a problem: a worker without the check, or an edited history); signals are re-checked
    // as the workflow did.
    if (kind === 'signal' && decisionProblem(state, msg.key, msg.value ?? null, role)) return;
    const problem =
      kind === 'update' ? verdictRoleProblem(contractFor(state, msg.key)?.approvers, msg, `decision ${msg.key}`) : null;
    if (problem) sinks.problems.push(`event ${at.eventId} (run ${at.runId}), decide update: ${problem}`);
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

/**
 * Why a recorded verdict's role is not among the approvers that applied (the agent's
 * description in history), or null: `decision k was decided by bob as ops; only finance may decide it`.
 */
export function verdictRoleProblem(
  approvers: readonly string[] | undefined,
  verdict: { by?: unknown; role?: unknown },
  what: string,
): string | null {
  const role = typeof verdict.role === 'string' && verdict.role ? verdict.role : undefined;
  if (!approvers?.length || (role !== undefined && approvers.includes(role))) return null;
  const by = typeof verdict.by === 'string' && verdict.by ? ` by ${verdict.by}` : '';
  return `${what} was decided${by} ${role === undefined ? 'with no role' : `as ${role}`}; only ${approvers.join(' or ')} may decide it`;
}
