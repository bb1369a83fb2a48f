/** The value model's type tests (prototype tags, same answers as `instanceof`). */
import { describe, expect, it } from 'vitest';
import { Closure, VarRef } from '../../src/lisp/eval/closure.ts';
import {
  Builtin,
  FnValue,
  Keyword,
  LazySeq,
  PList,
  PMap,
  PSet,
  Regex,
  type Value,
  isColl,
  isFn,
  isKeyword,
  isLazySeq,
  isPList,
  isRegex,
  isSequential,
  kw,
  list,
  seqable,
  typeName,
  vec,
} from '../../src/lisp/values.ts';

const fn = new Builtin('inc', () => null);
const closure = Object.create(Closure.prototype) as Value;
const lazy = new LazySeq(() => LazySeq.END);
const regex = new Regex('a', null);
const samples: Value[] = [
  null,
  true,
  1,
  'a',
  kw('a'),
  list([1]),
  lazy,
  vec([1]),
  PMap.EMPTY,
  PSet.EMPTY,
  fn,
  closure,
  new VarRef('x'),
  regex,
];

describe('type tests', () => {
  it('agree with instanceof for every kind of value, subclasses included', () => {
    const inst = (v: Value, c: { prototype: object }) =>
      typeof v === 'object' && v !== null && v instanceof (c as unknown as new () => unknown);
    for (const v of samples) {
      expect(isKeyword(v)).toBe(inst(v, Keyword));
      expect(isPList(v)).toBe(inst(v, PList));
      expect(isLazySeq(v)).toBe(inst(v, LazySeq));
      expect(isFn(v)).toBe(inst(v, FnValue));
      expect(isRegex(v)).toBe(inst(v, Regex));
    }
  });

  it('typeName, isSequential, isColl and seqable', () => {
    expect(samples.map(typeName)).toEqual([
      'nil',
      'boolean',
      'number',
      'string',
      'keyword',
      'list',
      'list',
      'vector',
      'map',
      'set',
      'function',
      'function',
      'function',
      'regex',
    ]);
    expect(samples.map((v) => isSequential(v))).toEqual(samples.map((_, i) => i >= 5 && i <= 7));
    expect(samples.map((v) => isColl(v))).toEqual(samples.map((_, i) => i >= 5 && i <= 9));
    expect(samples.map((v) => seqable(v) !== undefined)).toEqual(
      samples.map((v, i) => v === null || typeof v === 'string' || (i >= 5 && i <= 9)),
    );
  });
});
