/**
 * `range` made at its length for integers (core/seq-generate.ts) against the adding loop
 * it replaces, checked with fast-check: the same items (in count, value and sign of
 * zero; `range` charges one unit per item, so the same fuel) for random starts, ends and
 * steps, integers near the ends of the exact range included, and fractional ones (which
 * take the adding loop).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/lisp/index.ts';

/** `(range start end step)` as the adding loop computes it (stopped past 2,000 items). */
function added(start: number, end: number, step: number): number[] {
  const out: number[] = [];
  for (let x = start; (step > 0 ? x < end : x > end) && out.length <= 2000; x += step) out.push(x);
  return out;
}

const small = fc.integer({ min: -40, max: 40 });
const edge = fc.constantFrom(-0, 2 ** 53 - 5, -(2 ** 53) + 5, 2 ** 52, 1e15, -1e15, 0.5, -2.5, 9.000000000000002, 1e-9);
const number = fc.oneof(
  { weight: 6, arbitrary: small },
  { weight: 1, arbitrary: edge },
  { weight: 1, arbitrary: fc.double({ min: -50, max: 50, noNaN: true }) },
);
const step = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -7, max: 7 }).filter((s) => s !== 0) },
  { weight: 1, arbitrary: fc.constantFrom(0.1, -0.25, 3, 1e15, -(2 ** 51)) },
);

describe('range', () => {
  it('gives the items of the adding loop', async () => {
    await fc.assert(
      fc.asyncProperty(number, number, step, async (start, end, s) => {
        const want = added(start, end, s);
        fc.pre(want.length <= 2000);
        const lit = (x: number) => (Object.is(x, -0) ? '-0.0' : Number.isInteger(x) ? String(x) : x.toExponential(20));
        const r = await run(`(vec (range ${lit(start)} ${lit(end)} ${lit(s)}))`, { limits: { fuel: 1e6 } });
        expect(r.status).toBe('ok');
        if (r.status !== 'ok') return;
        const got = r.value as unknown as { toArray(): number[] };
        expect(got.toArray().map((x) => (Object.is(x, -0) ? '-0' : x))).toEqual(
          want.map((x) => (Object.is(x, -0) ? '-0' : x)),
        );
      }),
      {
        numRuns: 600,
        examples: [
          [-0, 3, 1],
          [0, 9.000000000000002, 3],
          [2 ** 53 - 5, 2 ** 53 - 1, 1],
          [10, 0, -3],
          [0, 1, 0.1],
        ],
      },
    );
  });
});
