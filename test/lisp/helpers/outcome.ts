/** A run's outcome as text (value, or error code, message and location) and its fuel, for tests comparing two evaluation paths. */
import type { RunResult } from '../../../src/lisp/api.ts';
import { prStr } from '../../../src/lisp/printer/index.ts';

export function outcomeOf(r: RunResult): { what: string; fuel: number } {
  const what =
    r.status === 'ok'
      ? `ok ${prStr(r.value)}`
      : r.status === 'error'
        ? `error ${r.error.code}: ${r.error.message} at ${r.error.span?.line}:${r.error.span?.col}`
        : r.status;
  return { what, fuel: r.fuelUsed };
}
