/**
 * Agent definitions. An agent is a mission prompt, zod schemas for its input and output,
 * tools, and optionally a checklist, limits, a default model and external-decision contracts.
 *
 * ```ts
 * export const wireTransfer = defineAgent({
 *   name: 'wire-transfer',
 *   prompt: 'Send {{amount}} USD to {{recipient}} once a manager approves.',
 *   input: z.object({ recipient: z.string(), amount: z.number().positive() }),
 *   output: z.object({ status: z.enum(['sent', 'cancelled']), reference: z.string().optional() }),
 *   tools: [prepareWire, executeWire, cancelHold],
 *   decisions: [managerDecision],
 *   checklist: ['Prepare the wire', 'Wait for approval', 'Execute or cancel'],
 * });
 * type In = AgentInput<typeof wireTransfer>;   // { recipient: string; amount: number }
 * ```
 */
import { z } from 'zod';
import { LlmError } from '../llm/model.ts';
import { parseModelString } from '../llm/providers.ts';
import { type Json, type SideEffectClass, sideEffectOf } from '../lisp/tools.ts';
import { effectToolNames } from '../kernel/contract.ts';
import { type Decision, type ResolvedDecision, resolveDecision } from './decisions.ts';
import { type ChecklistEntry, type ChecklistStep, checkChecklist } from './checklist.ts';
import { DefinitionError, type NavigatorTool, ToolSpecSchema, defineTool, problemsOf } from './tool.ts';

export const AgentLimits = z.strictObject({
  /** LLM turns per pass @default 5 */
  maxTurns: z.number().int().min(1).max(100).default(5),
  /** extra turns after the work turns, only to correct a rejected return @default 0 */
  retryTurns: z.number().int().min(0).max(20).default(0),
  /** wall clock per program, in ms @default 5000 */
  timeoutMs: z.number().int().positive().default(5000),
  /** evaluation steps per program @default 1_000_000 */
  fuel: z.number().int().positive().default(1_000_000),
  /** tool calls per program (absent: unlimited) */
  maxToolCalls: z.number().int().positive().optional(),
  /** input + output tokens per pass (absent: unlimited) */
  maxTokens: z.number().int().positive().optional(),
  /** longest wait for one model answer, in ms (then it is retried) @default NAVIGATOR_MODEL_TIMEOUT_MS, else 10 minutes */
  modelTimeoutMs: z.number().int().positive().optional(),
});
export type AgentLimits = z.output<typeof AgentLimits>;
export type AgentLimitsInput = z.input<typeof AgentLimits>;

export interface AgentSpec<I extends z.ZodObject, O extends z.ZodType> {
  /** letters, digits, `_` and `-` */
  name: string;
  description?: string;
  /** the mission, with `{{field}}` placeholders filled from the input */
  prompt: string;
  input: I;
  /** validates `(return v)`; mismatches go back to the model and cost a turn */
  output: O;
  tools?: NavigatorTool[];
  /** the steps the model ticks with `(step-done id summary)`, shown as the mission's progress */
  checklist?: ChecklistEntry[];
  /** the reference implementation's name for {@link checklist} (give one of the two) */
  plan?: ChecklistEntry[];
  limits?: AgentLimitsInput;
  /** default model string, e.g. `openai:gpt-4.1-mini` or `scripted:answers.json` */
  model?: string;
  decisions?: Decision<z.output<I>>[];
  /**
   * Which effects of a mission wait for a person's approval before they run: the agent's
   * external tools, its destructive tools, tools by name (besides tools that say
   * `requiresApproval` themselves). Approved or denied with `navigator effect approve|deny`,
   * the console, or the mission's approveEffect update; a denial reaches the program as
   * the tool's error. @default none
   */
  approvals?: EffectApprovals;
  /**
   * Reads made before the model's first turn of every pass, their results shown in its
   * first message (`## Context`), so the model writes the whole program at once instead of
   * spending a turn printing them: read-only tools of the agent, with args (or a function of
   * the input giving them). A read that fails shows its error; the pass goes on. @default none
   */
  contextReads?: Array<ContextRead<z.output<I>>>;
}

/** A read made before the first turn (see {@link AgentSpec.contextReads}). */
export interface ContextRead<I = Record<string, unknown>> {
  tool: string;
  args?: Record<string, Json> | ((input: I) => Record<string, Json>);
}

export const EffectApprovals = z.strictObject({
  external: z.boolean().optional(),
  destructive: z.boolean().optional(),
  tools: z.array(z.string()).optional(),
});
export type EffectApprovals = z.infer<typeof EffectApprovals>;

export interface Agent<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> {
  readonly kind: 'agent';
  readonly name: string;
  readonly description: string | undefined;
  readonly prompt: string;
  readonly input: I;
  readonly output: O;
  readonly tools: readonly NavigatorTool[];
  readonly checklist: readonly ChecklistStep[];
  readonly limits: AgentLimits;
  readonly model: string | undefined;
  readonly decisions: readonly Decision<z.output<I>>[];
  readonly approvals: EffectApprovals;
  /** reads made before the first turn, shown in the first message (absent: none) */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly contextReads?: readonly ContextRead<any>[];
}

/** Any agent, whatever its schemas (what the pass functions accept). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyAgent = Agent<any, any>;

/** What callers pass as input (before defaults and transforms). */
export type AgentInput<A extends Agent> = z.input<A['input']>;
/** A validated `(return v)` value. */
export type AgentOutput<A extends Agent> = z.output<A['output']>;

/** `{{field}}` and `{{a.b}}` placeholders, with surrounding spaces allowed. */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*)\s*\}\}/g;

export function placeholders(prompt: string): string[] {
  return [...prompt.matchAll(PLACEHOLDER)].map((m) => m[1]!);
}

const zodSchema = (what: string) => z.custom<z.ZodType>((v) => v instanceof z.ZodType, { error: `must be ${what}` });

const AgentSpecSchema = z.object({
  name: z
    .string({ error: 'must be a string' })
    .regex(/^[A-Za-z][A-Za-z0-9_-]*$/, 'must start with a letter and contain only letters, digits, _ and -'),
  description: z.string().optional(),
  prompt: z.string({ error: 'must be a string' }).trim().min(1, 'must not be empty'),
  input: z.custom<z.ZodObject>((v) => v instanceof z.ZodObject, {
    error: 'must be a zod object schema (z.object({...})): its fields become data/ entries',
  }),
  output: zodSchema('a zod schema of the return value'),
  tools: z.array(z.unknown(), { error: 'must be an array of tools (defineTool)' }).optional(),
  checklist: z.unknown().optional(),
  plan: z.unknown().optional(),
  limits: z.unknown().optional(),
  model: z.string().optional(),
  decisions: z.array(z.unknown(), { error: 'must be an array of decisions (defineDecision)' }).optional(),
  approvals: EffectApprovals.optional(),
  contextReads: z
    .array(z.object({ tool: z.string(), args: z.unknown().optional() }), { error: 'must be a list of {tool, args?}' })
    .optional(),
});

export function defineAgent<I extends z.ZodObject, O extends z.ZodType>(spec: AgentSpec<I, O>): Agent<I, O> {
  const label = `defineAgent(${typeof spec?.name === 'string' ? JSON.stringify(spec.name) : '?'})`;
  const base = AgentSpecSchema.safeParse(spec);
  if (!base.success) throw new DefinitionError(label, problemsOf(base.error));
  const problems: string[] = [];

  // placeholders must name input fields
  const fields = new Set(Object.keys(spec.input.shape));
  for (const p of placeholders(spec.prompt)) {
    const head = p.split('.')[0]!;
    if (!fields.has(head)) {
      problems.push(
        `prompt: placeholder {{${p}}} does not name an input field (fields: ${[...fields].join(', ') || 'none'})`,
      );
    }
  }

  // tools: definitions checked, names unique
  const tools: NavigatorTool[] = [];
  const toolNames = new Map<string, number>();
  (spec.tools ?? []).forEach((t, i) => {
    const parsed = ToolSpecSchema.safeParse(t);
    if (!parsed.success) {
      problems.push(...problemsOf(parsed.error, ['tools', i]));
      return;
    }
    const tool = defineTool(t as never);
    const first = toolNames.get(tool.name);
    if (first !== undefined) problems.push(`tools.${i}.name: duplicate tool name "${tool.name}" (also tools.${first})`);
    else toolNames.set(tool.name, i);
    tools.push(tool);
  });

  // checklist (or `plan`, its name in the reference implementation)
  let checklist: ChecklistStep[] = [];
  const field = spec.checklist !== undefined ? 'checklist' : 'plan';
  if (spec.checklist !== undefined && spec.plan !== undefined)
    problems.push('plan: give the checklist once, as checklist (plan is its other name)');
  const entries = spec.checklist ?? spec.plan;
  if (entries !== undefined) {
    const checked = checkChecklist(entries);
    problems.push(...checked.problems.map((p) => `${field}${p.startsWith('a checklist') ? ': ' : '.'}${p}`));
    checklist = checked.steps;
  }

  // limits
  const limits = AgentLimits.safeParse(spec.limits ?? {});
  if (!limits.success) problems.push(...problemsOf(limits.error, ['limits']));

  // model string
  if (spec.model !== undefined && !spec.model.startsWith('scripted:')) {
    try {
      parseModelString(spec.model);
    } catch (e) {
      problems.push(`model: ${e instanceof LlmError ? e.message : String(e)}`);
    }
  }

  // decisions
  const names = new Map<string, number>();
  (spec.decisions ?? []).forEach((d, i) => {
    if (!d || (d as { kind?: unknown }).kind !== 'decision') {
      problems.push(`decisions.${i}: must be made with defineDecision`);
      return;
    }
    const first = names.get(d.name);
    if (first !== undefined)
      problems.push(`decisions.${i}.name: duplicate decision "${d.name}" (also decisions.${first})`);
    else names.set(d.name, i);
  });

  (spec.approvals?.tools ?? []).forEach((name, i) => {
    if (!toolNames.has(name))
      problems.push(`approvals.tools.${i}: no tool "${name}" (tools: ${[...toolNames.keys()].join(', ') || 'none'})`);
  });

  (spec.contextReads ?? []).forEach((r, i) => {
    const tool = tools.find((t) => t.name === r.tool);
    if (!tool)
      problems.push(
        `contextReads.${i}.tool: no tool "${r.tool}" (tools: ${[...toolNames.keys()].join(', ') || 'none'})`,
      );
    else if (tool.sideEffect !== 'read_only')
      problems.push(`contextReads.${i}.tool: ${r.tool} is ${tool.sideEffect}; a context read must be a read_only tool`);
  });

  if (problems.length || !limits.success) throw new DefinitionError(label, problems);
  return {
    kind: 'agent',
    name: spec.name,
    description: spec.description,
    prompt: spec.prompt.trim(),
    input: spec.input,
    output: spec.output,
    tools,
    checklist,
    limits: limits.data,
    model: spec.model,
    decisions: spec.decisions ?? [],
    approvals: spec.approvals ?? {},
    contextReads: spec.contextReads ?? [],
  };
}

/** The agent's tools whose calls wait for a person's approval in a mission. */
export function toolsNeedingApproval(agent: Pick<AnyAgent, 'tools' | 'approvals'>): string[] {
  const { external, destructive, tools = [] } = agent.approvals;
  return agent.tools
    .filter(
      (t) =>
        t.requiresApproval ||
        tools.includes(t.name) ||
        (external && t.sideEffect === 'external') ||
        (destructive && t.destructive),
    )
    .map((t) => t.name);
}

/** Each tool's side-effect class, by name: what the workflow, the console and the audit know of the agent's tools. */
export function toolClasses(agent: Pick<AnyAgent, 'tools'>): Record<string, SideEffectClass> {
  return Object.fromEntries(agent.tools.map((t) => [t.name, sideEffectOf(t)]));
}

/** The agent's tools whose calls leave a pass as effects (kernel/contract.ts effectToolNames). */
export function effectToolsOf(agent: Pick<AnyAgent, 'tools' | 'approvals'>): Set<string> {
  return effectToolNames(toolClasses(agent), toolsNeedingApproval(agent));
}

/** The roles allowed to approve each tool that waits for approval and names `approvers` (tool → roles). */
export function toolApprovers(agent: Pick<AnyAgent, 'tools' | 'approvals'>): Record<string, string[]> {
  const gated = new Set(toolsNeedingApproval(agent));
  return Object.fromEntries(
    agent.tools.filter((t) => gated.has(t.name) && t.approvers?.length).map((t) => [t.name, [...t.approvers!]]),
  );
}

/** Bad agent input: the message lists each problem with its path. */
export class InputError extends Error {
  override readonly name = 'InputError';
  constructor(
    readonly agent: string,
    readonly problems: string[],
  ) {
    super(`invalid input for agent "${agent}":\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Validates and normalises an input (defaults applied); throws {@link InputError}. */
export function parseInput<A extends Agent>(agent: A, raw: unknown): z.output<A['input']> {
  const parsed = agent.input.safeParse(raw ?? {});
  if (!parsed.success) throw new InputError(agent.name, problemsOf(parsed.error));
  return parsed.data as z.output<A['input']>;
}

function lookupPath(input: Record<string, unknown>, path: string): unknown {
  let v: unknown = input;
  for (const part of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

/** The mission text: placeholders replaced by input values (strings verbatim, others as JSON). */
export function renderMissionText(agent: Pick<Agent, 'prompt'>, input: Record<string, unknown>): string {
  return agent.prompt.replace(PLACEHOLDER, (_m, path: string) => {
    const v = lookupPath(input, path);
    if (v === undefined) return '';
    return typeof v === 'string' ? v : JSON.stringify(v as Json);
  });
}

/** The decisions of an agent made concrete for one (validated) input. */
export function resolveDecisions(agent: Agent, input: unknown): ResolvedDecision[] {
  return agent.decisions.map((d) => resolveDecision(d, input));
}
