/**
 * Times and durations in words ("in 23 hours", "2 hours 30 minutes", "2026-11-27 15:29
 * UTC"), pure: the console's pages (src/console/time.ts) and history's timeline both use
 * them, so history does not import the console.
 */
const UNITS: Array<[string, number]> = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];

/** `in 23 hours`, `5 minutes ago`, `just now`. */
export function relative(at: Date, now = Date.now()): string {
  const ms = at.getTime() - now;
  const abs = Math.abs(ms);
  if (abs < 5000) return 'just now';
  const [unit, size] = UNITS.find(([, size]) => abs >= size) ?? UNITS[UNITS.length - 1]!;
  const n = Math.round(abs / size);
  const amount = `${n} ${unit}${n === 1 ? '' : 's'}`;
  return ms > 0 ? `in ${amount}` : `${amount} ago`;
}

/** `2026-11-27 15:29 UTC`. */
export const clock = (at: Date): string => `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** A duration in words: `1 day`, `2 hours 30 minutes`, `45 seconds`. */
export function duration(ms: number): string {
  const parts: string[] = [];
  let rest = Math.round(ms);
  for (const [unit, size] of UNITS) {
    const n = Math.floor(rest / size);
    if (n > 0 && parts.length < 2) parts.push(`${n} ${unit}${n === 1 ? '' : 's'}`);
    rest -= n * size;
  }
  return parts.join(' ') || `${ms} ms`;
}
