/** Looking agents and their tools up in the worker's registry, failing as activities do. */
import { failure } from '../kernel/failures.ts';
import type { AgentRegistry, RegisteredAgent } from '../navigator/registry.ts';

export type { AgentRegistry, RegisteredAgent } from '../navigator/registry.ts';

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
