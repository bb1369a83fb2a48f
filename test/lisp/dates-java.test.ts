/**
 * The date/ functions against java.time itself: each program's value printed with `str`
 * is compared with what the same computation gives in Java 17 (the JDK on the PATH, one
 * `java Cases.java` run). Clojure programs on the JVM do dates with exactly these calls,
 * so this is what a model that knows Clojure expects. Skipped without a `java`.
 */
import { describe, expect, it } from 'vitest';
import { hasJava, javaDifferences } from './helpers/java.ts';

const D = (s: string): string => `LocalDate.parse("${s}")`;
const I = (s: string): string => `Instant.parse("${s}")`;
const F = (pattern: string): string => `DateTimeFormatter.ofPattern(${JSON.stringify(pattern)}, Locale.US)`;

/** [PTC-Lisp program, Java expression giving the same value]. */
const CASES: Array<[string, string]> = [
  ['(date/days-between "2024-01-15" "2024-03-01")', `ChronoUnit.DAYS.between(${D('2024-01-15')}, ${D('2024-03-01')})`],
  ['(date/days-between "2023-03-01" "2024-03-01")', `ChronoUnit.DAYS.between(${D('2023-03-01')}, ${D('2024-03-01')})`],
  ['(date/days-between "2024-12-31" "1999-01-01")', `ChronoUnit.DAYS.between(${D('2024-12-31')}, ${D('1999-01-01')})`],
  [
    '(date/days-between "2024-03-01T12:00:00Z" "2024-03-03T11:00:00Z")',
    `ChronoUnit.DAYS.between(${I('2024-03-01T12:00:00Z')}, ${I('2024-03-03T11:00:00Z')})`,
  ],
  [
    '(date/hours-between "2024-03-03T11:00:00Z" "2024-03-01T12:30:00Z")',
    `ChronoUnit.HOURS.between(${I('2024-03-03T11:00:00Z')}, ${I('2024-03-01T12:30:00Z')})`,
  ],
  [
    '(date/minutes-between "2024-03-01T12:00:00Z" "2024-03-01T13:59:59Z")',
    `ChronoUnit.MINUTES.between(${I('2024-03-01T12:00:00Z')}, ${I('2024-03-01T13:59:59Z')})`,
  ],
  [
    '(date/weeks-between "2024-01-01" "2024-03-01")',
    `ChronoUnit.WEEKS.between(${D('2024-01-01')}, ${D('2024-03-01')})`,
  ],
  [
    '(date/months-between "2024-01-31" "2024-02-29")',
    `ChronoUnit.MONTHS.between(${D('2024-01-31')}, ${D('2024-02-29')})`,
  ],
  [
    '(date/months-between "2024-01-31" "2024-03-31")',
    `ChronoUnit.MONTHS.between(${D('2024-01-31')}, ${D('2024-03-31')})`,
  ],
  [
    '(date/months-between "2024-05-15" "2023-11-16")',
    `ChronoUnit.MONTHS.between(${D('2024-05-15')}, ${D('2023-11-16')})`,
  ],
  [
    '(date/years-between "1990-06-15" "2024-06-14")',
    `ChronoUnit.YEARS.between(${D('1990-06-15')}, ${D('2024-06-14')})`,
  ],
  [
    '(date/years-between "1990-06-15" "2024-06-15")',
    `ChronoUnit.YEARS.between(${D('1990-06-15')}, ${D('2024-06-15')})`,
  ],
  ['(date/plus-days "2024-02-28" 2)', `${D('2024-02-28')}.plusDays(2)`],
  ['(date/plus-days "2024-01-01" -1)', `${D('2024-01-01')}.plusDays(-1)`],
  ['(date/minus-days "2024-03-01" 366)', `${D('2024-03-01')}.minusDays(366)`],
  ['(date/plus-weeks "2024-12-25" 2)', `${D('2024-12-25')}.plusWeeks(2)`],
  ['(date/plus-months "2024-01-31" 1)', `${D('2024-01-31')}.plusMonths(1)`],
  ['(date/plus-months "2023-01-31" 1)', `${D('2023-01-31')}.plusMonths(1)`],
  ['(date/minus-months "2024-03-31" 1)', `${D('2024-03-31')}.minusMonths(1)`],
  ['(date/plus-months "2024-11-30" 15)', `${D('2024-11-30')}.plusMonths(15)`],
  ['(date/plus-years "2024-02-29" 1)', `${D('2024-02-29')}.plusYears(1)`],
  ['(date/plus-years "2024-02-29" 4)', `${D('2024-02-29')}.plusYears(4)`],
  ['(date/plus-hours "2024-03-15T22:00:00Z" 3)', `${I('2024-03-15T22:00:00Z')}.plus(3, ChronoUnit.HOURS)`],
  ['(date/minus-hours "2024-03-15T01:00:00Z" 2)', `${I('2024-03-15T01:00:00Z')}.minus(2, ChronoUnit.HOURS)`],
  ['(date/plus-minutes "2024-03-15T23:59:00Z" 1)', `${I('2024-03-15T23:59:00Z')}.plus(1, ChronoUnit.MINUTES)`],
  ['(date/plus-seconds "2024-03-15T23:59:59.250Z" 1)', `${I('2024-03-15T23:59:59.250Z')}.plusSeconds(1)`],
  ['(date/plus-days "2024-03-15T10:00:00Z" 20)', `${I('2024-03-15T10:00:00Z')}.plus(20, ChronoUnit.DAYS)`],
  ['(date/day-of-week "2024-03-15")', `${D('2024-03-15')}.getDayOfWeek().getValue()`],
  ['(date/day-of-week "2000-01-01")', `${D('2000-01-01')}.getDayOfWeek().getValue()`],
  ['(date/day-of-week "1969-12-31")', `${D('1969-12-31')}.getDayOfWeek().getValue()`],
  ['(date/day-of-year "2024-12-31")', `${D('2024-12-31')}.getDayOfYear()`],
  ['(date/day-of-year "2023-03-01")', `${D('2023-03-01')}.getDayOfYear()`],
  ['(date/year "2024-03-15")', `${D('2024-03-15')}.getYear()`],
  ['(date/month "2024-03-15")', `${D('2024-03-15')}.getMonthValue()`],
  ['(date/day "2024-03-15")', `${D('2024-03-15')}.getDayOfMonth()`],
  ['(date/days-in-month "2024-02-10")', `${D('2024-02-10')}.lengthOfMonth()`],
  ['(date/days-in-month "1900-02-10")', `${D('1900-02-10')}.lengthOfMonth()`],
  ['(date/end-of-month "2024-04-10")', `${D('2024-04-10')}.withDayOfMonth(${D('2024-04-10')}.lengthOfMonth())`],
  ['(date/start-of-month "2024-04-10")', `${D('2024-04-10')}.withDayOfMonth(1)`],
  ['(date/leap-year? 2100)', 'java.time.Year.isLeap(2100)'],
  ['(date/before? "2024-01-01" "2024-01-02")', `${D('2024-01-01')}.isBefore(${D('2024-01-02')})`],
  ['(date/after? "2024-01-01" "2024-01-02")', `${D('2024-01-01')}.isAfter(${D('2024-01-02')})`],
  [
    '(date/before? "2024-03-02T00:00:00+05:00" "2024-03-01T20:00:00Z")',
    `${I('2024-03-02T00:00:00+05:00')}.isBefore(${I('2024-03-01T20:00:00Z')})`,
  ],
  ['(date/compare "2024-05-01" "2024-04-30")', `Integer.signum(${D('2024-05-01')}.compareTo(${D('2024-04-30')}))`],
  ['(date/parse "2024-03-15T10:30:00+02:00")', `OffsetDateTime.parse("2024-03-15T10:30:00+02:00").toInstant()`],
  ['(date/parse "2024-03-15T10:30:00.120-05:30")', `OffsetDateTime.parse("2024-03-15T10:30:00.120-05:30").toInstant()`],
  ['(date/parse "2024-03-15T10:30Z")', `${I('2024-03-15T10:30:00Z')}`],
  ['(date/instant "2024-03-15")', `${D('2024-03-15')}.atStartOfDay(ZoneOffset.UTC).toInstant()`],
  [
    '(date/date "2024-03-15T23:30:00-02:00")',
    `OffsetDateTime.parse("2024-03-15T23:30:00-02:00").toInstant().atOffset(ZoneOffset.UTC).toLocalDate()`,
  ],
  ['(date/epoch-millis "2024-03-15T10:30:00Z")', `${I('2024-03-15T10:30:00Z')}.toEpochMilli()`],
  ['(date/from-epoch-millis 1710498600123)', 'Instant.ofEpochMilli(1710498600123L)'],
  ['(date/from-epoch-millis -1)', 'Instant.ofEpochMilli(-1L)'],
  ['(date/plus-years "9999-06-01" 1)', `${D('9999-06-01')}.plusYears(1)`],
  ['(date/plus-days "0001-01-01" -1)', `${D('0001-01-01')}.plusDays(-1)`],
  ['(date/format "2024-03-15" "EEE d MMM yyyy")', `${D('2024-03-15')}.format(${F('EEE d MMM yyyy')})`],
  ['(date/format "2024-03-15" "EEEE, MMMM dd, yy")', `${D('2024-03-15')}.format(${F('EEEE, MMMM dd, yy')})`],
  ['(date/format "2024-03-05" "yyyy-MM")', `${D('2024-03-05')}.format(${F('yyyy-MM')})`],
  ['(date/format "2024-03-05" "D/M/y \'week\'")', `${D('2024-03-05')}.format(${F("D/M/y 'week'")})`],
  [
    '(date/format "2024-03-05T14:07:09.045Z" "yyyy-MM-dd HH:mm:ss.SSS")',
    `${I('2024-03-05T14:07:09.045Z')}.atOffset(ZoneOffset.UTC).format(${F('yyyy-MM-dd HH:mm:ss.SSS')})`,
  ],
  [
    '(date/format "2024-03-05T00:07:09Z" "h:mm a")',
    `${I('2024-03-05T00:07:09Z')}.atOffset(ZoneOffset.UTC).format(${F('h:mm a')})`,
  ],
  [
    '(date/format "2024-03-05T12:07:09Z" "hh:mm a \'\'X\'\'")',
    `${I('2024-03-05T12:07:09Z')}.atOffset(ZoneOffset.UTC).format(${F("hh:mm a ''X''")})`,
  ],
];

describe.skipIf(!hasJava)('date/ against java.time', () => {
  it('gives what java.time gives for every case', async () => {
    const imports = [
      'import java.time.*;',
      'import java.time.format.DateTimeFormatter;',
      'import java.time.temporal.ChronoUnit;',
      'import java.util.Locale;',
    ];
    const differ = await javaDifferences(CASES, imports);
    expect(differ, differ.join('\n')).toEqual([]);
  });
});
