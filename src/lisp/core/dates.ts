/**
 * Dates and instants: the `date/` namespace (`LocalDate/parse` and
 * `java.time.LocalDate/parse`, the reference's names, are `date/parse`).
 *
 * A date is an ISO string, `"2024-03-15"`; an instant is an ISO string in UTC,
 * `"2024-03-15T09:30:00Z"` (milliseconds only when not zero). Functions take strings, so
 * a tool's `"due" "2024-03-01"` is used as it comes, and give strings, so results print,
 * compare and cross the JSON boundary unchanged. Two normalised values of one kind sort
 * chronologically as strings.
 *
 * Parsing: `YYYY-MM-DD` is a date; `YYYY-MM-DDTHH:MM[:SS[.fff]]` (or a space for the T)
 * with `Z`, `±HH:MM`, `±HHMM` or `±HH` is an instant, converted to UTC; without an offset
 * it is read as UTC (as the reference does). Where a date meets an instant (comparing,
 * `hours-between`, `plus-hours`), the date stands for its midnight UTC.
 *
 * There is no clock: a program must replay identically, so "today" comes from the
 * mission's data or a tool (docs/language.md).
 * @module
 */
import { PtcError } from '../errors.ts';
import type { Value } from '../values.ts';
import { argError, expectInteger, expectString } from './args.ts';
import { type CoreTable, fixedArity } from './registry.ts';

const DAY_MS = 86_400_000;

/** A parsed date (days since 1970-01-01) or instant (ms since the epoch, UTC). */
export type Temporal = { kind: 'date'; days: number } | { kind: 'instant'; ms: number };

interface Civil {
  year: number;
  month: number;
  day: number;
}

// Civil-date arithmetic on the proleptic Gregorian calendar (H. Hinnant's algorithms).
function daysFromCivil({ year, month, day }: Civil): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

function civilFromDays(days: number): Civil {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

export const isLeapYear = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

// ---------------------------------------------------------------- parsing and printing

const DATE_RE = /^([+-]?\d{4,6})-(\d{2})-(\d{2})$/;
const INSTANT_RE =
  /^([+-]?\d{4,6})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

const badDate = (
  fn: string,
  s: string,
  why = 'expected an ISO date "2024-03-15" or instant "2024-03-15T09:30:00Z"',
): PtcError =>
  new PtcError(
    'type_error',
    `${fn}: cannot parse ${JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}...` : s)}: ${why}`,
  );

function civilOf(fn: string, s: string, y: string, m: string, d: string): Civil {
  const civil = { year: Number(y), month: Number(m), day: Number(d) };
  if (civil.month < 1 || civil.month > 12) throw badDate(fn, s, `month ${civil.month} is not 1..12`);
  if (civil.day < 1 || civil.day > daysInMonth(civil.year, civil.month)) {
    throw badDate(fn, s, `day ${civil.day} is not in ${civil.year}-${m}`);
  }
  return civil;
}

function offsetMinutes(fn: string, s: string, zone: string | undefined): number {
  if (zone === undefined || zone === 'Z' || zone === 'z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  if (hours > 18 || minutes > 59) throw badDate(fn, s, `offset ${zone} is out of range`);
  return (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

/** Reads a date or instant string; anything else is a `type_error` naming `fn`. */
export function parseTemporal(fn: string, v: Value): Temporal {
  if (typeof v !== 'string') throw argError(fn, 'a date or instant string', v);
  const s = v.trim();
  const date = DATE_RE.exec(s);
  if (date) return { kind: 'date', days: daysFromCivil(civilOf(fn, v, date[1]!, date[2]!, date[3]!)) };
  const inst = INSTANT_RE.exec(s);
  if (!inst) throw badDate(fn, v);
  const [, y, mo, d, h, mi, sec = '0', frac = '', zone] = inst;
  const days = daysFromCivil(civilOf(fn, v, y!, mo!, d!));
  const [hour, minute, second] = [Number(h), Number(mi), Number(sec)];
  if (hour > 23 || minute > 59 || second > 59) throw badDate(fn, v, `time ${h}:${mi}:${sec} is out of range`);
  const ms = Math.floor(Number(`0.${frac || '0'}`) * 1000);
  const local = days * DAY_MS + ((hour * 60 + minute) * 60 + second) * 1000 + ms;
  return { kind: 'instant', ms: local - offsetMinutes(fn, v, zone) * 60_000 };
}

const pad = (n: number, width: number): string => {
  const s = String(Math.abs(n)).padStart(width, '0');
  return n < 0 ? `-${s}` : s;
};

function yearText(year: number): string {
  if (year >= 0 && year <= 9999) return pad(year, 4);
  return year > 9999 ? `+${year}` : pad(year, 4);
}

/** ISO text: `2024-03-15`, `2024-03-15T09:30:00Z`, `2024-03-15T09:30:00.250Z`. */
export function temporalText(t: Temporal): string {
  const days = t.kind === 'date' ? t.days : Math.floor(t.ms / DAY_MS);
  const { year, month, day } = civilFromDays(days);
  const dateText = `${yearText(year)}-${pad(month, 2)}-${pad(day, 2)}`;
  if (t.kind === 'date') return dateText;
  const inDay = t.ms - days * DAY_MS;
  const ms = inDay % 1000;
  const secs = Math.floor(inDay / 1000);
  const time = `${pad(Math.floor(secs / 3600), 2)}:${pad(Math.floor(secs / 60) % 60, 2)}:${pad(secs % 60, 2)}`;
  return `${dateText}T${time}${ms ? `.${pad(ms, 3)}` : ''}Z`;
}

const millisOf = (t: Temporal): number => (t.kind === 'date' ? t.days * DAY_MS : t.ms);
const dayOf = (t: Temporal): number => (t.kind === 'date' ? t.days : Math.floor(t.ms / DAY_MS));

/** Bounds the values a program can make: years -999999..999999, as java.time's LocalDate. */
function checked(fn: string, t: Temporal): string {
  const year = civilFromDays(dayOf(t)).year;
  if (!Number.isFinite(millisOf(t)) || Math.abs(year) > 999_999) {
    throw new PtcError('type_error', `${fn}: the result is outside years -999999..999999`);
  }
  return temporalText(t);
}

// ---------------------------------------------------------------- arithmetic

function plusMonths(t: Temporal, months: number): Temporal {
  const day = dayOf(t);
  const { year, month, day: dom } = civilFromDays(day);
  const total = year * 12 + (month - 1) + months;
  const y = Math.floor(total / 12);
  const m = total - y * 12 + 1;
  // as java.time: the day of month is kept, or clamped to the last day of the new month
  const days = daysFromCivil({ year: y, month: m, day: Math.min(dom, daysInMonth(y, m)) });
  return t.kind === 'date' ? { kind: 'date', days } : { kind: 'instant', ms: t.ms + (days - day) * DAY_MS };
}

function plusMillis(t: Temporal, ms: number): Temporal {
  return { kind: 'instant', ms: millisOf(t) + ms };
}

function plusDays(t: Temporal, n: number): Temporal {
  return t.kind === 'date' ? { kind: 'date', days: t.days + n } : { kind: 'instant', ms: t.ms + n * DAY_MS };
}

/** Whole months from a to b, counted as java.time's ChronoUnit.MONTHS does (an incomplete month is not counted). */
function monthsBetween(a: Temporal, b: Temporal): number {
  const [ca, cb] = [civilFromDays(dayOf(a)), civilFromDays(dayOf(b))];
  const inMonth = (c: Civil, t: Temporal): number => (c.day - 1) * DAY_MS + (millisOf(t) - dayOf(t) * DAY_MS);
  let months = cb.year * 12 + cb.month - (ca.year * 12 + ca.month);
  const [pa, pb] = [inMonth(ca, a), inMonth(cb, b)];
  if (months > 0 && pb < pa) months--;
  else if (months < 0 && pb > pa) months++;
  return months;
}

/** Whole units from a to b, truncated toward zero; two dates count in whole days. */
function unitsBetween(a: Temporal, b: Temporal, unitMs: number): number {
  const diff = a.kind === 'date' && b.kind === 'date' ? (b.days - a.days) * DAY_MS : millisOf(b) - millisOf(a);
  return Math.trunc(diff / unitMs) + 0; // + 0: no -0
}

// ---------------------------------------------------------------- format

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** ISO day of week, 1 = Monday .. 7 = Sunday (1970-01-01 was a Thursday). */
const isoWeekday = (days: number): number => ((((days + 3) % 7) + 7) % 7) + 1;

const TIME_LETTERS = 'HhamsSX';

/** The text of one pattern letter repeated `count` times, as java.time's DateTimeFormatter gives it. */
function field(letter: string, count: number, t: Temporal, fn: string): string {
  const days = dayOf(t);
  const { year, month, day } = civilFromDays(days);
  const text = (name: string): string => (count >= 4 ? name : name.slice(0, 3));
  const dateField: Record<string, () => string> = {
    y: () => (count === 2 ? pad(((year % 100) + 100) % 100, 2) : pad(year, count)),
    u: () => (count === 2 ? pad(((year % 100) + 100) % 100, 2) : pad(year, count)),
    M: () => (count >= 3 ? text(MONTHS[month - 1]!) : pad(month, count)),
    L: () => (count >= 3 ? text(MONTHS[month - 1]!) : pad(month, count)),
    d: () => pad(day, count),
    D: () => pad(days - daysFromCivil({ year, month: 1, day: 1 }) + 1, count),
    E: () => text(WEEKDAYS[isoWeekday(days) - 1]!),
    e: () => pad(isoWeekday(days), count),
  };
  if (Object.hasOwn(dateField, letter)) return dateField[letter]!();
  if (!TIME_LETTERS.includes(letter)) {
    throw new PtcError(
      'type_error',
      `${fn}: unsupported pattern letter ${letter}`,
      undefined,
      'letters: yyyy yy MM MMM MMMM dd D EEE EEEE HH hh a mm ss SSS X, and text in single quotes',
    );
  }
  if (t.kind === 'date') {
    throw new PtcError(
      'type_error',
      `${fn}: a date has no time of day for pattern letter ${letter}; use (date/instant d) first`,
    );
  }
  const inDay = t.ms - days * DAY_MS;
  const hour = Math.floor(inDay / 3_600_000);
  const timeField: Record<string, () => string> = {
    H: () => pad(hour, count),
    h: () => pad(hour % 12 === 0 ? 12 : hour % 12, count),
    a: () => (hour < 12 ? 'AM' : 'PM'),
    m: () => pad(Math.floor(inDay / 60_000) % 60, count),
    s: () => pad(Math.floor(inDay / 1000) % 60, count),
    S: () =>
      pad(inDay % 1000, 3)
        .slice(0, count)
        .padEnd(count, '0'),
    X: () => 'Z',
  };
  return timeField[letter]!();
}

export function formatTemporal(fn: string, t: Temporal, pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length;) {
    const c = pattern[i]!;
    if (c === "'") {
      const close = pattern.indexOf("'", i + 1);
      if (close < 0) throw new PtcError('type_error', `${fn}: unclosed quote in pattern ${JSON.stringify(pattern)}`);
      out += close === i + 1 ? "'" : pattern.slice(i + 1, close);
      i = close + 1;
      continue;
    }
    if (!/[A-Za-z]/.test(c)) {
      out += c;
      i++;
      continue;
    }
    let j = i;
    while (pattern[j] === c) j++;
    out += field(c, j - i, t, fn);
    i = j;
  }
  return out;
}

// ---------------------------------------------------------------- the table

type Op1 = (t: Temporal) => Value;
type Op2 = (a: Temporal, b: Temporal) => Value;

const on1 = (name: string, op: Op1, doc: string) =>
  fixedArity([1, 1], { call1: (x) => op(parseTemporal(name, x)) }, doc);
const on2 = (name: string, op: Op2, doc: string) =>
  fixedArity([2, 2], { call2: (a, b) => op(parseTemporal(name, a), parseTemporal(name, b)) }, doc);
const plus = (name: string, op: (t: Temporal, n: number) => Temporal, sign: 1 | -1, doc: string) =>
  fixedArity(
    [2, 2],
    { call2: (x, n) => checked(name, op(parseTemporal(name, x), sign * expectInteger(name, n))) },
    doc,
  );
const civil = (t: Temporal): Civil => civilFromDays(dayOf(t));
const compareT = (a: Temporal, b: Temporal): number => Math.sign(millisOf(a) - millisOf(b)) + 0;
const msPart = (t: Temporal): number => millisOf(t) - dayOf(t) * DAY_MS;

const HOUR = 3_600_000;

function isTemporal(x: Value): boolean {
  try {
    parseTemporal('date/valid?', x);
    return true;
  } catch {
    return false;
  }
}

export const dateFns: CoreTable = {
  parse: on1(
    'date/parse',
    temporalText,
    '"2024-03-15" stays a date; "2024-03-15T10:30:00+02:00" → "2024-03-15T08:30:00Z" (UTC); error when not ISO',
  ),
  'valid?': fixedArity([1, 1], { call1: isTemporal }, 'true when a string parses as a date or instant'),
  date: on1(
    'date/date',
    (t) => temporalText({ kind: 'date', days: dayOf(t) }),
    'the calendar date (in UTC) of a date or instant: "2024-03-15"',
  ),
  instant: on1(
    'date/instant',
    (t) => temporalText({ kind: 'instant', ms: millisOf(t) }),
    'an instant; a date becomes its midnight UTC',
  ),
  format: fixedArity(
    [2, 2],
    { call2: (x, p) => formatTemporal('date/format', parseTemporal('date/format', x), expectString('date/format', p)) },
    '(date/format "2024-03-15" "EEE d MMM yyyy") → "Fri 15 Mar 2024"; java.time pattern letters',
  ),
  'plus-days': plus('date/plus-days', plusDays, 1, '(date/plus-days "2024-02-28" 2) → "2024-03-01"'),
  'minus-days': plus('date/minus-days', plusDays, -1, '(date/minus-days d n)'),
  'plus-weeks': plus('date/plus-weeks', (t, n) => plusDays(t, 7 * n), 1, '(date/plus-weeks d n)'),
  'plus-months': plus(
    'date/plus-months',
    plusMonths,
    1,
    '"2024-01-31" + 1 month → "2024-02-29" (clamped to the month\'s last day)',
  ),
  'minus-months': plus('date/minus-months', plusMonths, -1, '(date/minus-months d n)'),
  'plus-years': plus('date/plus-years', (t, n) => plusMonths(t, 12 * n), 1, '(date/plus-years d n)'),
  'plus-hours': plus(
    'date/plus-hours',
    (t, n) => plusMillis(t, n * HOUR),
    1,
    'an instant n hours later (a date counts from its midnight UTC)',
  ),
  'minus-hours': plus('date/minus-hours', (t, n) => plusMillis(t, n * HOUR), -1, '(date/minus-hours t n)'),
  'plus-minutes': plus('date/plus-minutes', (t, n) => plusMillis(t, n * 60_000), 1, '(date/plus-minutes t n)'),
  'plus-seconds': plus('date/plus-seconds', (t, n) => plusMillis(t, n * 1000), 1, '(date/plus-seconds t n)'),
  'days-between': on2(
    'date/days-between',
    (a, b) => unitsBetween(a, b, DAY_MS),
    '(date/days-between "2024-01-31" "2024-03-01") → 30; negative when the second is earlier',
  ),
  'weeks-between': on2('date/weeks-between', (a, b) => unitsBetween(a, b, 7 * DAY_MS), 'whole weeks from a to b'),
  'hours-between': on2('date/hours-between', (a, b) => unitsBetween(a, b, HOUR), 'whole hours from a to b'),
  'minutes-between': on2('date/minutes-between', (a, b) => unitsBetween(a, b, 60_000), 'whole minutes from a to b'),
  'seconds-between': on2('date/seconds-between', (a, b) => unitsBetween(a, b, 1000), 'whole seconds from a to b'),
  'months-between': on2(
    'date/months-between',
    monthsBetween,
    'whole months from a to b: "2024-01-31" to "2024-02-29" is 0',
  ),
  'years-between': on2(
    'date/years-between',
    (a, b) => Math.trunc(monthsBetween(a, b) / 12) + 0,
    'whole years from a to b (ages)',
  ),
  'before?': on2('date/before?', (a, b) => compareT(a, b) < 0, '(date/before? a b): a is strictly earlier'),
  'after?': on2('date/after?', (a, b) => compareT(a, b) > 0, '(date/after? a b): a is strictly later'),
  compare: on2('date/compare', compareT, '-1, 0 or 1; (sort-by :due date/compare rows) also works across offsets'),
  year: on1('date/year', (t) => civil(t).year, '(date/year "2024-03-15") → 2024'),
  month: on1('date/month', (t) => civil(t).month, '1..12'),
  day: on1('date/day', (t) => civil(t).day, 'day of month, 1..31'),
  'day-of-week': on1('date/day-of-week', (t) => isoWeekday(dayOf(t)), '1 = Monday .. 7 = Sunday (ISO, java.time)'),
  'day-of-year': on1(
    'date/day-of-year',
    (t) => dayOf(t) - daysFromCivil({ year: civil(t).year, month: 1, day: 1 }) + 1,
    '1..366',
  ),
  hour: on1('date/hour', (t) => Math.floor(msPart(t) / HOUR), '0..23 (UTC); 0 for a date'),
  minute: on1('date/minute', (t) => Math.floor(msPart(t) / 60_000) % 60, '0..59'),
  second: on1('date/second', (t) => Math.floor(msPart(t) / 1000) % 60, '0..59'),
  'start-of-month': on1(
    'date/start-of-month',
    (t) => temporalText({ kind: 'date', days: dayOf(t) - civil(t).day + 1 }),
    'the first day of the month, as a date',
  ),
  'end-of-month': on1(
    'date/end-of-month',
    (t) => {
      const c = civil(t);
      return temporalText({ kind: 'date', days: dayOf(t) - c.day + daysInMonth(c.year, c.month) });
    },
    'the last day of the month, as a date',
  ),
  'days-in-month': on1(
    'date/days-in-month',
    (t) => {
      const c = civil(t);
      return daysInMonth(c.year, c.month);
    },
    '28..31',
  ),
  'leap-year?': fixedArity(
    [1, 1],
    { call1: (y) => isLeapYear(expectInteger('date/leap-year?', y)) },
    '(date/leap-year? 2024) → true',
  ),
  'epoch-millis': on1('date/epoch-millis', millisOf, 'milliseconds since 1970-01-01T00:00:00Z (Java .getTime)'),
  'from-epoch-millis': fixedArity(
    [1, 1],
    {
      call1: (n) =>
        checked('date/from-epoch-millis', { kind: 'instant', ms: expectInteger('date/from-epoch-millis', n) }),
    },
    'the instant of an epoch-millisecond count',
  ),
};

/** The reference's spellings: `LocalDate/parse`, `java.time.LocalDate/parse`. */
export const localDateFns: CoreTable = { parse: dateFns.parse! };
