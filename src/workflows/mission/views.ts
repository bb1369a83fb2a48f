/**
 * Text views of mission state for queries: the same renderers the prompt uses, so the
 * Temporal UI and the CLI show exactly what the model sees. Pure modules only.
 */
import { renderMissionLog as renderLog } from '../../navigator/prompt/missionLog.ts';
import { renderProgress as renderChecklist } from '../../navigator/prompt/progress.ts';
import type { JournalEntries } from './contract.ts';

export function renderMissionLog(entries: JournalEntries): string {
  return renderLog(new Map(entries)) || '(no completed tasks yet)';
}

export function renderProgress(
  checklist: ReadonlyArray<{ id: string; description: string }>,
  summaries: Record<string, string>,
): string {
  return renderChecklist(checklist, summaries) || '(this agent has no checklist)';
}
