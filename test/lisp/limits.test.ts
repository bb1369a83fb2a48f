/** Every limit is enforced with a clean limit_exceeded error naming it. */
import { describe, expect, it } from 'vitest';
import { run } from '../../src/lisp/index.ts';
import type { Limits } from '../../src/lisp/api.ts';

async function limitOf(src: string, limits: Partial<Limits>): Promise<unknown> {
  const r = await run(src, { limits, journal: new Map() });
  if (r.status !== 'error') throw new Error(`expected an error, got ${r.status}`);
  expect(r.error.code).toBe('limit_exceeded');
  return r.error.details?.limit;
}

describe('limits', () => {
  it('fuel', async () => {
    expect(await limitOf('(loop [i 0] (recur (inc i)))', { fuel: 10_000 })).toBe('fuel');
    expect(await limitOf('(reduce + (range 1000000))', { fuel: 10_000 })).toBe('fuel');
  });
  it('fuel is reported', async () => {
    const r = await run('(+ 1 2)');
    expect(r.fuelUsed).toBeGreaterThan(0);
    expect(r.fuelUsed).toBeLessThan(10);
  });
  it('wall clock', async () => {
    const t = performance.now();
    expect(await limitOf('(loop [i 0] (recur (inc i)))', { timeoutMs: 30, fuel: 1e12 })).toBe('timeout');
    expect(performance.now() - t).toBeLessThan(1000);
  });
  it('recursion depth', async () => {
    expect(await limitOf('(defn f [n] (inc (f n))) (f 1)', { maxDepth: 100 })).toBe('depth');
    expect(await limitOf('(defn f [n] (inc (f n))) (f 1)', {})).toBe('depth');
  });
  it('deep recursion through builtins cannot overflow the host', async () => {
    const r = await run('(defn f [n] (first (map f [n]))) (f 1)', { limits: { maxDepth: 100_000, fuel: 1e9 } });
    expect(r.status).toBe('error');
    if (r.status === 'error') expect(r.error.code).toBe('limit_exceeded');
  });
  it('collection size', async () => {
    expect(await limitOf('(vec (range 2000))', { maxCollectionSize: 1000 })).toBe('collection_size');
    expect(await limitOf('(for [x (range)] x)', { maxCollectionSize: 1000 })).toBe('collection_size');
    expect(await limitOf('(range)', { maxCollectionSize: 1000 })).toBe('collection_size');
  });
  it('collection size: a lazy sequence of exactly the limit is allowed, one more is not', async () => {
    const limits = { maxCollectionSize: 1000 };
    for (const src of [
      '(take 1000 (range))',
      '(vec (take 1000 (range)))',
      '[(take 1000 (iterate inc 0))]',
      '(count (map inc (take 1000 (range))))',
    ]) {
      const r = await run(src, { limits, journal: new Map() });
      expect(r.status, src).toBe('ok');
    }
    expect(await limitOf('(take 1001 (range))', limits)).toBe('collection_size');
    expect(await limitOf('(vec (take 1001 (range)))', limits)).toBe('collection_size');
    expect(await limitOf('[(take 1001 (iterate inc 0))]', limits)).toBe('collection_size');
    // nested seqs share one budget: 600 + 400 fit, 600 + 401 do not
    expect((await run('[(take-while #(< % 600) (range)) (take-while #(< % 400) (range))]', { limits })).status).toBe(
      'ok',
    );
    expect(await limitOf('[(take-while #(< % 600) (range)) (take-while #(< % 401) (range))]', limits)).toBe(
      'collection_size',
    );
  });
  it('collection size: lazy sequences inside the result are realised in the run, within one budget', async () => {
    expect(await limitOf('[(iterate inc 0)]', { maxCollectionSize: 1000 })).toBe('collection_size');
    expect(await limitOf('{:a 1 :xs (range)}', { maxCollectionSize: 1000 })).toBe('collection_size');
    expect(await limitOf('(return #{(map inc (range))})', { maxCollectionSize: 1000 })).toBe('collection_size');
    expect(await limitOf('(fail [(repeat 1)])', { maxCollectionSize: 1000 })).toBe('collection_size');
    // a hundred infinite sequences cost one budget, not a hundred
    expect(await limitOf('(vec (map (fn [_] (range)) (range 100)))', { maxCollectionSize: 1000 })).toBe(
      'collection_size',
    );
    // finite ones are realised and print; shared structure is walked once
    const r = await run('(let [xs (take 3 (iterate inc 5))] (reduce (fn [acc _] [acc acc]) {:xs xs} (range 40)))');
    expect(r.status).toBe('ok');
  });
  it('printed output', async () => {
    expect(await limitOf('(dotimes [i 1000] (println "0123456789"))', { maxOutputChars: 500 })).toBe('output');
  });
  it('regex length', async () => {
    expect(await limitOf(`(re-find #"${'a'.repeat(50)}" "a")`, { maxRegexLength: 20 })).toBe('regex');
    expect(await limitOf(`(re-find (re-pattern (apply str (repeat 50 "a"))) "a")`, { maxRegexLength: 20 })).toBe(
      'regex',
    );
  });
  it('catastrophic regex patterns run in linear time', async () => {
    const r = await run(`(re-find #"(a+)+$" (str (apply str (repeat 5000 "a")) "b"))`);
    expect(r.status).toBe('ok');
    expect(r.durationMs).toBeLessThan(2000);
  });
  it('no host access', async () => {
    for (const src of [
      '(.constructor "a")',
      '(get "a" "__proto__")',
      '(:constructor {})',
      '(js/eval "1")',
      '(. "a" constructor)',
      '(.__proto__ "a")',
    ]) {
      const r = await run(src);
      if (r.status === 'ok') expect(r.value).toBeNull();
      else expect(r.status).toBe('error');
    }
    expect((await run('data/__proto__', { context: {} })).status === 'ok').toBe(true);
    const proto = await run('data/constructor', { context: {} });
    expect(proto.status === 'ok' && proto.value).toBeNull();
  });
});
