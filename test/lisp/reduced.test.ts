/** `reduced`: early exit from reduce, reductions and reduce-kv, as in Clojure. */
import { describe, expect, it } from 'vitest';
import { run } from '../../src/lisp/index.ts';
import { prStr } from '../../src/lisp/printer/index.ts';

const value = async (source: string): Promise<string> => {
  const r = await run(source);
  if (r.status !== 'ok') throw new Error(r.status === 'error' ? r.error.message : r.status);
  return prStr(r.value);
};

describe('reduced', () => {
  it.each([
    ['(reduce (fn [a x] (if (> x 3) (reduced a) (+ a x))) 0 (range 10))', '6'],
    ['(reduce (fn [a x] (if (= x :stop) (reduced (conj a :done)) (conj a x))) [] [:a :stop :b])', '[:a :done]'],
    ['(reductions (fn [a x] (if (> a 5) (reduced a) (+ a x))) (range 10))', '(0 1 3 6 6)'],
    ['(reduce-kv (fn [a k v] (if (= k :b) (reduced a) (+ a v))) 0 {:a 1 :b 2 :c 3})', '1'],
    ['(reduce-kv (fn [a i v] (+ a i v)) 0 [10 20])', '31'],
    ['[(reduced? (reduced 1)) (reduced? 1) (unreduced (reduced 2)) (unreduced 3)]', '[true false 2 3]'],
    ['(pr-str (reduced [1]))', '"#reduced[[1]]"'],
  ])('%s is %s', async (source, expected) => {
    expect(await value(source)).toBe(expected);
  });

  it('stops walking the collection: an infinite range is fine', async () => {
    expect(await value('(reduce (fn [a x] (if (= x 5) (reduced a) (+ a x))) 0 (range))')).toBe('10');
  });
});
