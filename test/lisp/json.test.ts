/**
 * The Value ↔ JSON mapping (ptc-lisp.md "Crossing into JSON").
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PtcError } from '../../src/lisp/errors.ts';
import { canonicalJson, fromJson, keyShapeOf, normalize, swapDashes, toJson, toToolArgs } from '../../src/lisp/json.ts';
import { compileRegex } from '../../src/lisp/regex.ts';
import { Builtin, LazySeq, equals, isMap, kw, list, map, set, vec, type Value } from '../../src/lisp/values.ts';

function jsonError(f: () => unknown): PtcError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(PtcError);
    return e as PtcError;
  }
  throw new Error('expected an error');
}

describe('toJson', () => {
  it.each<[string, Value, unknown]>([
    ['nil', null, null],
    ['booleans', vec([true, false]), [true, false]],
    ['string', 'héllo', 'héllo'],
    ['number', 2.5, 2.5],
    ['-0 becomes 0', -0, 0],
    ['keyword', kw('done'), 'done'],
    ['ns keyword', kw('a/b'), 'a/b'],
    ['vector', vec([1, 'a']), [1, 'a']],
    ['list', list([1, 2]), [1, 2]],
    ['set', set([3, 1]), [3, 1]],
    ['lazy seq', new LazySeq((i) => (i < 3 ? i * 2 : LazySeq.END)), [0, 2, 4]],
    [
      'map',
      map([
        [kw('a'), 1],
        ['b-c', kw('x')],
      ]),
      { a: 1, 'b-c': 'x' },
    ],
    ['nested', map([[kw('items'), vec([map([[kw('id'), 1]])])]]), { items: [{ id: 1 }] }],
  ])('%s', (_name, v, j) => {
    expect(toJson(v)).toEqual(j);
  });

  it('keeps map insertion order', () => {
    expect(
      Object.keys(
        toJson(
          map([
            [kw('z'), 1],
            [kw('a'), 2],
          ]),
        ) as object,
      ),
    ).toEqual(['z', 'a']);
  });

  it('handles __proto__ keys as data', () => {
    const j = toJson(map([['__proto__', 1]])) as Record<string, unknown>;
    expect(Object.keys(j)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(j)).toBe(Object.prototype);
    expect(JSON.stringify(j)).toBe('{"__proto__":1}');
  });

  it.each<[string, Value, string]>([
    ['NaN', NaN, '##NaN is not representable in JSON'],
    ['Inf in a path', map([[kw('items'), vec([1, 2, Infinity])]]), '##Inf is not representable in JSON at [:items 2]'],
    ['-Inf', vec([-Infinity]), '##-Inf is not representable in JSON at [0]'],
    [
      'function',
      map([['f', new Builtin('inc', () => null)]]),
      'a function is not representable in JSON: a task result must be data at ["f"]',
    ],
    ['regex', vec([compileRegex('a', 10)]), 'a regex is not representable in JSON: a task result must be data at [0]'],
    ['number key', map([[kw('m'), map([[1, 2]])]]), 'map key 1 is not representable in JSON at [:m]'],
    ['vector key', map([[vec([1]), 2]]), 'map key [1] is not representable in JSON'],
    [
      'colliding keys',
      map([
        [kw('a'), 1],
        ['a', 2],
      ]),
      'map has both :a and "a" as keys, which are the same JSON key',
    ],
  ])('type_error: %s', (_name, v, message) => {
    const err = jsonError(() => toJson(v));
    expect(err.code).toBe('type_error');
    expect(err.message).toBe(message);
  });

  it('bounds lazy seqs and depth', () => {
    const infinite = new LazySeq((i) => i);
    expect(jsonError(() => toJson(infinite, { maxItems: 100 })).details).toEqual({ limit: 'collection_size' });
    let deep: Value = vec();
    for (let i = 0; i < 2000; i++) deep = vec([deep]);
    expect(jsonError(() => toJson(deep)).details).toEqual({ limit: 'depth' });
  });
});

describe('fromJson', () => {
  it('maps objects to string-keyed maps in key order, arrays to vectors', () => {
    const v = fromJson({ b: [1, { c: null }], a: 'x' });
    expect(isMap(v)).toBe(true);
    expect(
      equals(
        v,
        map([
          ['b', vec([1, map([['c', null]])])],
          ['a', 'x'],
        ]),
      ),
    ).toBe(true);
    expect([...(v as ReturnType<typeof map>).keys()]).toEqual(['b', 'a']);
  });

  it('accepts what tools really return (JSON.stringify semantics)', () => {
    const date = new Date('2026-01-02T03:04:05Z');
    const host = { d: date, u: undefined, f: () => 1, arr: [undefined, 1n], nested: { toJSON: () => 'custom' } };
    const v = fromJson(host as never);
    expect(
      equals(
        v,
        map([
          ['d', '2026-01-02T03:04:05.000Z'],
          ['arr', vec([null, 1])],
          ['nested', 'custom'],
        ]),
      ),
    ).toBe(true);
  });

  it('fails cleanly on cycles', () => {
    const a: Record<string, unknown> = {};
    a.self = a;
    expect(jsonError(() => fromJson(a as never)).code).toBe('limit_exceeded');
  });
});

describe('normalize', () => {
  it('turns keywords into strings and lists/sets into vectors', () => {
    const v = map([
      [kw('status'), kw('ok')],
      [kw('xs'), list([1, set([2])])],
    ]);
    expect(
      equals(
        normalize(v),
        map([
          ['status', 'ok'],
          ['xs', vec([1, vec([2])])],
        ]),
      ),
    ).toBe(true);
  });
  it('is idempotent', () => {
    const v = map([[kw('a'), vec([kw('b'), 1.5, null])]]);
    expect(equals(normalize(normalize(v)), normalize(v))).toBe(true);
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every level and has no whitespace', () => {
    expect(canonicalJson({ b: 1, a: [{ d: true, c: null }, 'x'] })).toBe('{"a":[{"c":null,"d":true},"x"],"b":1}');
    expect(canonicalJson({ b: 1, a: 2 })).toBe(canonicalJson({ a: 2, b: 1 }));
    expect(canonicalJson('q"\n')).toBe('"q\\"\\n"');
    expect(canonicalJson(-0)).toBe('0');
  });
});

describe('toToolArgs', () => {
  const schema = z.object({
    user_id: z.number(),
    'dry-run': z.boolean().optional(),
    filter: z.object({ max_items: z.number() }).optional(),
    lines: z.array(z.object({ sku_code: z.string() })),
  });

  it('respells keys the schema spells with the other separator', () => {
    const args = map([
      [kw('user-id'), 7],
      [kw('dry_run'), true],
      [kw('filter'), map([[kw('max-items'), 3]])],
      [kw('lines'), vec([map([[kw('sku-code'), 'A']])])],
      [kw('extra-key'), 1],
    ]);
    expect(toToolArgs(args, keyShapeOf(schema))).toEqual({
      user_id: 7,
      'dry-run': true,
      filter: { max_items: 3 },
      lines: [{ sku_code: 'A' }],
      'extra-key': 1,
    });
  });

  it('with a plain key set renames the top level only', () => {
    const args = map([[kw('user-id'), map([[kw('a-b'), 1]])]]);
    expect(toToolArgs(args, new Set(['user_id']))).toEqual({ user_id: { 'a-b': 1 } });
    expect(toToolArgs(args)).toEqual({ 'user-id': { 'a-b': 1 } });
  });

  it('keeps exact spellings and rejects double spellings', () => {
    expect(toToolArgs(map([['user_id', 1]]), new Set(['user_id']))).toEqual({ user_id: 1 });
    const err = jsonError(() =>
      toToolArgs(
        map([
          [kw('user_id'), 1],
          [kw('user-id'), 2],
        ]),
        new Set(['user_id']),
      ),
    );
    expect(err.message).toBe('tool arguments give "user_id" twice (as "user-id" and "user_id")');
  });

  it('nil is no arguments; other non-maps are a type_error', () => {
    expect(toToolArgs(null)).toEqual({});
    expect(jsonError(() => toToolArgs(vec([1]))).message).toBe('tool arguments must be a map, got [1]');
  });

  it('swapDashes and keyShapeOf', () => {
    expect(swapDashes('a-b_c')).toBe('a_b-c');
    expect(keyShapeOf(z.string())).toBeUndefined();
    expect([...keyShapeOf(schema)!.keys]).toEqual(['user_id', 'dry-run', 'filter', 'lines']);
    expect([...keyShapeOf(schema)!.fields.keys()]).toEqual(['filter', 'lines']);
  });
});
