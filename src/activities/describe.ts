/**
 * What the workflow needs to know about an agent, computed once per run from its
 * definition: plan, decision contracts for this input, side-effect class of each tool.
 */
import { z } from 'zod';
import {
  type Agent,
  jsonSchemaOf,
  parseInput,
  resolveDecisions,
  toolApprovers,
  toolClasses,
  toolsNeedingApproval,
} from '../navigator/index.ts';
import type { AgentDescription, DecisionContract, Json } from '../workflows/mission/contract.ts';

export function describe(agent: Agent, rawInput: unknown): AgentDescription {
  const input = parseInput(agent, rawInput);
  const expiries = new Map(agent.decisions.map((d) => [d.name, d.expiry]));
  return {
    name: agent.name,
    plan: agent.checklist.map((s) => ({ id: s.id, description: s.description })),
    decisions: resolveDecisions(agent, input).map((d): DecisionContract => {
      const allowed = enumeratedValues(d.values);
      const expiry = expiries.get(d.name);
      return {
        key: d.key,
        description: d.description,
        allowed,
        approveValue: pick(allowed, /^(approve|approved|accept|accepted|yes|ok)$/i, true),
        rejectValue: pick(allowed, /^(reject|rejected|deny|denied|decline|declined|no)$/i, false),
        timeoutMs: expiry?.afterMs ?? null,
        expiryValue: (expiry?.value ?? null) as Json,
        // the agent's words for Approve and Reject, when it gives them
        ...(d.onApprove ? { onApprove: d.onApprove } : {}),
        ...(d.onReject ? { onReject: d.onReject } : {}),
        // who may decide it, when the decision names roles
        ...(d.approvers ? { approvers: d.approvers } : {}),
      };
    }),
    tools: toolClasses(agent),
    approvals: toolsNeedingApproval(agent),
    ...approversOf(agent),
  };
}

/** `{approvers}` when a gated tool names who may approve it; nothing otherwise (descriptions stay as they were). */
function approversOf(agent: Agent): { approvers?: Record<string, string[]> } {
  const byTool = toolApprovers(agent);
  return Object.keys(byTool).length ? { approvers: byTool } : {};
}

/** The values a schema allows when it enumerates them (enum, literals, boolean). */
function enumeratedValues(schema: z.ZodType): Json[] | null {
  const js = jsonSchemaOf(schema) as {
    enum?: Json[];
    const?: Json;
    type?: string;
    anyOf?: Array<{ const?: Json; enum?: Json[] }>;
  };
  if (Array.isArray(js.enum)) return js.enum;
  if (js.const !== undefined) return [js.const];
  if (js.type === 'boolean') return [true, false];
  if (Array.isArray(js.anyOf) && js.anyOf.every((b) => b.const !== undefined || Array.isArray(b.enum))) {
    return js.anyOf.flatMap((b) => (b.const !== undefined ? [b.const] : b.enum!));
  }
  return null;
}

function pick(allowed: Json[] | null, pattern: RegExp, boolean: boolean): Json {
  if (!allowed) return null;
  const named = allowed.find((v) => typeof v === 'string' && pattern.test(v));
  if (named !== undefined) return named;
  return allowed.includes(boolean) ? boolean : null;
}
