/**
 * A plan step that writes a file (args `path` and `content`), as a person deciding on it sees
 * it: a diff against the content a completed step of the same plan read from that path, or
 * the new file's text. The console's card and the CLI's plan view both show it.
 */
import type { Json, Step } from './schema.ts';

/** A file write and what it changes. `before` null: no step of the plan read that path (a new file, as far as the plan knows). */
export interface FileEdit {
  path: string;
  content: string;
  /** the args besides path and content */
  others: Record<string, Json>;
  before: string | null;
  /** before → content, line by line (null when `before` is) */
  changes: LineChange[] | null;
}

/** `args` as a file edit, or null when they are not a write of a file (no string `path` and `content`). */
export function fileEditOf(args: Json, steps: readonly Step[]): FileEdit | null {
  if (!args || typeof args !== 'object' || Array.isArray(args)) return null;
  const { path, content, ...others } = args;
  if (typeof path !== 'string' || typeof content !== 'string') return null;
  const before = contentRead(path, steps);
  return { path, content, others, before, changes: before === null ? null : lineDiff(before, content) };
}

/** The content the latest completed step read from `path` (a result with that `path` and a string `content`). */
function contentRead(path: string, steps: readonly Step[]): string | null {
  for (const s of [...steps].reverse()) {
    const v = s.status === 'completed' ? s.result?.value : undefined;
    if (v && typeof v === 'object' && !Array.isArray(v) && v.path === path && typeof v.content === 'string')
      return v.content;
  }
  return null;
}

export interface LineChange {
  kind: 'same' | 'add' | 'del';
  line: string;
}

/** A line diff (longest common subsequence): the lines of `before` and `after` as kept, deleted and added, in order. */
export function lineDiff(before: string, after: string): LineChange[] {
  const a = splitLines(before);
  const b = splitLines(after);
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..]
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: LineChange[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ kind: 'same', line: a[i]! });
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) out.push({ kind: 'del', line: a[i++]! });
    else out.push({ kind: 'add', line: b[j++]! });
  }
  while (i < a.length) out.push({ kind: 'del', line: a[i++]! });
  while (j < b.length) out.push({ kind: 'add', line: b[j++]! });
  return out;
}

/** Lines without the empty one after a final newline. */
const splitLines = (text: string): string[] => (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
