/**
 * readRecord takes literal entries without the analyzer: for any data the printer writes
 * (and closures beside it), it reads what deserializeNamespace reads, the same values of
 * the same kinds, and the same error for a source that does not read.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deserializeNamespace, serializeNamespace } from '../../src/lisp/index.ts';
import { prStr } from '../../src/lisp/printer/index.ts';
import { equals, kw, list, map, set, vec, type Value } from '../../src/lisp/values.ts';
import { literalOf, readRecord } from '../../src/sandbox/read-record.ts';

const scalar: fc.Arbitrary<Value> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -1e9, max: 1e9 }),
  fc.double(),
  fc.string({ unit: fc.constantFrom('"', '\\', '\n', 'a', '😀', ' ', ':'), maxLength: 5 }),
  fc.stringMatching(/^[a-z][a-z0-9?-]{0,5}$/).map((n) => kw(n)),
  fc.string({ maxLength: 4 }).map((s) => kw(s)),
);

const { data } = fc.letrec<{ data: Value }>((tie) => ({
  data: fc.oneof(
    { depthSize: 'small' },
    { weight: 4, arbitrary: scalar },
    fc.array(tie('data'), { maxLength: 3 }).map((xs) => vec(xs)),
    fc.array(tie('data'), { maxLength: 3 }).map((xs) => list(xs)),
    fc.array(fc.tuple(scalar, tie('data')), { maxLength: 3 }).map((es) => map(es)),
    fc.array(scalar, { maxLength: 3 }).map((xs) => set(xs)),
  ),
}));

describe('readRecord', () => {
  it('reads data as deserializeNamespace does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(data, { minLength: 1, maxLength: 4 }), async (values) => {
        const rec = serializeNamespace(new Map(values.map((v, i) => [`v${i}`, v])));
        rec.f = '(let [k 2] (fn [x] (* k x)))';
        const want = await deserializeNamespace(rec);
        const got = await readRecord(rec, { known: new Map() });
        expect([...got.keys()]).toEqual([...want.keys()]);
        for (const [name, v] of want) {
          if (name === 'f') continue;
          expect(prStr(got.get(name)!)).toBe(prStr(v));
          expect(equals(got.get(name)!, v)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('takes literals only: code, regexes and symbols are read as usual', () => {
    expect(literalOf('[1 {:a "b"} #{:c}]')).toEqual(vec([1, map([[kw('a'), 'b']]), set([kw('c')])]));
    expect(literalOf('-3')).toBe(-3);
    expect(literalOf('nil')).toBeNull();
    for (const src of ['(list 1 2)', '[x]', '#"a+"', '##Inf', '(fn [x] x)', 'nilly', '[1 (list 2)]'])
      expect(literalOf(src)).toBeUndefined();
  });

  it('a source that does not read fails as with deserializeNamespace', async () => {
    const rec = { a: '[1 2' };
    const want = await deserializeNamespace(rec).catch((e: Error) => e.message);
    const got = await readRecord(rec, { known: new Map() }).catch((e: Error) => e.message);
    expect(got).toBe(want);
    expect(typeof got).toBe('string');
  });
});
