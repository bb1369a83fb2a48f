/**
 * What `run`, `plan start` and `plan create` check before a workflow starts, so a typo
 * is refused with its reason (exit 2) instead of a workflow that fails a moment later.
 *
 * The CLI knows the agents a worker started the same way would run: the bundled examples
 * plus `--agents MODULE` (or NAVIGATOR_AGENTS). An agent among them is checked in full
 * (its input, a plan against its tools); a name outside them is refused when a module was
 * given, and left to the worker otherwise (it may run agents this CLI cannot see).
 */
import type { RegisteredAgent, AgentRegistry } from '../navigator/registry.ts';
import { CliError } from './errors.ts';

export interface KnownAgent {
  registry: AgentRegistry;
  entry: RegisteredAgent;
}

/** The agent from the examples or the module, or undefined when only the worker can tell. */
export async function agentBeforeStart(
  name: string,
  agentsModule: string | undefined,
): Promise<KnownAgent | undefined> {
  const { buildRegistry } = await import('../worker/agents.ts');
  const registry = await buildRegistry(agentsModule);
  const entry = registry.get(name);
  if (entry) return { registry, entry };
  if (agentsModule === undefined) return undefined;
  throw new CliError(
    `unknown agent ${JSON.stringify(name)}: ${agentsModule} and the examples have ${[...registry.keys()].join(', ')}`,
    2,
  );
}

/** Refuses (exit 2) an input the agent's schema or decisions refuse, as the mission's first step would. */
export async function checkMissionInput(known: KnownAgent, input: unknown): Promise<void> {
  const { parseInput, resolveDecisions } = await import('../navigator/index.ts');
  try {
    // what the mission's describe step checks of an input: its schema, then the decision keys it makes
    resolveDecisions(known.entry.agent, parseInput(known.entry.agent, input));
  } catch (err) {
    throw new CliError(`agent ${known.entry.agent.name}: ${(err as Error).message}`, 2);
  }
}

/** Refuses (exit 2) a plan document with problems against the agent's tools, listing each. */
export async function checkPlanDocument(known: KnownAgent, document: unknown): Promise<void> {
  const { catalogOf } = await import('../plans/catalog.ts');
  const { PlanDocument } = await import('../plans/schema.ts');
  const { validatePlan, formatProblems } = await import('../plans/validate.ts');
  const doc = PlanDocument.safeParse(document);
  // a malformed document is the client's to refuse (startPlan), with the schema's words
  if (!doc.success) return;
  const problems = validatePlan(
    doc.data.steps,
    catalogOf(known.registry, known.entry),
    Object.keys(doc.data.params ?? {}),
    { maxSteps: doc.data.options?.maxSteps },
  );
  if (problems.length)
    throw new CliError(
      `the plan has ${problems.length} problem(s); nothing was started\n${formatProblems(problems)}`,
      2,
    );
}

/** The agents module a command names: its flag, else NAVIGATOR_AGENTS. */
export const agentsModuleOf = (flag: string | undefined): string | undefined =>
  flag ?? (process.env.NAVIGATOR_AGENTS || undefined);
