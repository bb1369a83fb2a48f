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
import { CronError, DAYS, DESCRIPTORS, goDurationMs } from './cron.ts';
import { durationMs, type Msg } from './proto.ts';

/** A spec the server refuses; the message is the real server's (calendar.go, spec.go). */
export class SpecError extends Error {}

interface FieldDef {
  name: 'second' | 'minute' | 'hour' | 'dayOfMonth' | 'month' | 'year' | 'dayOfWeek';
  /** the field as the server's messages name it */
  label: string;
  min: number;
  /** the largest value a stored range may hold */
  max: number;
  /** the largest value text may give (day of week: 7 is Sunday too) */
  textMax?: number;
  /** the text of a missing field */
  missingText: string;
  /** a missing field of a structured calendar: these values (undefined = any value) */
  missing?: number;
  /** names matched by prefix, at least this long */
  names?: { list: string[]; base: number; minLength: number };
}

const MONTH_NAMES = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

const FIELD: Record<FieldDef['name'], FieldDef> = {
  second: { name: 'second', label: 'Second', min: 0, max: 59, missingText: '0', missing: 0 },
  minute: { name: 'minute', label: 'Minute', min: 0, max: 59, missingText: '0', missing: 0 },
  hour: { name: 'hour', label: 'Hour', min: 0, max: 23, missingText: '0', missing: 0 },
  dayOfMonth: { name: 'dayOfMonth', label: 'DayOfMonth', min: 1, max: 31, missingText: '*' },
  month: {
    name: 'month',
    label: 'Month',
    min: 1,
    max: 12,
    missingText: '*',
    names: { list: MONTH_NAMES, base: 1, minLength: 3 },
  },
  year: { name: 'year', label: 'Year', min: 2000, max: 2100, missingText: '*' },
  dayOfWeek: {
    name: 'dayOfWeek',
    label: 'DayOfWeek',
    min: 0,
    max: 6,
    textMax: 7,
    missingText: '*',
    names: { list: DAY_NAMES, base: 0, minLength: 2 },
  },
};
const FIELD_ORDER = Object.values(FIELD);
/** The order the server reads a calendar's text fields in (its messages come in this order). */
const TEXT_ORDER = [FIELD.second, FIELD.minute, FIELD.hour, FIELD.dayOfWeek, FIELD.dayOfMonth, FIELD.month, FIELD.year];
const MAX_COMMENT = 200;

type Range = { start: number; end: number; step: number };

// --- parsing the text forms ------------------------------------------------------------

/** Go's strconv.Atoi, with its message. */
function atoi(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new SpecError(`strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  return Number(text);
}

/** One value (a number, or a month or day name by prefix) within [min, max]; undefined if not. */
function valueOf(f: FieldDef, text: string, min: number, max: number): number | undefined {
  if (f.names && text.length >= f.names.minLength) {
    const i = f.names.list.findIndex((name) => name.startsWith(text.toLowerCase()));
    if (i >= 0) return i + f.names.base >= min && i + f.names.base <= max ? i + f.names.base : undefined;
  }
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const n = Number(text);
  return n >= min && n <= max ? n : undefined;
}

/** One text field (`*`, `1,5`, `9-17`, `*\/15`, `MON-FRI`) → ranges, as the server's makeRange. */
function parseTextField(f: FieldDef, raw: string): Range[] {
  const text = raw.trim() || f.missingText;
  if (text === '*' && f.name === 'year') return [];
  const max = f.textMax ?? f.max;
  const ranges: Range[] = [];
  for (let part of text.split(',')) {
    let step = 1;
    let hasStep = false;
    const slashes = part.split('/').length - 1;
    if (slashes > 1) throw new SpecError(`${f.label} has too many slashes`);
    if (slashes === 1) {
      const [range, stepText] = part.split('/') as [string, string];
      if (!stepText) throw new SpecError(`${f.label} missing step value`);
      step = atoi(stepText);
      if (step < 1) throw new SpecError(`${f.label} has invalid Step`);
      part = range;
      hasStep = true;
    }
    let start: number | undefined = f.min;
    let end: number | undefined = max;
    if (part !== '*') {
      if (part.includes('-')) {
        if (part.split('-').length > 2) throw new SpecError(`${f.label} has too many dashes`);
        const [a, b] = part.split('-') as [string, string];
        start = valueOf(f, a, f.min, max);
        if (start === undefined) throw new SpecError(`${f.label} Start is not in range [${f.min}-${max}]`);
        end = valueOf(f, b, start, max);
        if (end === undefined) throw new SpecError(`${f.label} End is before Start or not in range [${f.min}-${max}]`);
      } else {
        start = valueOf(f, part, f.min, max);
        if (start === undefined) throw new SpecError(`${f.label} is not in range [${f.min}-${max}]`);
        if (!hasStep) end = start;
      }
    }
    // Sunday is 0 and 7: a range reaching 7 ends at 6, with a 0 of its own when it stepped on 7
    if (f.name === 'dayOfWeek' && end === 7) {
      if ((7 - start) % step === 0 && (step > 1 || start > 1)) {
        ranges.push({ start: 0, end: 0, step: 1 });
        if (start === 7) continue;
      }
      end = 6;
    }
    ranges.push({ start, end, step });
  }
  return ranges;
}

/** A calendar's text fields → a structured calendar; every field's problem in one message. */
function compileTextCalendar(c: Msg): Msg {
  const out: Msg = {};
  const problems: string[] = [];
  for (const f of TEXT_ORDER) {
    try {
      out[f.name] = parseTextField(f, String(c[f.name] ?? ''));
    } catch (err) {
      if (!(err instanceof SpecError)) throw err;
      problems.push(err.message);
    }
  }
  if (problems.length) throw new SpecError(problems.join(', '));
  if (c.comment) out.comment = c.comment;
  return out;
}

/** Go's duration syntax (and `d`), refused with Go's message. */
function specDurationMs(text: string): number {
  try {
    return goDurationMs(text, { days: true });
  } catch (err) {
    if (err instanceof CronError) throw new SpecError(err.message);
    throw err;
  }
}

/** A cron string → a structured calendar or an interval, and the time zone it names ('' for none). */
function compileCron(text: string): { calendar?: Msg; interval?: Msg; timezone: string } {
  let rest = text.trim();
  let timezone = '';
  if (rest.startsWith('TZ=') || rest.startsWith('CRON_TZ=')) {
    const space = rest.indexOf(' ');
    if (space < 0) throw new SpecError('CronString has time zone but missing fields');
    timezone = rest.slice(rest.indexOf('=') + 1, space);
    rest = rest.slice(space + 1);
  }
  const hash = rest.indexOf('#');
  const comment = hash >= 0 ? rest.slice(hash + 1).trim() : '';
  rest = (hash >= 0 ? rest.slice(0, hash) : rest).trim();
  if (rest.startsWith('@every')) {
    const space = rest.indexOf(' ');
    if (space < 0) throw new SpecError('CronString does not have interval after @every');
    const [every, phase] = rest.slice(space + 1).split('/') as [string, string | undefined];
    return {
      interval: {
        interval: msDuration(specDurationMs(every)),
        ...(phase ? { phase: msDuration(specDurationMs(phase)) } : {}),
      },
      timezone: '',
    };
  }
  const fields = (DESCRIPTORS[rest] ?? rest).split(/\s+/).filter(Boolean);
  const names: Array<FieldDef['name']> =
    fields.length === 5
      ? ['minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek']
      : fields.length === 6
        ? ['minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek', 'year']
        : fields.length === 7
          ? ['second', 'minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek', 'year']
          : [];
  if (!names.length) throw new SpecError('CronString does not have 5-7 fields');
  const textCalendar: Msg = Object.fromEntries(names.map((name, i) => [name, fields[i]]));
  if (comment) textCalendar.comment = comment;
  return { calendar: compileTextCalendar(textCalendar), timezone };
}

const msDuration = (ms: number): Msg => ({
  seconds: Math.floor(ms / 1000),
  nanos: Math.round((ms - Math.floor(ms / 1000) * 1000) * 1_000_000),
});

/** A structured calendar's ranges and comment, as the server validates them. */
function checkCalendar(calendar: Msg): void {
  const problems: string[] = [];
  for (const f of FIELD_ORDER) {
    for (const r of (calendar[f.name] ?? []) as Msg[]) {
      const start = Number(r.start ?? 0);
      const end = Number(r.end ?? 0);
      if (start < f.min || start > f.max) problems.push(`${f.label} Start is not in range [${f.min}-${f.max}]`);
      if (end !== 0 && (end < start || end > f.max))
        problems.push(`${f.label} End is before Start or not in range [${f.min}-${f.max}]`);
      if (Number(r.step ?? 0) < 0) problems.push(`${f.label} has invalid Step`);
    }
  }
  if (String(calendar.comment ?? '').length > MAX_COMMENT) problems.push('comment is too long');
  if (problems.length) throw new SpecError(`invalid calendar spec: ${problems.join(', ')}`);
}

function checkInterval(i: Msg): void {
  const every = durationMs(i.interval);
  const phase = durationMs(i.phase);
  if (every < 1000) throw new SpecError('interval is too small');
  if (phase < 0) throw new SpecError('phase is negative');
  if (phase >= every) throw new SpecError('phase cannot be greater than Interval');
}

function checkTimezone(name: string | undefined): void {
  if (!name || name === 'UTC') return;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
  } catch {
    throw new SpecError(`unknown time zone ${name}`);
  }
}

/**
 * The spec as the server stores it: cron strings and string calendars folded into
 * structured calendars and intervals, everything checked in the order the real server
 * checks it (canonicalizeSpec). Throws SpecError with its message.
 */
export function compileSpec(spec: Msg | undefined): Msg {
  const out: Msg = { ...(spec ?? {}) };
  const calendars: Msg[] = [...((spec?.structuredCalendar ?? []) as Msg[])];
  const intervals: Msg[] = [...((spec?.interval ?? []) as Msg[])];
  for (const c of (spec?.calendar ?? []) as Msg[]) calendars.push(compileTextCalendar(c));
  const excluded: Msg[] = [
    ...((spec?.excludeStructuredCalendar ?? []) as Msg[]),
    ...((spec?.excludeCalendar ?? []) as Msg[]).map(compileTextCalendar),
  ];
  // every cron string must name the same time zone (or none); the spec's own must agree
  let cronTimezone: string | undefined;
  for (const text of (spec?.cronString ?? []) as string[]) {
    const compiled = compileCron(text);
    if (cronTimezone !== undefined && compiled.timezone !== cronTimezone)
      throw new SpecError('conflicting timezone names');
    cronTimezone = compiled.timezone;
    if (compiled.calendar) calendars.push(compiled.calendar);
    if (compiled.interval) intervals.push(compiled.interval);
  }
  if (cronTimezone) {
    if (out.timezoneName && out.timezoneName !== cronTimezone) throw new SpecError('conflicting timezone names');
    out.timezoneName = cronTimezone;
  }
  for (const c of calendars) checkCalendar(c);
  for (const i of intervals) checkInterval(i);
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
  const list = ranges?.length
    ? ranges
    : f.missing !== undefined
      ? [{ start: f.missing }]
      : [{ start: f.min, end: f.max }];
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
    return {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: d.getUTCHours(),
      minute: d.getUTCMinutes(),
      second: d.getUTCSeconds(),
      weekday: d.getUTCDay(),
    };
  }
  let format = formatters.get(tz);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    });
    formatters.set(tz, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: DAYS.indexOf(String(parts.weekday).toUpperCase().slice(0, 3)),
  };
}

/** Wall-clock time in `tz` → epoch ms (the later offset wins across a DST change). */
function toEpoch(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  tz: string,
): number {
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
