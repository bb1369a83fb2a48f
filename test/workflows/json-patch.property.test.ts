/** The law of the pass-state patch: applying the diff of two JSON values gives the second. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PatchError, applyPatch, diffJson, jsonEquals } from '../../src/kernel/json-patch.ts';
import type { Json } from '../../src/kernel/contract.ts';

const json: fc.Arbitrary<Json> = fc.jsonValue() as fc.Arbitrary<Json>;

/** `base` and a value made from it by small edits, as a growing state changes. */
const grown = json.chain((base) => fc.tuple(fc.constant(base), edit(base)));

function edit(v: Json): fc.Arbitrary<Json> {
  if (Array.isArray(v))
    return fc
      .tuple(fc.array(json, { maxLength: 3 }), fc.nat(v.length))
      .map(([extra, keep]) => [...v.slice(0, keep), ...extra]);
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v);
    if (!keys.length) return fc.dictionary(fc.string(), json, { maxKeys: 2 });
    return fc.tuple(fc.constantFrom(...keys), json, fc.boolean()).map(([k, x, drop]) => {
      const out = { ...v };
      if (drop) delete out[k];
      else out[k] = x;
      return out;
    });
  }
  return json;
}

describe('json patch', () => {
  it('applyPatch(a, diffJson(a, b)) equals b for any JSON values', () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        expect(jsonEquals(applyPatch(a, diffJson(a, b)), b)).toBe(true);
      }),
    );
  });

  it('the law holds for values grown from the base, and the base is never changed', () => {
    fc.assert(
      fc.property(grown, ([a, b]) => {
        const before = JSON.stringify(a);
        const patched = applyPatch(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(diffJson(a, b))));
        expect(jsonEquals(patched, b)).toBe(true);
        expect(JSON.stringify(a)).toBe(before);
      }),
    );
  });

  it('equal values have no patch; an appended item costs only itself', () => {
    const base = { trace: [{ response: 'x'.repeat(4000) }], calls: [1, 2] };
    expect(diffJson(base, JSON.parse(JSON.stringify(base)))).toBeNull();
    const patch = diffJson(base, { ...base, calls: [1, 2, 3] });
    expect(patch).toEqual({ o: { calls: { a: 3, i: { 2: { r: 3 } } } } });
    expect(JSON.stringify(patch).length).toBeLessThan(60);
  });

  it('keys like __proto__ are plain keys', () => {
    const a = JSON.parse('{"__proto__": 1, "x": {"__proto__": [1]}}') as Json;
    const b = JSON.parse('{"__proto__": 2, "x": {"__proto__": [1, 2]}, "constructor": 3}') as Json;
    const patch = JSON.parse(JSON.stringify(diffJson(a, b)));
    const out = applyPatch(a, patch);
    expect(JSON.stringify(out)).toBe(JSON.stringify(b));
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });

  it('a patch made from another base is refused, not applied to the wrong shape', () => {
    expect(() => applyPatch([1], { o: {} })).toThrow(PatchError);
    expect(() => applyPatch({ a: 1 }, { a: 1, i: {} })).toThrow(PatchError);
  });
});
