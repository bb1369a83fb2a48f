/**
 * Cron schedules of workflows, as Temporal reads them (robfig/cron): five fields in UTC
 * (minute hour day-of-month month day-of-week 0-6, with `*`, `?`, lists, ranges, steps and
 * month/day names), the descriptors `@yearly @annually @monthly @weekly @daily @midnight
 * @hourly`, and `@every DURATION` (`90s`, `1h30m`; whole seconds, at least 1s, counted
 * from the time it is asked about, not from the epoch). Day of month and day of week
 * both restricted means either matches, as in cron. Also Go's duration syntax, which
 * schedule specs read too.
 */
export class CronError extends Error {}

export interface CronSchedule {
  /** the first time strictly after `afterMs` that the schedule fires */
  next(afterMs: number): number;
}

/** Cron descriptors and the five fields they stand for (schedule specs read them too). */
export const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

export const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
export const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

interface Field {
  name: string;
  min: number;
  max: number;
  names?: string[];
  /** names start at this number (months: 1) */
  nameBase?: number;
}

const FIELDS: Field[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS, nameBase: 1 },
  { name: 'day of week', min: 0, max: 6, names: DAYS, nameBase: 0 },
];

const UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * A Go duration (`1h30m`, `90s`, `500ms`, `-2.5h`) in ms, refused with Go's own messages
 * (`time: unknown unit "x" in duration "1x"`). With `days`, also `d` for 24 hours, as
 * Temporal's schedules read `@every 1d`.
 */
export function goDurationMs(text: string, opts: { days?: boolean } = {}): number {
  const units: Record<string, number> = opts.days ? { ...UNITS, d: 86_400_000 } : UNITS;
  const quoted = JSON.stringify(text);
  let s = text;
  let sign = 1;
  if (s[0] === '-' || s[0] === '+') {
    sign = s[0] === '-' ? -1 : 1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (!s) throw new CronError(`time: invalid duration ${quoted}`);
  let total = 0;
  while (s) {
    const number = /^(\d*)(?:\.(\d*))?/.exec(s)!;
    if (!number[1] && !number[2]) throw new CronError(`time: invalid duration ${quoted}`);
    s = s.slice(number[0].length);
    const unit = /^[^\d.]*/.exec(s)![0];
    if (!unit) throw new CronError(`time: missing unit in duration ${quoted}`);
    const scale = units[unit];
    if (scale === undefined) throw new CronError(`time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`);
    total += Number(`${number[1] || '0'}.${number[2] || '0'}`) * scale;
    s = s.slice(unit.length);
  }
  return sign * total;
}

function value(f: Field, text: string): number {
  const upper = text.toUpperCase();
  const named = f.names?.indexOf(upper) ?? -1;
  const n = named >= 0 ? named + (f.nameBase ?? 0) : /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(n) || n < f.min || n > f.max)
    throw new CronError(`${f.name}: "${text}" is not in ${f.min}-${f.max}`);
  return n;
}

/** The allowed values of one field, and whether it was `*` (unrestricted). */
function parseField(f: Field, text: string): { values: Set<number>; any: boolean } {
  const values = new Set<number>();
  let any = false;
  for (const part of text.split(',')) {
    const [range, stepText] = part.split('/') as [string, string | undefined];
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1) throw new CronError(`${f.name}: bad step in "${part}"`);
    let lo: number;
    let hi: number;
    if (range === '*' || range === '?') {
      [lo, hi] = [f.min, f.max];
      if (stepText === undefined) any = true;
    } else if (range.includes('-')) {
      const [a, b] = range.split('-') as [string, string];
      [lo, hi] = [value(f, a), value(f, b)];
      if (lo > hi) throw new CronError(`${f.name}: range "${range}" runs backwards`);
    } else {
      lo = value(f, range);
      hi = stepText === undefined ? lo : f.max;
    }
    for (let v = lo; v <= hi; v += step) values.add(v);
  }
  return { values, any };
}

export function parseCron(spec: string): CronSchedule {
  const text = spec.trim();
  if (text.startsWith('@every ')) {
    // robfig's Every: whole seconds, at least one, added to the time asked about
    const every = Math.max(1000, Math.floor(goDurationMs(text.slice(7).trim()) / 1000) * 1000);
    return { next: (after) => Math.floor(after / 1000) * 1000 + every };
  }
  const fields = (DESCRIPTORS[text] ?? text).split(/\s+/);
  if (fields.length !== 5)
    throw new CronError(
      `expected 5 fields (minute hour day-of-month month day-of-week) or a descriptor like @daily, got "${spec}"`,
    );
  const [minute, hour, dom, month, dow] = FIELDS.map((f, i) => parseField(f, fields[i]!));
  const dayMatches = (d: Date) => {
    const byDom = dom!.values.has(d.getUTCDate());
    const byDow = dow!.values.has(d.getUTCDay());
    if (dom!.any && dow!.any) return true;
    if (dom!.any) return byDow;
    if (dow!.any) return byDom;
    return byDom || byDow;
  };
  return {
    next(after) {
      const t = new Date(Math.floor(after / 60_000) * 60_000 + 60_000);
      for (let guard = 0; guard < 366 * 5; guard++) {
        if (month!.values.has(t.getUTCMonth() + 1) && dayMatches(t)) {
          for (; t.getUTCHours() < 24 && guard >= 0;) {
            if (hour!.values.has(t.getUTCHours()) && minute!.values.has(t.getUTCMinutes())) return t.getTime();
            const day = t.getUTCDate();
            t.setTime(t.getTime() + 60_000);
            if (t.getUTCDate() !== day) break;
          }
        } else {
          t.setUTCHours(0, 0, 0, 0);
          t.setUTCDate(t.getUTCDate() + 1);
        }
      }
      throw new CronError(`"${spec}" never fires`);
    },
  };
}
