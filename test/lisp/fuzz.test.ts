/**
 * Fuzzing: thousands of generated and mutated programs. The host never throws, never
 * hangs (fuel and deadline limits), and every run ends in a value, a fail, or a typed
 * PtcError whose message has no JS internals.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ERROR_CODES, PtcError, run } from '../../src/lisp/index.ts';
import type { RunResult } from '../../src/lisp/api.ts';
import type { ToolDef } from '../../src/lisp/tools.ts';

const tools: ToolDef[] = [
  {
    name: 'echo',
    description: '',
    input: z.object({ x: z.any() }).passthrough(),
    sideEffect: 'read_only',
    handler: async (a: unknown) => a,
  },
  {
    name: 'fail',
    description: '',
    input: z.object({}).passthrough(),
    handler: () => {
      throw new Error('nope');
    },
  },
];

const SEEDS = [
  '(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 10)',
  '(->> (range 20) (filter odd?) (map #(* % %)) (reduce +))',
  '(let [{:keys [a b] :or {b 2}} {:a 1}] (task "x" (+ a b)))',
  '(for [x [1 2 3] y [:a :b] :when (odd? x)] [x y])',
  '(loop [i 0 acc []] (if (< i 5) (recur (inc i) (conj acc i)) acc))',
  '(pmap #(tool/echo {:x %}) [1 2 3])',
  '(try (tool/fail {}) (catch Exception e (ex-message e)))',
  '(case (count [1 2]) 1 :one 2 :two :many)',
  '(str/join ", " (map name [:a :b]))',
  '(-> {:a {:b [1 2 3]}} (update-in [:a :b] conj 4) (get-in [:a :b]))',
  '(def m (reduce #(assoc %1 %2 (* 2 %2)) {} (range 10))) (m 3)',
  '(filter (where :age > 30) [{:age 40} {:age 20}])',
  '(letfn [(f [x] (if (pos? x) (g (dec x)) :done)) (g [x] (f x))] (f 5))',
  '(re-seq #"\\d+" "a1b22c333")',
  '(cond-> {} true (assoc :a 1) false (assoc :b 2))',
  '(task-reset "a") (step-done "s" "ok") (return (task "a" 1))',
  '(doseq [x (range 3)] (println x))',
  '(some-> {:a nil} :a inc)',
  '(fail {:reason :x})',
  '((fn [& xs] (apply + xs)) 1 2 3)',
];

const TOKENS = [
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  '#(',
  '%',
  '%2',
  '&',
  ':a',
  '"s"',
  '1',
  '-1',
  '0',
  'nil',
  'true',
  'x',
  'recur',
  'fn',
  'let',
  'loop',
  'if',
  'task',
  'tool/echo',
  'tool/fail',
  'data/x',
  'inc',
  'map',
  '#{',
  '#"a+"',
  '\\a',
  '1e308',
  '##NaN',
  'return',
  'def',
  'defn',
  'pmap',
  'for',
  ':when',
  'where',
  '=',
  '>',
  'try',
  'catch',
  'throw',
  'ex-info',
  'range',
  'nth',
  'apply',
  ' ',
  '\n',
];

function mutate(src: string, ops: { kind: number; pos: number; tok: number; len: number }[]): string {
  let s = src;
  for (const op of ops) {
    const p = s.length === 0 ? 0 : op.pos % (s.length + 1);
    const tok = TOKENS[op.tok % TOKENS.length]!;
    if (op.kind === 0) s = s.slice(0, p) + tok + s.slice(p);
    else if (op.kind === 1) s = s.slice(0, p) + s.slice(p + op.len);
    else s = s.slice(0, p) + tok + s.slice(p + op.len);
  }
  return s;
}

function check(r: RunResult): void {
  expect(['ok', 'fail', 'error', 'suspended']).toContain(r.status);
  if (r.status === 'error') {
    expect(r.error).toBeInstanceOf(PtcError);
    expect(ERROR_CODES).toContain(r.error.code);
    expect(r.error.message).not.toMatch(/\[object Object\]|\bundefined\b|at .*\.ts:\d+/);
  }
}

const limits = { fuel: 20_000, timeoutMs: 500, maxCollectionSize: 10_000, maxOutputChars: 10_000, maxDepth: 200 };

describe('fuzz', () => {
  it('mutated programs', async () => {
    const op = fc.record({
      kind: fc.integer({ min: 0, max: 2 }),
      pos: fc.nat(),
      tok: fc.nat(),
      len: fc.integer({ min: 1, max: 6 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...SEEDS), fc.array(op, { minLength: 1, maxLength: 4 }), async (seed, ops) => {
        const src = mutate(seed, ops);
        check(await run(src, { tools, limits, journal: new Map(), context: { x: 1 } }));
      }),
      { numRuns: 2500 },
    );
  }, 120_000);

  it('random token soup', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...TOKENS), { maxLength: 40 }), async (toks) => {
        check(await run(toks.join(' '), { tools, limits, journal: new Map() }));
      }),
      { numRuns: 1500 },
    );
  }, 120_000);

  it('generated well-formed expressions', async () => {
    const leaf = fc.constantFrom(
      '1',
      '2.5',
      '-3',
      'nil',
      'true',
      ':k',
      '"s"',
      '[1 2]',
      '{:a 1}',
      '#{1}',
      'x',
      'xs',
      '(range 5)',
    );
    const expr = fc.letrec((tie) => ({
      e: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc
          .tuple(
            fc.constantFrom(
              'inc',
              'count',
              'first',
              'rest',
              'str',
              'vec',
              'keys',
              'seq',
              'name',
              'reverse',
              'sort',
              'not',
              'nil?',
              'pr-str',
            ),
            tie('e'),
          )
          .map(([f, a]) => `(${f} ${a})`),
        fc
          .tuple(
            fc.constantFrom(
              '+',
              '-',
              '*',
              '/',
              '<',
              '=',
              'get',
              'conj',
              'concat',
              'take',
              'nth',
              'into',
              'merge',
              'assoc',
              'cons',
              'mod',
            ),
            tie('e'),
            tie('e'),
          )
          .map(([f, a, b]) => `(${f} ${a} ${b})`),
        fc.tuple(tie('e'), tie('e'), tie('e')).map(([a, b, c]) => `(if ${a} ${b} ${c})`),
        fc.tuple(tie('e'), tie('e')).map(([a, b]) => `(let [x ${a}] ${b})`),
        fc.tuple(tie('e')).map(([a]) => `(map (fn [x] ${a}) xs)`),
        fc.tuple(tie('e')).map(([a]) => `(task (str "k" (count (str x))) ${a})`),
        fc.tuple(tie('e')).map(([a]) => `(try ${a} (catch Exception e (ex-message e)))`),
      ),
    }));
    await fc.assert(
      fc.asyncProperty(expr.e, async (e) => {
        check(await run(`(let [x 3 xs [1 2 3]] ${e})`, { tools, limits, journal: new Map() }));
      }),
      { numRuns: 2000 },
    );
  }, 120_000);
});
