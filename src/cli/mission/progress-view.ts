/**
 * A mission's progress as people read it: the plan checklist with what the model reported
 * for each step. The `progress` query answers the text written for the model (it begins
 * with instructions on batching and `step-done`); this reads the plan back from it and
 * takes each step's report whole from the `summaries` query.
 */
import type { MissionHandle } from '../../client/mission/client.ts';
import { checklistFromText, checklistText } from '../../navigator/prompt/progress.ts';

export async function progressForPeople(mission: Pick<MissionHandle, 'progress' | 'summaries'>): Promise<string> {
  const [text, summaries] = await Promise.all([mission.progress(), mission.summaries().catch(() => null)]);
  return checklistText(checklistFromText(text, summaries));
}
