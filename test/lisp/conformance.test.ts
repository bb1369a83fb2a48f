/** Clojure forms added for conformance: `reduced` (early exit from reduce, reductions and reduce-kv) and quoted data. */
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

describe('quote', () => {
  it.each([
    ["'(1 2 3)", '(1 2 3)'],
    ['(quote (1 2))', '(1 2)'],
    ['\'[1 :a "s" (2)]', '[1 :a "s" (2)]'],
    ["'{:a (1 2)}", '{:a (1 2)}'],
    ["(count '())", '0'],
    ["(= '(1 2) (list 1 2))", 'true'],
    ["(map inc '(1 2))", '(2 3)'],
  ])('%s is %s', async (source, expected) => {
    expect(await value(source)).toBe(expected);
  });

  it.each([
    ["'sym", 'sym'],
    ["'[a b/c 1]", '[a b/c 1]'],
    ['(= \'a \'a (symbol "a"))', 'true'],
    ['[(= \'a :a) (= \'a "a")]', '[false false]'],
    ["[(symbol? 'a) (symbol? :a) (type 'a)]", '[true false :symbol]'],
    ["[(name 'x/y) (namespace 'x/y) (keyword 'k) (symbol :k)]", '["y" "x" :k k]'],
    ['(str \'a "-" \'b)', '"a-b"'],
    ["[(get {'a 1} 'a) ('a {'a 2}) (contains? #{'a} 'a)]", '[1 2 true]'],
    ["(sort ['c 'a 'b])", '(a b c)'],
    ["(case 'b a 1 b 2 :none)", '2'],
    ['(case :b a 1 :none)', ':none'],
    ["[(pr-str 'foo) (str [1 'b]) (pr-str {'a [1 'b]}) (str ''a)]", '["foo" "[1 b]" "{a [1 b]}" "(quote a)"]'],
    [
      "[(ident? 'a) (ident? :a) (ident? \"a\") (simple-symbol? 'a) (qualified-symbol? 'a/b) (simple-keyword? :a/b) (qualified-keyword? :a/b) (simple-ident? :a) (qualified-ident? 'a)]",
      '[true true false true true false true true false]',
    ],
    ["[(compare 'a/b 'a) (sort ['b/a 'a/b 'c])]", '[1 (c a/b b/a)]'],
  ])('symbols as data: %s is %s', async (source, expected) => {
    expect(await value(source)).toBe(expected);
  });

  it('symbols cross the JSON boundary as their name, like keywords', async () => {
    const { toJson } = await import('../../src/lisp/json.ts');
    const r = await run("{'k ['a 'b/c]}");
    expect(r.status === 'ok' && toJson(r.value)).toEqual({ k: ['a', 'b/c'] });
  });

  it('a closure over quoted data persists and reads back', async () => {
    const { serializeNamespace, deserializeNamespace } = await import('../../src/lisp/index.ts');
    const first = await run("(defn f [] '(1 2))");
    if (first.status !== 'ok') throw new Error('def failed');
    const saved = serializeNamespace(first.namespace);
    expect(saved.f).toBe("(fn f [] '(1 2))");
    const namespace = await deserializeNamespace(saved, { tools: [] });
    const again = await run('(f)', { namespace });
    expect(again.status === 'ok' && prStr(again.value)).toBe('(1 2)');
  });
});

describe('quoted symbols in saved definitions', () => {
  it('a closure over a quoted symbol persists and reads back', async () => {
    const { serializeNamespace, deserializeNamespace } = await import('../../src/lisp/index.ts');
    const first = await run("(defn g [] ['ok 'a/b])");
    if (first.status !== 'ok') throw new Error('def failed');
    const saved = serializeNamespace(first.namespace);
    const namespace = await deserializeNamespace(saved, { tools: [] });
    const again = await run('(g)', { namespace });
    expect(again.status === 'ok' && prStr(again.value)).toBe('[ok a/b]');
  });
});

describe('transducers', () => {
  it.each([
    ['(into [] (comp (filter odd?) (map inc)) (range 10))', '[2 4 6 8 10]'],
    ['(transduce (map :n) + 0 [{:n 1} {:n 2}])', '3'],
    ['(transduce (map inc) + [1 2])', '5'],
    ['(sequence (take 2) (range))', '(0 1)'],
    ['(eduction (filter even?) (map inc) (range 5))', '(1 3 5)'],
    ['(pr-str (comp (filter odd?) (map inc)))', '"(comp (filter odd?) (map inc))"'],
    ['(let [xf (map #(* 2 %))] [(into [] xf [1 2]) (into #{} xf [1 1])])', '[[2 4] #{2}]'],
    ['(fn? (map inc))', 'true'],
  ])('%s is %s', async (source, expected) => {
    expect(await value(source)).toBe(expected);
  });

  it('a transducer is not called directly, and into says what it wanted', async () => {
    const direct = await run('((map inc) conj)');
    expect(direct.status === 'error' && direct.error.message).toMatch(
      /a transducer is not called directly: use it with into, transduce, sequence or eduction/,
    );
    const wrong = await run('(into [] inc [1 2])');
    expect(wrong.status === 'error' && wrong.error.message).toMatch(/into: expected a transducer such as \(map f\)/);
  });

  it('survives the namespace round trip (defs cross passes and the sandbox as source)', async () => {
    const { deserializeNamespace, serializeNamespace } = await import('../../src/lisp/index.ts');
    const first = await run('(def xf (comp (remove nil?) (map inc)))');
    const namespace = await deserializeNamespace(serializeNamespace(first.namespace));
    const again = await run('(into [] xf [1 nil 2])', { namespace });
    expect(again.status === 'ok' && prStr(again.value)).toBe('[2 3]');
  });
});
