/**
 * The system prompt: the language reference (static for an agent) followed, when the
 * journal is non-empty, by the Mission Log, rebuilt every turn.
 */
import { type LanguageOptions, languageReference } from './language.ts';
import { type JournalLike, renderMissionLog } from './missionLog.ts';

export interface SystemPromptOptions extends LanguageOptions {
  /** text placed before the language reference (role, house rules) */
  prefix?: string;
  /** text placed after it */
  suffix?: string;
}

/** The static part of the system prompt. */
export function staticSystemPrompt(opts: SystemPromptOptions = {}): string {
  return [opts.prefix?.trim(), languageReference(opts), opts.suffix?.trim()].filter(Boolean).join('\n\n');
}

/** The system prompt of one turn: the static part plus the current Mission Log. */
export function systemPrompt(staticPart: string, journal: JournalLike | null | undefined): string {
  const log = renderMissionLog(journal);
  return log ? `${staticPart}\n\n${log}` : staticPart;
}
