/**
 * The agents a worker runs, by name, each with the model that drives it. Plain data: the
 * worker builds a registry (src/worker/agents.ts), its activities look agents up in it,
 * and the CLI and the console read it to check an input or a plan before anything starts.
 */
import type { ChatModel } from '../llm/model.ts';
import type { Agent } from './agent.ts';

export interface RegisteredAgent {
  agent: Agent;
  /** made once per pass; a scripted model starts from its first answer each time */
  model: () => ChatModel;
}

export type AgentRegistry = ReadonlyMap<string, RegisteredAgent>;
