/**
 * The pass loop of a mission: run a pass, run its effects, commit, wait for decisions,
 * continue as new when history grows. Deterministic: only workflow APIs and MissionState.
 */
import * as wf from '@temporalio/workflow';
import type { FailureType } from '../../kernel/contract.ts';
import { failure, nonRetryable } from '../../kernel/failures.ts';
import type { EffectRequest, Json, MissionActivities, PassRequest, PassResponse } from './contract.ts';
import { applyPatch } from '../../kernel/json-patch.ts';
import { failureDetails, failureMessage, historyIsLong, publishStatus, waitUntil } from '../lifecycle.ts';
import { type MissionState, contractFor, deadlineOf, expire, waitingKey } from './state.ts';
import { retryPolicyFor } from '../retry-policies.ts';

type Activities = MissionActivities;
type DonePass = Extract<PassResponse, { kind: 'done' }>;

const { describeAgent } = wf.proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5, nonRetryableErrorTypes: nonRetryable('UnknownAgent', 'InvalidAgentInput') },
});
const { runPass, runTool } = wf.proxyActivities<Activities>({ startToCloseTimeout: '60 minutes' });

export async function runMission(state: MissionState): Promise<Json> {
  try {
    state.agent = await describeAgent({ agent: state.input.agent, input: state.input.input });
  } catch (err) {
    return fail(state, failureMessage(err), 'InvalidMission', null);
  }
  // passes in a row that ended in an error or could not reach the model: each waits longer
  let failedInARow = 0;
  // A run continues as new only after a pass of its own. Its first pass comes after a fixed
  // number of events (the start, describeAgent, and since issue 42 the untraced marker and
  // the SDK's search attribute for it: src/telemetry/workflow-tracing.ts); a threshold below
  // that would otherwise continue each run as new before it did anything, forever. Runs
  // recorded before never continued as new before their first pass (they could not end).
  let passedThisRun = false;
  for (;;) {
    if (state.cancelReason !== null) return cancelled(state, state.cancelReason);
    const exhausted = state.exhaustedBudget(Date.now());
    if (exhausted) return budgetStop(state, exhausted);
    if (passedThisRun && shouldContinueAsNew(state)) await continueAsNew(state);
    passedThisRun = true;
    state.beginPass();
    setStatus(state, 'running');
    const readVersion = state.journalVersion;
    const done = await runOnePass(state).catch((err) => failedPass(state, err, readVersion));
    if (done === MODEL_UNAVAILABLE) {
      // not the program's fault: not counted, not shown to the model; the pass runs again
      await backOff(state, ++failedInARow);
      continue;
    }
    state.applyPass(done);
    const outcome = done.outcome;
    if (outcome.kind === 'fail')
      return fail(
        state,
        `the Navigator failed the mission: ${JSON.stringify(outcome.value)}`,
        'NavigatorFail',
        outcome.value,
      );
    if (outcome.kind === 'error') {
      state.errorPasses++;
      state.lastError = outcome.message;
      if (state.errorPasses >= state.input.options.maxPasses) {
        return fail(
          state,
          `${state.errorPasses} passes ended in errors; last: ${outcome.message}`,
          'MaxPassesExceeded',
          null,
        );
      }
      await backOff(state, ++failedInARow);
      continue;
    }
    failedInARow = 0;
    state.lastError = null;
    const waitKey = waitingKey(state, outcome.value);
    if (waitKey === null) return complete(state, outcome.value);
    const timedOut = await waitForDecision(state, waitKey, readVersion);
    if (timedOut === 'fail')
      return fail(state, `no decision for ${waitKey} before the deadline`, 'ApprovalTimeout', null);
  }
}

/** Runs one pass to its end, running each batch of effects as activities in between. */
async function runOnePass(state: MissionState): Promise<DonePass> {
  // the activity's input only (never a command): the context, when small, so it need not query
  const request = (resume: boolean, settled?: readonly string[]): PassRequest => {
    const context = state.passContextInput(resume, settled);
    return {
      agent: state.input.agent,
      pass: state.passes,
      journalVersion: state.journalVersion,
      resume,
      step: state.passStep,
      ...(context ? { context } : {}),
    };
  };
  let response = await runPass.executeWithOptions(passOptions(state, `pass ${state.passes}`), [request(false)]);
  state.contextFeed.answered(response);
  for (let step = 1; response.kind === 'effects'; step++) {
    state.passState = response.state ?? (applyPatch(state.passState as Json | null, response.patch ?? null) as Json);
    state.passStep = step;
    const effects = response.effects.map((e) => ({ ...e, id: e.id ?? e.idempotencyKey }));
    await Promise.all(effects.map((e) => runEffect(state, e)));
    response = await runPass.executeWithOptions(passOptions(state, `pass ${state.passes} resume ${step}`), [
      request(
        true,
        effects.map((e) => e.id),
      ),
    ]);
    state.contextFeed.answered(response);
  }
  return response;
}

/** The activity type of a model that stayed unreachable through the pass's retries (see src/activities). */
const MODEL_UNAVAILABLE_TYPE = 'ModelUnavailable';
const MODEL_UNAVAILABLE = Symbol('model unavailable');

/** Longest wait between two failed passes. */
const MAX_PASS_BACKOFF_MS = 30_000;

/** 1 s, 2 s, 4 s ... up to {@link MAX_PASS_BACKOFF_MS} after the `n`th failed pass in a row. */
const passBackoffMs = (n: number): number => Math.min(MAX_PASS_BACKOFF_MS, 1000 * 2 ** Math.max(0, n - 1));

/** Waits before the next pass, so a failing endpoint is not called again within a second. */
async function backOff(state: MissionState, failedInARow: number): Promise<void> {
  // missions that ran before the backoff replay without its timer
  if (!wf.patched('pass-backoff')) return;
  await wf.sleep(passBackoffMs(failedInARow), { summary: `back off after pass ${state.passes}` });
}

/**
 * A pass whose activity failed for good counts as a pass that ended in an error, unless
 * the model could not be reached: then the pass is dropped and run again.
 */
function failedPass(state: MissionState, err: unknown, readVersion: number): DonePass | typeof MODEL_UNAVAILABLE {
  if (!(err instanceof wf.ActivityFailure)) throw err;
  state.contextFeed.lost();
  state.passState = null;
  state.passStep = 0;
  state.effectResults = {};
  if (err.cause instanceof wf.ApplicationFailure && err.cause.type === MODEL_UNAVAILABLE_TYPE) return MODEL_UNAVAILABLE;
  return {
    kind: 'done',
    outcome: { kind: 'error', message: `pass ${state.passes} could not run: ${failureMessage(err)}` },
    basedOnVersion: readVersion,
    journalDelta: [],
    resets: [],
    summaries: {},
    toolCalls: [],
    tokens: 0,
  };
}

function passOptions(state: MissionState, summary: string): wf.ActivityOptions {
  const t = state.input.options.timeouts;
  return {
    startToCloseTimeout: t.passMs,
    heartbeatTimeout: t.heartbeatMs,
    summary,
    // a model that cannot be reached is retried here first: 1 s, 2 s, 4 s, 8 s between tries
    retry: {
      maximumAttempts: 5,
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '30 seconds',
      nonRetryableErrorTypes: nonRetryable('UnknownAgent', 'InvalidPassState'),
    },
  };
}

/** One external effect = one `runTool` activity, never repeated for a completed key. */
async function runEffect(state: MissionState, effect: EffectRequest): Promise<void> {
  const done = state.completedEffect(effect.idempotencyKey);
  if (done) {
    state.effectResults[effect.id] = { ok: done.result ?? null };
    return;
  }
  if (!(await approvedToRun(state, effect))) return;
  // Activity ids are never encrypted: name the tool (code), not the task id (data, e.g.
  // `charge_order_42`), which the summary carries through the payload codec. Missions
  // started before this change keep their ids on replay.
  const seq = state.ledger.length + 1;
  const activityId = wf.patched('activity-id-without-task-id')
    ? `tool-${seq}-${effect.tool}`
    : `tool-${seq}-${effect.taskId ?? effect.tool}`;
  const entry = state.startEffect(effect, activityId);
  const t = state.input.options.timeouts;
  try {
    const out = await runTool.executeWithOptions(
      {
        startToCloseTimeout: t.toolMs,
        heartbeatTimeout: t.heartbeatMs,
        activityId,
        summary: effect.taskId ?? effect.tool,
        retry: retryPolicyFor(entry.sideEffect),
      },
      [
        {
          agent: state.input.agent,
          tool: effect.tool,
          args: effect.args,
          idempotencyKey: effect.idempotencyKey,
          taskId: effect.taskId,
          runId: state.runId,
        },
      ],
    );
    Object.assign(
      entry,
      { status: 'completed', attempts: out.attempt, result: out.result },
      out.failedAttempts ? { failedAttempts: out.failedAttempts } : {},
      out.unavailable ? { unavailable: out.unavailable } : {},
    );
    state.effectResults[effect.id] = { ok: out.result };
  } catch (err) {
    const message = failureMessage(err);
    const { attempt, failedAttempts } = failureDetails(err);
    Object.assign(
      entry,
      { status: 'failed', attempts: attempt, error: message },
      failedAttempts ? { failedAttempts } : {},
    );
    state.effectResults[effect.id] = { error: message };
  }
}

/**
 * An effect of a tool that needs approval waits for a person here (the rest of the pass
 * waits with it), unless these exact args were approved for this task before. A denial,
 * or no verdict by the deadline, reaches the program as the tool's error; with
 * `approval.onTimeout: 'fail'` the deadline fails the mission instead.
 */
async function approvedToRun(state: MissionState, effect: EffectRequest): Promise<boolean> {
  if (!state.agent?.approvals?.includes(effect.tool)) return true;
  if (state.approvals.approved(effect.idempotencyKey, effect.args)) return true;
  const { timeoutMs = null, onTimeout } = state.input.options.approval;
  setStatus(state, 'waiting');
  const approvers = state.agent?.approvers?.[effect.tool];
  const request = {
    key: effect.idempotencyKey,
    tool: effect.tool,
    taskId: effect.taskId,
    args: effect.args,
    ...(effect.call ? { call: effect.call } : {}),
    ...(approvers ? { approvers } : {}),
  };
  const outcome = await state.approvals.wait(request, timeoutMs, () => state.cancelReason !== null);
  setStatus(state, state.approvals.pending.size ? 'waiting' : 'running');
  if (outcome.kind === 'approved') return true;
  if (outcome.kind === 'expired' && onTimeout === 'fail') {
    fail(
      state,
      `no approval for ${effect.tool}${effect.taskId ? ` (task ${effect.taskId})` : ''} before the deadline`,
      'ApprovalTimeout',
      null,
    );
  }
  const why =
    outcome.kind === 'denied'
      ? outcome.message
      : outcome.kind === 'expired'
        ? 'no approval before the deadline'
        : `mission cancelled: ${state.cancelReason}`;
  state.effectResults[effect.id] = { error: `tool ${effect.tool} was not approved: ${why}` };
  return false;
}

/**
 * Parks until a person writes `key` (or cancels). A decision written while the pass ran
 * (after the journal version it read) counts: the next pass will see it.
 */
async function waitForDecision(state: MissionState, key: string, readVersion: number): Promise<'decided' | 'fail'> {
  const { timeoutMs, onTimeout } = deadlineOf(state, key);
  const now = Date.now();
  state.pending = {
    key,
    allowed: contractFor(state, key)?.allowed ?? null,
    since: new Date(now).toISOString(),
    deadline: timeoutMs === null ? null : new Date(now + timeoutMs).toISOString(),
    onTimeout: timeoutMs === null ? null : onTimeout,
  };
  setStatus(state, 'waiting');
  const arrived = () => state.personWriteVersion(key) > readVersion || state.cancelReason !== null;
  // The deadline's timer is named for the decision in the Temporal UI.
  const inTime = await waitUntil(arrived, timeoutMs, `deadline of ${key}`);
  state.pending = null;
  // A decision that landed in the same workflow task as the deadline still counts.
  return inTime || arrived() || expire(state, key) ? 'decided' : 'fail';
}

function cancelled(state: MissionState, reason: string): never {
  setStatus(state, 'cancelled');
  throw failure('MissionCancelled', `mission cancelled: ${reason}`, { details: [state.summary()] });
}

/** A budget ran out: the mission ends cleanly with a summary of what was done. */
function budgetStop(state: MissionState, reason: string): Json {
  state.error = reason;
  setStatus(state, 'budget_exhausted');
  return { status: 'budget_exhausted', reason, done: state.summary() };
}

function shouldContinueAsNew(state: MissionState): boolean {
  return historyIsLong(state.input.options.continueAsNewAfterEvents);
}

async function continueAsNew(state: MissionState): Promise<never> {
  await wf.condition(wf.allHandlersFinished);
  const info = wf.workflowInfo();
  return wf.continueAsNew({
    ...state.input,
    journal: undefined,
    runId: state.runId,
    carried: state.carry(info.runId),
  });
}

function complete(state: MissionState, value: Json): Json {
  state.result = value;
  setStatus(state, 'completed');
  return value;
}

function fail(state: MissionState, message: string, type: FailureType, value: Json): never {
  state.error = message;
  setStatus(state, 'failed');
  throw failure(type, message, { details: [value] });
}

function setStatus(state: MissionState, status: MissionState['status']): void {
  const changed = state.status !== status;
  state.status = status;
  publishStatus({
    status,
    changed,
    details: currentDetails(state),
    attribute: state.input.options.statusSearchAttribute,
  });
}

function currentDetails(state: MissionState): string {
  const lines = [`**${state.status}**, pass ${state.passes}, ${state.journal.size} tasks in the journal`];
  if (state.pending) {
    lines.push(
      `Waiting for \`${state.pending.key}\`${state.pending.deadline ? ` until ${state.pending.deadline}` : ''}`,
    );
  }
  const recent = state.journalEntries().slice(-10);
  if (recent.length)
    lines.push(
      '',
      '## Mission Log (latest)',
      ...recent.map(([k, v]) => `- [done] ${k}: ${JSON.stringify(v).slice(0, 200)}`),
    );
  return lines.join('\n');
}
