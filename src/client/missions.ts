/**
 * The programmatic client for missions: start one, read where it stands, and act on it
 * through the workflow's validated updates. The CLI and the web console are thin users
 * of this module, so there is one way to read a mission and one way to send a decision.
 *
 * ```ts
 * const mission = await startMission(client, { agent: 'wire-transfer', input: { recipient: 'bob', amount: 5000 }, taskQueue: 'navigator' });
 * const settled = await mission.settle();            // waits until it waits or ends
 * await mission.verdict('approve', { by: 'ana' });   // the agent's approve value for the pending decision
 * await mission.decide('manager_decision_bob_5000', 'approved', { by: 'ana', note: 'ok' });
 * ```
 */
import { WorkflowFailedError, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { fetchChain } from '../audit/history.ts';
import { timeline, type TimelineLine } from '../audit/timeline.ts';
import type { AuditOptions, AuditReport } from '../audit/index.ts';
import { type Json, MissionInput, type StatusView } from '../workflows/contract.ts';
import * as m from '../workflows/messages.ts';

export const MISSION_WORKFLOW = 'navigatorMission';

/** Mission statuses in which nothing happens until a person acts or which are final. */
const SETTLED = new Set(['waiting', 'completed', 'failed', 'cancelled', 'budget_exhausted']);
const CLOSED = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED', 'TIMED_OUT', 'CONTINUED_AS_NEW']);

/** No workflow with this id. */
export class MissionNotFound extends Error {
  override readonly name = 'MissionNotFound';
  constructor(readonly workflowId: string) {
    super(`no mission with id ${workflowId}`);
  }
}

/** The id names a workflow that is not a mission (a plan, for instance). */
export class NotAMission extends Error {
  override readonly name = 'NotAMission';
  constructor(
    readonly workflowId: string,
    readonly workflowType: string,
  ) {
    super(workflowType === 'planExecution' ? `${workflowId} is a plan, not a mission: use \`navigator plan show ${workflowId}\`` : `${workflowId} is not a mission (it is a ${workflowType} workflow)`);
  }
}

/** The mission has closed: nothing can be sent to it any more. */
export class MissionClosed extends Error {
  override readonly name = 'MissionClosed';
  constructor(
    readonly workflowId: string,
    readonly status?: string,
  ) {
    super(`mission ${workflowId} has already finished${status ? ` (${status.toLowerCase()})` : ''}`);
  }
}

/** There is no decision to approve or reject: none pending, or the contract has no such value. */
export class NoVerdict extends Error {
  override readonly name = 'NoVerdict';
}

/** The workflow's validator refused an update; nothing changed. `message` is the validator's. */
export class MissionRejected extends Error {
  override readonly name = 'MissionRejected';
}

/** Where a mission stands: its own status view, and how it ended once it has closed. */
export interface Settled {
  status: StatusView | null;
  /** set once the workflow has closed */
  closed: { status: string; result?: unknown; failure?: string } | null;
}

export interface DecideOptions {
  /** who decided, recorded with the decision */
  by?: string;
  note?: string;
}

export const StartMissionOptions = z.object({
  agent: z.string().min(1),
  input: z.unknown().default({}),
  taskQueue: z.string().min(1),
  /** workflow id @default `<agent>-<random>` */
  id: z.string().min(1).optional(),
  /** a Keyword search attribute kept set to the status (must be registered) */
  statusSearchAttribute: z.string().optional(),
});
export type StartMissionOptions = z.input<typeof StartMissionOptions>;

const issueText = (e: z.ZodError) => e.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ');

/** Starts a mission after checking its input against the workflow contract. */
export async function startMission(client: Client, opts: StartMissionOptions): Promise<MissionHandle> {
  const o = StartMissionOptions.parse(opts);
  const mission = { agent: o.agent, input: o.input as Json, ...(o.statusSearchAttribute ? { options: { statusSearchAttribute: o.statusSearchAttribute } } : {}) };
  const parsed = MissionInput.safeParse(mission);
  if (!parsed.success) throw new MissionRejected(`invalid mission: ${issueText(parsed.error)}`);
  const id = o.id ?? `${o.agent}-${randomBytes(4).toString('hex')}`;
  const handle = await client.workflow
    .start(MISSION_WORKFLOW, {
      taskQueue: o.taskQueue,
      workflowId: id,
      args: [mission],
      staticSummary: `Navigator mission: ${o.agent}`,
      staticDetails: `Agent **${o.agent}**\n\nInput:\n\`\`\`json\n${JSON.stringify(o.input, null, 2)}\n\`\`\``,
    })
    .catch((err: Error) => {
      throw new MissionRejected(/already/i.test(err.message) ? `a mission with id ${id} already exists` : err.message);
    });
  return new MissionHandle(client, handle);
}

export function getMission(client: Client, id: string): MissionHandle {
  return new MissionHandle(client, client.workflow.getHandle(id));
}

/** One mission workflow: queries, the validated updates, settling, history and audit. */
export class MissionHandle {
  constructor(
    readonly client: Client,
    readonly workflow: WorkflowHandle,
  ) {}

  get id(): string {
    return this.workflow.workflowId;
  }

  /**
   * Checks that the id names a mission and returns its Temporal status name
   * (`RUNNING`, `COMPLETED`, ...). With `running: true` a closed mission is refused.
   */
  async check(opts: { running?: boolean } = {}): Promise<string> {
    let d;
    try {
      d = await this.workflow.describe();
    } catch (err) {
      throw err instanceof WorkflowNotFoundError ? new MissionNotFound(this.id) : err;
    }
    if (d.type !== MISSION_WORKFLOW) throw new NotAMission(this.id, d.type);
    if (opts.running && d.status.name !== 'RUNNING') throw new MissionClosed(this.id, d.status.name);
    return d.status.name;
  }

  status() {
    return this.workflow.query(m.statusQuery);
  }
  pending() {
    return this.workflow.query(m.pendingQuery);
  }
  /** the agent's decision contracts for this mission's input */
  decisions() {
    return this.workflow.query(m.decisionsQuery);
  }
  /** the journal in commit order */
  journal() {
    return this.workflow.query(m.journalQuery);
  }
  missionLog() {
    return this.workflow.query(m.missionLogQuery);
  }
  /** the plan checklist with step summaries, as text */
  progress() {
    return this.workflow.query(m.progressQuery);
  }
  ledger() {
    return this.workflow.query(m.ledgerQuery);
  }

  /** How the workflow ended (result or failure message), or null while it runs or continues as new. */
  closed(): Promise<Settled['closed']> {
    return closedState(this.workflow);
  }

  /** Polls until the mission waits or ends (or `timeoutMs` passes); `timeoutMs: 0` reads once. */
  settle(opts: { untilClosed?: boolean; timeoutMs?: number; onStatus?: (s: StatusView) => void } = {}): Promise<Settled> {
    return settle(this.workflow, opts);
  }

  /** Writes a decision value through the validated `decide` update. */
  decide(key: string, value: Json, opts: DecideOptions = {}): Promise<m.Ack> {
    return this.update(m.decideUpdate, { key, value, ...definedOnly(opts) });
  }

  /**
   * Writes the agent's approve or reject value for `key` (default: the pending decision).
   * Returns the key and value written.
   */
  async verdict(kind: 'approve' | 'reject', opts: DecideOptions & { key?: string } = {}): Promise<{ key: string; value: Json }> {
    const key = opts.key ?? (await this.pending())?.key;
    if (!key) throw new NoVerdict(`mission ${this.id} is not waiting for a decision; name the KEY`);
    const contract = (await this.decisions()).find((d) => d.key === key);
    const value = kind === 'approve' ? contract?.approveValue : contract?.rejectValue;
    if (value === undefined || value === null) {
      throw new NoVerdict(`decision ${key} has no ${kind} value; use \`navigator decide ${this.id} ${key} VALUE_JSON\``);
    }
    await this.decide(key, value, { by: opts.by, note: opts.note });
    return { key, value };
  }

  /** Writes a journal entry (a person's value wins over the Navigator's). */
  write(key: string, value: Json): Promise<m.Ack> {
    return this.update(m.writeJournalUpdate, { key, value });
  }
  /** Removes a task from the journal so the next pass runs it again. */
  resetTask(key: string): Promise<m.Ack> {
    return this.update(m.resetTaskUpdate, { key });
  }
  /** Stops the mission at its next safe point. */
  cancel(reason?: string): Promise<m.Ack> {
    return this.update(m.cancelUpdate, reason === undefined ? {} : { reason });
  }

  /** A readable timeline from Temporal history (whole continue-as-new chain), with event ids. */
  async timeline(): Promise<TimelineLine[]> {
    return timeline(await this.history());
  }

  /** Rebuilds the journal from history, compares it, checks effects ran once, replays. */
  async audit(opts: AuditOptions = {}): Promise<AuditReport> {
    const { auditMission } = await import('../audit/index.ts');
    return auditMission(this.client, this.id, opts).catch((err) => Promise.reject(notFound(err, this.id)));
  }

  private history() {
    return fetchChain(this.client, this.id).catch((err) => Promise.reject(notFound(err, this.id)));
  }

  /** Sends an update; the validator's refusal becomes a {@link MissionRejected}. */
  private async update<A>(def: { name: string }, arg: A): Promise<m.Ack> {
    try {
      return (await this.workflow.executeUpdate(def.name, { args: [arg] })) as m.Ack;
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) {
        const cause = err.cause as Error | undefined;
        throw new MissionRejected(cause?.message ?? err.message);
      }
      // The update found no running workflow: it closed meanwhile (or never existed).
      if (err instanceof WorkflowNotFoundError) throw new MissionClosed(this.id);
      throw err;
    }
  }
}

const definedOnly = <T extends object>(o: T): Partial<T> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

const notFound = (err: unknown, id: string): unknown => (err instanceof WorkflowNotFoundError ? new MissionNotFound(id) : err);

/** Polls until the workflow waits or ends (or `timeoutMs` passes). */
export async function settle(handle: WorkflowHandle, opts: { untilClosed?: boolean; timeoutMs?: number; onStatus?: (s: StatusView) => void } = {}): Promise<Settled> {
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    const closed = await closedState(handle);
    const status = await handle.query(m.statusQuery).catch(() => null);
    if (status) opts.onStatus?.(status);
    if (closed) return { status, closed };
    if (!opts.untilClosed && status && SETTLED.has(status.status)) return { status, closed: null };
    if (Date.now() > deadline) return { status, closed: null };
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** How a workflow ended (result or failure message), or null while it runs or continues as new. */
export async function closedState(handle: WorkflowHandle): Promise<Settled['closed']> {
  const d = await handle.describe();
  if (!CLOSED.has(d.status.name) || d.status.name === 'CONTINUED_AS_NEW') return null;
  try {
    return { status: d.status.name, result: await handle.result() };
  } catch (err) {
    const cause = err instanceof WorkflowFailedError ? err.cause : err;
    return { status: d.status.name, failure: cause instanceof Error ? cause.message : String(cause) };
  }
}

export const ListMissionsOptions = z.object({
  /** only missions in this Navigator status (needs the status search attribute) */
  status: z.string().optional(),
  /** the Keyword search attribute that holds the status @default NavigatorStatus */
  statusAttribute: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).default('NavigatorStatus'),
  /** extra visibility filter, e.g. `ExecutionStatus = 'Running'` */
  query: z.string().optional(),
  /** at most this many @default 50 */
  limit: z.number().int().positive().default(50),
  /** the workflow type to list @default navigatorMission */
  workflowType: z.string().default(MISSION_WORKFLOW),
});
export type ListMissionsOptions = z.input<typeof ListMissionsOptions>;

export interface MissionRow {
  workflowId: string;
  /** Temporal's execution status: RUNNING, COMPLETED, ... */
  status: string;
  startTime: string;
  closeTime: string | null;
}

/** Missions on the cluster, newest first, through visibility. */
export async function listMissions(client: Client, opts: ListMissionsOptions = {}): Promise<MissionRow[]> {
  const o = ListMissionsOptions.parse(opts);
  const byStatus = o.status ? `${o.statusAttribute} = '${o.status.replace(/'/g, "\\'")}'` : undefined;
  const query = [`WorkflowType = '${o.workflowType}'`, byStatus, o.query].filter(Boolean).join(' AND ');
  const rows: MissionRow[] = [];
  for await (const w of client.workflow.list({ query })) {
    rows.push({ workflowId: w.workflowId, status: w.status.name, startTime: w.startTime.toISOString(), closeTime: w.closeTime?.toISOString() ?? null });
    if (rows.length >= o.limit) break;
  }
  return rows;
}
