/**
 * The state of one Navigator mission, as a plain deterministic class: the workflow
 * wires Temporal messages to these methods and keeps none of the logic itself.
 */
import type {
  AgentDescription,
  Budgets,
  CarriedState,
  DecisionContract,
  EffectResult,
  EffectRequest,
  InlineToolCall,
  Json,
  JournalEntries,
  LedgerEntry,
  MissionStatus,
  ParsedMissionInput,
  PassContext,
  PassContextInput,
  PassResponse,
  Pending,
  PendingApproval,
  StatusView,
} from './contract.ts';
import { shapesFromCalls } from '../../navigator/result-shape.ts';
import { waitingDecision } from '../../kernel/contract.ts';
import { ApprovalGate } from '../approval-gate.ts';
import { roleProblem } from '../approvers.ts';
import { ContextFeed, withSummaries } from './pass-context.ts';

type DonePass = Extract<PassResponse, { kind: 'done' }>;

export class MissionState {
  readonly journal = new Map<string, Json>();
  journalVersion = 0;
  /** journal version at which a person (decide / write / reset) last touched each key */
  private readonly writtenByPerson = new Map<string, number>();
  summaries: Record<string, string> = {};
  ledger: LedgerEntry[] = [];
  passes = 0;
  errorPasses = 0;
  lastError: string | null = null;
  toolCalls = 0;
  tokens = 0;
  startedAtMs: number;
  chain: string[];
  status: MissionStatus = 'starting';
  pending: Pending | null = null;
  result: Json | undefined;
  error: string | undefined;
  rejectedSignals: Array<{ signal: string; reason: string }> = [];
  /** set by the cancel signal or update; the mission stops at the next safe point */
  cancelReason: string | null = null;
  agent: AgentDescription | null = null;
  /** state of the pass suspended on effects, and the results gathered for it */
  passState: Json | null = null;
  /** suspensions of the current pass so far: the version of `passState` */
  passStep = 0;
  /** ledger entries before the current pass: its tool shapes stay what they were when it started */
  passLedgerStart = 0;
  /** the pass step each of the current pass's effects started after (1: after the first step) */
  private effectSteps = new Map<LedgerEntry, number>();
  effectResults: Record<string, EffectResult> = {};
  /** effects waiting for a person, and every verdict so far */
  readonly approvals = new ApprovalGate<Omit<PendingApproval, 'since' | 'deadline'>>();
  /** journal changes since the last pass step read it: the next step's context in its input */
  readonly contextFeed = new ContextFeed();

  constructor(
    readonly input: ParsedMissionInput,
    readonly workflowId: string,
    nowMs: number,
  ) {
    const carried = input.carried;
    this.startedAtMs = carried?.startedAtMs ?? nowMs;
    this.chain = carried?.chain ?? [];
    if (carried) {
      this.restore(carried);
    } else if (input.journal) {
      const entries = Array.isArray(input.journal) ? input.journal : Object.entries(input.journal);
      for (const [k, v] of entries) this.journal.set(k, v);
      this.journalVersion = this.journal.size > 0 ? 1 : 0;
    }
  }

  get runId(): string {
    return this.input.runId ?? this.workflowId;
  }

  get budgets(): Budgets {
    return this.input.options.budgets;
  }

  // ---------------------------------------------------------------- journal

  journalEntries(): JournalEntries {
    return [...this.journal.entries()];
  }

  /** A person's write (decision or `writeJournal`): always wins over pass commits. */
  /** The version at which a person last wrote `key`, or 0. */
  personWriteVersion(key: string): number {
    return this.writtenByPerson.get(key) ?? 0;
  }

  writeByPerson(key: string, value: Json): void {
    this.journal.delete(key); // re-insert so commit order shows when it was written
    this.journal.set(key, value);
    this.journalVersion++;
    this.writtenByPerson.set(key, this.journalVersion);
    this.contextFeed.changed(this.journalVersion, ['s', key, value]);
  }

  resetByPerson(key: string): boolean {
    const existed = this.journal.delete(key);
    this.journalVersion++;
    this.writtenByPerson.set(key, this.journalVersion);
    this.contextFeed.changed(this.journalVersion, ['d', key]);
    return existed;
  }

  /** A new pass: what it is shown of the ledger is fixed now, for all its steps. */
  beginPass(): void {
    this.passes++;
    this.passLedgerStart = this.ledger.length;
    this.effectSteps.clear();
  }

  /**
   * Applies a finished pass. Resets first, then commits in commit order. A commit to a key
   * a person wrote after the version the pass read is dropped: the person's value wins.
   */
  applyPass(done: DonePass): void {
    const changes: Array<['d' | 'c', string]> = [];
    for (const key of done.resets) {
      this.journal.delete(key);
      changes.push(['d', key]);
    }
    for (const [key, value] of done.journalDelta) {
      const personVersion = this.writtenByPerson.get(key);
      if (personVersion !== undefined && personVersion > done.basedOnVersion) continue;
      this.journal.delete(key);
      this.journal.set(key, value);
      changes.push(['c', key]);
    }
    if (done.resets.length || done.journalDelta.length) this.journalVersion++;
    for (const op of changes) this.contextFeed.changed(this.journalVersion, op);
    this.summaries = withSummaries(this.summaries, done.summaries);
    this.recordInlineCalls(done.toolCalls);
    this.tokens += done.tokens;
    this.passState = null;
    this.passStep = 0;
    this.effectResults = {};
  }

  // ---------------------------------------------------------------- ledger

  /**
   * Adds the pass's own calls to the ledger among its effects, in the order they ran: a
   * call made in step n of the pass ran after the effects started before that step and
   * before those started after it (a call without a step: after all of them). The pass's
   * entries are numbered again in that order.
   */
  recordInlineCalls(calls: InlineToolCall[]): void {
    const effects = this.ledger.splice(this.passLedgerStart);
    const merged: LedgerEntry[] = [];
    let e = 0;
    for (const call of calls) {
      // effects started before the step this call ran in ran before it
      const step = call.step ?? Infinity;
      while (e < effects.length && (this.effectSteps.get(effects[e]!) ?? 0) <= step) merged.push(effects[e++]!);
      merged.push(this.inlineEntry(call));
    }
    merged.push(...effects.slice(e));
    merged.forEach((entry, i) => (entry.seq = this.passLedgerStart + i + 1));
    this.ledger.push(...merged);
    this.toolCalls += calls.length;
  }

  private inlineEntry(c: InlineToolCall): LedgerEntry {
    return {
      seq: 0,
      pass: this.passes,
      taskId: c.taskId,
      tool: c.tool,
      sideEffect: c.sideEffect,
      idempotencyKey: c.idempotencyKey,
      status: c.error === undefined ? 'completed' : 'failed',
      attempts: 1,
      ...(c.result !== undefined ? keptResult(c.result) : {}),
      ...(c.error !== undefined ? { error: c.error } : {}),
      activity: `pass-${this.passes}`,
    };
  }

  /** Starts a ledger entry for an effect; returns it so the caller can complete it. */
  startEffect(effect: EffectRequest, activityId: string): LedgerEntry {
    this.toolCalls++;
    const entry: LedgerEntry = {
      seq: this.ledger.length + 1,
      pass: this.passes,
      taskId: effect.taskId,
      tool: effect.tool,
      sideEffect: this.agent?.tools[effect.tool] ?? 'external',
      idempotencyKey: effect.idempotencyKey,
      status: 'running',
      attempts: 0,
      activity: activityId,
    };
    this.ledger.push(entry);
    this.effectSteps.set(entry, this.passStep);
    return entry;
  }

  /** An effect whose idempotency key already completed in this mission: its result. */
  completedEffect(idempotencyKey: string): LedgerEntry | undefined {
    return this.ledger.find(
      (e) => e.idempotencyKey === idempotencyKey && e.status === 'completed' && e.activity !== `pass-${e.pass}`,
    );
  }

  // ---------------------------------------------------------------- budgets

  /** The first budget that has run out, as a sentence; null while all remain. */
  exhaustedBudget(nowMs: number): string | null {
    const b = this.budgets;
    if (b.passes !== undefined && this.passes >= b.passes) return `pass budget of ${b.passes} used`;
    if (b.toolCalls !== undefined && this.toolCalls >= b.toolCalls) return `tool-call budget of ${b.toolCalls} used`;
    if (b.tokens !== undefined && this.tokens >= b.tokens) return `token budget of ${b.tokens} used`;
    if (b.wallClockMs !== undefined && nowMs - this.startedAtMs >= b.wallClockMs) {
      return `wall-clock budget of ${b.wallClockMs} ms used`;
    }
    return null;
  }

  /** What was done, for a mission stopped by a budget. */
  summary(): Json {
    return {
      passes: this.passes,
      toolCalls: this.toolCalls,
      tokens: this.tokens,
      completedTasks: [...this.journal.keys()],
      steps: this.summaries,
    };
  }

  // ---------------------------------------------------------------- views

  passContext(): PassContext {
    return {
      journalVersion: this.journalVersion,
      journal: this.journalEntries(),
      summaries: this.summaries,
      input: this.input.input,
      lastError: this.lastError,
      runId: this.runId,
      passState: this.passState,
      passStep: this.passStep,
      effectResults: this.effectResults,
      toolShapes: shapesFromCalls(this.ledger.slice(0, this.passLedgerStart)),
    };
  }

  /** The next pass step's context for its input (whole, or what changed), or undefined: it asks by query. */
  passContextInput(resume: boolean, settled: readonly string[] = []): PassContextInput | undefined {
    return this.contextFeed.next({
      resume,
      workflowId: this.workflowId,
      full: () => this.passContext(),
      lastError: this.lastError,
      toolShapes: () => shapesFromCalls(this.ledger.slice(0, this.passLedgerStart)),
      effectResults: this.effectResults,
      settled,
    });
  }

  statusView(runId: string, nowMs: number): StatusView {
    return {
      workflowId: this.workflowId,
      runId,
      agent: this.input.agent,
      status: this.status,
      passes: this.passes,
      pending: this.pending,
      journalSize: this.journal.size,
      budgets: {
        used: {
          passes: this.passes,
          toolCalls: this.toolCalls,
          tokens: this.tokens,
          wallClockMs: nowMs - this.startedAtMs,
        },
        limits: this.budgets,
      },
      ...(this.result !== undefined ? { result: this.result } : {}),
      ...(this.error !== undefined ? { error: this.error } : {}),
      rejectedSignals: this.rejectedSignals,
      ...(this.input.resumedFrom ? { resumedFrom: this.input.resumedFrom } : {}),
      input: this.input.input,
      effectApprovals: [...this.approvals.pending.values()],
      approvals: this.approvals.records,
      effectsDone: this.ledger.slice(-20).map((e) => ({
        seq: e.seq,
        pass: e.pass,
        tool: e.tool,
        taskId: e.taskId,
        key: e.idempotencyKey,
        status: e.status,
      })),
    };
  }

  carry(currentRunId: string): CarriedState {
    return {
      journal: this.journalEntries(),
      journalVersion: this.journalVersion,
      summaries: this.summaries,
      ledger: this.ledger,
      passes: this.passes,
      errorPasses: this.errorPasses,
      lastError: this.lastError,
      toolCalls: this.toolCalls,
      tokens: this.tokens,
      startedAtMs: this.startedAtMs,
      chain: [...this.chain, currentRunId],
      ...(this.approvals.records.length ? { approvals: this.approvals.records } : {}),
    };
  }

  private restore(c: CarriedState): void {
    for (const [k, v] of c.journal) this.journal.set(k, v);
    this.journalVersion = c.journalVersion;
    this.summaries = c.summaries;
    this.ledger = c.ledger;
    this.passes = c.passes;
    this.errorPasses = c.errorPasses;
    this.lastError = c.lastError;
    this.toolCalls = c.toolCalls;
    this.tokens = c.tokens;
    this.approvals.records = c.approvals ?? [];
  }
}

/** The agent's contract for a decision key, if it has one. */
export function contractFor(state: MissionState, key: string): DecisionContract | undefined {
  return state.agent?.decisions.find((d) => d.key === key);
}

/** Why a decision is not acceptable now, or null when it is. */
export function decisionProblem(state: MissionState, key: string, value: Json, role?: string): string | null {
  if (state.status === 'completed' || state.status === 'failed' || state.status === 'cancelled') {
    return `the mission is ${state.status}`;
  }
  const known = new Set([
    ...(state.agent?.decisions ?? []).map((d) => d.key),
    ...(state.pending ? [state.pending.key] : []),
  ]);
  if (known.size === 0) return `this mission takes no decisions`;
  if (!known.has(key))
    return `unknown decision key ${JSON.stringify(key)}; expected ${[...known].map((k) => JSON.stringify(k)).join(' or ')}`;
  const allowed = contractFor(state, key)?.allowed ?? null;
  if (allowed && !allowed.some((a) => JSON.stringify(a) === JSON.stringify(value))) {
    return `value ${JSON.stringify(value)} is not allowed for ${key}; allowed: ${allowed.map((a) => JSON.stringify(a)).join(', ')}`;
  }
  return roleProblem(contractFor(state, key)?.approvers, role, `decision ${key}`);
}

/** `{:status :waiting :decision "key"}` → the decision key; any other value is final. */
export function waitingKey(state: MissionState, value: Json): string | null {
  return waitingDecision(value, state.agent?.decisions);
}

/** How long a wait for `key` may last and what its deadline does. */
export function deadlineOf(
  state: MissionState,
  key: string,
): { timeoutMs: number | null; onTimeout: 'expiry_value' | 'fail' } {
  const contract = contractFor(state, key);
  const approval = state.input.options.approval;
  const timeoutMs = approval.timeoutMs ?? contract?.timeoutMs ?? null;
  const onTimeout = approval.onTimeout ?? (contract?.timeoutMs ? 'expiry_value' : 'fail');
  return { timeoutMs, onTimeout: onTimeout === 'expiry_value' && contract ? 'expiry_value' : 'fail' };
}

/** At the deadline: writes the expiry value and returns true, or returns false (fail). */
export function expire(state: MissionState, key: string): boolean {
  const contract = contractFor(state, key);
  if (deadlineOf(state, key).onTimeout !== 'expiry_value' || !contract) return false;
  state.writeByPerson(key, contract.expiryValue);
  return true;
}

/** Most characters of a read's result the ledger keeps in workflow state (and carries across continue-as-new). */
export const LEDGER_RESULT_CHARS = 16 * 1024;

/**
 * A read's result as the ledger keeps it: whole when small; a large one (a 1 MB page read
 * every pass) only as its size and start, so the workflow's memory and carried state do not
 * grow with every read. The whole value stays in the pass's result in history (the audit
 * reads it there); effects keep theirs, which a repeated request is answered from.
 */
function keptResult(result: Json): Pick<LedgerEntry, 'result' | 'resultChars' | 'resultPreview'> {
  const text = JSON.stringify(result);
  if (text.length <= LEDGER_RESULT_CHARS) return { result };
  return { resultChars: text.length, resultPreview: text.slice(0, 200) };
}
