/**
 * The Mission Log: the completed tasks of the journal, appended to the system prompt and
 * rebuilt every turn, so the model sees what is already done.
 *
 * ```
 * ## Mission Log (Completed Tasks)
 * - [done] charge_order_42: "tx_abc"
 * - [done] payment_confirmed_42: true
 * ```
 */
import type { Json } from '../../lisp/tools.ts';
import { cut, ednOfJson } from '../../lisp/printer/edn.ts';

/** Longest printed value before it is cut (then `...` follows). */
export const MISSION_LOG_VALUE_CHARS = 200;
/** Entries listed; earlier ones are counted in one line. */
export const MISSION_LOG_ENTRIES = 50;

export type JournalLike = ReadonlyMap<string, Json> | Readonly<Record<string, Json>>;

export const journalEntries = (j: JournalLike | null | undefined): Array<[string, Json]> =>
  !j ? [] : j instanceof Map ? [...j.entries()] : Object.entries(j);

/** The Mission Log, or '' when the journal is empty or absent. Entries in commit order. */
export function renderMissionLog(journal: JournalLike | null | undefined): string {
  const entries = journalEntries(journal);
  if (!entries.length) return '';
  const shown = entries.slice(-MISSION_LOG_ENTRIES);
  const omitted = entries.length - shown.length;
  return [
    '## Mission Log (Completed Tasks)',
    ...(omitted > 0 ? [`(${omitted} earlier ${omitted === 1 ? 'task' : 'tasks'} omitted)`] : []),
    ...shown.map(([id, v]) => `- [done] ${id}: ${cut(ednOfJson(v), MISSION_LOG_VALUE_CHARS)}`),
  ].join('\n');
}
