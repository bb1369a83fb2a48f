import type { Runtime } from '../values.ts';

/** Joins `parts`, failing cleanly when the result would exceed the size limit. */
export function concat(parts: string[], rt: Runtime, sep = ''): string {
  let total = sep.length * Math.max(0, parts.length - 1);
  for (const p of parts) total += p.length;
  rt.checkSize(total);
  return parts.join(sep);
}
