/**
 * The programmatic client for plans: start a plan workflow, then review, approve and
 * follow it through one handle. The CLI is a thin user of this module.
 *
 * ```ts
 * const plan = await startPlan(client, { agent: 'workspace', request: 'bump the version', taskQueue: 'navigator' });
 * await plan.edit({ kind: 'edit', stepId: 'write_config', args: {...} });
 * await plan.approve();
 * await plan.approveStep('write_config', { by: 'ana' });
 * const summary = await plan.result();
 * ```
 */
import { valueHash } from '../../history/hash.ts';
import { WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, type QueryDefinition, type UpdateDefinition } from '@temporalio/common';
import { type RunReader, answerOf, readerOf } from '../../history/reader.ts';
import { z } from 'zod';
import { PlanDocument, PlanOptions, type PlanProblem } from '../../plans/schema.ts';
import { checkParams } from '../../plans/params.ts';
import { tooManyStepsProblem } from '../../plans/limits.ts';
import { formatProblems } from '../../plans/validate.ts';
import {
  type AnswerAck,
  type ExecutionSummary,
  type Json,
  type Plan,
  type PlanAck,
  PlanInput,
  type PlanLedgerEntry,
  type PlanStatusView,
  type PlanVersion,
  type ProgressView,
} from '../../workflows/plan/contract.ts';
import * as m from '../../workflows/plan/messages.ts';
import { issuesText } from '../../kernel/contract.ts';
import { type AcceptedUpdate, acceptedUpdates, shownArgsProblem } from '../verdicts.ts';
import { roleProblem } from '../../workflows/approvers.ts';
import { checkStart } from '../served-agents.ts';

export const PLAN_WORKFLOW = 'planExecution';

export interface StartPlanOptions {
  agent: string;
  taskQueue: string;
  /** workflow id @default `plan-<agent>-<random>` */
  id?: string;
  request?: string;
  context?: Json;
  /** a plan given by the caller: `{steps, estimatedDuration?, options?}` */
  document?: unknown;
  taskId?: string;
  /** skip review and start executing */
  approve?: boolean;
  /** options over the document's own */
  options?: z.input<typeof PlanOptions>;
  /** values of the document's parameters (checked against their JSON Schemas) */
  params?: Record<string, Json>;
  /** check the agent against what the task queue's workers serve before starting @default true */
  check?: boolean;
}

/** A plan start or change the workflow refused: the message plus the problems as data. */
/** Who gives a step verdict: `by` (as they say), `item` of a for-each step, `role` they decide with. */
export interface StepVerdictOptions {
  by?: string;
  item?: number;
  /** the role you decide with: required when the step's tool names its approvers, recorded with the verdict */
  role?: string;
}

const withoutEmptyRole = <T extends { role?: string }>(opts: T): T => {
  if (opts.role !== undefined && !opts.role) {
    const { role: _empty, ...rest } = opts;
    return rest as T;
  }
  return opts;
};

export class PlanRejected extends Error {
  override readonly name = 'PlanRejected';
  constructor(
    message: string,
    readonly problems: PlanProblem[] = [],
  ) {
    super(message);
  }
}

/** Checks the input with the contract's schemas (options of the document and the caller merged). */
export function planInputOf(opts: StartPlanOptions): PlanInput {
  let document: PlanDocument | undefined;
  if (opts.document !== undefined) {
    const parsed = PlanDocument.safeParse(opts.document);
    if (!parsed.success) throw new PlanRejected(`invalid plan document: ${issuesText(parsed.error)}`);
    document = parsed.data;
  }
  const merged = { ...(opts.document as { options?: object } | undefined)?.options, ...opts.options };
  const options = PlanOptions.safeParse(merged);
  if (!options.success) throw new PlanRejected(`invalid plan options: ${issuesText(options.error)}`);
  if (document && document.steps.length > options.data.maxSteps) {
    const limit = tooManyStepsProblem(document.steps.length, options.data.maxSteps);
    throw new PlanRejected(`invalid plan document:\n${formatProblems([limit])}`, [limit]);
  }
  const params = checkParams(document?.params ?? {}, opts.params ?? {});
  if (!params.ok)
    throw new PlanRejected(`invalid plan parameters:\n${formatProblems(params.problems)}`, params.problems);
  const input = {
    agent: opts.agent,
    ...(opts.request !== undefined ? { request: opts.request } : {}),
    ...(opts.context !== undefined ? { context: opts.context } : {}),
    ...(document
      ? {
          document: {
            steps: document.steps,
            ...(document.params ? { params: document.params } : {}),
            ...(document.estimatedDuration !== undefined ? { estimatedDuration: document.estimatedDuration } : {}),
          },
        }
      : {}),
    ...(opts.params !== undefined ? { params: opts.params } : {}),
    ...(opts.taskId ? { taskId: opts.taskId } : {}),
    ...(opts.approve ? { approve: true } : {}),
    options: options.data,
  };
  const checked = PlanInput.safeParse(input);
  if (!checked.success) throw new PlanRejected(`invalid plan input: ${issuesText(checked.error)}`);
  return input;
}

/**
 * Starts a plan. Refused before anything starts ({@link StartRefused}) when the task queue's
 * workers do not serve the agent; the handle's `startWarning` says when that could not be
 * checked (src/client/served-agents.ts).
 */
export async function startPlan(client: Client, opts: StartPlanOptions): Promise<PlanHandle> {
  const input = planInputOf(opts);
  const checked =
    opts.check === false
      ? undefined
      : await checkStart(client, { taskQueue: opts.taskQueue, agent: opts.agent, what: 'plan' });
  const id = opts.id ?? `plan-${opts.agent}-${Math.random().toString(16).slice(2, 10)}`;
  const what = opts.request ?? 'a given plan';
  const handle = await client.workflow.start(PLAN_WORKFLOW, {
    taskQueue: opts.taskQueue,
    workflowId: id,
    args: [input],
    staticSummary: `Plan (${opts.agent}): ${what}`.slice(0, 200),
    staticDetails: `Agent **${opts.agent}**\n\n${opts.request ? `Request: ${opts.request}` : 'Plan given by the caller'}`,
  });
  const plan = new PlanHandle(handle, client);
  if (checked?.warning) plan.startWarning = checked.warning;
  return plan;
}

/**
 * The for-each item a verdict names, as typed by a person (`--item 2`, the console card's
 * field): a whole number >= 0, or an error saying what was typed.
 */
export function parseItem(text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isInteger(n) || n < 0)
    throw new RangeError(`item: expected a whole number >= 0, got ${JSON.stringify(text)}`);
  return n;
}

export function getPlan(client: Client, id: string): PlanHandle {
  return new PlanHandle(client.workflow.getHandle(id), client);
}

/** One plan workflow: queries, review updates, approvals, result. */
export class PlanHandle {
  /** set by {@link startPlan} when the agent could not be checked before the start */
  startWarning?: string;

  constructor(
    readonly workflow: WorkflowHandle,
    /** reads history (step verdicts); queries and updates need only the workflow handle */
    private readonly client?: Client,
  ) {}

  get id(): string {
    return this.workflow.workflowId;
  }

  /**
   * Where it stands. A closed plan is read from its history (replayed here, no worker
   * needed); a running one is asked, and fails with a {@link WorkerUnavailableError} when
   * no worker answers within the reader's deadline ({@link statusFromHistory} then still
   * says what its history holds).
   */
  status(): Promise<PlanStatusView> {
    return this.read(m.planStatusQuery);
  }
  plan(): Promise<Plan | null> {
    return this.read(m.planQuery);
  }
  versions(): Promise<PlanVersion[]> {
    return this.read(m.versionsQuery);
  }
  progress(): Promise<ProgressView> {
    return this.read(m.planProgressQuery);
  }
  ledger(): Promise<PlanLedgerEntry[]> {
    return this.read(m.planLedgerQuery);
  }
  /**
   * What the history of its latest run holds, replayed here whether it runs or not (no
   * worker involved): for a running plan whose worker is gone, the state at its last
   * workflow task (`at`, that task's event id).
   */
  async fromHistory(): Promise<{
    status: PlanStatusView;
    versions: PlanVersion[];
    progress: ProgressView;
    ledger: PlanLedgerEntry[];
    at: number;
    temporalStatus: string;
  }> {
    const state = await this.reader().fromHistory(this.id);
    return {
      status: answerOf(state, m.planStatusQuery.name),
      versions: answerOf(state, m.versionsQuery.name),
      progress: answerOf(state, m.planProgressQuery.name),
      ledger: answerOf(state, m.planLedgerQuery.name),
      at: state.at,
      temporalStatus: state.temporalStatus,
    };
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

  edit(edit: unknown, opts: { by?: string } = {}): Promise<PlanAck> {
    return this.update(m.editPlanUpdate, { edit, ...opts });
  }
  regenerate(feedback: string, opts: { by?: string } = {}): Promise<PlanAck> {
    return this.update(m.regeneratePlanUpdate, { feedback, ...opts });
  }
  approve(opts: { by?: string } = {}): Promise<PlanAck> {
    return this.update(m.approvePlanUpdate, opts);
  }
  cancel(reason?: string, opts: { by?: string } = {}): Promise<PlanAck> {
    return this.update(m.cancelPlanUpdate, { ...(reason ? { reason } : {}), ...opts });
  }
  /**
   * Approves a step waiting for approval, or with `item` one item of a for-each step (each
   * item waits for its own). The hash of the args waiting is sent with it (the audit checks
   * it). With `argsHash`, the hash of the args the person was shown, the approval is refused
   * if the step now waits with other args. `role`: the role you decide with, required when
   * the step's tool names its approvers (`approvers: ['finance']`), recorded with the verdict.
   */
  async approveStep(
    stepId: string,
    opts: StepVerdictOptions & { note?: string; argsHash?: string } = {},
  ): Promise<PlanAck> {
    const { argsHash: shown, ...rest } = withoutEmptyRole(opts);
    const pending = await this.waitingStep(stepId, opts);
    if (!pending) return this.update(m.approveStepUpdate, { stepId, ...rest });
    const changed = shownArgsProblem(
      `step ${stepId}${opts.item === undefined ? '' : ` item ${opts.item}`}`,
      shown,
      pending.args,
    );
    if (changed) throw new PlanRejected(changed);
    return this.update(m.approveStepUpdate, { stepId, ...rest, argsHash: valueHash(pending.args) });
  }
  /** Denies a step (or one item of a for-each step); what that means is the plan's `onDenial`. `role` as for {@link approveStep}. */
  async denyStep(stepId: string, opts: StepVerdictOptions & { reason?: string } = {}): Promise<PlanAck> {
    await this.waitingStep(stepId, opts);
    return this.update(m.denyStepUpdate, { stepId, ...withoutEmptyRole(opts) });
  }
  /** The approval `stepId` (`item`) waits for, refused here when the role may not decide it. */
  private async waitingStep(stepId: string, opts: StepVerdictOptions) {
    const pending = (await this.status()).approvals.find((a) => a.stepId === stepId && a.item === (opts.item ?? null));
    const refused = pending
      ? roleProblem(
          pending.approvers,
          opts.role || undefined,
          `step ${pending.key}${pending.tool ? ` (${pending.tool})` : ''}`,
        )
      : null;
    if (refused) throw new PlanRejected(refused);
    return pending;
  }
  /**
   * Answers a question step; the answer must match the question's JSON Schema (else a
   * {@link PlanRejected} with the reasons, and the step keeps waiting).
   */
  answer(stepId: string, value: Json, opts: { by?: string } = {}): Promise<AnswerAck> {
    return this.update(m.answerStepUpdate, { stepId, value, ...opts });
  }

  /** The execution summary; a failed or cancelled plan rejects with the failure. */
  result(): Promise<ExecutionSummary> {
    return this.workflow.result();
  }

  /** the step approvals and denials people made, as the workflow accepted them (from history) */
  async stepVerdicts(): Promise<AcceptedUpdate[]> {
    if (!this.client)
      throw new Error(`plan ${this.id}: reading its history needs the Temporal client (getPlan(client, id))`);
    return acceptedUpdates(this.client, this.id, [m.approveStepUpdate.name, m.denyStepUpdate.name]);
  }

  /** Sends an update by its definition (the result keeps its type); a refusal becomes a {@link PlanRejected} with the problems. */
  private async update<Ret, Arg>(def: UpdateDefinition<Ret, [Arg]>, arg: Arg): Promise<Ret> {
    try {
      return await this.workflow.executeUpdate(def, { args: [arg] });
    } catch (err) {
      throw rejection(err);
    }
  }
}

/** Turns an update failure into a PlanRejected carrying the validator's message and problems. */
export function rejection(err: unknown): unknown {
  if (!(err instanceof WorkflowUpdateFailedError)) return err;
  const cause = err.cause;
  const problems =
    cause instanceof ApplicationFailure && Array.isArray(cause.details?.[0]) ? (cause.details[0] as PlanProblem[]) : [];
  return new PlanRejected(cause instanceof Error ? cause.message : err.message, problems);
}
