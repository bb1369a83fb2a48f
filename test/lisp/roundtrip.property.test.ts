/**
 * Round-trip laws, checked with fast-check:
 *
 * - `readData(prStr(v))` equals `v` for every data value (nil, booleans, every number
 *   but NaN, including -0 and ±Inf, strings with any unicode and escapes, keywords,
 *   nested vectors/lists/maps/sets with any keys).
 * - `fromJson(toJson(v))` equals `normalize(v)`, and normalize is idempotent.
 * - `toJson(fromJson(j))` deep-equals `j` for any JSON (up to `-0`, which JSON has not).
 * - `canonicalJson` parses back to the same JSON and ignores key order.
 * - `printForm` of a read form reads back to the same printed text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PtcError } from '../../src/lisp/errors.ts';
import { canonicalJson, fromJson, normalize, toJson } from '../../src/lisp/json.ts';
import { printForm, prStr, printlnText } from '../../src/lisp/printer/index.ts';
import { read, readData } from '../../src/lisp/reader/index.ts';
import type { Json } from '../../src/lisp/tools.ts';
import { equals, kw, list, map, set, vec, type Value } from '../../src/lisp/values.ts';

const nameArb = fc.stringMatching(/^[a-zA-Z*+!_?<>=-][a-zA-Z0-9*+!_?<>=.'-]{0,8}$/);
const keywordArb = fc.oneof(
  { weight: 4, arbitrary: nameArb.map((n) => kw(n)) },
  { weight: 1, arbitrary: fc.tuple(nameArb, nameArb).map(([ns, n]) => kw(`${ns}/${n}`)) },
);

const stringArb = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({
    unit: fc.constantFrom('"', '\\', '\n', '\t', '\r', '\b', '\f', 'a', 'é', '😀', '\\d', '\\u', ' ', ',', ';'),
  }),
);

const numberArb = fc.oneof(
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  fc.double({ noNaN: true }),
  fc.constantFrom(0, -0, 1e21, 1e-7, 0.1 + 0.2, Number.MAX_SAFE_INTEGER, Number.MIN_VALUE),
);

const scalarArb: fc.Arbitrary<Value> = fc.oneof(fc.constant(null), fc.boolean(), numberArb, stringArb, keywordArb);

const { value: valueArb } = fc.letrec<{ value: Value }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 5, arbitrary: scalarArb },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 5 }).map((xs) => vec(xs)) },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 5 }).map((xs) => list(xs)) },
    { weight: 1, arbitrary: fc.array(fc.tuple(tie('value'), tie('value')), { maxLength: 4 }).map((es) => map(es)) },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }).map((xs) => set(xs)) },
  ),
}));

/** Values whose every map key is a keyword or string (so JSON can hold them). */
const { value: jsonableArb } = fc.letrec<{ value: Value }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    {
      weight: 5,
      arbitrary: fc.oneof(
        fc.constant(null),
        fc.boolean(),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        stringArb,
        keywordArb,
      ),
    },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 5 }).map((xs) => vec(xs)) },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 5 }).map((xs) => list(xs)) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.tuple(fc.oneof(keywordArb, stringArb), tie('value')), { maxLength: 4 })
        .map((es) => map(es)),
    },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }).map((xs) => set(xs)) },
  ),
}));

/** toJson, or undefined when the value has `:a` and `"a"` in one map. */
function tryToJson(v: Value): Json | undefined {
  try {
    return toJson(v);
  } catch (e) {
    if (e instanceof PtcError && e.message.includes('the same JSON key')) return undefined;
    throw e;
  }
}

const plainJson = (j: unknown): unknown => JSON.parse(JSON.stringify(j));

describe('round trips', () => {
  it('readData(prStr(v)) equals v', () => {
    fc.assert(
      fc.property(valueArb, (v) => {
        const text = prStr(v);
        const back = readData(text);
        expect(equals(back, v)).toBe(true);
        expect(prStr(back)).toBe(text);
      }),
      { numRuns: 1000 },
    );
  });

  it('fromJson(toJson(v)) equals normalize(v); normalize is idempotent', () => {
    fc.assert(
      fc.property(jsonableArb, (v) => {
        const j = tryToJson(v);
        fc.pre(j !== undefined);
        const n = normalize(v);
        expect(equals(fromJson(j!), n)).toBe(true);
        expect(equals(normalize(n), n)).toBe(true);
        expect(toJson(n)).toEqual(j);
      }),
      { numRuns: 500 },
    );
  });

  it('toJson(fromJson(j)) deep-equals j', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (j) => {
        const expected = plainJson(j);
        expect(toJson(fromJson(j as Json))).toEqual(expected);
        // and through the printer and reader
        const v = fromJson(j as Json);
        expect(equals(readData(prStr(v)), v)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('canonicalJson parses back and ignores key order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (j) => {
        const c = canonicalJson(j as Json);
        expect(JSON.parse(c)).toEqual(plainJson(j));
        const reversed = JSON.parse(JSON.stringify(j), (_k, x: unknown) =>
          x !== null && typeof x === 'object' && !Array.isArray(x)
            ? Object.fromEntries(Object.entries(x).reverse())
            : x,
        );
        expect(canonicalJson(reversed as Json)).toBe(c);
        expect(c).not.toMatch(/^\s|\s$/);
      }),
      { numRuns: 300 },
    );
  });

  it('printForm(read(prStr(v))) is prStr(v) for data', () => {
    fc.assert(
      fc.property(valueArb, (v) => {
        const text = prStr(v);
        expect(printForm(read(text)[0]!)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it('printlnText never throws on data and equals prStr for string-free values', () => {
    fc.assert(
      fc.property(valueArb, (v) => {
        const line = printlnText([v]);
        if (!prStr(v).includes('"')) expect(line).toBe(prStr(v));
      }),
      { numRuns: 200 },
    );
  });
});
