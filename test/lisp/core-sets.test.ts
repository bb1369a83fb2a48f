import { describe, expect, it } from 'vitest';
import { BARE_SET_NAMES, setFns } from '../../src/lisp/core/sets.ts';
import { FakeRuntime, ev, evError, pr } from './helpers/fake-runtime.ts';

/** [source, printed value as Clojure gives it] */
type Row = [string, string];

function table(rows: Row[]): void {
  it.each(rows)('%s → %s', (src, expected) => {
    expect(pr(src)).toBe(expected);
  });
}

describe('Clojure agreement: sets', () => {
  table([
    ['(set [1 2 1])', '#{1 2}'],
    ['(set nil)', '#{}'],
    ['(set "aba")', '#{"a" "b"}'],
    ['(set {:a 1})', '#{[:a 1]}'],
    ['(hash-set 1 2 1)', '#{1 2}'],
    ['(sorted-set 3 1 2)', '#{1 2 3}'],
    ['(set/union #{1 2} #{2 3})', '#{1 2 3}'],
    ['(clojure.set/union #{1} #{2} #{3})', '#{1 2 3}'],
    ['(union)', '#{}'],
    ['(union #{1} nil)', '#{1}'],
    ['(set/intersection #{1 2 3} #{2 3 4})', '#{2 3}'],
    ['(intersection #{1 2} #{2} #{2 5})', '#{2}'],
    ['(intersection #{1 2})', '#{1 2}'],
    ['(set/difference #{1 2 3} #{2})', '#{1 3}'],
    ['(difference #{1 2 3} #{1} #{3})', '#{2}'],
    ['(set/subset? #{1} #{1 2})', 'true'],
    ['(set/subset? #{1 3} #{1 2})', 'false'],
    ['(set/superset? #{1 2} #{1})', 'true'],
    ['(set/select odd? #{1 2 3})', '#{1 3}'],
    ['(set/rename-keys {:a 1 :b 2} {:a :x})', '{:b 2, :x 1}'],
    ['(set/map-invert {:a 1 :b 2})', '{1 :a, 2 :b}'],
    ['(contains? (set/union #{:a} #{:b}) :b)', 'true'],
  ]);
});

describe('membership is exact', () => {
  table([
    ['(set/intersection #{:a} #{"a"})', '#{}'],
    ['(set/difference #{:a "a"} #{"a"})', '#{:a}'],
  ]);
});

describe('non-set inputs are read as collections', () => {
  table([
    ['(set/union [1 2] [2 3])', '#{1 2 3}'],
    ['(intersection [1 2 3] (list 2))', '#{2}'],
  ]);
});

describe('table', () => {
  it('bare names exist in the table', () => {
    for (const n of BARE_SET_NAMES) expect(setFns[n]).toBeDefined();
  });

  it('errors', () => {
    expect(evError('(set 5)').message).toBe('set: expected collection, got number');
    expect(evError('(set/select 5 #{1})').message).toBe('select: expected function, got number');
    expect(evError('(sorted-set 1 :a)').message).toBe('sorted-set: cannot compare keyword with number');
  });

  it('a 10k-item union stays linear', () => {
    const rt = new FakeRuntime({ maxCollectionSize: 1_000_000 });
    expect((ev('(union (set (range 10000)) (set (range 5000 15000)))', rt) as { size: number }).size).toBe(15000);
  });
});
