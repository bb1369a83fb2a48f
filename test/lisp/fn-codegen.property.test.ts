/**
 * Numeric fns compiled to JS (src/lisp/eval/fn-codegen.ts) and to WebAssembly (fn-wasm.ts) behave exactly like the
 * closures, checked with fast-check on random recursive fns: the same status, value or
 * error (code, message and location), the same fuel used, under fuel limits that run out
 * at every point of a run, depth limits that recursion hits, and arguments that are not
 * numbers (the generated run is abandoned and the closures run the call again).
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/lisp/index.ts';
import { fnCodegen } from '../../src/lisp/eval/fn-codegen.ts';
import { forgetCaches } from '../../src/lisp/bounded-cache.ts';
import { outcomeOf } from './helpers/outcome.ts';

const PARAMS = ['a', 'b', 'c'];
const num = fc.oneof(fc.integer({ min: -3, max: 12 }), fc.constantFrom(0.5, -0.5, 1e300));
// -0.0 and 1e400 (Infinity) are constants the generated code keeps in K[] rather than writing literally
const anyConst = fc.oneof(
  { weight: 8, arbitrary: num.map(String) },
  { weight: 1, arbitrary: fc.constantFrom('-0.0', '1e400', '-1e400') },
  { weight: 1, arbitrary: fc.constantFrom('nil', 'true', 'false', '"x"') },
);

/** A body expression over the first `n` params; `self` adds calls to the fn itself (first arg smaller). */
function expr(n: number, depth: number, self: boolean): fc.Arbitrary<string> {
  const local = fc.constantFrom(...PARAMS.slice(0, n));
  const leaf = fc.oneof({ weight: 3, arbitrary: local }, { weight: 2, arbitrary: anyConst });
  if (depth <= 0) return leaf;
  const sub = expr(n, depth - 1, self);
  const options: fc.WeightedArbitrary<string>[] = [
    { weight: 3, arbitrary: leaf },
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          fc.constantFrom(
            '+',
            '-',
            '*',
            '<',
            '>',
            '<=',
            '>=',
            '=',
            'not=',
            '+',
            '-',
            '*',
            '<',
            'quot',
            'rem',
            'mod',
            '/',
            'max',
            'min',
          ),
          sub,
          sub,
        )
        .map(([op, x, y]) => `(${op} ${x} ${y})`),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom('inc', 'dec', 'zero?', 'pos?', 'neg?', 'not', 'abs', 'even?', 'odd?'), sub)
        .map(([op, x]) => `(${op} ${x})`),
    },
    { weight: 1, arbitrary: fc.tuple(sub, sub, sub).map(([t, x, y]) => `(if ${t} ${x} ${y})`) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('and', 'or'), sub, sub).map(([op, x, y]) => `(${op} ${x} ${y})`) },
    { weight: 1, arbitrary: fc.tuple(sub, sub).map(([x, y]) => `(let [z ${x}] (+ z ${y}))`) },
    { weight: 1, arbitrary: fc.tuple(sub, sub).map(([x, y]) => `(do ${x} ${y})`) },
  ];
  if (self) {
    const call = fc.tuple(fc.integer({ min: 1, max: 2 }), fc.array(sub, { minLength: n - 1, maxLength: n - 1 }));
    options.push({ weight: 2, arbitrary: call.map(([k, rest]) => `(f ${[`(- a ${k})`, ...rest].join(' ')})`) });
  }
  return fc.oneof(...options);
}

/** `(defn f [a ...] (if (< a limit) base step))` called with random args: terminates unless an arg misbehaves. */
const randomFn = fc.integer({ min: 1, max: 3 }).chain((n) =>
  fc
    .tuple(
      fc.integer({ min: -1, max: 3 }),
      expr(n, 2, false),
      expr(n, 3, true),
      fc.array(
        fc.oneof(
          { weight: 10, arbitrary: fc.integer({ min: 0, max: 9 }).map(String) },
          { weight: 1, arbitrary: fc.constantFrom('nil', '"s"', '2.5') },
        ),
        {
          minLength: n,
          maxLength: n,
        },
      ),
    )
    .map(
      ([limit, base, step, args]) =>
        `(defn f [${PARAMS.slice(0, n).join(' ')}] (if (< a ${limit}) ${base} ${step})) (f ${args.join(' ')})`,
    ),
);

/** Well-known shapes: fib, ackermann, non-tail countdowns (deep), tail recursion with recur. */
const knownFn = fc.oneof(
  fc
    .tuple(fc.integer({ min: 0, max: 14 }), fc.constantFrom('n', 'nil', '"s"', '0.5'))
    .map(
      ([n, base]) =>
        `(defn fib [n] (if (< n 2) ${base === 'n' ? 'n' : `(if (= n 0) ${base} n)`} (+ (fib (- n 1)) (fib (- n 2))))) (fib ${n})`,
    ),
  fc
    .tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 4 }))
    .map(
      ([m, n]) =>
        `(defn ack [m n] (cond (zero? m) (inc n) (zero? n) (ack (dec m) 1) :else (ack (dec m) (ack m (dec n))))) (ack ${m} ${n})`,
    ),
  fc
    .tuple(fc.integer({ min: 0, max: 700 }), fc.constantFrom('0', 'nil'))
    .map(([n, base]) => `(defn down [n] (if (<= n 0) ${base} (+ 1 (down (dec n))))) (down ${n})`),
  fc
    .tuple(fc.integer({ min: 0, max: 3000 }), fc.constantFrom('0', '"s"'))
    .map(([n, start]) => `(defn total [n acc] (if (zero? n) acc (recur (dec n) (+ acc n)))) (total ${n} ${start})`),
  fc.integer({ min: 0, max: 40 }).map((n) => `(defn f [n] (when (pos? n) (let [m (dec n)] (or (f m) n)))) (f ${n})`),
  fc
    .tuple(fc.integer({ min: -50, max: 3000 }), fc.integer({ min: -50, max: 3000 }))
    .map(([a, b]) => `(defn gcd [a b] (if (zero? b) a (recur b (mod a b)))) (gcd ${a} ${b})`),
  fc
    .integer({ min: 0, max: 60 })
    .map(
      (n) =>
        `(defn steps [n] (cond (<= n 1) 0 (even? n) (inc (steps (quot n 2))) :else (inc (steps (+ (* 3 n) 1))))) (steps ${n})`,
    ),
);

/**
 * `after`: calls before a fn is compiled (0: at once; more: the switch happens
 * mid-recursion); a body new to the process waits as many calls again (coldAfter).
 */
async function outcome(src: string, fuel: number, maxDepth: number, codegen: boolean, after = 0, wasm = true) {
  fnCodegen.enabled = codegen;
  fnCodegen.compileAfter = after;
  fnCodegen.coldAfter = after;
  fnCodegen.wasm = wasm;
  return outcomeOf(await run(src, { limits: { fuel, maxDepth, timeoutMs: 600_000 } }));
}

/**
 * Fuel limits around the fuel the program uses on the closures (`used`): `used - 1`,
 * `used`, `used + 1` (running out on the very last unit, or just not) and a point `at`
 * (0..1) of the way through the run.
 */
async function fuelLimits(src: string, maxDepth: number, at: number): Promise<number[]> {
  const used = (await outcome(src, 10_000_000, maxDepth, false)).fuel;
  return [...new Set([used - 1, used, used + 1, Math.max(1, Math.round(at * used))])].filter((f) => f >= 1);
}

afterEach(() => {
  fnCodegen.fold = true;
  fnCodegen.enabled = true;
  fnCodegen.compileAfter = 200;
  fnCodegen.coldAfter = 20_000;
  fnCodegen.wasm = true;
});

describe('numeric fns compiled to JS', () => {
  it('random recursive fns: same value or error and fuel as the closures, at any fuel and depth limit', async () => {
    const before = fnCodegen.compiled;
    const wasmBefore = fnCodegen.wasmCompiled;
    await fc.assert(
      fc.asyncProperty(
        randomFn,
        fc.constantFrom(0, 0, 3, 40),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom(3, 10, 512),
        async (src, after, at, maxDepth) => {
          for (const fuel of await fuelLimits(src, maxDepth, at)) {
            const closures = await outcome(src, fuel, maxDepth, false);
            // WebAssembly (fn-wasm.ts: only while the fn's JS has not been made, so caches emptied first), then the JS
            forgetCaches();
            expect(await outcome(src, fuel, maxDepth, true, after), `${src} with fuel ${fuel}`).toEqual(closures);
            expect(await outcome(src, fuel, maxDepth, true, after, false), `${src} with fuel ${fuel} (JS)`).toEqual(
              closures,
            );
          }
        },
      ),
      { numRuns: 300 },
    );
    // most random fns are in the subset: the comparison is not vacuous (about 1 in 5 also as WebAssembly)
    expect(fnCodegen.compiled - before).toBeGreaterThan(300);
    expect(fnCodegen.wasmCompiled - wasmBefore).toBeGreaterThan(25);
  });

  it('fib, ackermann, deep countdowns, recur: same as the closures, at any fuel and depth limit', async () => {
    const before = { ...fnCodegen };
    await fc.assert(
      fc.asyncProperty(
        knownFn,
        fc.constantFrom(0, 0, 3, 40),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom(20, 512, 600, 5000),
        async (src, after, at, maxDepth) => {
          for (const fuel of await fuelLimits(src, maxDepth, at)) {
            const closures = await outcome(src, fuel, maxDepth, false);
            // WebAssembly (fn-wasm.ts: only while the fn's JS has not been made, so caches emptied first), then the JS
            forgetCaches();
            expect(await outcome(src, fuel, maxDepth, true, after), `${src} with fuel ${fuel}`).toEqual(closures);
            expect(await outcome(src, fuel, maxDepth, true, after, false), `${src} with fuel ${fuel} (JS)`).toEqual(
              closures,
            );
          }
        },
      ),
      { numRuns: 300 },
    );
    expect(fnCodegen.compiled - before.compiled).toBeGreaterThan(300);
    // some runs were abandoned (limits, non-numbers) and redone on the closures
    expect(fnCodegen.bailed - before.bailed).toBeGreaterThan(20);
  });

  it('fns called by map, reduce and filter (the call without a frame): same as the closures, non-numbers and limits included', async () => {
    const item = fc.oneof(
      { weight: 12, arbitrary: fc.integer({ min: -9, max: 40 }).map(String) },
      { weight: 1, arbitrary: fc.constantFrom('nil', '"s"', '2.5', '-0.0') },
    );
    // each fn is called at depth 1, then from a fn (depth 2: past a depth limit of 1)
    const twice = (fn: string, call: string) => `(let [g ${fn}] [${call} ((fn [] ${call}))])`;
    const program = fc.oneof(
      fc
        .tuple(expr(1, 3, false), fc.array(item, { maxLength: 60 }))
        .map(([body, xs]) => twice(`(fn [a] ${body})`, `(mapv g [${xs.join(' ')}])`)),
      fc
        .tuple(expr(1, 3, false), fc.array(item, { maxLength: 60 }))
        .map(([body, xs]) => twice(`(fn [a] ${body})`, `(filterv g [${xs.join(' ')}])`)),
      fc
        .tuple(expr(2, 3, false), fc.array(item, { maxLength: 60 }))
        .map(([body, xs]) => twice(`(fn [a b] ${body})`, `(reduce g 0 (list ${xs.join(' ')}))`)),
      fc
        .tuple(expr(2, 3, false), fc.integer({ min: 0, max: 300 }))
        .map(([body, n]) => twice(`(fn [b a] ${body})`, `(reduce g 1 (range ${n}))`)),
    );
    const before = { ...fnCodegen };
    await fc.assert(
      fc.asyncProperty(
        program,
        fc.constantFrom(0, 0, 3, 40),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom(1, 2, 512),
        async (src, after, at, maxDepth) => {
          for (const fuel of await fuelLimits(src, maxDepth, at)) {
            const closures = await outcome(src, fuel, maxDepth, false);
            // WebAssembly (fn-wasm.ts: only while the fn's JS has not been made, so caches emptied first), then the JS
            forgetCaches();
            expect(await outcome(src, fuel, maxDepth, true, after), `${src} with fuel ${fuel}`).toEqual(closures);
            expect(await outcome(src, fuel, maxDepth, true, after, false), `${src} with fuel ${fuel} (JS)`).toEqual(
              closures,
            );
          }
        },
      ),
      { numRuns: 300, examples: [[twice('(fn [a] (+ a 1))', '(mapv g [1 2 3])'), 0, 0.5, 1]] },
    );
    expect(fnCodegen.compiled - before.compiled).toBeGreaterThan(150);
    expect(fnCodegen.bailed - before.bailed).toBeGreaterThan(10);
  });

  it('reduce over a long list run by the WebAssembly fold: same as the closures, non-numbers, limits and give-ups included', async () => {
    // a list of n numbers (range, map: array-backed, as the fold takes them), one item maybe not a number
    const program = fc
      .tuple(
        expr(2, 3, false),
        fc.integer({ min: 0, max: 3000 }),
        fc.integer({ min: -1, max: 3000 }),
        fc.constantFrom('nil', '"s"', '2.5', '-0.0'),
        fc.constantFrom('0', '1', '0.5', 'nil'),
      )
      .map(([body, n, bad, value, init]) => {
        const xs = bad >= 0 && bad < n ? `(map #(if (= % ${bad}) ${value} %) (range ${n}))` : `(range ${n})`;
        return `(let [g (fn [a b] ${body})] [(reduce g ${init} ${xs}) ((fn [] (reduce g ${init} ${xs})))])`;
      });
    const before = fnCodegen.foldedItems;
    await fc.assert(
      fc.asyncProperty(
        program,
        fc.constantFrom(0, 0, 3, 40),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom(1, 2, 512),
        async (src, after, at, maxDepth) => {
          for (const fuel of await fuelLimits(src, maxDepth, at)) {
            const closures = await outcome(src, fuel, maxDepth, false);
            forgetCaches();
            expect(await outcome(src, fuel, maxDepth, true, after), `${src} with fuel ${fuel}`).toEqual(closures);
            fnCodegen.fold = false;
            forgetCaches();
            expect(await outcome(src, fuel, maxDepth, true, after), `${src} with fuel ${fuel} (no fold)`).toEqual(
              closures,
            );
            fnCodegen.fold = true;
          }
        },
      ),
      { numRuns: 150 },
    );
    // the fold ran (most bodies are numeric; lists of more than 256 items)
    expect(fnCodegen.foldedItems - before).toBeGreaterThan(10_000);
  });

  it('a fn called by mapv and reduce at the depth limit: the same error or value as the closures', async () => {
    for (const call of ['(mapv g [1 2 3])', '(reduce #(g %2) 0 [1 2 3])']) {
      const src = `(let [g (fn [a] (+ a 1))] [${call} ((fn [] ${call}))])`;
      for (const maxDepth of [1, 2, 3]) {
        const closures = await outcome(src, 1e7, maxDepth, false);
        expect(await outcome(src, 1e7, maxDepth, true), `${src} at depth ${maxDepth}`).toEqual(closures);
      }
    }
  });

  it('the benchmark fib: same answer and fuel, with and without, and no run abandoned', async () => {
    const src = '(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 20)';
    const { bailed, compiled } = fnCodegen;
    const generated = await outcome(src, 1e9, 512, true, 200);
    expect(fnCodegen.compiled).toBe(compiled + 1);
    expect(fnCodegen.bailed).toBe(bailed);
    expect(generated).toEqual(await outcome(src, 1e9, 512, false));
    expect(generated.what).toBe('ok 6765');
  });

  it('recursion right at the depth limit: the same error or value', async () => {
    for (const maxDepth of [5, 100, 511, 512, 513, 600]) {
      for (let n = maxDepth - 3; n <= maxDepth + 1; n++) {
        const src = `(defn down [n] (if (<= n 0) 0 (+ 1 (down (dec n))))) (down ${n})`;
        expect(await outcome(src, 1e7, maxDepth, true), src).toEqual(await outcome(src, 1e7, maxDepth, false));
      }
    }
  });

  it('recursion the closures cannot take on the host stack is left to them', async () => {
    // 510 levels of a self call under 30 nested nodes: the closures overflow the host
    // stack; the generated code would not, so it must give up and let them
    let call = '(f (dec n))';
    for (let i = 0; i < 30; i++) call = i % 2 ? `(+ 1 ${call})` : `(let [x${i} n] (if (< x${i} 0) 0 ${call}))`;
    const src = `(defn f [n] (if (<= n 0) 0 ${call})) (f 510)`;
    // only the outcome: where the host stack runs out (so the fuel used) varies from run
    // to run even on the closures alone, with how much of their code V8 has optimised
    const generated = await outcome(src, 1e8, 512, true);
    expect(generated.what).toBe((await outcome(src, 1e8, 512, false)).what);
  });

  it('an error inside a compiled fn, caught by the caller: the same each time', async () => {
    const src = `(defn f [n] (if (< n 1) (+ n nil) (f (dec n))))
                 [(vec (for [i (range 3)] (try (f (* 100 i)) (catch Exception e (ex-message e))))) (budget/remaining)]`;
    expect(await outcome(src, 100_000, 512, true)).toEqual(await outcome(src, 100_000, 512, false));
  });

  it('a self call goes to the fn itself even after its name is rebound', async () => {
    const src = '(defn f [n] (if (< n 1) 0 (+ 1 (f (dec n))))) (def g f) (defn f [n] "other") [(g 5) (f 5)]';
    expect(await outcome(src, 1e6, 512, true)).toEqual(await outcome(src, 1e6, 512, false));
    expect((await outcome(src, 1e6, 512, true)).what).toBe('ok [5 "other"]');
  });

  it('budget/remaining after a compiled fn is the same', async () => {
    const src = '(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) [(fib 12) (budget/remaining)]';
    expect(await outcome(src, 100_000, 512, true)).toEqual(await outcome(src, 100_000, 512, false));
  });
});
