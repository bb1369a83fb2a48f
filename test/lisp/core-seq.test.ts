import { describe, expect, it } from 'vitest';
import { List } from 'immutable';
import { seqFns } from '../../src/lisp/core/seq.ts';
import { Builtin, LazySeq, type Value, equals, isLazySeq, vec } from '../../src/lisp/values.ts';
import { readData } from '../../src/lisp/reader/index.ts';
import { FakeRuntime, ev, evError, pr } from './helpers/fake-runtime.ts';

/** [source, printed value as Clojure gives it] */
type Row = [string, string];

function table(rows: Row[]): void {
  it.each(rows)('%s → %s', (src, expected) => {
    expect(pr(src)).toBe(expected);
  });
}

describe('Clojure agreement: access', () => {
  table([
    ['(first [1 2 3])', '1'],
    ['(first nil)', 'nil'],
    ['(first [])', 'nil'],
    ['(first "abc")', '"a"'],
    ['(first {:a 1})', '[:a 1]'],
    ['(second [1 2 3])', '2'],
    ['(second [1])', 'nil'],
    ['(last [1 2 3])', '3'],
    ['(last nil)', 'nil'],
    ['(last (list 1 2))', '2'],
    ['(rest [1 2 3])', '(2 3)'],
    ['(rest [])', '()'],
    ['(rest nil)', '()'],
    ['(next [1 2 3])', '(2 3)'],
    ['(next [1])', 'nil'],
    ['(next nil)', 'nil'],
    ['(ffirst [[1 2] [3]])', '1'],
    ['(fnext [1 2 3])', '2'],
    ['(nfirst [[1 2] [3]])', '(2)'],
    ['(nnext [1 2 3])', '(3)'],
    ['(nnext [1 2])', 'nil'],
    ['(nth [1 2 3] 1)', '2'],
    ['(nth [1 2 3] 5 :none)', ':none'],
    ['(nth nil 3)', 'nil'],
    ['(nth "abc" 2)', '"c"'],
    ['(nth (list 1 2 3) 0)', '1'],
    ['(nthrest [1 2 3 4] 2)', '(3 4)'],
    ['(nthrest [1 2] 0)', '[1 2]'],
    ['(nthnext [1 2] 2)', 'nil'],
    ['(butlast [1 2 3])', '(1 2)'],
    ['(butlast [1])', 'nil'],
    ['(count nil)', '0'],
    ['(count [1 2])', '2'],
    ['(count {:a 1 :b 2})', '2'],
    ['(count "hello")', '5'],
    ['(count (range 10))', '10'],
    ['(empty? nil)', 'true'],
    ['(empty? [])', 'true'],
    ['(empty? "")', 'true'],
    ['(empty? [1])', 'false'],
    ['(not-empty [])', 'nil'],
    ['(not-empty [1])', '[1]'],
    ['(seq [])', 'nil'],
    ['(seq [1 2])', '(1 2)'],
    ['(seq {:a 1})', '([:a 1])'],
    ['(seq "ab")', '("a" "b")'],
    ['(peek [1 2 3])', '3'],
    ['(peek (list 1 2 3))', '1'],
    ['(pop [1 2 3])', '[1 2]'],
    ['(pop (list 1 2 3))', '(2 3)'],
    ['(peek [])', 'nil'],
    ['(subvec [1 2 3 4] 1)', '[2 3 4]'],
    ['(subvec [1 2 3 4] 1 3)', '[2 3]'],
  ]);
});

describe('Clojure agreement: slicing', () => {
  table([
    ['(take 2 [1 2 3])', '(1 2)'],
    ['(take 5 [1 2])', '(1 2)'],
    ['(take -1 [1 2])', '()'],
    ['(take 2 nil)', '()'],
    ['(drop 2 [1 2 3])', '(3)'],
    ['(drop -1 [1 2])', '(1 2)'],
    ['(take-last 2 [1 2 3])', '(2 3)'],
    ['(take-last 2 [])', 'nil'],
    ['(drop-last [1 2 3])', '(1 2)'],
    ['(drop-last 2 [1 2 3])', '(1)'],
    ['(take-while pos? [1 2 -1 3])', '(1 2)'],
    ['(drop-while pos? [1 2 -1 3])', '(-1 3)'],
    ['(take-nth 2 [0 1 2 3 4])', '(0 2 4)'],
    ['(split-at 2 [1 2 3])', '[(1 2) (3)]'],
    ['(split-with odd? [1 3 4 5])', '[(1 3) (4 5)]'],
  ]);
});

describe('Clojure agreement: transforming', () => {
  table([
    ['(map inc [1 2 3])', '(2 3 4)'],
    ['(map inc nil)', '()'],
    ['(map + [1 2 3] [10 20])', '(11 22)'],
    ['(map + [1 2] [10 20] [100 200])', '(111 222)'],
    ['(map :name [{:name "a"} {"name" "b"}])', '("a" "b")'],
    ['(map #{1 2} [1 3])', '(1 nil)'],
    ['(mapv inc [1 2])', '[2 3]'],
    ['(map-indexed vector [:a :b])', '([0 :a] [1 :b])'],
    ['(mapcat reverse [[1 2] [3 4]])', '(2 1 4 3)'],
    ['(mapcat identity nil)', '()'],
    ['(filter even? (range 6))', '(0 2 4)'],
    ['(filter :active [{:active true :id 1} {:active false :id 2}])', '({:active true, :id 1})'],
    ['(filter #{2 3} [1 2 3 4])', '(2 3)'],
    ['(filter even? nil)', '()'],
    ['(filterv odd? [1 2 3])', '[1 3]'],
    ['(remove even? [1 2 3])', '(1 3)'],
    ['(keep #(if (odd? %) (* % 10)) [1 2 3])', '(10 30)'],
    ['(keep-indexed #(if (even? %1) %2) [:a :b :c])', '(:a :c)'],
    ['(reduce + [1 2 3])', '6'],
    ['(reduce + 10 [1 2 3])', '16'],
    ['(reduce + [])', '0'],
    ['(reduce + [5])', '5'],
    ['(reduce (fn [acc e] (+ acc (second e))) 0 {:a 1 :b 2})', '3'],
    ['(reduce-kv (fn [acc k v] (conj acc k)) [] {:a 1 :b 2})', '[:a :b]'],
    ['(reduce-kv (fn [acc i v] (+ acc (* i v))) 0 [5 6 7])', '20'],
    ['(reductions + [1 2 3])', '(1 3 6)'],
    ['(reductions + 10 [1 2])', '(10 11 13)'],
    ['(apply + [1 2 3])', '6'],
    ['(apply + 1 2 [3 4])', '10'],
    ['(apply + nil)', '0'],
    ['(apply max-key count ["a" "abc" "ab"])', '"abc"'],
  ]);
});

describe('Clojure agreement: building', () => {
  table([
    ['(concat [1 2] (list 3) nil [4])', '(1 2 3 4)'],
    ['(concat)', '()'],
    ['(cons 0 [1 2])', '(0 1 2)'],
    ['(cons 0 nil)', '(0)'],
    ['(conj [1 2] 3 4)', '[1 2 3 4]'],
    ['(conj (list 1 2) 3 4)', '(4 3 1 2)'],
    ['(conj nil 1 2)', '(2 1)'],
    ['(conj #{1} 2 1)', '#{1 2}'],
    ['(conj {:a 1} [:b 2])', '{:a 1, :b 2}'],
    ['(conj {:a 1} {:b 2 :c 3})', '{:a 1, :b 2, :c 3}'],
    ['(conj [1])', '[1]'],
    ['(conj)', '[]'],
    ['(into [] (list 1 2))', '[1 2]'],
    ['(into [0] #{1})', '[0 1]'],
    ['(into (list 1) [2 3])', '(3 2 1)'],
    ['(into {} [[:a 1] [:b 2]])', '{:a 1, :b 2}'],
    ['(into {:a 1} {:b 2})', '{:a 1, :b 2}'],
    ['(into #{} [1 1 2])', '#{1 2}'],
    ['(into [] {:a 1})', '[[:a 1]]'],
    ['(into nil [1 2])', '(2 1)'],
    ['(vec (list 1 2))', '[1 2]'],
    ['(vec nil)', '[]'],
    ['(vec {:a 1})', '[[:a 1]]'],
    ['(vector 1 2)', '[1 2]'],
    ['(vector)', '[]'],
    ['(list 1 2)', '(1 2)'],
    ['(list)', '()'],
    ['(list* 1 2 [3 4])', '(1 2 3 4)'],
    ['(empty [1 2])', '[]'],
    ['(empty {:a 1})', '{}'],
    ['(empty (list 1))', '()'],
    ['(empty nil)', 'nil'],
    ['(reverse [1 2 3])', '(3 2 1)'],
    ['(reverse nil)', '()'],
  ]);
});

describe('Clojure agreement: ordering and compare', () => {
  table([
    ['(sort [3 1 2])', '(1 2 3)'],
    ['(sort > [3 1 2])', '(3 2 1)'],
    ['(sort compare ["b" "a"])', '("a" "b")'],
    ['(sort #(compare %2 %1) [1 3 2])', '(3 2 1)'],
    ['(sort :desc [1 3 2])', '(3 2 1)'],
    ['(sort ["b" "C" "a"])', '("C" "a" "b")'],
    ['(sort [:b :a])', '(:a :b)'],
    ['(sort [[1 2] [1] [0 5]])', '([1] [0 5] [1 2])'],
    ['(sort #{3 1 2})', '(1 2 3)'],
    ['(sort {:b 1 :a 2})', '([:a 2] [:b 1])'],
    ['(sort [nil 1 nil])', '(nil nil 1)'],
    ['(sort [])', '()'],
    ['(sort-by :age [{:age 3} {:age 1}])', '({:age 1} {:age 3})'],
    ['(sort-by :age > [{:age 1} {:age 3}])', '({:age 3} {:age 1})'],
    ['(sort-by count ["aaa" "b" "cc"])', '("b" "cc" "aaa")'],
    ['(sort-by first [[2 :a] [1 :b] [2 :c] [1 :d]])', '([1 :b] [1 :d] [2 :a] [2 :c])'],
    ['(sort-by "n" [{"n" 2} {"n" 1}])', '({"n" 1} {"n" 2})'],
    ['(sort-by [:a :b] [{:a {:b 2}} {:a {:b 1}}])', '({:a {:b 1}} {:a {:b 2}})'],
    ['(sort-by :a :desc [{:a 1} {:a 2}])', '({:a 2} {:a 1})'],
    ['(compare 1 2)', '-1'],
    ['(compare 2 2)', '0'],
    ['(compare 1.5 1)', '1'],
    ['(compare "a" "c")', '-2'],
    ['(compare "abc" "ab")', '1'],
    ['(compare "apple" "banana")', '-1'],
    ['(compare :a :b)', '-1'],
    ['(compare nil 1)', '-1'],
    ['(compare 1 nil)', '1'],
    ['(compare false true)', '-1'],
    ['(compare [1 2] [1 3])', '-1'],
    ['(compare [1 2 3] [9])', '1'],
    ['(distinct [1 2 1 3 2])', '(1 2 3)'],
    ['(distinct [[1] [1] [2]])', '([1] [2])'],
    ['(distinct-by :id [{:id 1 :v 1} {:id 1 :v 2} {:id 2}])', '({:id 1, :v 1} {:id 2})'],
    ['(dedupe [1 1 2 1 1])', '(1 2 1)'],
    ['(min-key count "abc" "a" "b")', '"b"'],
    ['(max-key count "ab" "a" "cd")', '"cd"'],
  ]);
});

describe('Clojure agreement: grouping and partitioning', () => {
  table([
    ['(frequencies [:a :b :a])', '{:a 2, :b 1}'],
    ['(frequencies nil)', '{}'],
    ['(group-by odd? [1 2 3])', '{true [1 3], false [2]}'],
    ['(group-by :k [{:k 1} {:k 2} {:k 1 :x 1}])', '{1 [{:k 1} {:k 1, :x 1}], 2 [{:k 2}]}'],
    ['(partition 2 [1 2 3 4 5])', '((1 2) (3 4))'],
    ['(partition 2 1 [1 2 3])', '((1 2) (2 3))'],
    ['(partition 3 3 [:x :y] [1 2 3 4])', '((1 2 3) (4 :x :y))'],
    ['(partition 3 1 [:x] [1 2 3 4])', '((1 2 3) (2 3 4) (3 4 :x))'],
    ['(partition 2 3 [1 2 3 4 5 6 7])', '((1 2) (4 5))'],
    ['(partition-all 2 [1 2 3])', '((1 2) (3))'],
    ['(partition-all 3 1 [1 2 3 4])', '((1 2 3) (2 3 4) (3 4) (4))'],
    ['(partition-by odd? [1 3 2 4 5])', '((1 3) (2 4) (5))'],
    ['(interleave [1 2 3] [:a :b])', '(1 :a 2 :b)'],
    ['(interleave)', '()'],
    ['(interpose 0 [1 2 3])', '(1 0 2 0 3)'],
    ['(flatten [1 [2 [3 (list 4)]] 5])', '(1 2 3 4 5)'],
    ['(flatten nil)', '()'],
    ['(flatten 5)', '()'],
    ['(flatten [{:a [1]}])', '({:a [1]})'],
    ['(zip [1 2 3] [:a :b])', '([1 :a] [2 :b])'],
    ['(combinations [1 2 3] 2)', '([1 2] [1 3] [2 3])'],
  ]);
});

describe('Clojure agreement: generating and laziness', () => {
  table([
    ['(range 3)', '(0 1 2)'],
    ['(range 1 4)', '(1 2 3)'],
    ['(range 0 10 3)', '(0 3 6 9)'],
    ['(range 3 0 -1)', '(3 2 1)'],
    ['(range 0)', '()'],
    ['(range 0 1 0.25)', '(0 0.25 0.5 0.75)'],
    [
      '(range 0 1 0.1)',
      '(0 0.1 0.2 0.30000000000000004 0.4 0.5 0.6 0.7 0.7999999999999999 0.8999999999999999 0.9999999999999999)',
    ],
    ['(take 3 (range 0 10 0))', '(0 0 0)'],
    ['(take 5 (range))', '(0 1 2 3 4)'],
    ['(take 5 (map inc (range)))', '(1 2 3 4 5)'],
    ['(take 3 (filter even? (range)))', '(0 2 4)'],
    ['(take 3 (remove even? (range)))', '(1 3 5)'],
    ['(take 3 (drop 5 (range)))', '(5 6 7)'],
    ['(first (drop 1000 (range)))', '1000'],
    ['(nth (range) 42)', '42'],
    ['(take-while #(< % 4) (range))', '(0 1 2 3)'],
    ['(take 4 (iterate #(* 2 %) 1))', '(1 2 4 8)'],
    ['(take 3 (repeat :x))', '(:x :x :x)'],
    ['(repeat 2 :x)', '(:x :x)'],
    ['(take 5 (cycle [1 2]))', '(1 2 1 2 1)'],
    ['(cycle [])', '()'],
    ['(repeatedly 2 (constantly 7))', '(7 7)'],
    ['(take 2 (repeatedly (constantly 7)))', '(7 7)'],
    ['(take 4 (interleave (range) (repeat :s)))', '(0 :s 1 :s)'],
    ['(take 5 (concat [:a] (range)))', '(:a 0 1 2 3)'],
    ['(take 4 (mapcat #(vector % %) (range)))', '(0 0 1 1)'],
    ['(take 2 (partition 2 (range)))', '((0 1) (2 3))'],
    ['(take 3 (map-indexed vector (repeat :a)))', '([0 :a] [1 :a] [2 :a])'],
    ['(take 3 (keep #(if (odd? %) %) (range)))', '(1 3 5)'],
    ['(take 3 (map + (range) (range 10 20)))', '(10 12 14)'],
    ['(take 3 (distinct (cycle [1 2 3])))', '(1 2 3)'],
    ['(some even? (range))', 'true'],
    ['(some #(if (> % 5) %) (range))', '6'],
    ['(first (filter #(> % 100) (range)))', '101'],
    ['(take 3 (cons :a (range)))', '(:a 0 1)'],
    ['(take 3 (rest (range)))', '(1 2 3)'],
    ['(take 3 (reductions + (range)))', '(0 1 3)'],
    ['(take 2 (drop-last (range)))', '(0 1)'],
    ['(zip (range) [:a :b])', '([0 :a] [1 :b])'],
    ['(map vector [:a :b] (range))', '([:a 0] [:b 1])'],
  ]);
});

describe('Clojure agreement: searching', () => {
  table([
    ['(some even? [1 2 3])', 'true'],
    ['(some even? nil)', 'nil'],
    ['(some #{3} [1 2 3])', '3'],
    ['(some :a [{:b 1} {:a 2}])', '2'],
    ['(every? pos? [1 2])', 'true'],
    ['(every? pos? [])', 'true'],
    ['(every? :ok [{:ok true} {:ok nil}])', 'false'],
    ['(not-every? pos? [1 -1])', 'true'],
    ['(not-any? neg? [1 2])', 'true'],
    ['(not-any? neg? [1 -2])', 'false'],
    ['(find {:a 1 :b 2} :b)', '[:b 2]'],
    ['(find {:a 1} :z)', 'nil'],
    ['(find {"a" 1} :a)', '["a" 1]'],
    ['(find [:x :y] 1)', '[1 :y]'],
    ['(find even? [1 3 4 6])', '4'],
    ['(find :active [{:id 1} {:id 2 :active true}])', '{:id 2, :active true}'],
    ['(find even? [1 3])', 'nil'],
  ]);
});

describe('result types', () => {
  it('map/filter/take on vectors give lists; mapv/filterv/vec give vectors', () => {
    expect(pr('(map inc [1])')).toBe('(2)');
    expect(pr('(mapv inc (list 1))')).toBe('[2]');
    expect(pr('(filterv odd? (list 1))')).toBe('[1]');
  });

  it('transforms over lazy inputs stay lazy; over realised inputs they are eager', () => {
    expect(isLazySeq(ev('(map inc (range))'))).toBe(true);
    expect(isLazySeq(ev('(map inc (range 3))'))).toBe(false);
    expect(isLazySeq(ev('(filter odd? (iterate inc 0))'))).toBe(true);
  });

  it('a finite range equals the vector with the same items', () => {
    expect(equals(ev('(range 3)'), vec([0, 1, 2]))).toBe(true);
  });
});

describe('errors', () => {
  it.each([
    ['(count 5)', 'type_error', 'count: expected collection, got number'],
    ['(first 5)', 'type_error', 'first: expected collection, got number'],
    ['(map inc 5)', 'type_error', 'map: expected collection, got number'],
    ['(nth [1 2] 5)', 'index_out_of_bounds', 'nth: index 5 out of bounds for size 2'],
    ['(nth {:a 1} 0)', 'type_error', 'nth: expected vector, list or string, got map'],
    ['(pop [])', 'type_error', "pop: can't pop an empty vector"],
    ['(subvec [1 2] 1 5)', 'index_out_of_bounds', 'subvec: index 5 out of bounds for size 2'],
    ['(conj {} [1 2 3])', 'type_error', 'conj: expected [key value] pair, got vector'],
    ['(conj 5 1)', 'type_error', 'conj: expected collection, got number'],
    ['(sort [1 "a"])', 'type_error', 'sort: cannot compare string with number'],
    ['(compare :a "a")', 'type_error', 'compare: cannot compare keyword with string'],
    ['(partition 0 [1])', 'type_error', 'partition: expected positive integer, got 0'],
    ['(range "a")', 'type_error', 'range: expected number, got string'],
    ['(filter 5 [1])', 'type_error', 'filter: expected function, got number'],
    ['(reduce + 5)', 'type_error', 'reduce: expected collection, got number'],
    ['(min-key count "a" 5)', 'type_error', 'count: expected collection, got number'],
    ['(first)', 'arity_error', 'first: wrong number of arguments (0)'],
  ])('%s → %s', (src, code, message) => {
    const e = evError(src);
    expect(e.code).toBe(code);
    expect(e.message).toBe(message);
  });

  it('hints: sort-by argument order', () => {
    const e = evError('(sort-by [{:a 1}] :a)');
    expect(e.message).toBe('sort-by: expected collection as the last argument, got keyword');
    expect(e.hint).toMatch(/\(sort-by keyfn coll\)/);
  });

  it('hints: a keyword mapped over a single map', () => {
    const e = evError('(map :a {:a 1})');
    expect(e.code).toBe('type_error');
    expect(e.hint).toMatch(/\(:k m\)/);
  });

  it('hints: nth out of range suggests get or a default', () => {
    expect(evError('(nth [1] 3)').hint).toMatch(/\(nth coll i default\)/);
  });

  it('realising an infinite seq is a limit_exceeded error naming the limit', () => {
    for (const src of [
      '(count (range))',
      '(vec (iterate inc 0))',
      '(reduce + (range))',
      '(sort (range))',
      '(last (repeat 1))',
    ]) {
      const e = evError(src, new FakeRuntime({ maxCollectionSize: 1000 }));
      expect(e.code, src).toBe('limit_exceeded');
      expect(e.details).toEqual({ limit: 'collection_size' });
    }
  });

  it('a huge finite range is lazy, so taking from it works but counting it fails', () => {
    const rt = new FakeRuntime({ maxCollectionSize: 1000 });
    expect(pr('(take 3 (range 1e9))', rt)).toBe('(0 1 2)');
    expect(evError('(count (range 1e9))', rt).code).toBe('limit_exceeded');
    expect(pr('(take 2 (repeat 1e9 :x))', new FakeRuntime({ maxCollectionSize: 10 }))).toBe('(:x :x)');
  });

  it('searching an infinite seq with no match stops at the fuel or size limit', () => {
    const e = evError('(some neg? (range))', new FakeRuntime({ fuel: 5000 }));
    expect(e.code).toBe('limit_exceeded');
  });
});

describe('laziness stops early', () => {
  it('take over map over range calls f only as needed', () => {
    const rt = new FakeRuntime();
    let calls = 0;
    const f = new Builtin('f', ([x]) => (calls++, x!));
    const mapped = seqFns.map!.fn([f, ev('(range)', rt)], rt);
    seqFns.take!.fn([5, mapped], rt);
    expect(calls).toBe(5);
    seqFns.first!.fn([mapped], rt);
    expect(calls).toBe(5);
  });

  it('lazy seqs memoise: iterate calls f once per item', () => {
    const rt = new FakeRuntime();
    let calls = 0;
    const f = new Builtin('f', ([x]) => (calls++, (x as number) + 1));
    const s = seqFns.iterate!.fn([f, 0], rt) as LazySeq;
    seqFns.nth!.fn([s, 10], rt);
    seqFns.nth!.fn([s, 10], rt);
    expect(calls).toBe(10);
  });
});

describe('no quadratic behaviour', () => {
  it('conj/into/reduce building 10k-item collections cost linear fuel', () => {
    const costs = [1_000, 10_000].map((n) => {
      const rt = new FakeRuntime({ maxCollectionSize: 1_000_000 });
      const v = ev(`(reduce conj [] (range ${n}))`, rt);
      expect((v as List<Value>).size).toBe(n);
      ev(`(into #{} (range ${n}))`, rt);
      ev(`(frequencies (map #(mod % 7) (range ${n})))`, rt);
      ev(`(group-by odd? (range ${n}))`, rt);
      ev(`(sort > (range ${n}))`, rt);
      ev(`(distinct (concat (range ${n}) (range ${n})))`, rt);
      return rt.ticks;
    });
    // n·log n at worst: 10× the items may cost at most ~15× the fuel
    expect(costs[1]! / costs[0]!).toBeLessThan(15);
  });

  it('rest/next over a long vector in a loop stays cheap', () => {
    const rt = new FakeRuntime();
    let s: Value = ev('(vec (range 10000))', rt);
    let n = 0;
    while (s !== null) {
      s = seqFns.next!.fn([s], rt);
      n++;
    }
    expect(n).toBe(10000);
  });

  it('results equal readData of their printed form', () => {
    expect(equals(ev('(group-by odd? [1 2 3])'), readData('{true [1 3] false [2]}'))).toBe(true);
  });
});
