/**
 * Short hashes of values that history links without repeating them: the journal a pass
 * read (recorded by the pass activity, recomputed by the audit from the rebuilt journal)
 * and the args a person approved. SHA-256 of canonical JSON (sorted keys), 16 hex digits.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../lisp/json.ts';
import type { Json } from '../lisp/tools.ts';

export const valueHash = (value: Json): string => createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 16);

/** The journal's entries in commit order (order counts: it is what the pass was shown). */
export const journalHash = (entries: ReadonlyArray<readonly [string, Json]>): string => valueHash(entries.map(([k, v]) => [k, v]));
