/**
 * The mission's contract with the outside world: workflow input, messages (signals,
 * updates, queries) and the activity payloads. Pure zod, safe in the workflow sandbox;
 * the client, the worker and the activities import the same definitions.
 */
import { z } from 'zod';
import type { EffectRequest } from '../../lisp/api.ts';
import type { JsonPatch } from '../../kernel/json-patch.ts';

import { DEFAULT_HEARTBEAT_MS, DEFAULT_TOOL_MS, type EffectResult, type Json } from '../../kernel/contract.ts';
import { DecisionWords, FailedAttempt, JsonValue, ResultUnavailable, SideEffectClass } from '../../kernel/schemas.ts';

export type { Json } from '../../kernel/contract.ts';
export { JsonValue } from '../../kernel/schemas.ts';

/** Journal entries in commit order. Arrays, not objects: object keys like "1" reorder. */
export const JournalEntries = z.array(z.tuple([z.string().min(1), JsonValue]));
export type JournalEntries = z.infer<typeof JournalEntries>;

const positiveInt = z.number().int().positive();

export const Budgets = z.object({
  /** wall-clock time of the whole mission, across waits */
  wallClockMs: positiveInt.optional(),
  passes: positiveInt.optional(),
  toolCalls: positiveInt.optional(),
  tokens: positiveInt.optional(),
});
export type Budgets = z.infer<typeof Budgets>;

export const ApprovalOptions = z.object({
  /** how long a waiting mission waits for a decision; none = forever */
  timeoutMs: positiveInt.optional(),
  /** at the deadline: write the decision's expiry value, or fail the mission
   *  @default the agent's contract: its expiry value when it has one, else fail */
  onTimeout: z.enum(['expiry_value', 'fail']).optional(),
});

export { DEFAULT_HEARTBEAT_MS } from '../../kernel/contract.ts';

export const ActivityTimeouts = z.object({
  /** longest a pass may run (several turns, each a model answer of up to 10 minutes) @default 60 minutes */
  passMs: positiveInt.default(60 * 60_000),
  /** longest one tool call may run @default 5 minutes */
  toolMs: positiveInt.default(DEFAULT_TOOL_MS),
  /**
   * a pass or tool whose worker stops heartbeating this long is retried elsewhere @default 5 s
   * (the same for plan steps; see DEFAULT_HEARTBEAT_MS)
   */
  heartbeatMs: positiveInt.default(DEFAULT_HEARTBEAT_MS),
});

export const MissionOptions = z.object({
  /** passes that may end in an error before the mission fails @default 5 */
  maxPasses: positiveInt.default(5),
  approval: ApprovalOptions.prefault({}),
  budgets: Budgets.prefault({}),
  /** continue-as-new once history has this many events @default 2000 */
  continueAsNewAfterEvents: positiveInt.default(2000),
  timeouts: ActivityTimeouts.prefault({}),
  /**
   * A Keyword search attribute to keep set to the mission status (`waiting`,
   * `completed`, ...), so `list` can filter on it. It must be registered on the namespace
   * (`temporal operator search-attribute create --name NavigatorStatus --type Keyword`).
   */
  statusSearchAttribute: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a search attribute name')
    .optional(),
});
export type MissionOptions = z.infer<typeof MissionOptions>;

export const LedgerEntry = z.object({
  /** sequence number in the mission, 1-based */
  seq: z.number().int(),
  pass: z.number().int(),
  taskId: z.string().nullable(),
  tool: z.string(),
  sideEffect: SideEffectClass,
  idempotencyKey: z.string(),
  status: z.enum(['running', 'completed', 'failed']),
  attempts: z.number().int(),
  result: JsonValue.optional(),
  /** a large read's result is not kept in the ledger: its size (JSON characters) and start instead */
  resultChars: z.number().int().optional(),
  resultPreview: z.string().optional(),
  error: z.string().optional(),
  /** the effect ran but its result could not be kept: `result` is then the marker the program saw */
  unavailable: ResultUnavailable.optional(),
  /** the attempts before the last that failed, each with its error: why it was retried */
  failedAttempts: z.array(FailedAttempt).optional(),
  /** `runTool` activity id, or `pass-N` for tools run inline by the pass */
  activity: z.string(),
});
export type LedgerEntry = z.infer<typeof LedgerEntry>;

/** The program line that asked for an effect: what a person approving it reads. */
export const CallSite = z.object({ line: z.number().int(), text: z.string() });

/** One effect waiting for a person's approval, as `status` and the console show it. */
export const PendingApproval = z.object({
  /** the effect's idempotency key: what approve/deny name */
  key: z.string(),
  tool: z.string(),
  taskId: z.string().nullable(),
  /** the args exactly as the effect will receive them */
  args: JsonValue,
  /** the program line that asked for it (absent in missions recorded before it was kept) */
  call: CallSite.optional(),
  /** the roles allowed to approve it (absent: anyone who may send updates) */
  approvers: z.array(z.string()).optional(),
  since: z.string(),
  deadline: z.string().nullable(),
});
export type PendingApproval = z.infer<typeof PendingApproval>;

/** A person's verdict on a waiting effect (the approveEffect update's argument). */
export const ApprovalVerdict = z.object({
  key: z.string().min(1),
  approved: z.boolean(),
  by: z.string().optional(),
  /** a note with an approval, the reason of a denial */
  note: z.string().optional(),
  /** the hash of the args the person saw (computed by the client), checked by the audit */
  argsHash: z.string().optional(),
  /** the role the person acts with (one of the effect's approvers, when it names them) */
  role: z.string().optional(),
});
export type ApprovalVerdict = z.infer<typeof ApprovalVerdict>;

/** Every approval and denial of an effect, kept for people and the audit. */
export const ApprovalRecord = z.object({
  key: z.string(),
  tool: z.string(),
  taskId: z.string().nullable(),
  args: JsonValue,
  call: CallSite.optional(),
  outcome: z.enum(['approved', 'denied', 'expired']),
  by: z.string().nullable(),
  note: z.string().nullable(),
  argsHash: z.string().nullable(),
  /** the roles that were allowed to give it (absent: anyone) */
  approvers: z.array(z.string()).optional(),
  /** the role the verdict was given with (absent: none named) */
  role: z.string().optional(),
  at: z.string(),
});
export type ApprovalRecord = z.infer<typeof ApprovalRecord>;

/** Everything carried across continue-as-new. */
export const CarriedState = z.object({
  journal: JournalEntries,
  journalVersion: z.number().int(),
  summaries: z.record(z.string(), z.string()),
  ledger: z.array(LedgerEntry),
  passes: z.number().int(),
  errorPasses: z.number().int(),
  lastError: z.string().nullable(),
  toolCalls: z.number().int(),
  tokens: z.number().int(),
  startedAtMs: z.number(),
  chain: z.array(z.string()),
  /** approvals of effects: an approval holds across runs for the same task and args */
  approvals: z.array(ApprovalRecord).optional(),
});
export type CarriedState = z.infer<typeof CarriedState>;

export const MissionInput = z.object({
  agent: z.string().min(1),
  input: JsonValue.default({}),
  /** initial journal, for a mission that continues earlier work */
  journal: z.union([JournalEntries, z.record(z.string(), JsonValue)]).optional(),
  options: MissionOptions.prefault({}),
  /** logical run id shared by the whole continue-as-new chain; default: the workflow id */
  runId: z.string().min(1).optional(),
  /** set by the workflow itself when it continues as new (and by `resume`, to seed a new mission) */
  carried: CarriedState.optional(),
  /** the mission this one restarts from its journal (`navigator resume`) */
  resumedFrom: z.object({ workflowId: z.string().min(1), runId: z.string().min(1) }).optional(),
});
export type MissionInput = z.input<typeof MissionInput>;
export type ParsedMissionInput = z.output<typeof MissionInput>;

// ---------------------------------------------------------------- messages

/** A person's decision sent to a waiting mission (the `decide` update's argument); the declared decision is DecisionContract. */
export const DecisionVerdict = z.object({
  key: z.string().min(1),
  value: JsonValue,
  by: z.string().optional(),
  note: z.string().optional(),
  /** the role the person decides with (one of the decision's approvers, when it names them) */
  role: z.string().optional(),
});
export type DecisionVerdict = z.infer<typeof DecisionVerdict>;
/** @deprecated the old name of {@link DecisionVerdict} (`Decision` is the declared decision of src/navigator) */
export const Decision = DecisionVerdict;
/** @deprecated the old name of {@link DecisionVerdict} */
export type Decision = DecisionVerdict;

export const JournalWrite = z.object({ key: z.string().min(1), value: JsonValue });
export const TaskReset = z.object({ key: z.string().min(1) });
export const CancelRequest = z.object({ reason: z.string().default('cancelled') });

export const MISSION_STATUSES = [
  'starting',
  'running',
  'waiting',
  'completed',
  'failed',
  'cancelled',
  'budget_exhausted',
] as const;
export type MissionStatus = (typeof MISSION_STATUSES)[number];

/** What a waiting mission waits for. */
export interface Pending {
  key: string;
  allowed: Json[] | null;
  since: string;
  deadline: string | null;
  onTimeout: 'expiry_value' | 'fail' | null;
}

/**
 * What a mission page shows, in one query: each query of a closed run replays its whole
 * history on a worker, so one answer instead of six is what makes the page of a long,
 * finished mission open quickly.
 */
export interface MissionOverview {
  status: StatusView;
  journal: { version: number; entries: JournalEntries };
  ledger: LedgerEntry[];
  /** the checklist as the model sees it */
  progress: string;
  summaries: Record<string, string>;
  decisions: DecisionContract[];
}

export interface StatusView {
  workflowId: string;
  runId: string;
  agent: string;
  status: MissionStatus;
  passes: number;
  pending: Pending | null;
  journalSize: number;
  budgets: { used: { passes: number; toolCalls: number; tokens: number; wallClockMs: number }; limits: Budgets };
  result?: Json;
  error?: string;
  rejectedSignals: Array<{ signal: string; reason: string }>;
  /** the mission this one was restarted from */
  resumedFrom?: { workflowId: string; runId: string };
  /** the agent input the mission runs with (what a decision is about) */
  input?: Json;
  /** effects waiting for a person's approval */
  effectApprovals: PendingApproval[];
  /** every approval and denial of an effect so far */
  approvals: ApprovalRecord[];
  /**
   * the effects run so far, newest last (at most the last 20): what the mission already did
   * out in the world, which the journal does not show until the pass that ran them commits
   * its tasks (absent from readers of older workers)
   */
  effectsDone?: EffectDone[];
}

/** One effect a mission ran (or runs now), as `status` shows it: a ledger entry without its result. */
export interface EffectDone {
  seq: number;
  pass: number;
  tool: string;
  taskId: string | null;
  /** the idempotency key: joins an approval record (which has the args) */
  key: string;
  status: LedgerEntry['status'];
}

// ---------------------------------------------------------------- activities

/** One external-decision contract, made concrete for the mission's input. */
export const DecisionContract = z
  .object({
    key: z.string(),
    description: z.string(),
    /** the allowed values when the schema enumerates them; null accepts any JSON */
    allowed: z.array(JsonValue).nullable(),
    /** what `navigator approve` / `reject` write; null when the schema has no such value */
    approveValue: JsonValue,
    rejectValue: JsonValue,
    /** after this long without a decision, `expiryValue` is written; null waits forever */
    timeoutMs: z.number().int().positive().nullable(),
    expiryValue: JsonValue,
    /** the agent's own words for Approve and Reject, when its decision gives them */
    /** the roles allowed to decide it (absent: anyone who may send updates) */
    approvers: z.array(z.string()).optional(),
  })
  .extend(DecisionWords.shape);
export type DecisionContract = z.infer<typeof DecisionContract>;

/** What an agent tells the workflow about itself, once per run. */
export const AgentDescription = z.object({
  name: z.string(),
  plan: z.array(z.object({ id: z.string(), description: z.string() })),
  decisions: z.array(DecisionContract),
  tools: z.record(z.string(), SideEffectClass),
  /** tools whose calls wait for a person's approval (absent in histories from before approvals) */
  approvals: z.array(z.string()).optional(),
  /** the roles allowed to approve a gated tool's calls, by tool (absent: anyone; and in histories from before roles) */
  approvers: z.record(z.string(), z.array(z.string())).optional(),
});
export type AgentDescription = z.infer<typeof AgentDescription>;

export interface PassRequest {
  agent: string;
  pass: number;
  /** the journal version the activity reads (in `context`, else at least this one by query) */
  journalVersion: number;
  /** true when resuming the pass after its effects ran */
  resume: boolean;
  /** suspensions of this pass so far: the suspended state the activity must read */
  step?: number;
  /** what the activity reads, given instead of asked for by query when small (src/workflows/mission/pass-context.ts) */
  context?: PassContextInput;
}

/**
 * A journal change, in commit order: a person's write (`s`), a deletion (`d`), or a commit
 * of the step named as base (`c`: its value is in that step's result, not repeated).
 */
export type JournalOp = ['s', string, Json] | ['d', string] | ['c', string];

/**
 * The context of a pass step in its input: whole, or as what changed since the context the
 * step answered before it (`base`, its `ref`) read, for the worker that ran that step.
 */
export type PassContextInput =
  /** whole: the keys at their defaults left out (src/workflows/mission/pass-context.ts), most of a first step's */
  | { full: Partial<PassContext> }
  | {
      base: string;
      /** journal changes since the journal the base step read (absent: none) */
      journal?: JournalOp[];
      /** a new pass: the error the last pass ended in */
      lastError?: string | null;
      /** a new pass: the result shapes, when they differ from the base step's */
      toolShapes?: Record<string, string>;
      /** a resumed step: the results of the base step's effects, as [index in its effects, result], in the order they settled */
      settled?: Array<[number, EffectResult]>;
    };

/** An external tool call a pass stopped at; the interpreter defines it. */
export type { EffectRequest };

/** An effect as the pass activity returns it: `id` left out when it is the idempotency key. */
export type WireEffect = Omit<EffectRequest, 'id'> & { id?: string };

export interface InlineToolCall {
  tool: string;
  taskId: string | null;
  idempotencyKey: string;
  sideEffect: SideEffectClass;
  result?: Json;
  error?: string;
  /**
   * the step of the pass it ran in: 0 before the first effects, n after the nth batch of
   * effects (the ledger lists it among them in that order; absent before it was recorded)
   */
  step?: number;
}

export type PassOutcome =
  { kind: 'return'; value: Json } | { kind: 'fail'; value: Json } | { kind: 'error'; message: string };

/** The journal a pass step read: its version and a hash of its entries (src/history/hash.ts). */
export interface JournalRead {
  version: number;
  hash: string;
  /** how the entries were ordered for the hash; absent: commit order (the first recordings) */
  order?: 'key';
}

/** What a turn's program gave, as the pass recorded it for the audit's value replay. */
export type RecordedTurnResult =
  | { status: 'ok'; value: string }
  | { status: 'return' | 'fail' | 'invalid_return' }
  | { status: 'error'; error: string };

/**
 * A turn's program as recorded in the pass result. `code` is absent when the pass's last
 * suspended state in history holds it (`cut`: left out to keep the result small).
 */
export interface RecordedProgram {
  turn: number;
  code?: string;
  cut?: true;
  result: RecordedTurnResult | null;
}

export type PassResponse =
  /**
   * The pass stopped at external effects. `patch` turns the suspended state the activity
   * read (null on the first step) into the new one (src/kernel/json-patch.ts), so history
   * keeps each change once; `state` (whole) is what workers before patches returned.
   */
  | { kind: 'effects'; effects: WireEffect[]; patch?: JsonPatch; state?: Json; journalRead?: JournalRead; ref?: string }
  | {
      kind: 'done';
      outcome: PassOutcome;
      /** the journal version the pass read; commits to keys written later by a person lose */
      basedOnVersion: number;
      journalDelta: JournalEntries;
      resets: string[];
      summaries: Record<string, string>;
      /** tools the pass ran itself (not external effects), over all its turns */
      toolCalls: InlineToolCall[];
      /** model tokens the whole pass used */
      tokens: number;
      /** the journal this step read (absent in histories written before it) */
      journalRead?: JournalRead;
      /** every turn's program and what it gave, for the audit's value replay (absent before it) */
      programs?: RecordedProgram[];
      /** the agent input the programs saw (`data/`), when the agent's schema made it differ from the mission's */
      programInput?: Json;
      /** names this step's context and answer on the worker that ran it: the next step's `context.base` */
      ref?: string;
    };

/** What the pass activity reads from the workflow: in its input (`PassRequest.context`) or by query. */
export interface PassContext {
  journalVersion: number;
  journal: JournalEntries;
  summaries: Record<string, string>;
  input: Json;
  lastError: string | null;
  runId: string;
  /** present while a pass is suspended on effects */
  passState: Json | null;
  /** suspensions of the current pass so far (the version of `passState`) */
  passStep?: number;
  /** results of this pass's effects so far, by effect id */
  effectResults: Record<string, EffectResult>;
  /** result shapes learned from earlier calls, by tool (shown for tools without `output`) */
  toolShapes?: Record<string, string>;
}

export type { EffectResult };

export interface ToolRequest {
  agent: string;
  tool: string;
  args: Json;
  idempotencyKey: string;
  taskId: string | null;
  /** the mission's logical run id (for traces; absent in histories written before it) */
  runId?: string;
}

/** What the `runTool` activity answers. */
export interface ToolResponse {
  result: Json;
  /** the attempt that answered */
  attempt: number;
  /** the attempts before it, each with its error (absent when the first attempt answered) */
  failedAttempts?: FailedAttempt[];
  /** the tool ran but its result could not be kept (`result` is the marker the program sees) */
  unavailable?: ResultUnavailable;
}

/**
 * The mission's activities as its workflow calls them. The workflow is typed by this
 * contract, not by the activities' module (src/activities/index.ts implements it and is
 * checked against it), so workflow code imports nothing from src/activities.
 */
export interface MissionActivities {
  describeAgent(req: { agent: string; input: Json }): Promise<AgentDescription>;
  runPass(req: PassRequest): Promise<PassResponse>;
  runTool(req: ToolRequest): Promise<ToolResponse>;
}
