/**
 * Tools as the planner and the recovery prompt show them: name, description, side-effect
 * class, whether destructive, and the args as a JSON type (`{"path": string,
 * "mode"?: "a" | "w"}`), since plan args are JSON, not PTC-Lisp.
 */
import type { Json } from './schema.ts';
import { type JsonSchema, jsonSchemaOf, resultFieldDescriptions } from '../navigator/schema.ts';
import type { NavigatorTool } from '../navigator/tool.ts';
import type { AnyAgent } from '../navigator/agent.ts';

export function jsonTypeText(s: JsonSchema | boolean | undefined, depth = 0): string {
  if (s === undefined || s === true) return 'any';
  if (s === false || depth > 6) return '...';
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return s.enum.map((v: Json) => JSON.stringify(v)).join(' | ');
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return alts.map((a) => jsonTypeText(a, depth + 1)).join(' | ');
  if (Array.isArray(s.type)) return s.type.map((t) => jsonTypeText({ ...s, type: t }, depth)).join(' | ');
  switch (s.type) {
    case 'array':
      return `[${jsonTypeText(s.items === false ? undefined : s.items, depth + 1)}, ...]`;
    case 'object': {
      const required = new Set(s.required ?? []);
      const props = Object.entries(s.properties ?? {}).map(
        ([k, p]) => `${JSON.stringify(k)}${required.has(k) ? '' : '?'}: ${jsonTypeText(p, depth + 1)}`,
      );
      return props.length ? `{${props.join(', ')}}` : 'object';
    }
    case 'integer':
    case 'number':
    case 'string':
    case 'boolean':
    case 'null':
      return s.type;
    default:
      return 'any';
  }
}

export function toolText(tool: NavigatorTool): string {
  const flags = [tool.sideEffect, tool.destructive ? 'destructive' : ''].filter(Boolean).join(', ');
  const lines = [`- ${tool.name} (${flags}): ${tool.description}`, `  args: ${jsonTypeText(jsonSchemaOf(tool.input))}`];
  if (tool.output) {
    lines.push(`  result: ${jsonTypeText(jsonSchemaOf(tool.output, 'output'))}`);
    // what the fields mean (units, formats): the same descriptions a mission's model reads
    for (const [path, d] of resultFieldDescriptions(tool.output))
      lines.push(`    ${path ? `${path.replace(/:/g, '')}: ` : ''}${d}`);
  }
  return lines.join('\n');
}

/** An agent a plan step may run, as the planner and the recovery prompt show it. */
export interface AgentInfo {
  name: string;
  description?: string;
  /** the agent's input as a JSON type (`{"request"?: string}`) */
  input?: string;
}

export const agentInfo = (agent: AnyAgent): AgentInfo => ({
  name: agent.name,
  ...(agent.description ? { description: agent.description } : {}),
  input: jsonTypeText(jsonSchemaOf(agent.input)),
});

export function agentText(agent: AgentInfo): string {
  const line = `- ${agent.name}${agent.description ? `: ${agent.description}` : ''}`;
  return agent.input ? `${line}\n  input: ${agent.input}` : line;
}
