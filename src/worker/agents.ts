/**
 * Building the agent registry of a worker: the bundled examples plus the agents of a
 * user module (`--agents MODULE` or NAVIGATOR_AGENTS).
 */
import { createModel } from '../llm/index.ts';
import type { ChatModel } from '../llm/model.ts';
import type { Agent } from '../navigator/index.ts';
import type { AgentRegistry, RegisteredAgent } from '../navigator/registry.ts';
import { importUserModule } from '../user-module.ts';

const isAgent = (v: unknown): v is Agent => typeof v === 'object' && v !== null && (v as Agent).kind === 'agent';

/** An agent with its own model string; fails clearly when it names none. */
function withOwnModel(agent: Agent, fallbackModel?: string): RegisteredAgent {
  const spec = agent.model ?? fallbackModel ?? process.env.NAVIGATOR_MODEL;
  return {
    agent,
    model: (): ChatModel => {
      if (!spec) throw new Error(`agent ${agent.name} names no model; set model in defineAgent or NAVIGATOR_MODEL`);
      return createModel(spec, agent.limits.modelTimeoutMs ? { timeoutMs: agent.limits.modelTimeoutMs } : {});
    },
  };
}

/**
 * The agents a module exports by default: one agent, an array of agents, or a record
 * of name → agent or {agent, model}.
 */
export function agentsOfModule(exported: unknown, where: string): RegisteredAgent[] {
  if (isAgent(exported)) return [withOwnModel(exported)];
  if (Array.isArray(exported) && exported.every(isAgent)) return exported.map((a) => withOwnModel(a));
  if (exported && typeof exported === 'object') {
    const entries = Object.values(exported as Record<string, unknown>);
    const out: RegisteredAgent[] = [];
    for (const e of entries) {
      if (isAgent(e)) out.push(withOwnModel(e));
      else if (e && typeof e === 'object' && isAgent((e as RegisteredAgent).agent)) out.push(e as RegisteredAgent);
      else throw new Error(`${where}: default export must be an agent, an array of agents, or a record of agents`);
    }
    return out;
  }
  throw new Error(`${where}: default export must be an agent, an array of agents, or a record of agents`);
}

export async function loadAgentModule(spec: string): Promise<RegisteredAgent[]> {
  return agentsOfModule((await importUserModule(spec)).default, spec);
}

export async function buildRegistry(userModule?: string): Promise<AgentRegistry> {
  const { exampleAgents } = await import('../../examples/index.ts');
  const all: RegisteredAgent[] = Object.values(exampleAgents);
  if (userModule) all.push(...(await loadAgentModule(userModule)));
  const registry = new Map<string, RegisteredAgent>();
  for (const entry of all) registry.set(entry.agent.name, entry);
  return registry;
}
