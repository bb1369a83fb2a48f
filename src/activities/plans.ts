/**
 * Temporal activities of the plan workflow. Thin: planning, edits and recovery call the
 * pure src/plans functions (with the tools' zod schemas, which the workflow does not
 * have) and the agent's model; `runPlanStep` runs one tool call with an idempotency key
 * derived from plan id, step id and the resolved args.
 */
import { ownerAttributes } from '../telemetry/spans.ts';
import { sideEffectOf } from '../lisp/tools.ts';
import { Context } from '@temporalio/activity';
import { failure } from '../kernel/failures.ts';
import { invokeTool, recordableAnswer } from './tool-invocation.ts';
import type { ResultRecording } from './recording.ts';
import type { Client } from '@temporalio/client';
import { createHash } from 'node:crypto';
import { canonicalJson } from '../lisp/json.ts';
import { programEvaluator, runSandboxed } from '../sandbox/index.ts';
import { ExpressionError, evaluateStep } from '../plans/evaluate.ts';
import { checkParams } from '../plans/params.ts';
import { checkAnswer } from '../plans/questions.ts';
import type { ChatMessage, ChatModel } from '../llm/model.ts';
import { buildPlan, toSpec } from '../plans/build.ts';
import { PlanEdit, RecoveryAction, applyEdit, applyRecovery } from '../plans/edits.ts';
import { parsePlanAnswer, plannerPrompt } from '../plans/planner.ts';
import { parseRecoveryAnswer, recoveryPrompt } from '../plans/recovery-prompt.ts';
import type { Catalog, Json, Plan, PlanProblem } from '../plans/schema.ts';
import { formatProblems } from '../plans/validate.ts';
import { type AgentInfo, agentInfo } from '../plans/tool-text.ts';
import type {
  CatalogDescription,
  PlanActivities,
  CheckAnswerOutcome,
  CheckAnswerRequest,
  EditPlanRequest,
  EvaluateStepOutcome,
  EvaluateStepRequest,
  PlanOutcome,
  PreparePlanRequest,
  RecoveryOutcome,
  RecoveryRequest,
  RegenerateRequest,
  StepOutcome,
  StepRequest,
} from '../workflows/plan/contract.ts';
import { stepProgressSignal } from '../workflows/plan/messages.ts';
import { type AgentRegistry, type RegisteredAgent, lookupAgent, lookupTool } from './agents.ts';
import { catalogOf } from '../plans/catalog.ts';
import { withHeartbeat } from './heartbeat.ts';
import { issuesText } from '../kernel/contract.ts';

export interface PlanActivityDeps {
  agents: AgentRegistry;
  client: Client;
  /** how often a running step heartbeats @default 2000 */
  heartbeatEveryMs?: number;
  /** least time between two progress signals of one step @default 1000 */
  progressEveryMs?: number;
  /** size caps and the payload store large results go to */
  recording: ResultRecording;
}

/** How many times the planner may answer before the plan fails. */
export const PLANNER_ATTEMPTS = 3;
const RECOVERY_ATTEMPTS = 2;

/** moved to src/plans/catalog.ts (the CLI and the console use it too); importers of this module keep it */
export { catalogOf };

/**
 * The agents a step of `entry`'s plan may run, as prompts show them: every registered
 * agent but the plan's own (a plan running its own agent is a loop), unless the request
 * names it.
 */
export function stepAgents(agents: AgentRegistry, entry: RegisteredAgent, request = ''): AgentInfo[] {
  const own = entry.agent.name;
  const named = new RegExp(`(^|[^\\w-])${own.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\w-])`).test(request);
  return [...agents.values()].filter((a) => a.agent.name !== own || named).map((a) => agentInfo(a.agent));
}

/** The step's idempotency key: the same plan, step and resolved args give the same key. */
export function stepKey(planId: string, stepId: string, args: Json): string {
  return createHash('sha256')
    .update(`${planId}\u0000step\u0000${stepId}\u0000${canonicalJson(args)}`)
    .digest('hex');
}

export function createPlanActivities(deps: PlanActivityDeps): PlanActivities {
  const every = deps.heartbeatEveryMs ?? 2000;
  return {
    async describePlanAgent(req: { agent: string }): Promise<CatalogDescription> {
      const entry = lookupAgent(deps.agents, req.agent);
      return {
        tools: Object.fromEntries(
          entry.agent.tools.map((t) => [
            t.name,
            {
              sideEffect: t.sideEffect,
              destructive: t.destructive ?? false,
              ...(t.approvers?.length ? { approvers: [...t.approvers] } : {}),
            },
          ]),
        ),
        agents: [...deps.agents.keys()],
      };
    },

    // The workflow gives model activities a heartbeat timeout: the whole activity beats,
    // its quick paths too (a given document, an edit), not only while the model thinks.
    async preparePlan(req: PreparePlanRequest): Promise<PlanOutcome> {
      return withHeartbeat(Context.current(), every, async () => {
        const entry = lookupAgent(deps.agents, req.agent);
        const catalog = catalogOf(deps.agents, entry);
        const limits = { maxSteps: req.maxSteps };
        const base = { id: req.planId, taskId: req.taskId, createdAt: req.createdAt };
        const params = checkParams(req.document?.params ?? {}, req.params ?? {});
        if (!params.ok)
          return {
            ok: false,
            problems: params.problems,
            message: `the plan's parameters are invalid:\n${formatProblems(params.problems)}`,
            attempts: 0,
            tokens: 0,
          };
        if (req.document) {
          const built = buildPlan(
            {
              ...base,
              steps: req.document.steps,
              params: params.params,
              estimatedDuration: req.document.estimatedDuration,
            },
            catalog,
            limits,
          );
          if (built.ok) return { ok: true, plan: built.plan, change: 'given by the caller', attempts: 0, tokens: 0 };
          return {
            ok: false,
            problems: built.problems,
            message: `the given plan is invalid:\n${formatProblems(built.problems)}`,
            attempts: 0,
            tokens: 0,
          };
        }
        return askPlanner(
          entry,
          stepAgents(deps.agents, entry, req.request),
          { request: req.request ?? '', context: req.context },
          (steps, estimatedDuration) => buildPlan({ ...base, steps, estimatedDuration }, catalog, limits),
        );
      });
    },

    async editPlan(req: EditPlanRequest): Promise<PlanOutcome> {
      return withHeartbeat(Context.current(), every, async () => {
        const entry = lookupAgent(deps.agents, req.agent);
        const parsed = PlanEdit.safeParse(req.edit);
        if (!parsed.success) {
          const problems = parsed.error.issues.map((i): PlanProblem => ({
            code: 'invalid_edit',
            stepId: null,
            path: i.path.join('.'),
            message: i.message,
          }));
          return { ok: false, problems, message: `invalid edit: ${formatProblems(problems)}`, attempts: 0, tokens: 0 };
        }
        const applied = applyEdit(req.plan, parsed.data, catalogOf(deps.agents, entry), { maxSteps: req.maxSteps });
        if (!applied.ok)
          return {
            ok: false,
            problems: applied.problems,
            message: `edit rejected:\n${formatProblems(applied.problems)}`,
            attempts: 0,
            tokens: 0,
          };
        return { ok: true, plan: applied.plan, change: applied.change, attempts: 0, tokens: 0 };
      });
    },

    async regeneratePlan(req: RegenerateRequest): Promise<PlanOutcome> {
      const entry = lookupAgent(deps.agents, req.agent);
      const catalog = catalogOf(deps.agents, entry);
      const current = {
        steps: req.plan.steps.map(toSpec),
        ...(req.plan.estimatedDuration !== undefined ? { estimatedDuration: req.plan.estimatedDuration } : {}),
      };
      const outcome = await withHeartbeat(Context.current(), every, () =>
        askPlanner(
          entry,
          stepAgents(deps.agents, entry, req.request),
          {
            request: req.request ?? '',
            context: req.context,
            feedback: req.feedback,
            currentPlan: current as unknown as Json,
          },
          (steps, estimatedDuration) =>
            buildPlan(
              {
                id: req.plan.id,
                taskId: req.plan.taskId,
                createdAt: req.plan.createdAt,
                steps,
                params: req.plan.params,
                estimatedDuration,
              },
              catalog,
              { maxSteps: req.maxSteps },
            ),
        ),
      );
      if (!outcome.ok) return outcome;
      return {
        ...outcome,
        plan: { ...outcome.plan, version: req.plan.version + 1 },
        change: `regenerated with feedback: ${req.feedback}`,
      };
    },

    async recoverStep(req: RecoveryRequest): Promise<RecoveryOutcome> {
      const entry = lookupAgent(deps.agents, req.agent);
      return withHeartbeat(Context.current(), every, () =>
        askRecovery(entry, catalogOf(deps.agents, entry), stepAgents(deps.agents, entry, req.request), req),
      );
    },

    /** A step's condition, then its `$expr` values, in the sandbox with small limits; a failed expression fails the step for good. */
    async evaluatePlanStep(req: EvaluateStepRequest): Promise<EvaluateStepOutcome> {
      try {
        return await evaluateStep(req, evaluate);
      } catch (err) {
        if (err instanceof ExpressionError) throw failure('InvalidExpression', err.message);
        throw err;
      }
    },

    /** A person's answer to a question step, checked against the question's JSON Schema. */
    async checkPlanAnswer(req: CheckAnswerRequest): Promise<CheckAnswerOutcome> {
      return checkAnswer(req.stepId, req.ask, req.value);
    },

    async runPlanStep(req: StepRequest): Promise<StepOutcome> {
      const ctx = Context.current();
      const attempt = ctx.info.attempt;
      const tool = lookupTool(lookupAgent(deps.agents, req.agent), req.tool);
      const idempotencyKey = stepKey(
        req.planId,
        req.item === undefined ? req.stepId : `${req.stepId}[${req.item}]`,
        req.args,
      );
      const report = progressReporter(ctx, deps, req.stepId);
      const attributes = {
        ...ownerAttributes({ workflowId: req.planId, runId: req.planId, agent: req.agent }),
        'navigator.plan_step': req.stepId,
        'navigator.tool': req.tool,
        'navigator.tool.side_effect': sideEffectOf(tool),
        'navigator.tool.idempotency_key': idempotencyKey,
        'navigator.plan_step.attempt': attempt,
      };
      try {
        const call = {
          tool,
          args: req.args,
          label: `step ${req.stepId} (${req.tool})`,
          argsPrefix: ['args'],
          context: { idempotencyKey, taskId: req.stepId, report },
          details: { attempt, idempotencyKey },
          heartbeatEveryMs: every,
          recording: deps.recording,
          span: { name: 'navigator.plan_step', attributes },
          // a step with external effects happens once; any other fails when its result cannot be kept
          once: sideEffectOf(tool) === 'external',
        };
        const { result, failedAttempts, unavailable } = await invokeTool(ctx, call);
        const answer: StepOutcome = {
          result,
          attempt,
          idempotencyKey,
          ...(failedAttempts.length ? { failedAttempts } : {}),
          ...(unavailable ? { unavailable } : {}),
        };
        return await recordableAnswer(ctx, call, answer, deps.recording);
      } finally {
        await report.flush();
      }
    },
  };
}

/**
 * Time a sandbox thread may take to start before the expression's own limit counts (the
 * thread enforces timeoutMs on the program itself; the host's backstop also covers a cold
 * start, about 1.5 s on an idle machine and more under load).
 */
const SANDBOX_START_GRACE_MS = 15_000;

const evaluate = (source: string, opts: Parameters<typeof runSandboxed>[1] = {}): ReturnType<typeof runSandboxed> => {
  const evaluator = programEvaluator();
  return evaluator === runSandboxed
    ? runSandboxed(source, opts, { graceMs: SANDBOX_START_GRACE_MS })
    : evaluator(source, opts);
};

type Built = { ok: true; plan: Plan } | { ok: false; problems: PlanProblem[] };

/** Asks the planner until it gives a valid plan, telling it each time what was wrong. */
async function askPlanner(
  entry: RegisteredAgent,
  agents: AgentInfo[],
  ask: { request: string; context?: Json; feedback?: string; currentPlan?: Json },
  build: (steps: unknown[], estimatedDuration: number | undefined) => Built,
): Promise<PlanOutcome> {
  const model = modelOf(entry);
  let problems: PlanProblem[] | undefined;
  let tokens = 0;
  for (let attempt = 1; attempt <= PLANNER_ATTEMPTS; attempt++) {
    const prompt = plannerPrompt({
      request: ask.request,
      context: ask.context,
      tools: [...entry.agent.tools],
      agents,
      feedback: ask.feedback,
      currentPlan: ask.currentPlan,
      problems,
    });
    const answer = await generate(model, prompt.system, prompt.messages);
    tokens += answer.tokens;
    const parsed = parsePlanAnswer(answer.text);
    if (!parsed.ok) {
      problems = [{ code: 'invalid_answer', stepId: null, path: '', message: parsed.message }];
      continue;
    }
    const built = build(parsed.document.steps, parsed.document.estimatedDuration);
    if (built.ok)
      return {
        ok: true,
        plan: built.plan,
        change: attempt === 1 ? 'created by the planner' : `created by the planner (attempt ${attempt})`,
        attempts: attempt,
        tokens,
      };
    problems = built.problems;
  }
  const message = `the planner gave no valid plan in ${PLANNER_ATTEMPTS} attempts; last problems:\n${formatProblems(problems ?? [])}`;
  return { ok: false, problems: problems ?? [], message, attempts: PLANNER_ATTEMPTS, tokens };
}

/** Asks the model for a recovery action; an unusable answer goes back to it once. */
async function askRecovery(
  entry: RegisteredAgent,
  catalog: Catalog,
  agents: AgentInfo[],
  req: RecoveryRequest,
): Promise<RecoveryOutcome> {
  const model = modelOf(entry);
  const prompt = recoveryPrompt({
    request: req.request,
    plan: req.plan,
    failedStepId: req.stepId,
    error: req.error,
    tools: [...entry.agent.tools],
    agents,
  });
  const messages: ChatMessage[] = [...prompt.messages];
  let tokens = 0;
  let problem = '';
  for (let attempt = 1; attempt <= RECOVERY_ATTEMPTS; attempt++) {
    const answer = await generate(model, prompt.system, messages);
    tokens += answer.tokens;
    const verdict = interpretRecovery(answer.text, req, catalog);
    if (!('problem' in verdict)) return { ...verdict, tokens };
    problem = verdict.problem;
    messages.push(
      { role: 'assistant', content: answer.text },
      { role: 'user', content: `That answer cannot be used: ${problem}\nAnswer again with exactly one JSON object.` },
    );
  }
  return { kind: 'invalid', message: problem, tokens };
}

type Interpreted =
  | { kind: 'abort'; reason: string }
  | { kind: 'applied'; plan: Plan; change: string; action: string }
  | { problem: string };

/** A recovery answer checked like an edit: parsed, shaped, applied to the plan. */
function interpretRecovery(text: string, req: RecoveryRequest, catalog: Catalog): Interpreted {
  const parsed = parseRecoveryAnswer(text);
  if (!parsed.ok) return { problem: parsed.message };
  const action = RecoveryAction.safeParse(parsed.action);
  if (!action.success) return { problem: issuesText(action.error, 'answer') };
  if (action.data.action === 'abort') return { kind: 'abort', reason: action.data.reason };
  const applied = applyRecovery(req.plan, req.stepId, action.data, catalog, { maxSteps: req.maxSteps });
  if (!applied.ok) return { problem: formatProblems(applied.problems) };
  if (!('plan' in applied)) return { problem: 'the recovery changed nothing' };
  return { kind: 'applied', plan: applied.plan, change: applied.change, action: action.data.action };
}

function modelOf(entry: RegisteredAgent): ChatModel {
  try {
    return entry.model();
  } catch (err) {
    throw failure('ModelConfig', `agent ${entry.agent.name}: ${(err as Error).message}`);
  }
}

async function generate(
  model: ChatModel,
  system: string,
  messages: ChatMessage[],
): Promise<{ text: string; tokens: number }> {
  const signal = Context.current().cancellationSignal;
  const res = await model.generate({ system, messages, signal });
  return { text: res.text, tokens: res.usage.inputTokens + res.usage.outputTokens };
}

/**
 * A tool's progress reports: each goes into the heartbeat, and at most one per interval
 * (plus the last one) is signalled to the workflow so that its `progress` query shows it.
 */
function progressReporter(ctx: Context, deps: PlanActivityDeps, stepId: string) {
  const minGap = deps.progressEveryMs ?? 1000;
  const workflowId = ctx.info.workflowExecution?.workflowId ?? '';
  let last = 0;
  let pending: { progress?: number; log?: string } | null = null;
  let sending: Promise<void> = Promise.resolve();
  const send = (update: { progress?: number; log?: string }) => {
    last = Date.now();
    pending = null;
    sending = sending
      .then(() => deps.client.workflow.getHandle(workflowId).signal(stepProgressSignal, { stepId, ...update }))
      .catch(() => undefined); // progress is best effort: the step's result does not depend on it
  };
  const report = (update: { progress?: number; log?: string }) => {
    ctx.heartbeat(update);
    if (update.log !== undefined || Date.now() - last >= minGap) send(update);
    else pending = update;
  };
  return Object.assign(report, {
    async flush() {
      if (pending) send(pending);
      await sending;
    },
  });
}
