/**
 * The programmatic client for missions: start a `navigatorMission` workflow, then read
 * it and act on it through one handle. Every change goes through the workflow's
 * validated updates; a refused one becomes a {@link MissionRejected} with the
 * validator's message. The CLI and the console use these same calls.
 *
 * ```ts
 * const m = await startMission(client, { agent: 'wire-transfer', input: { recipient: 'bob', amount: 5000 }, taskQueue: 'navigator' });
 * const pending = await m.pending();            // { key: 'manager_decision_bob_5000', allowed: [...] }
 * await m.approve({ by: 'ana', note: 'ok' });   // the agent's approve value for the pending decision
 * const result = await m.result();
 * ```
 */
import {
  QueryNotRegisteredError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import type { AuditOptions, AuditReport } from '../../audit/mission/audit.ts';
import { fetchChain } from '../../history/fetch.ts';
import { type TimelineLine, timeline } from '../../history/timeline.ts';
import { valueHash } from '../../history/hash.ts';
import type { QueryDefinition } from '@temporalio/common';
import {
  type DecisionContract,
  type JournalEntries,
  type Json,
  type LedgerEntry,
  MissionInput,
  type MissionOverview,
  type Pending,
  type StatusView,
} from '../../workflows/mission/contract.ts';
import { type HistoryState, type RunReader, answerOf, isClosed, readerOf } from '../../history/reader.ts';
import * as m from '../../workflows/mission/messages.ts';
import { issuesText } from '../../kernel/contract.ts';
import { type AcceptedUpdate, acceptedUpdates, shownArgsProblem } from '../verdicts.ts';
import { roleProblem } from '../../workflows/approvers.ts';
import { checkStart } from '../served-agents.ts';

export const MISSION_WORKFLOW = 'navigatorMission';

export interface StartMissionOptions {
  agent: string;
  input?: Json;
  taskQueue: string;
  /** workflow id @default `AGENT-<random>` */
  id?: string;
  /** a journal to start from */
  journal?: Array<[string, Json]>;
  /** the mission options (budgets, timeouts, approval, statusSearchAttribute, ...): see MissionInput */
  options?: Record<string, unknown>;
  /** what the Temporal UI shows as the run's summary @default `Navigator mission: AGENT` */
  summary?: string;
  /**
   * check the agent and input against what the task queue's workers serve before starting
   * (a {@link StartRefused} when they do not) @default true
   */
  check?: boolean;
}

/** A start or a change the workflow (or the input schema) refused. */
export class MissionRejected extends Error {
  override readonly name = 'MissionRejected';
}

/**
 * The workflow start of a mission (also a schedule's action): the checked input and what
 * the Temporal UI shows. Throws MissionRejected for an input the workflow would refuse.
 */
export function missionStart(opts: Omit<StartMissionOptions, 'id' | 'taskQueue'>) {
  const input = {
    agent: opts.agent,
    input: opts.input ?? {},
    ...(opts.journal ? { journal: opts.journal } : {}),
    ...(opts.options ? { options: opts.options } : {}),
  };
  const parsed = MissionInput.safeParse(input);
  if (!parsed.success) throw new MissionRejected(`invalid mission: ${issuesText(parsed.error)}`);
  return {
    args: [input],
    staticSummary: opts.summary ?? `Navigator mission: ${opts.agent}`,
    staticDetails: `Agent **${opts.agent}**\n\nInput:\n\`\`\`json\n${JSON.stringify(opts.input ?? {}, null, 2)}\n\`\`\``,
  };
}

/**
 * Starts a mission. Refused before anything starts ({@link StartRefused}) when the task
 * queue's workers do not serve the agent or its input schema refuses the input; the
 * handle's `startWarning` says what could not be checked (src/client/served-agents.ts).
 */
export async function startMission(client: Client, opts: StartMissionOptions): Promise<MissionHandle> {
  const start = missionStart(opts);
  const checked =
    opts.check === false
      ? undefined
      : await checkStart(client, { taskQueue: opts.taskQueue, agent: opts.agent, input: opts.input ?? {} });
  const id = opts.id ?? `${opts.agent}-${Math.random().toString(16).slice(2, 10)}`;
  const handle = await client.workflow.start(MISSION_WORKFLOW, { taskQueue: opts.taskQueue, workflowId: id, ...start });
  const mission = new MissionHandle(handle, client);
  if (checked?.warning) mission.startWarning = checked.warning;
  return mission;
}

export function getMission(client: Client, id: string): MissionHandle {
  return new MissionHandle(client.workflow.getHandle(id), client);
}

/**
 * A mission handle on a workflow handle you already have (or the mission handle itself).
 * Without `client` it answers queries and updates; reading history (timeline, audit,
 * decided) needs the client.
 */
export function missionOf(handle: WorkflowHandle | MissionHandle, client?: Client): MissionHandle {
  return handle instanceof MissionHandle ? handle : new MissionHandle(handle, client);
}

export interface DecideOptions {
  by?: string;
  note?: string;
  /** the role you decide with: required when the decision names its approvers (`approvers: ['finance']`), recorded with it */
  role?: string;
}

/** Which waiting effect a verdict is for, and (optionally) the args the person was shown. */
export interface EffectVerdictOptions {
  /** the effect's key @default the only effect waiting */
  key?: string;
  /** `valueHash` of the args the person saw: the verdict is refused if the effect now waits with other args */
  argsHash?: string;
  by?: string;
  /** the role you decide with: required when the effect's tool names its approvers, recorded with the verdict */
  role?: string;
}

const OVERVIEW_PARTS = [
  m.statusQuery.name,
  m.journalQuery.name,
  m.ledgerQuery.name,
  m.progressQuery.name,
  m.summariesQuery.name,
  m.decisionsQuery.name,
];

/** The overview a mission's history ends with (as its overview query would answer). */
function overviewOf(state: HistoryState): MissionOverview {
  const [status, journal, ledger, progress, summaries, decisions] = OVERVIEW_PARTS.map((name) =>
    answerOf(state, name),
  ) as never[];
  return { status, journal, ledger, progress, summaries, decisions };
}

/** One mission: queries, decisions and journal changes, result and audit. */
export class MissionHandle {
  /** set by {@link startMission} when the agent or input could not be checked before the start */
  startWarning?: string;

  constructor(
    readonly workflow: WorkflowHandle,
    /** reads history (timeline, audit, decided); queries and updates need only the workflow handle */
    private readonly client?: Client,
  ) {}

  get id(): string {
    return this.workflow.workflowId;
  }

  /**
   * Where it stands. A closed mission is read from its history (replayed here, no worker
   * needed); a running one is asked, and fails with a {@link WorkerUnavailableError} when
   * no worker answers within the reader's deadline ({@link overviewFromHistory} then
   * still says what its history holds).
   */
  status(): Promise<StatusView> {
    return this.read(m.statusQuery);
  }
  /**
   * What an approver needs of the mission's effects: every call waiting now (asked together,
   * in one pmap: one batch, each decided on its own), the effects it already ran, and every
   * verdict so far.
   */
  async effects(): Promise<{
    waiting: StatusView['effectApprovals'];
    done: NonNullable<StatusView['effectsDone']>;
    verdicts: StatusView['approvals'];
  }> {
    const s = await this.status();
    return { waiting: s.effectApprovals ?? [], done: s.effectsDone ?? [], verdicts: s.approvals ?? [] };
  }
  /** the decision it waits for, or null */
  pending(): Promise<Pending | null> {
    return this.read(m.pendingQuery);
  }
  /** the agent's decision contracts for this mission's input */
  decisions(): Promise<DecisionContract[]> {
    return this.read(m.decisionsQuery);
  }
  /** the journal in commit order, with its version */
  journal(): Promise<{ version: number; entries: JournalEntries }> {
    return this.read(m.journalQuery);
  }
  summaries(): Promise<Record<string, string>> {
    return this.read(m.summariesQuery);
  }
  /** the plan checklist as the model sees it */
  progress(): Promise<string> {
    return this.read(m.progressQuery);
  }
  /**
   * Status, journal, ledger, progress, summaries and decisions at once: from history for a
   * closed mission (one replay answers all), else one query (a worker older than that
   * query answers them one by one).
   */
  async overview(): Promise<MissionOverview> {
    // a stand-in handle without its client (tests): asked directly
    if (!this.workflow.client) return this.workflow.query(m.overviewQuery);
    const reader = this.reader();
    const description = await reader.describe(this.id);
    if (isClosed(description)) return overviewOf(await reader.fromHistory(this.id, description));
    try {
      return (await reader.read(this.id, [m.overviewQuery.name], description)).answers[0] as MissionOverview;
    } catch (err) {
      if (!(err instanceof QueryNotRegisteredError)) throw err;
      const [status, journal, ledger, progress, summaries, decisions] = (
        await reader.read(this.id, OVERVIEW_PARTS, description)
      ).answers as never[];
      return { status, journal, ledger, progress, summaries, decisions };
    }
  }
  /**
   * What the history of its latest run holds, replayed here whether it runs or not (no
   * worker involved): for a running mission whose worker is gone, the state at its last
   * workflow task. `at` is that task's event id.
   */
  async overviewFromHistory(): Promise<MissionOverview & { at: number; temporalStatus: string }> {
    const state = await this.reader().fromHistory(this.id);
    return { ...overviewOf(state), at: state.at, temporalStatus: state.temporalStatus };
  }
  /** every tool call */
  ledger(): Promise<LedgerEntry[]> {
    return this.read(m.ledgerQuery);
  }
  /** the journal as the Mission Log the model sees */
  missionLog(): Promise<string> {
    return this.read(m.missionLogQuery);
  }
  /** the decisions people made, as the workflow accepted them (from history: who, the value, when) */
  decided(): Promise<AcceptedUpdate[]> {
    return acceptedUpdates(this.historyClient(), this.id, [m.decideUpdate.name]);
  }

  /** Writes `value` for decision `key` (validated against the agent's contract). */
  decide(key: string, value: Json, opts: DecideOptions = {}): Promise<m.Ack> {
    return this.update(m.decideUpdate, { key, value, ...opts });
  }
  /** The agent's approve value for `key` (default: the pending decision). */
  approve(opts: DecideOptions & { key?: string } = {}): Promise<{ key: string; value: Json }> {
    return this.verdict('approve', opts);
  }
  /** The agent's reject value for `key` (default: the pending decision). */
  reject(opts: DecideOptions & { key?: string } = {}): Promise<{ key: string; value: Json }> {
    return this.verdict('reject', opts);
  }
  /**
   * Approves an effect waiting for a person (default: the only one waiting). The approval
   * is bound to the args it was given for; their hash is recorded for the audit.
   */
  approveEffect(opts: EffectVerdictOptions & { note?: string } = {}): Promise<{ key: string; approved: boolean }> {
    return this.effectVerdict(true, opts);
  }
  /** Denies a waiting effect: the program gets the tool's error with `reason`. */
  denyEffect(reason: string, opts: EffectVerdictOptions = {}): Promise<{ key: string; approved: boolean }> {
    return this.effectVerdict(false, { ...opts, note: reason });
  }

  /** A person's journal entry; it wins over the Navigator's own commit. */
  write(key: string, value: Json): Promise<m.Ack> {
    return this.update(m.writeJournalUpdate, { key, value });
  }
  /** Forgets a task so the next pass runs it again. */
  resetTask(key: string): Promise<m.Ack> {
    return this.update(m.resetTaskUpdate, { key });
  }
  /** Stops the mission at its next safe point. */
  cancel(reason?: string): Promise<m.Ack> {
    return this.update(m.cancelUpdate, reason ? { reason } : {});
  }

  /** The validated return value; a failed or cancelled mission rejects with its failure. */
  result(): Promise<Json> {
    return this.workflow.result();
  }

  /** A readable timeline from Temporal history (passes, tasks, tools, decisions), with event ids. */
  async timeline(): Promise<TimelineLine[]> {
    return timeline(await fetchChain(this.historyClient(), this.id));
  }

  /**
   * Cross-checks the mission against Temporal history (see src/audit). The audit replays
   * with @temporalio/worker, loaded here on first use: importing the client (every CLI
   * command, every service that starts missions) does not pay for it (about 0.8 s).
   */
  async audit(opts: AuditOptions = {}): Promise<AuditReport> {
    const { auditMission } = await import('../../audit/mission/audit.ts');
    return auditMission(this.historyClient(), this.id, opts);
  }

  /** The reader this handle reads through: one per Temporal client (src/history/reader.ts). */
  reader(): RunReader {
    return readerOf(this.workflow.client);
  }

  private async read<T>(def: QueryDefinition<T, []>): Promise<T> {
    // a stand-in handle without its client (tests): asked directly
    if (!this.workflow.client) return this.workflow.query(def);
    return (await this.reader().read(this.id, [def.name])).answers[0] as T;
  }

  private historyClient(): Client {
    if (!this.client)
      throw new Error(`mission ${this.id}: reading its history needs the Temporal client (getMission(client, id))`);
    return this.client;
  }

  private async verdict(
    kind: 'approve' | 'reject',
    opts: DecideOptions & { key?: string },
  ): Promise<{ key: string; value: Json }> {
    const key = opts.key ?? (await this.pending())?.key;
    if (!key) throw new MissionRejected(`mission ${this.id} is not waiting for a decision; name the key`);
    const contract = (await this.decisions()).find((d) => d.key === key);
    const value = kind === 'approve' ? contract?.approveValue : contract?.rejectValue;
    if (value === undefined || value === null)
      throw new MissionRejected(`decision ${key} has no ${kind} value; decide it with a value of its contract`);
    const refused = roleProblem(contract?.approvers, opts.role, `decision ${key}`);
    if (refused) throw new MissionRejected(refused);
    await this.decide(key, value, { by: opts.by, note: opts.note, ...(opts.role ? { role: opts.role } : {}) });
    return { key, value };
  }

  private async effectVerdict(
    approved: boolean,
    opts: EffectVerdictOptions & { note?: string },
  ): Promise<{ key: string; approved: boolean }> {
    const waiting = (await this.status()).effectApprovals ?? [];
    const effect = opts.key === undefined ? waiting[0] : waiting.find((e) => e.key === opts.key);
    if (!effect)
      throw new MissionRejected(
        opts.key === undefined
          ? `mission ${this.id} has no effect waiting for approval`
          : `no effect ${opts.key} waits for approval in mission ${this.id}`,
      );
    if (opts.key === undefined && waiting.length > 1)
      throw new MissionRejected(
        `${waiting.length} effects wait for approval (${waiting.map((e) => e.key).join(', ')}): name one`,
      );
    const changed = shownArgsProblem(`effect ${effect.key}`, opts.argsHash, effect.args);
    if (changed) throw new MissionRejected(changed);
    const refused = roleProblem(effect.approvers, opts.role, `effect ${effect.key} (${effect.tool})`);
    if (refused) throw new MissionRejected(refused);
    const verdict = {
      key: effect.key,
      approved,
      argsHash: valueHash(effect.args),
      ...(opts.by ? { by: opts.by } : {}),
      ...(opts.note ? { note: opts.note } : {}),
      ...(opts.role ? { role: opts.role } : {}),
    };
    return this.update(m.approveEffectUpdate, verdict);
  }

  /** Sends an update by its definition: the result keeps the definition's type. */
  private async update<Ret, Arg>(def: UpdateDefinition<Ret, [Arg]>, arg: Arg): Promise<Ret> {
    try {
      return await this.workflow.executeUpdate(def, { args: [arg] });
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError)
        throw new MissionRejected(err.cause instanceof Error ? err.cause.message : err.message);
      throw err;
    }
  }
}
