/**
 * The date/ functions: ISO strings in and out, calendar arithmetic, java.time's rules
 * for month ends and whole units, errors that name the function, no clock. Properties
 * check the calendar arithmetic against JavaScript's own UTC calendar (Date.UTC), an
 * independent implementation; dates-java.test.ts checks against java.time itself.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/lisp/index.ts';
import { prStr } from '../../src/lisp/printer/index.ts';
import { coreDocs } from '../../src/lisp/core/index.ts';

async function value(source: string): Promise<string> {
  const r = await run(source);
  if (r.status !== 'ok') throw new Error(r.status === 'error' ? `${r.error.code}: ${r.error.message}` : r.status);
  return prStr(r.value);
}

async function error(source: string): Promise<{ code: string; message: string; hint?: string | null }> {
  const r = await run(source);
  if (r.status !== 'error') throw new Error(`expected an error, got ${r.status}`);
  return { code: r.error.code, message: r.error.message, hint: r.error.hint };
}

describe('date/ functions', () => {
  it.each([
    ['(date/parse "2024-03-15")', '"2024-03-15"'],
    ['(date/parse "2024-03-15T10:30:00+02:00")', '"2024-03-15T08:30:00Z"'],
    ['(date/parse "2024-03-15T10:30-0130")', '"2024-03-15T12:00:00Z"'],
    ['(date/parse "2024-03-15 10:30:05.5")', '"2024-03-15T10:30:05.500Z"'],
    ['(date/parse " 2024-03-15T00:00:00Z ")', '"2024-03-15T00:00:00Z"'],
    ['(LocalDate/parse "2024-01-01")', '"2024-01-01"'],
    ['(java.time.LocalDate/parse "2024-01-01")', '"2024-01-01"'],
    ['(date/date "2024-03-15T23:30:00-02:00")', '"2024-03-16"'],
    ['(date/instant "2024-03-15")', '"2024-03-15T00:00:00Z"'],
    ['(date/days-between "2024-01-31" "2024-03-01")', '30'],
    ['(date/days-between "2024-03-01" "2024-01-31")', '-30'],
    ['(date/days-between "2024-03-01T12:00:00Z" "2024-03-02T11:59:59Z")', '0'],
    ['(date/hours-between "2024-03-01" "2024-03-02T06:00:00Z")', '30'],
    ['(date/months-between "2024-01-31" "2024-02-29")', '0'],
    ['(date/months-between "2024-01-15" "2024-03-15")', '2'],
    ['(date/years-between "1990-06-15" "2024-06-14")', '33'],
    ['(date/plus-days "2024-02-28" 2)', '"2024-03-01"'],
    ['(date/minus-days "2024-03-01" 1)', '"2024-02-29"'],
    ['(date/plus-months "2024-01-31" 1)', '"2024-02-29"'],
    ['(date/plus-years "2024-02-29" 1)', '"2025-02-28"'],
    ['(date/plus-hours "2024-03-15T22:00:00Z" 3)', '"2024-03-16T01:00:00Z"'],
    ['(date/plus-hours "2024-03-15" 1)', '"2024-03-15T01:00:00Z"'],
    ['(date/plus-days "2024-03-15T22:00:00Z" 1)', '"2024-03-16T22:00:00Z"'],
    ['(mapv date/day-of-week ["2024-03-11" "2024-03-17" "1970-01-01"])', '[1 7 4]'],
    [
      '[(date/year "2024-03-15") (date/month "2024-03-15") (date/day "2024-03-15") (date/day-of-year "2024-12-31")]',
      '[2024 3 15 366]',
    ],
    [
      '[(date/hour "2024-03-15T10:20:30Z") (date/minute "2024-03-15T10:20:30Z") (date/second "2024-03-15T10:20:30Z")]',
      '[10 20 30]',
    ],
    ['(date/format "2024-03-15" "EEE d MMM yyyy")', '"Fri 15 Mar 2024"'],
    [
      '(date/format "2024-03-05T14:07:09.045Z" "EEEE, MMMM dd yy h:mm:ss.SSS a \'UTC\'")',
      '"Tuesday, March 05 24 2:07:09.045 PM UTC"',
    ],
    ['(date/format "2024-03-15" "yyyy-MM")', '"2024-03"'],
    ['(date/format "2024-03-15" "\'\'yy\'\'")', '"\'24\'"'],
    ['[(date/before? "2024-01-01" "2024-01-02") (date/after? "2024-01-01" "2024-01-02")]', '[true false]'],
    ['(date/compare "2024-03-02T00:00:00+05:00" "2024-03-01T20:00:00Z")', '-1'],
    ['(date/compare "2024-03-01" "2024-03-01T00:00:00Z")', '0'],
    [
      '[(date/start-of-month "2024-02-15") (date/end-of-month "2024-02-15") (date/days-in-month "2023-02-01")]',
      '["2024-02-01" "2024-02-29" 28]',
    ],
    ['[(date/leap-year? 2000) (date/leap-year? 1900) (date/leap-year? 2024)]', '[true false true]'],
    ['(date/epoch-millis "1970-01-02")', '86400000'],
    ['(date/from-epoch-millis 1710498600000)', '"2024-03-15T10:30:00Z"'],
    ['[(date/valid? "2024-02-29") (date/valid? "2023-02-29") (date/valid? 5)]', '[true false false]'],
    ['(date/plus-days "0001-01-01" -1)', '"0000-12-31"'],
    ['(date/plus-years "9999-12-31" 1)', '"+10000-12-31"'],
  ])('%s is %s', async (source, expected) => {
    expect(await value(source)).toBe(expected);
  });

  it('counts days overdue from a "today" given as data, the case the issue saw hand-written', async () => {
    const r = await run(
      `(->> data/invoices
            (map (fn [i] (assoc i :overdue (date/days-between (:due i) data/today))))
            (filter #(pos? (:overdue %)))
            (mapv (juxt :id :overdue)))`,
      {
        context: {
          today: '2024-03-01',
          invoices: [
            { id: 'a', due: '2024-02-20' },
            { id: 'b', due: '2024-03-05' },
            { id: 'c', due: '2023-12-31' },
          ],
        },
      },
    );
    expect(r.status === 'ok' && prStr(r.value)).toBe('[["a" 10] ["c" 61]]');
  });

  it.each([
    ['(date/parse "2024-02-30")', 'date/parse: cannot parse "2024-02-30": day 30 is not in 2024-02'],
    ['(date/parse "2024-13-01")', 'date/parse: cannot parse "2024-13-01": month 13 is not 1..12'],
    [
      '(date/parse "15/03/2024")',
      'date/parse: cannot parse "15/03/2024": expected an ISO date "2024-03-15" or instant "2024-03-15T09:30:00Z"',
    ],
    [
      '(date/parse "2024-03-15T24:00:00Z")',
      'date/parse: cannot parse "2024-03-15T24:00:00Z": time 24:00:00 is out of range',
    ],
    ['(date/days-between nil "2024-01-01")', 'date/days-between: expected a date or instant string, got nil'],
    ['(date/plus-days "2024-01-01" 1.5)', 'date/plus-days: expected integer, got number'],
    [
      '(date/format "2024-03-15" "HH:mm")',
      'date/format: a date has no time of day for pattern letter H; use (date/instant d) first',
    ],
    ['(date/format "2024-03-15" "yyyy Q")', 'date/format: unsupported pattern letter Q'],
    ['(date/format "2024-03-15" "\'open")', 'date/format: unclosed quote in pattern "\'open"'],
    ['(date/from-epoch-millis 1e20)', 'date/from-epoch-millis: the result is outside years -999999..999999'],
  ])('%s is a type_error: %s', async (source, message) => {
    expect(await error(source)).toMatchObject({ code: 'type_error', message });
  });

  it('has no clock: now, today and date/now are unbound, with a hint to read the date from data', async () => {
    for (const source of ['(now)', '(today)', '(date/now)', '(date/today)']) {
      const e = await error(source);
      expect(e.code).toBe('unbound_var');
      expect(e.hint).toMatch(/no clock.*data/);
    }
  });

  it('lists every date function with a doc line for the language reference', () => {
    const dates = coreDocs().filter((d) => d.area === 'dates');
    expect(dates.map((d) => d.name)).toContain('date/days-between');
    expect(dates.every((d) => d.name.startsWith('date/') && d.doc.length > 2)).toBe(true);
  });
});

// ---------------------------------------------------------------- properties

const YEAR_MIN = -2000;
const YEAR_MAX = 4000;
const dayArb = fc.integer({ min: Date.UTC(YEAR_MIN, 0, 1) / 86_400_000, max: Date.UTC(YEAR_MAX, 0, 1) / 86_400_000 });
/** JavaScript's UTC calendar, the independent reference for these properties. */
const jsDate = (day: number): string => {
  const d = new Date(day * 86_400_000);
  const y = d.getUTCFullYear();
  const year = y < 0 ? `-${String(-y).padStart(4, '0')}` : String(y).padStart(4, '0');
  return `${year}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-${String(d.getUTCDate()).padStart(2, '0')}`;
};

describe('date/ properties (against Date.UTC)', () => {
  it('plus-days, days-between and day-of-week agree with the JavaScript calendar', async () => {
    await fc.assert(
      fc.asyncProperty(dayArb, fc.integer({ min: -5000, max: 5000 }), async (day, n) => {
        const [a, b] = [jsDate(day), jsDate(day + n)];
        const dow = ((new Date(day * 86_400_000).getUTCDay() + 6) % 7) + 1;
        expect(
          await value(
            `[(date/plus-days "${a}" ${n}) (date/days-between "${a}" "${b}") (date/day-of-week "${a}") (date/parse "${a}")]`,
          ),
        ).toBe(`["${b}" ${n} ${dow} "${a}"]`);
      }),
      { numRuns: 150 },
    );
  });

  it('an instant round-trips through epoch millis and its text, and compare orders as the millis do', async () => {
    const msArb = fc.integer({ min: Date.UTC(1, 0, 1), max: Date.UTC(9999, 11, 31) });
    await fc.assert(
      fc.asyncProperty(msArb, msArb, async (x, y) => {
        const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');
        expect(
          await value(
            `[(date/epoch-millis (date/from-epoch-millis ${x})) (date/parse "${iso(x)}") (date/compare "${iso(x)}" "${iso(y)}")]`,
          ),
        ).toBe(`[${x} "${iso(x)}" ${Math.sign(x - y)}]`);
      }),
      { numRuns: 100 },
    );
  });

  it('plus-months keeps the day or clamps it to the month end, and months-between counts it back', async () => {
    await fc.assert(
      fc.asyncProperty(dayArb, fc.integer({ min: -600, max: 600 }), async (day, n) => {
        const a = jsDate(day);
        const d = new Date(day * 86_400_000);
        const target = new Date(Date.UTC(2000, 0, 1));
        target.setUTCFullYear(d.getUTCFullYear(), d.getUTCMonth() + n, 1);
        const last = new Date(Date.UTC(2000, 0, 1));
        last.setUTCFullYear(target.getUTCFullYear(), target.getUTCMonth() + 1, 0);
        target.setUTCDate(Math.min(d.getUTCDate(), last.getUTCDate()));
        const expected = jsDate(Math.round(target.getTime() / 86_400_000));
        const clamped = target.getUTCDate() < d.getUTCDate();
        const back = await value(`(let [b (date/plus-months "${a}" ${n})] [b (date/months-between "${a}" b)])`);
        // a clamped month end is an incomplete month for java.time: one less going forward
        const counted = clamped && n > 0 ? n - 1 : n;
        expect(back).toBe(`["${expected}" ${counted}]`);
      }),
      { numRuns: 150 },
    );
  });
});
