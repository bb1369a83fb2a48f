/**
 * The recorded histories the audit's replay tests read (test/audit/fixtures), and one made
 * nondeterministic: a replay of it must fail.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type RunHistory, historiesFromJson } from '../../src/history/fetch.ts';

export const fixture = (name: string) =>
  readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)), 'utf8');

type Json = Record<string, unknown>;

/** The recorded wire-transfer history with its first pass scheduled under another activity name. */
export function nondeterministicHistory(): RunHistory {
  const h = JSON.parse(fixture('wire-transfer.history.json')) as { events: Json[] };
  const pass = h.events.find(
    (e) =>
      ((e.activityTaskScheduledEventAttributes as Json | undefined)?.activityType as Json | undefined)?.name ===
      'runPass',
  )!;
  ((pass.activityTaskScheduledEventAttributes as Json).activityType as Json).name = 'runPassFromOlderCode';
  return historiesFromJson(JSON.stringify(h), 'bad')[0]!;
}
