/**
 * Schedule specs as Temporal reads them: calendars (structured ranges, or the string form
 * `{hour: "9-17", dayOfWeek: "MON-FRI"}`), cron strings (5 fields `minute hour
 * day-of-month month day-of-week`, 6 with a year after them, 7 with a second before them;
 * `@daily`-style descriptors; `@every 1h[/15m]`; a `CRON_TZ=` or `TZ=` prefix), intervals
 * with a phase, exclusions, start and end times and a time zone.
 *
 * `compileSpec` turns a spec into the form the server stores and describes (cron strings and
 * string calendars become structured calendars or intervals, as the real server does, which
 * is the only form the SDKs decode); `nextTime` gives the first matching time after a
 * moment. Unlike classic cron, every field of a calendar must match (day of month AND day
 * of week), as in Temporal schedules.
 */
import { DAYS, DESCRIPTORS, goDurationMs, MONTHS } from './cron.ts';
import { durationMs, type Msg } from './proto.ts';

export class SpecError extends Error {}

interface FieldDef {
  name: 'second' | 'minute' | 'hour' | 'dayOfMonth' | 'month' | 'year' | 'dayOfWeek';
  label: string;
  min: number;
  max: number;
  /** a missing field: these values (undefined = any value) */
  missing?: number;
  names?: string[];
  nameBase?: number;
}

const FIELD: Record<FieldDef['name'], FieldDef> = {
  second: { name: 'second', label: 'second', min: 0, max: 59, missing: 0 },
  minute: { name: 'minute', label: 'minute', min: 0, max: 59, missing: 0 },
  hour: { name: 'hour', label: 'hour', min: 0, max: 23, missing: 0 },
  dayOfMonth: { name: 'dayOfMonth', label: 'day of month', min: 1, max: 31 },
  month: { name: 'month', label: 'month', min: 1, max: 12, names: MONTHS, nameBase: 1 },
  year: { name: 'year', label: 'year', min: 1970, max: 2999 },
  dayOfWeek: { name: 'dayOfWeek', label: 'day of week', min: 0, max: 7, names: DAYS, nameBase: 0 },
};
const FIELD_ORDER = Object.values(FIELD);

type Range = { start: number; end: number; step: number };

// --- parsing the text forms ------------------------------------------------------------

function valueOf(f: FieldDef, text: string): number {
  const named = f.names?.indexOf(text.toUpperCase().slice(0, 3)) ?? -1;
  const n = named >= 0 && /^[a-z]+$/i.test(text) ? named + (f.nameBase ?? 0) : /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(n) || n < f.min || n > f.max) throw new SpecError(`${f.label}: "${text}" is not in ${f.min}-${f.max}`);
  return n;
}

/** One text field (`*`, `?`, `1,5`, `9-17`, `*\/15`, `MON-FRI`) → ranges. */
function parseTextField(f: FieldDef, text: string): Range[] {
  if (text === '*' || text === '?') return f.name === 'year' ? [] : [{ start: f.min, end: f.name === 'dayOfWeek' ? 6 : f.max, step: 1 }];
  return text.split(',').map((part) => {
    const [range, stepText] = part.split('/') as [string, string | undefined];
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1) throw new SpecError(`${f.label}: bad step in "${part}"`);
    if (range === '*' || range === '?') return { start: f.min, end: f.max, step };
    if (range.includes('-')) {
      const [a, b] = range.split('-') as [string, string];
      const [start, end] = [valueOf(f, a), valueOf(f, b)];
      if (start > end) throw new SpecError(`${f.label}: range "${range}" runs backwards`);
      return { start, end, step };
    }
    const start = valueOf(f, range);
    return { start, end: stepText === undefined ? start : f.max, step };
  });
}

/** A cron string → structured calendars or an interval (with its time zone, if it names one). */
function compileCron(text: string): { calendar?: Msg; interval?: Msg; timezone?: string } {
  let rest = text.trim();
  let timezone: string | undefined;
  const tz = /^(?:CRON_TZ|TZ)=(\S+)\s+/.exec(rest);
  if (tz) {
    timezone = tz[1];
    rest = rest.slice(tz[0].length);
  }
  const hash = rest.indexOf('#');
  const comment = hash >= 0 ? rest.slice(hash + 1).trim() : undefined;
  if (hash >= 0) rest = rest.slice(0, hash).trim();
  if (rest.startsWith('@every ')) {
    const [every, phase] = rest.slice(7).trim().split('/') as [string, string | undefined];
    return { interval: { interval: msDuration(goDurationMs(every)), ...(phase ? { phase: msDuration(goDurationMs(phase)) } : {}) }, timezone };
  }
  const fields = (DESCRIPTORS[rest] ?? rest).split(/\s+/);
  const names: Array<FieldDef['name']> =
    fields.length === 5 ? ['minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek']
    : fields.length === 6 ? ['minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek', 'year']
    : fields.length === 7 ? ['second', 'minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek', 'year']
    : [];
  if (!names.length) throw new SpecError(`cron "${text}": expected 5 fields (minute hour day-of-month month day-of-week), 6 (and a year) or 7 (a second first), or a descriptor like @daily`);
  const calendar: Msg = { second: [{ start: 0, end: 0, step: 1 }], year: [] };
  names.forEach((name, i) => (calendar[name] = parseTextField(FIELD[name], fields[i]!)));
  if (comment) calendar.comment = comment;
  return { calendar, timezone };
}

/** The string form of a calendar (`{hour: "9-17"}`; missing fields take the proto defaults). */
function compileTextCalendar(c: Msg): Msg {
  const out: Msg = {};
  for (const f of FIELD_ORDER) {
    const text = String(c[f.name] ?? '').trim();
    out[f.name] = text ? parseTextField(f, text) : f.missing !== undefined ? [{ start: f.missing, end: f.missing, step: 1 }] : [];
  }
  if (c.comment) out.comment = c.comment;
  return out;
}

const msDuration = (ms: number): Msg => ({ seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1_000_000 });

function checkRanges(calendar: Msg): void {
  for (const f of FIELD_ORDER) {
    for (const r of (calendar[f.name] ?? []) as Msg[]) {
      const start = Number(r.start ?? 0);
      const end = Number(r.end ?? 0);
      if (start < f.min || start > f.max || (end > start && end > f.max)) throw new SpecError(`${f.label}: range ${start}-${end} is outside ${f.min}-${f.max}`);
    }
  }
}

function checkTimezone(name: string | undefined): void {
  if (!name || name === 'UTC') return;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
  } catch {
    throw new SpecError(`unknown time zone "${name}"`);
  }
}

/**
 * The spec as the server stores it: cron strings and string calendars folded into
 * structured calendars and intervals, everything checked. Throws SpecError.
 */
export function compileSpec(spec: Msg | undefined): Msg {
  const out: Msg = { ...(spec ?? {}) };
  const calendars: Msg[] = [...((spec?.structuredCalendar ?? []) as Msg[])];
  const intervals: Msg[] = [...((spec?.interval ?? []) as Msg[])];
  for (const c of (spec?.calendar ?? []) as Msg[]) calendars.push(compileTextCalendar(c));
  for (const text of (spec?.cronString ?? []) as string[]) {
    const compiled = compileCron(text);
    if (compiled.calendar) calendars.push(compiled.calendar);
    if (compiled.interval) intervals.push(compiled.interval);
    if (compiled.timezone) {
      if (out.timezoneName && out.timezoneName !== compiled.timezone) throw new SpecError(`cron "${text}" names time zone ${compiled.timezone}, the spec ${out.timezoneName}`);
      out.timezoneName = compiled.timezone;
    }
  }
  const excluded: Msg[] = [...((spec?.excludeStructuredCalendar ?? []) as Msg[]), ...((spec?.excludeCalendar ?? []) as Msg[]).map(compileTextCalendar)];
  for (const c of [...calendars, ...excluded]) checkRanges(c);
  for (const i of intervals) {
    if (durationMs(i.interval) < 1000) throw new SpecError('an interval must be at least 1s');
  }
  checkTimezone(out.timezoneName);
  delete out.cronString;
  delete out.calendar;
  delete out.excludeCalendar;
  out.structuredCalendar = calendars;
  out.interval = intervals;
  out.excludeStructuredCalendar = excluded;
  return out;
}

// --- matching --------------------------------------------------------------------------

/** A calendar as membership tables; `year: undefined` matches any year. */
interface Matcher {
  second: boolean[];
  minute: boolean[];
  hour: boolean[];
  dayOfMonth: boolean[];
  month: boolean[];
  dayOfWeek: boolean[];
  year?: Set<number>;
}

function table(f: FieldDef, ranges: Msg[] | undefined): boolean[] {
  const out = new Array<boolean>(f.max + 1).fill(false);
  const list = ranges?.length ? ranges : f.missing !== undefined ? [{ start: f.missing }] : [{ start: f.min, end: f.max }];
  for (const r of list) {
    const start = Number(r.start ?? 0);
    const end = Math.max(start, Number(r.end ?? 0));
    const step = Number(r.step ?? 0) > 0 ? Number(r.step) : 1;
    for (let v = start; v <= Math.min(end, f.max); v += step) out[f.name === 'dayOfWeek' && v === 7 ? 0 : v] = true;
  }
  return out;
}

function matcher(c: Msg): Matcher {
  const years = (c.year ?? []) as Msg[];
  const year = years.length ? new Set<number>() : undefined;
  for (const r of years) {
    const start = Number(r.start ?? 0);
    const step = Number(r.step ?? 0) > 0 ? Number(r.step) : 1;
    for (let v = start; v <= Math.max(start, Number(r.end ?? 0)); v += step) year!.add(v);
  }
  return {
    second: table(FIELD.second, c.second),
    minute: table(FIELD.minute, c.minute),
    hour: table(FIELD.hour, c.hour),
    dayOfMonth: table(FIELD.dayOfMonth, c.dayOfMonth),
    month: table(FIELD.month, c.month),
    dayOfWeek: table(FIELD.dayOfWeek, c.dayOfWeek),
    year,
  };
}

interface Local {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock fields of `ms` in `tz`. */
function localFields(ms: number, tz: string): Local {
  if (tz === 'UTC') {
    const d = new Date(ms);
    return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds(), weekday: d.getUTCDay() };
  }
  let format = formatters.get(tz);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric', weekday: 'short' });
    formatters.set(tz, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  return {
    year: Number(parts.year), month: Number(parts.month), day: Number(parts.day),
    hour: Number(parts.hour), minute: Number(parts.minute), second: Number(parts.second),
    weekday: DAYS.indexOf(String(parts.weekday).toUpperCase().slice(0, 3)),
  };
}

/** Wall-clock time in `tz` → epoch ms (the later offset wins across a DST change). */
function toEpoch(year: number, month: number, day: number, hour: number, minute: number, second: number, tz: string): number {
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  if (tz === 'UTC') return wall;
  const offsetAt = (ms: number) => {
    const l = localFields(ms, tz);
    return Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second) - Math.floor(ms / 1000) * 1000;
  };
  const first = wall - offsetAt(wall);
  return wall - offsetAt(first);
}

function matchesAt(m: Matcher, l: Local): boolean {
  return m.second[l.second]! && m.minute[l.minute]! && m.hour[l.hour]! && dayMatches(m, l);
}

function dayMatches(m: Matcher, l: Pick<Local, 'year' | 'month' | 'day' | 'weekday'>): boolean {
  return m.month[l.month]! && m.dayOfMonth[l.day]! && m.dayOfWeek[l.weekday]! && (!m.year || m.year.has(l.year));
}

const DAY_MS = 86_400_000;
/** How far ahead a calendar is searched (a spec that matches nothing in that time never fires). */
const SEARCH_DAYS = 366 * 30;

function nextCalendarTime(m: Matcher, afterMs: number, tz: string): number | undefined {
  const start = localFields(afterMs, tz);
  let date = Date.UTC(start.year, start.month - 1, start.day);
  for (let i = 0; i < SEARCH_DAYS; i++, date += DAY_MS) {
    const d = new Date(date);
    const day = { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), weekday: d.getUTCDay() };
    if (m.year && day.year > Math.max(...m.year)) return undefined;
    if (!dayMatches(m, day)) continue;
    for (let h = 0; h < 24; h++) {
      if (!m.hour[h]) continue;
      for (let min = 0; min < 60; min++) {
        if (!m.minute[min]) continue;
        for (let s = 0; s < 60; s++) {
          if (!m.second[s]) continue;
          const t = toEpoch(day.year, day.month, day.day, h, min, s, tz);
          if (t > afterMs) return t;
        }
      }
    }
  }
  return undefined;
}

function nextIntervalTime(i: Msg, afterMs: number): number {
  const every = durationMs(i.interval);
  const phase = durationMs(i.phase) % every;
  return phase + (Math.floor((afterMs - phase) / every) + 1) * every;
}

/** A compiled spec, ready to ask for its times. */
export class SpecTimes {
  private readonly calendars: Matcher[];
  private readonly excluded: Matcher[];
  private readonly tz: string;

  constructor(private readonly spec: Msg) {
    this.calendars = ((spec.structuredCalendar ?? []) as Msg[]).map(matcher);
    this.excluded = ((spec.excludeStructuredCalendar ?? []) as Msg[]).map(matcher);
    this.tz = spec.timezoneName || 'UTC';
  }

  /** The first time strictly after `afterMs` the spec matches, or undefined if none is left. */
  next(afterMs: number): number | undefined {
    const startMs = this.spec.startTime ? durationMs(this.spec.startTime) : undefined;
    const endMs = this.spec.endTime ? durationMs(this.spec.endTime) : undefined;
    let after = startMs !== undefined ? Math.max(afterMs, startMs - 1) : afterMs;
    for (let guard = 0; guard < 100_000; guard++) {
      const t = this.nextUnfiltered(after);
      if (t === undefined || (endMs !== undefined && t > endMs)) return undefined;
      if (!this.isExcluded(t)) return t;
      after = t;
    }
    return undefined;
  }

  /** Up to `count` times after `afterMs`. */
  upcoming(afterMs: number, count: number): number[] {
    const out: number[] = [];
    for (let t = this.next(afterMs); t !== undefined && out.length < count; t = this.next(t)) out.push(t);
    return out;
  }

  private nextUnfiltered(afterMs: number): number | undefined {
    const times = [
      ...this.calendars.map((m) => nextCalendarTime(m, afterMs, this.tz)),
      ...((this.spec.interval ?? []) as Msg[]).map((i) => nextIntervalTime(i, afterMs)),
    ].filter((t): t is number => t !== undefined);
    return times.length ? Math.min(...times) : undefined;
  }

  private isExcluded(t: number): boolean {
    if (!this.excluded.length) return false;
    const local = localFields(t, this.tz);
    return this.excluded.some((m) => matchesAt(m, local));
  }
}
