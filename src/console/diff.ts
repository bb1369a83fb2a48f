/** A line diff (longest common subsequence), for showing a file edit as old vs new lines. */

export interface LineChange {
  kind: 'same' | 'add' | 'del';
  line: string;
}

/** The lines of `before` and `after` as kept, deleted and added, in order. */
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
