/**
 * Temporal activities of Navigator missions and plans (plans.ts). Thin: each calls into src/navigator or a
 * tool handler. `createActivities` closes over the worker's agents and a client, which
 * the pass uses to read the journal by query when its input does not carry it (whole,
 * or as changes to what this worker kept: pass-contexts.ts).
 */
import { Context } from '@temporalio/activity';
import { failure } from '../kernel/failures.ts';
import type { Client } from '@temporalio/client';
import type { PlanActivities } from '../workflows/plan/contract.ts';
import type {
  Json,
  MissionActivities,
  PassContext,
  PassRequest,
  PassResponse,
  ToolRequest,
  ToolResponse,
} from '../workflows/mission/contract.ts';
import { passContextQuery } from '../workflows/mission/messages.ts';
import { type AgentRegistry, lookupAgent, lookupTool } from './agents.ts';
import { describe } from './describe.ts';
import { withHeartbeat } from './heartbeat.ts';
import { invokeTool, recordableAnswer } from './tool-invocation.ts';
import { type ResultRecording, prepareAnswer, resultRecording } from './recording.ts';
import { offloadOf } from '../codec/load.ts';
import { createPlanActivities } from './plans.ts';
import { runPassStep } from './pass.ts';
import { LivePassReporter, watchedAgent } from './live-pass.ts';
import { PassContexts } from './pass-contexts.ts';
import type { PassProgress } from '../navigator/index.ts';
import { sideEffectOf } from '../lisp/tools.ts';
import { ShapeMemory } from '../navigator/shape-memory.ts';
import { WaitingPrograms } from '../navigator/waiting-programs.ts';
import { LlmError } from '../llm/model.ts';
import { inSpan, ownerAttributes, toolAttributes } from '../telemetry/spans.ts';

/**
 * A model that stayed unreachable through the provider's own retries (network, 5xx, 429,
 * timeout) fails the pass activity as `ModelUnavailable`: Temporal retries it with backoff,
 * and the workflow neither counts it as a failed pass nor shows it to the model.
 */
function modelUnavailable(err: unknown): never {
  if (!(err instanceof LlmError && err.retryable)) throw err;
  const wait = err.details.retryAfterMs;
  throw failure('ModelUnavailable', err.message, { retryable: true, details: [err.toJSON()], nextRetryDelayMs: wait });
}

/**
 * A pass's answer made recordable: its reads' results are stored ahead when large. The pass
 * ran no external effect, so when that fails it is run again (a retryable failure), and
 * when it is too large for history it fails for good, naming the size.
 */
async function recordablePass(
  ctx: Context,
  answer: PassResponse,
  pass: number,
  rec: ResultRecording,
  heartbeatEveryMs: number,
): Promise<void> {
  const problem = await prepareAnswer(ctx, answer, `pass ${pass}`, rec, heartbeatEveryMs);
  if (!problem) return;
  if (problem.reason === 'store_unavailable')
    throw failure('PayloadStoreUnavailable', problem.message, { retryable: true });
  throw failure('ResultTooLarge', problem.message);
}

export interface ActivityDeps {
  agents: AgentRegistry;
  client: Client;
  /** how often a running pass heartbeats @default 2000 */
  heartbeatEveryMs?: number;
  /**
   * Result shapes of tools without an `output` schema, remembered across the missions this
   * worker runs (shapes only, bounded) and shown on a mission's first pass @default a new one
   */
  shapeMemory?: ShapeMemory;
  /**
   * The program each mission's pass waited for a decision in, run again first in the next
   * pass instead of asking the model @default a new one; `false`: always ask the model
   */
  waitingPrograms?: WaitingPrograms | false;
  /**
   * What each mission's last pass step on this worker read and answered, so the next step
   * is given its context as changes instead of querying the workflow @default a new one;
   * `false`: always query
   */
  passContexts?: PassContexts | false;
  /** size caps and the payload store that large answers go to @default caps from the env, no store */
  recording?: ResultRecording;
}

export function createActivities(deps: ActivityDeps): MissionActivities & PlanActivities {
  const shapeMemory = deps.shapeMemory ?? new ShapeMemory();
  const waiting = deps.waitingPrograms === false ? undefined : (deps.waitingPrograms ?? new WaitingPrograms());
  const contexts = deps.passContexts === false ? undefined : (deps.passContexts ?? new PassContexts());
  // by default the claim check of the client's codecs (a worker passes its own)
  const recording = deps.recording ?? resultRecording(offloadOf(deps.client.options.dataConverter));
  const heartbeatEveryMs = deps.heartbeatEveryMs ?? 2000;
  /** The context a pass step reads: from its input (and this worker's base), else by query. */
  const contextOf = async (workflowId: string, runId: string, req: PassRequest): Promise<PassContext> => {
    const given = contexts?.contextOf(workflowId, runId, req);
    if (given) return given;
    const context = await deps.client.workflow.getHandle(workflowId, runId).query(passContextQuery);
    if (context.journalVersion < req.journalVersion) {
      // The query reached a worker whose copy of the workflow is behind: try again.
      throw failure('StaleJournal', `journal version ${context.journalVersion} is older than ${req.journalVersion}`, {
        retryable: true,
      });
    }
    if (req.step !== undefined && context.passStep !== undefined && context.passStep !== req.step) {
      // the answer carries a change to the suspended state it read: it must be the workflow's
      throw failure('StalePassState', `suspended pass state ${context.passStep} is not ${req.step}`, {
        retryable: true,
      });
    }
    return context;
  };
  return {
    ...createPlanActivities({ ...deps, recording }),
    async describeAgent(req: { agent: string; input: Json }) {
      const entry = lookupAgent(deps.agents, req.agent);
      try {
        return describe(entry.agent, req.input);
      } catch (err) {
        throw failure('InvalidAgentInput', `agent ${req.agent}: ${(err as Error).message}`);
      }
    },

    async runPass(req: PassRequest): Promise<PassResponse> {
      const ctx = Context.current();
      const execution = ctx.info.workflowExecution;
      if (!execution) throw failure('InvalidPassState', 'runPass must run inside a mission workflow');
      const { workflowId, runId } = execution;
      // what the pass does, heartbeated as it changes: the program as the model writes it, its calls
      const live = new LivePassReporter(ctx, req.pass);
      const found = lookupAgent(deps.agents, req.agent);
      const entry = { ...found, agent: watchedAgent(found.agent, live) };
      const onProgress = (p: PassProgress) => live.progress(p);
      // Heartbeat from the start: the query below may wait while Temporal moves the
      // workflow off the sticky queue of a worker that died.
      return withHeartbeat(
        ctx,
        deps.heartbeatEveryMs ?? 2000,
        async () => {
          const context = await contextOf(workflowId, runId, req);
          const owner = { workflowId, runId: context.runId, agent: req.agent };
          return inSpan(
            'navigator.pass',
            { ...ownerAttributes(owner), 'navigator.pass': req.pass, 'navigator.pass.resume': Boolean(req.resume) },
            async (span) => {
              const response = await runPassStep(entry, req, context, onProgress, owner, {
                shapes: shapeMemory,
                waiting,
                mission: workflowId,
                maxResultBytes: recording.maxResultBytes,
              }).catch(modelUnavailable);
              span.setAttributes({
                'navigator.pass.turns': live.current().turn ?? 0,
                'navigator.pass.outcome': response.kind === 'done' ? response.outcome.kind : 'effects',
              });
              // the next step of this mission, when it runs here, is given its context as changes to this one
              const answer = contexts
                ? { ...response, ref: contexts.remember(workflowId, runId, context, response) }
                : response;
              await recordablePass(ctx, answer, req.pass, recording, heartbeatEveryMs);
              return answer;
            },
          );
        },
        () => live.current(),
      ).finally(() => live.stop());
    },

    async runTool(req: ToolRequest): Promise<ToolResponse> {
      const ctx = Context.current();
      const attempt = ctx.info.attempt;
      const tool = lookupTool(lookupAgent(deps.agents, req.agent), req.tool);
      const workflowId = ctx.info.workflowExecution?.workflowId ?? '';
      const owner = { workflowId, runId: req.runId ?? workflowId, agent: req.agent };
      const attributes = {
        ...toolAttributes(owner, {
          tool: req.tool,
          sideEffect: sideEffectOf(tool),
          taskId: req.taskId,
          idempotencyKey: req.idempotencyKey,
          cached: false,
        }),
        'navigator.tool.attempt': attempt,
      };
      const doing = { text: `tool ${req.tool}${req.taskId ? ` for task ${req.taskId}` : ''}` };
      const call = {
        tool,
        args: req.args,
        label: req.tool,
        context: { idempotencyKey: req.idempotencyKey, taskId: req.taskId },
        details: { attempt },
        heartbeatEveryMs,
        recording,
        doing: () => doing,
        span: { name: 'navigator.tool', attributes },
        // only effects run here (external, or gated whatever their class): each happens once
        once: true,
      };
      const { result, failedAttempts, unavailable } = await invokeTool(ctx, call);
      const answer: ToolResponse = {
        result,
        attempt,
        ...(failedAttempts.length ? { failedAttempts } : {}),
        ...(unavailable ? { unavailable } : {}),
      };
      return recordableAnswer(ctx, call, answer, recording);
    },
  };
}
