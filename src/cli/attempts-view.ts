/**
 * Why a call was retried, as the CLI shows it under a ledger entry or a step: one line per
 * failed attempt, `attempt 1 failed at 10:00:01: ToolError: tool charge failed: read
 * ECONNRESET`.
 */
import type { FailedAttempt } from '../kernel/schemas.ts';

/** The time of day of an ISO instant (the date is the call's own). */
const timeOf = (iso: string): string => iso.slice(11, 19);

export function failedAttemptLine(f: FailedAttempt): string {
  const when = f.at ? ` at ${timeOf(f.at)}` : '';
  const what = f.type === 'NoRecord' ? f.message : `${f.type}: ${f.message}`;
  const code = f.code && !f.message.includes(f.code) ? ` (${f.code})` : '';
  return `attempt ${f.attempt} failed${when}: ${what}${code}`;
}

export function failedAttemptLines(failures: readonly FailedAttempt[] | undefined, indent: string): string[] {
  return (failures ?? []).map((f) => `${indent}${failedAttemptLine(f)}`);
}
