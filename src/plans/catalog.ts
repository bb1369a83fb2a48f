/**
 * What plan validation knows about an agent: its tools (side-effect class, destructive,
 * input schema) and the agents a step may run. Read from the agent registry, so the
 * planning activities, the CLI and the console check a plan against the same catalog.
 */
import type { AgentRegistry, RegisteredAgent } from '../navigator/registry.ts';
import type { Catalog } from './schema.ts';

export function catalogOf(agents: AgentRegistry, entry: RegisteredAgent): Catalog {
  return {
    tools: new Map(
      entry.agent.tools.map((t) => [
        t.name,
        { sideEffect: t.sideEffect, destructive: t.destructive ?? false, input: t.input },
      ]),
    ),
    agents: new Set(agents.keys()),
    agentInputs: new Map([...agents].map(([name, a]) => [name, a.agent.input])),
  };
}
