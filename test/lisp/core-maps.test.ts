import { describe, expect, it } from 'vitest';
import { FakeRuntime, ev, evError, pr } from './helpers/fake-runtime.ts';

/** [source, printed value as Clojure gives it] */
type Row = [string, string];

function table(rows: Row[]): void {
  it.each(rows)('%s → %s', (src, expected) => {
    expect(pr(src)).toBe(expected);
  });
}

describe('Clojure agreement: reading', () => {
  table([
    ['(get {:a 1} :a)', '1'],
    ['(get {:a 1} :b)', 'nil'],
    ['(get {:a 1} :b 0)', '0'],
    ['(get {:a nil} :a 0)', 'nil'],
    ['(get nil :a)', 'nil'],
    ['(get [10 20] 1)', '20'],
    ['(get [10 20] 5 :no)', ':no'],
    ['(get #{:a} :a)', ':a'],
    ['(get "abc" 1)', '"b"'],
    ['(get-in {:a {:b 1}} [:a :b])', '1'],
    ['(get-in {:a {:b 1}} [:a :c] :none)', ':none'],
    ['(get-in {:a {:b nil}} [:a :b] :none)', 'nil'],
    ['(get-in {:a [{:b 1}]} [:a 0 :b])', '1'],
    ['(get-in {:a 1} [])', '{:a 1}'],
    ['(contains? {:a nil} :a)', 'true'],
    ['(contains? {:a 1} :b)', 'false'],
    ['(contains? #{1 2} 2)', 'true'],
    ['(contains? [:a :b] 1)', 'true'],
    ['(contains? [:a :b] :a)', 'false'],
    ['(contains? [:a :b] 2)', 'false'],
    ['(contains? "abc" 2)', 'true'],
    ['(contains? nil :a)', 'false'],
    ['(keys {:a 1 :b 2})', '(:a :b)'],
    ['(keys {})', 'nil'],
    ['(keys nil)', 'nil'],
    ['(vals {:a 1 :b 2})', '(1 2)'],
    ['(vals {})', 'nil'],
    ['(key (first {:a 1}))', ':a'],
    ['(val (first {:a 1}))', '1'],
    ['(select-keys {:a 1 :b 2 :c nil} [:a :c :z])', '{:a 1, :c nil}'],
    ['(select-keys nil [:a])', '{}'],
  ]);
});

describe('flexible reads (keyword ↔ string)', () => {
  table([
    ['(get {"name" "x"} :name)', '"x"'],
    ['(get {:name "x"} "name")', '"x"'],
    ['(get {"a" 1 :a 2} :a)', '2'],
    ['(get-in {"user" {"id" 7}} [:user :id])', '7'],
    ['(contains? {"a" 1} :a)', 'true'],
    ['(select-keys {"id" 1 "x" 2} [:id])', '{:id 1}'],
    ['(update {"n" 1} :n inc)', '{"n" 2}'],
    ['(update-in {"a" {"n" 1}} [:a :n] inc)', '{"a" {"n" 2}}'],
    ['(assoc-in {"a" {"n" 1}} [:a :m] 2)', '{"a" {"n" 1, :m 2}}'],
    ['(assoc {"n" 1} :n 2)', '{"n" 1, :n 2}'],
    ['(dissoc {"n" 1} :n)', '{"n" 1}'],
  ]);
});

describe('Clojure agreement: writing', () => {
  table([
    ['(assoc {:a 1} :b 2)', '{:a 1, :b 2}'],
    ['(assoc {:a 1} :a 2 :c 3)', '{:a 2, :c 3}'],
    ['(assoc nil :a 1)', '{:a 1}'],
    ['(assoc [1 2] 0 :x)', '[:x 2]'],
    ['(assoc [1 2] 2 3)', '[1 2 3]'],
    ['(assoc-in {} [:a :b] 1)', '{:a {:b 1}}'],
    ['(assoc-in {:a [1 2]} [:a 1] :x)', '{:a [1 :x]}'],
    ['(assoc-in nil [:a] 1)', '{:a 1}'],
    ['(dissoc {:a 1 :b 2} :a)', '{:b 2}'],
    ['(dissoc {:a 1 :b 2 :c 3} :a :b)', '{:c 3}'],
    ['(dissoc nil :a)', 'nil'],
    ['(update {:a 1} :a inc)', '{:a 2}'],
    ['(update {:a 1} :a + 10 100)', '{:a 111}'],
    ['(update {} :a (fnil inc 0))', '{:a 1}'],
    ['(update [1 2] 0 inc)', '[2 2]'],
    ['(update nil :a (constantly 1))', '{:a 1}'],
    ['(update-in {:a {:b 1}} [:a :b] inc)', '{:a {:b 2}}'],
    ['(update-in {} [:a :b] (fnil inc 0))', '{:a {:b 1}}'],
    ['(update-in {:a {:b 1}} [:a :b] + 5)', '{:a {:b 6}}'],
    ['(merge {:a 1} {:b 2} {:a 3})', '{:a 3, :b 2}'],
    ['(merge nil {:a 1})', '{:a 1}'],
    ['(merge {:a 1} nil)', '{:a 1}'],
    ['(merge)', 'nil'],
    ['(merge nil nil)', 'nil'],
    ['(merge-with + {:a 1 :b 2} {:a 10} {:b 5 :c 1})', '{:a 11, :b 7, :c 1}'],
    ['(merge-with into {:a [1]} {:a [2]})', '{:a [1 2]}'],
    ['(zipmap [:a :b :c] [1 2])', '{:a 1, :b 2}'],
    ['(zipmap [:a :b] (range))', '{:a 0, :b 1}'],
    ['(update-vals {:a 1 :b 2} inc)', '{:a 2, :b 3}'],
    ['(update-vals nil inc)', '{}'],
    ['(update-keys {:a 1} str)', '{":a" 1}'],
    ['(hash-map :a 1 :b 2)', '{:a 1, :b 2}'],
    ['(sorted-map :b 1 :a 2)', '{:a 2, :b 1}'],
    ['(entries {:a 1 :b 2})', '([:a 1] [:b 2])'],
    ['(entries {})', '()'],
  ]);
});

describe('insertion order', () => {
  it('keys, vals and seq follow insertion order, not sorting', () => {
    expect(pr('(keys (assoc {:z 1} :a 2))')).toBe('(:z :a)');
    expect(pr('(vals (assoc {:z 1} :a 2))')).toBe('(1 2)');
    expect(pr('(seq (assoc {:z 1} :a 2))')).toBe('([:z 1] [:a 2])');
  });
});

describe('errors and hints', () => {
  it.each([
    ['(assoc [1 2] 5 :x)', 'index_out_of_bounds', 'assoc: index 5 out of bounds for size 2'],
    ['(assoc [1 2] :a 1)', 'type_error', 'assoc: expected integer index for a vector, got keyword'],
    ['(assoc {} :a)', 'arity_error', 'assoc: wrong number of arguments (2)'],
    ['(assoc {} :a 1 :b)', 'arity_error', 'assoc: expected key/value pairs, got 3 arguments after the map'],
    ['(assoc 5 :a 1)', 'type_error', 'assoc: expected map or vector, got number'],
    ['(keys [1 2])', 'type_error', 'keys: expected map, got vector'],
    ['(merge {:a 1} 5)', 'type_error', 'merge: expected [key value] pair, got number'],
    ['(contains? (list 1 2) 1)', 'type_error', 'contains?: expected map, set, vector or string, got list'],
    ['(hash-map :a)', 'arity_error', 'hash-map: expected key/value pairs, got 1 argument after the map'],
  ])('%s → %s', (src, code, message) => {
    const e = evError(src);
    expect(e.code).toBe(code);
    expect(e.message).toBe(message);
  });

  it('update-vals with the arguments reversed hints at the order', () => {
    const e = evError('(update-vals inc {:a 1})');
    expect(e.message).toBe('update-vals: expected map as the first argument, got function');
    expect(e.hint).toMatch(/\(update-vals m f\)/);
  });

  it('contains? on a list hints at membership with some', () => {
    expect(evError('(contains? (list 1) 1)').hint).toMatch(/some/);
  });
});

describe('no quadratic behaviour', () => {
  it('building a 10k-entry map with assoc in reduce costs linear fuel', () => {
    const cost = (n: number): number => {
      const rt = new FakeRuntime({ maxCollectionSize: 1_000_000 });
      const m = ev(`(reduce #(assoc %1 %2 1) {} (range ${n}))`, rt);
      expect((m as { size: number }).size).toBe(n);
      ev(`(zipmap (range ${n}) (range ${n}))`, rt);
      ev(`(update-vals (zipmap (range ${n}) (range ${n})) inc)`, rt);
      ev(`(merge-with + (zipmap (range ${n}) (range ${n})) (zipmap (range ${n}) (range ${n})))`, rt);
      return rt.ticks;
    };
    expect(cost(10_000) / cost(1_000)).toBeLessThan(15);
  });
});
