/**
 * Words both people-facing readers (the CLI and the console) show for a mission, kept here
 * so that neither imports the other and the two say the same thing.
 */
import type { LedgerEntry } from '../../workflows/mission/contract.ts';

/**
 * What a ledger entry says of its result: the value as JSON; for an effect whose result
 * could not be kept, that and why; for a large read, its start and size (the ledger keeps
 * no more; the whole value is in the pass's result in history).
 */
export function ledgerResultText(
  e: Pick<LedgerEntry, 'result' | 'resultChars' | 'resultPreview' | 'unavailable'>,
): string {
  if (e.unavailable) return `done, result unavailable (${e.unavailable.reason}): ${e.unavailable.message}`;
  if (e.resultChars !== undefined)
    return `${e.resultPreview ?? ''}… (${e.resultChars.toLocaleString('en-US')} characters in all, kept in the pass's result in history)`;
  return String(JSON.stringify(e.result));
}
