/**
 * The last-expression fallback (reference §6.7): when the turns run out, the value of
 * the most recent turn that ended normally with a non-nil value is taken as the result,
 * if it matches the output schema (or is a waiting value). Unlike the reference, the
 * journal is kept.
 */
import type { Agent } from './agent.ts';
import type { PassState } from './pass-state.ts';
import { shapeJson } from './turn.ts';

export type FallbackResult = { ok: true; value: import('../lisp/tools.ts').Json } | { ok: false; why: string };

export function tryFallback(agent: Pick<Agent, 'output'>, st: Pick<PassState, 'fallback'>): FallbackResult {
  if (!st.fallback) return { ok: false, why: 'no turn produced a value' };
  const shaped = shapeJson(agent, st.fallback.value);
  if (!shaped.ok)
    return { ok: false, why: `the last value does not match the expected output (${shaped.problems.join('; ')})` };
  return { ok: true, value: shaped.value };
}
