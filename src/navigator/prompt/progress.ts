/**
 * The progress checklist: the agent's checklist with the steps the model reported through
 * `(step-done id summary)` ticked, and reported steps that are not on it listed under
 * "Out-of-Plan Steps" (the model-facing text keeps the reference implementation's word).
 * The journal never ticks a box; only summaries do.
 */
import type { ChecklistStep } from '../checklist.ts';

export type Summaries = ReadonlyMap<string, string> | Readonly<Record<string, string>>;

const summaryMap = (s: Summaries | null | undefined): ReadonlyMap<string, string> =>
  !s ? new Map() : s instanceof Map ? s : new Map(Object.entries(s));

/** The `## Progress` section, or '' when there is no checklist. */
export function renderProgress(checklist: readonly ChecklistStep[], summaries?: Summaries | null): string {
  if (!checklist.length) return '';
  const done = summaryMap(summaries);
  // the id in code quotes, exactly as (step-done "ID" ...) takes it (not `**check.**`)
  const lines = checklist.map((s) =>
    done.has(s.id) ? `- [x] \`${s.id}\` ${s.description} — ${done.get(s.id)}` : `- [ ] \`${s.id}\` ${s.description}`,
  );
  const planned = new Set(checklist.map((s) => s.id));
  const extra = [...done.keys()].filter((id) => !planned.has(id)).sort();
  let text =
    '## Progress\n' +
    'Batch independent steps into one program, and call (step-done "ID" "what you found") as each step finishes. A step that does not apply on your path is done too: (step-done "ID" "not needed: why").\n\n' +
    lines.join('\n');
  if (extra.length)
    text += `\n\n### Out-of-Plan Steps\n${extra.map((id) => `- [x] ${id}: ${done.get(id)}`).join('\n')}`;
  return text;
}

// ------------------------------------------------------------------ for people

/** One step of the checklist people read. */
export interface ChecklistItem {
  id: string;
  description: string;
  /** what the model reported at `(step-done id ...)`; absent: not done yet */
  summary?: string;
  /** false for a step the model reported that is not on the checklist */
  planned: boolean;
}

/** The checklist people read, from the agent's checklist and the step summaries. */
export function checklistOf(checklist: readonly ChecklistStep[], summaries?: Summaries | null): ChecklistItem[] {
  const done = summaryMap(summaries);
  const planned = new Set(checklist.map((s) => s.id));
  return [
    ...checklist.map((s) => ({
      id: s.id,
      description: s.description,
      ...(done.has(s.id) ? { summary: done.get(s.id)! } : {}),
      planned: true,
    })),
    ...[...done.keys()]
      .filter((id) => !planned.has(id))
      .sort()
      .map((id) => ({ id, description: id, summary: done.get(id)!, planned: false })),
  ];
}

/**
 * The checklist read back from the model-facing text ({@link renderProgress}), for a reader that
 * has only that (the `progress` query): `- [x] \`id\` description — summary`. With
 * `summaries` (the `summaries` query), those are the summaries: one spanning lines is whole.
 */
export function checklistFromText(progress: string, summaries?: Summaries | null): ChecklistItem[] {
  const checklist: ChecklistStep[] = [];
  const read = new Map<string, string>();
  for (const line of progress.split('\n')) {
    const step = /^- \[( |x)\] `([^`]+)` (.*?)(?: — (.*))?$/.exec(line);
    if (step) {
      checklist.push({ id: step[2]!, description: step[3]! });
      if (step[1] === 'x') read.set(step[2]!, step[4] ?? '');
      continue;
    }
    const extra = /^- \[x\] ([^:]+): (.*)$/.exec(line);
    if (extra) read.set(extra[1]!, extra[2]!);
  }
  return checklistOf(checklist, summaries ?? read);
}

/** Inline markdown as plain text: `code`, **bold**, *emphasis* and [links](url) without their marks. */
const plain = (text: string) =>
  text
    .replace(/`([^`]+)`/g, '$1')
    .replace(/\*\*([^*]+)\*\*/g, '$1')
    .replace(/(^|[^*\w])\*([^*\s][^*]*)\*/g, '$1$2')
    .replace(/\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g, '$1 ($2)');

/**
 * The checklist as people read it in a terminal: how many steps are done, then each step
 * ticked or not, with what the model reported under it (no instructions for the model).
 */
export function checklistText(items: readonly ChecklistItem[]): string {
  if (!items.length) return 'No checklist: the agent has none.';
  const done = items.filter((i) => i.summary !== undefined).length;
  const lines = [`${done} of ${items.length} steps done`];
  for (const i of items) {
    lines.push(
      `  ${i.summary !== undefined ? '✓' : '○'} ${plain(i.description)}${i.planned ? '' : ' (not on the checklist)'}`,
    );
    for (const l of (i.summary ?? '').split('\n').filter((x) => x.trim())) lines.push(`      ${plain(l)}`);
  }
  return lines.join('\n');
}
