/**
 * The recovery prompt: a critical step failed after its retries; the model sees the
 * step, its error, the plan's state and the tools, and answers one recovery action.
 */
import type { NavigatorTool } from '../navigator/tool.ts';
import { extractJson } from './answer-json.ts';
import type { Plan, Step } from './schema.ts';
import { type AgentInfo, agentText, toolText } from './tool-text.ts';

export interface RecoveryAsk {
  request?: string;
  plan: Plan;
  failedStepId: string;
  error: string;
  tools: NavigatorTool[];
  /** agents a step may run (as the planner saw them) */
  agents?: AgentInfo[];
}

const SYSTEM = `You repair plans. A step of a plan failed after its retries, or a person denied it (the error says why; then change what the person objected to). Decide what to do, and answer with exactly one JSON object, nothing else:
- {"action": "retry", "args": {...}}: run the step again with other args (for an agent step: its new input; omit "args" to retry as it was); a compute step runs again with a new expression: {"action": "retry", "compute": "<PTC-Lisp>"};
- {"action": "skip"}: go on without it, only if the plan can succeed without its result;
- {"action": "insert", "steps": [{"id", "description", "tool", "args", "dependsOn"}], "before": "STEP_ID"}: run new steps first (for example to create what is missing), then the step again;
- {"action": "abort", "reason": "..."}: stop the plan when it cannot succeed.
Args follow the tool's args type (an agent's input its input type); "$step_id.path" references a completed step's result, {"$expr": "<PTC-Lisp>"} computes a value from step/ID results.`;

const cut = (v: unknown, n = 300): string => {
  const s = JSON.stringify(v) ?? 'null';
  return s.length > n ? `${s.slice(0, n)}...` : s;
};

/** What the failed step runs: its tool and args, agent and input, expression or question. */
function stepBody(step: Step): string {
  if (step.tool !== undefined) return `tool: ${step.tool}\nargs: ${JSON.stringify(step.args ?? {})}`;
  if (step.agent !== undefined) return `agent: ${step.agent}\ninput: ${JSON.stringify(step.input ?? {})}`;
  if (step.compute !== undefined) return `compute: ${step.compute}`;
  return `ask: ${JSON.stringify(step.ask ?? null)}`;
}

/** A step's kind in the plan's list: its tool, `agent NAME`, `compute` or `question`. */
function stepKind(step: Step): string {
  if (step.tool !== undefined) return step.tool;
  if (step.agent !== undefined) return `agent ${step.agent}`;
  return step.compute !== undefined ? 'compute' : 'question';
}

export function recoveryPrompt(ask: RecoveryAsk): {
  system: string;
  messages: Array<{ role: 'user'; content: string }>;
} {
  const step = ask.plan.steps.find((s) => s.id === ask.failedStepId);
  if (!step)
    throw new RangeError(`recoveryPrompt: plan ${ask.plan.id} has no step ${JSON.stringify(ask.failedStepId)}`);
  const parts: string[] = [];
  if (ask.request) parts.push(`The plan's request: ${ask.request}`);
  parts.push(
    [
      `failed_step: ${step.id}`,
      `description: ${step.description}`,
      stepBody(step),
      `attempts: ${step.result?.attempts ?? 0}`,
      `error: ${ask.error}`,
    ].join('\n'),
  );
  const state = ask.plan.steps.map((s) => {
    const outcome = s.result ? (s.result.ok ? ` → ${cut(s.result.value)}` : ` → error: ${s.result.error}`) : '';
    const deps = s.dependsOn.length ? ` (after ${s.dependsOn.join(', ')})` : '';
    return `- ${s.id} [${s.status}] ${stepKind(s)}: ${s.description}${deps}${outcome}`;
  });
  parts.push(`The plan now:\n${state.join('\n')}`);
  parts.push(`Tools:\n${ask.tools.map(toolText).join('\n') || '(none)'}`);
  if (ask.agents?.length)
    parts.push(
      `Agents a step may run ("agent": NAME, "input" matching its input type):\n${ask.agents.map(agentText).join('\n')}`,
    );
  return { system: SYSTEM, messages: [{ role: 'user', content: parts.join('\n\n') }] };
}

/** The JSON object of a recovery answer (its shape is checked by RecoveryAction). */
export function parseRecoveryAnswer(text: string): { ok: true; action: unknown } | { ok: false; message: string } {
  const json = extractJson(text);
  return json.ok ? { ok: true, action: json.value } : json;
}
