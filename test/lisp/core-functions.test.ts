import { describe, expect, it } from 'vitest';
import { FnValue } from '../../src/lisp/values.ts';
import { FakeRuntime, ev, evError, pr } from './helpers/fake-runtime.ts';

/** [source, printed value as Clojure gives it] */
type Row = [string, string];

function table(rows: Row[]): void {
  it.each(rows)('%s → %s', (src, expected) => {
    expect(pr(src)).toBe(expected);
  });
}

describe('Clojure agreement: function builders', () => {
  table([
    ['(identity 3)', '3'],
    ['((constantly 7) 1 2)', '7'],
    ['((partial + 1) 2)', '3'],
    ['((partial + 1 2) 3 4)', '10'],
    ['(map (partial * 2) [1 2])', '(2 4)'],
    ['((comp inc inc) 1)', '3'],
    ['((comp str +) 1 2)', '"3"'],
    ['((comp) 5)', '5'],
    ['((comp :b :a) {:a {:b 9}})', '9'],
    ['((complement even?) 2)', 'false'],
    ['(filter (complement nil?) [1 nil 2])', '(1 2)'],
    ['((fnil inc 0) nil)', '1'],
    ['((fnil + 0 10) nil nil)', '10'],
    ['((fnil inc 0) 5)', '6'],
    ['((fnil + 0 10) 1 nil 100)', '111'],
    ['((fnil vector 0) 1 nil)', '[1 nil]'],
    ['(let [f (fnil vector :a :b)] [(f nil 2) (f 1 nil) (f 1 2)])', '[[:a 2] [1 :b] [1 2]]'],
    ['((juxt :a :b) {:a 1 :b 2})', '[1 2]'],
    ['((juxt inc dec) 5)', '[6 4]'],
    ['(map (juxt identity inc) [1 2])', '([1 2] [2 3])'],
    ['((every-pred pos? even?) 2 4)', 'true'],
    ['((every-pred pos? even?) 2 3)', 'false'],
    ['((some-fn :a :b) {:b 5})', '5'],
    ['((some-fn even?) 1)', 'false'],
    ['(sort-by (juxt :a :b) [{:a 1 :b 2} {:a 1 :b 1} {:a 0 :b 9}])', '({:a 0, :b 9} {:a 1, :b 1} {:a 1, :b 2})'],
  ]);
});

describe('re-readable source', () => {
  table([
    ['(partial + 1)', '(partial + 1)'],
    ['(partial get {:a "x"})', '(partial get {:a "x"})'],
    ['(comp inc :n)', '(comp inc :n)'],
    ['(complement even?)', '(complement even?)'],
    ['(constantly [1 "a"])', '(constantly [1 "a"])'],
    ['(fnil inc 0)', '(fnil inc 0)'],
    ['(juxt :a :b)', '(juxt :a :b)'],
    ['(every-pred pos?)', '(every-pred pos?)'],
    ['(some-fn :a)', '(some-fn :a)'],
    ['(partial (partial + 1) 2)', '(partial (partial + 1) 2)'],
  ]);

  it('built functions are function values', () => {
    expect(ev('(partial + 1)')).toBeInstanceOf(FnValue);
  });
});

describe('errors', () => {
  it.each([
    ['(partial 5 1)', 'partial: expected function, got number'],
    ['(comp inc 5)', 'comp: expected function, got number'],
    ['(juxt 1)', 'juxt: expected function, got number'],
  ])('%s', (src, message) => {
    const e = evError(src);
    expect(e.code).toBe('type_error');
    expect(e.message).toBe(message);
  });
});

describe('Clojure agreement: walk', () => {
  table([
    ['(postwalk #(if (number? %) (inc %) %) [1 [2 {:a 3}]])', '[2 [3 {:a 4}]]'],
    ['(prewalk #(if (number? %) (inc %) %) (list 1 [2]))', '(2 [3])'],
    ['(walk/postwalk identity {:a #{1 2}})', '{:a #{1 2}}'],
    ['(walk inc identity [1 2])', '[2 3]'],
    ['(walk identity count {:a 1 :b 2})', '2'],
    ['(walk inc identity (list 1 2))', '(2 3)'],
    ['(walk/postwalk-replace {:a :b} [:a {:a :a}])', '[:b {:b :b}]'],
    ['(walk/prewalk-replace {[1] :one} [[1] 2])', '[:one 2]'],
    ['(walk/keywordize-keys {"a" {"b" 1} :c 2})', '{:a {:b 1}, :c 2}'],
    ['(walk/keywordize-keys [{"a" 1}])', '[{:a 1}]'],
    ['(walk/stringify-keys {:a {:b 1} "c" 2})', '{"a" {"b" 1}, "c" 2}'],
    ['(tree-seq vector? identity [1 [2 3] 4])', '([1 [2 3] 4] 1 [2 3] 2 3 4)'],
    ['(tree-seq map? vals {:a {:b 1} :c 2})', '({:a {:b 1}, :c 2} {:b 1} 1 2)'],
    ['(tree-seq :kids :kids {:id 1 :kids [{:id 2}]})', '({:id 1, :kids [{:id 2}]} {:id 2})'],
    ['(map :id (tree-seq :kids :kids {:id 1 :kids [{:id 2 :kids [{:id 3}]} {:id 4}]}))', '(1 2 3 4)'],
  ]);

  it('postwalk visits map entries as [k v] vectors', () => {
    expect(pr('(postwalk #(if (vector? %) (vec (reverse %)) %) {:a 1})')).toBe('{1 :a}');
    const e = evError('(postwalk #(if (vector? %) (conj % :x) %) {:a 1})');
    expect(e.code).toBe('type_error');
    expect(e.message).toBe('postwalk: expected [key value] pair, got vector');
  });

  it('walking an infinite seq stops at the size limit', () => {
    expect(evError('(postwalk identity (range))', new FakeRuntime({ maxCollectionSize: 100 })).code).toBe(
      'limit_exceeded',
    );
  });
});
