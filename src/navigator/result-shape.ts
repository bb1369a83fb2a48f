/**
 * The shape of a tool result as the model reads types (`{:hold_id string, :items [{:id
 * integer}]}`), learned from a real result for tools that declare no `output` schema, so
 * later passes need not spend a turn printing one to see it. Bounded: nested at most 3
 * deep, at most 12 keys per map, about 300 characters. Pure and zod-free: the mission
 * workflow derives it from its ledger.
 */
import type { Json } from '../kernel/contract.ts';

const MAX_KEYS = 12;
const MAX_DEPTH = 3;
const MAX_CHARS = 300;
const KEYWORD = /^[A-Za-z_*+!?<>=-][A-Za-z0-9_*+!?<>=.-]*$/;

export function resultShape(v: Json): string {
  const text = shape(v, 0);
  return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS - 3)}...` : text;
}

function shape(v: Json, depth: number): string {
  if (v === null) return 'nil';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'string') return 'string';
  if (depth >= MAX_DEPTH) return Array.isArray(v) ? '[...]' : '{...}';
  if (Array.isArray(v)) return v.length === 0 ? '[]' : `[${shape(v[0]!, depth + 1)}]`;
  const entries = Object.entries(v);
  const keys = entries
    .slice(0, MAX_KEYS)
    .map(([k, x]) => `${KEYWORD.test(k) ? `:${k}` : JSON.stringify(k)} ${shape(x, depth + 1)}`);
  if (entries.length > MAX_KEYS) keys.push('...');
  return `{${keys.join(', ')}}`;
}

/** The shape of each tool's first successful result in a ledger, by tool name. */
export function shapesFromCalls(
  calls: ReadonlyArray<{ tool: string; status?: string; result?: Json; error?: string }>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of calls) {
    if (
      c.tool in out ||
      c.result === undefined ||
      c.error !== undefined ||
      (c.status !== undefined && c.status !== 'completed')
    )
      continue;
    out[c.tool] = resultShape(c.result);
  }
  return out;
}
