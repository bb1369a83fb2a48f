/**
 * Short hashes of values that history links without repeating them: the journal a pass
 * read (recorded by the pass activity, recomputed by the audit from the rebuilt journal)
 * and the args a person approved. SHA-256 of canonical JSON (sorted keys), 16 hex digits.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../lisp/json.ts';
import type { Json } from '../lisp/tools.ts';

export const valueHash = (value: Json): string =>
  createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 16);

/**
 * A journal's hash: its entries sorted by key (`key`, what pass results record), or in
 * commit order (`commit`, recorded by the first version). By key because a person's write
 * and a pass's commits delivered in one workflow task can be ordered differently live and
 * on replay, while the values a pass reads are the same.
 */
export const journalHash = (
  entries: ReadonlyArray<readonly [string, Json]>,
  order: 'key' | 'commit' = 'key',
): string => {
  const list = entries.map(([k, v]): [string, Json] => [k, v]);
  if (order === 'key') list.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return valueHash(list);
};
