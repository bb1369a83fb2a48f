/** The agents a worker can run, by name, each with the model that drives it. */
import { failure } from '../kernel/failures.ts';
import type { ChatModel } from '../llm/model.ts';
import type { Agent } from '../navigator/index.ts';

export interface RegisteredAgent {
  agent: Agent;
  /** made once per pass; a scripted model starts from its first answer each time */
  model: () => ChatModel;
}

export type AgentRegistry = ReadonlyMap<string, RegisteredAgent>;

export function lookupAgent(agents: AgentRegistry, name: string): RegisteredAgent {
  const found = agents.get(name);
  if (found) return found;
  const known = [...agents.keys()].join(', ') || 'none';
  throw failure('UnknownAgent', `unknown agent ${JSON.stringify(name)}; this worker runs: ${known}`);
}

export function lookupTool(entry: RegisteredAgent, name: string) {
  const tool = entry.agent.tools.find((t) => t.name === name);
  if (tool) return tool;
  throw failure('UnknownTool', `agent ${entry.agent.name} has no tool ${JSON.stringify(name)}`);
}
