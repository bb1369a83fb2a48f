import { run } from './src/lisp/index.ts';
const LIMITS = { limits: { fuel: 1e10, timeoutMs: 60_000, maxCollectionSize: 10_000_000 } };
const src = '(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 25)';
const which = process.argv[2] ?? 'fib';
const progs: Record<string, string> = {
  fib: src,
  loop: '(loop [i 0 acc 0] (if (< i 1000000) (recur (inc i) (+ acc i)) acc))',
  assoc: '(count (reduce #(assoc %1 %2 (* 2 %2)) {} (range 10000)))',
  conj: '(frequencies (map #(mod % 7) (reduce conj [] (range 10000))))',
};
for (let i = 0; i < 5; i++) await run(progs[which]!, LIMITS as never);
const t = performance.now();
for (let i = 0; i < 20; i++) await run(progs[which]!, LIMITS as never);
console.log(which, ((performance.now() - t) / 20).toFixed(2), 'ms');
