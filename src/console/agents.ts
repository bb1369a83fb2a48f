/**
 * What the console knows about agents: the registry it was given (the examples plus
 * `--agents MODULE`, as a worker builds it). It offers their names in the start form
 * and checks a mission's input against the agent's own schema before starting, so a
 * bad input is refused on the form instead of failing the mission's first pass. Agents
 * it does not know (run only by workers elsewhere) still start; their worker checks.
 */
import type { AgentRegistry } from '../navigator/registry.ts';
import { catalogOf } from '../plans/catalog.ts';
import { InputError, parseInput } from '../navigator/agent.ts';
import { PlanDocument } from '../plans/schema.ts';
import { validatePlan } from '../plans/validate.ts';
import { issueText } from '../kernel/contract.ts';

/** The problems of `input` for `agent`, or null when it is fine or the agent is unknown here. */
export function inputProblems(agents: AgentRegistry | undefined, agent: string, input: unknown): string[] | null {
  const entry = agents?.get(agent);
  if (!entry) return null;
  try {
    parseInput(entry.agent, input);
    return null;
  } catch (err) {
    if (err instanceof InputError) return err.problems;
    throw err;
  }
}

/**
 * The problems of a plan document for `agent`'s tools (unknown tools, bad args, cycles,
 * unknown dependencies), one line each; null when it is fine or the agent is unknown here.
 */
export function planProblems(agents: AgentRegistry | undefined, agent: string, document: unknown): string[] | null {
  const entry = agents?.get(agent);
  if (!entry) return null;
  const doc = PlanDocument.safeParse(document);
  if (!doc.success) return doc.error.issues.map((i) => issueText(i, 'plan'));
  const problems = validatePlan(doc.data.steps, catalogOf(agents!, entry), [], {
    maxSteps: doc.data.options?.maxSteps,
  });
  return problems.length
    ? problems.map((p) => `${p.stepId ?? 'plan'}${p.path ? ` ${p.path}` : ''}: ${p.message}`)
    : null;
}

/** Agent names for the start form, with what each expects. */
export function agentChoices(agents: AgentRegistry | undefined): Array<{ name: string; fields: string[] }> {
  return [...(agents?.values() ?? [])]
    .map((e) => ({ name: e.agent.name, fields: Object.keys(e.agent.input.shape) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
