/**
 * Numeric loops compiled to JS (src/lisp/eval/loop-codegen.ts) behave exactly like the
 * closures, checked with fast-check on random loops: the same status, value or error
 * (code and message), the same fuel used, under fuel limits that run out at every point
 * of a run, and with values that are not numbers (the generated iteration gives up and the
 * closures run it).
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/lisp/index.ts';
import { prStr } from '../../src/lisp/printer/index.ts';
import { loopCodegen } from '../../src/lisp/eval/loop-codegen.ts';

const NAMES = ['i', 'acc', 'k'];
const num = fc.oneof(fc.integer({ min: -5, max: 50 }), fc.constantFrom(0.5, -0.5, 1e300));
/** numbers where WebAssembly's arithmetic could differ from JS's: -0, the edge of exact integers, huge ones */
const edgeNum = fc.constantFrom(
  '-0.0',
  '9007199254740991',
  '-9007199254740992',
  '4503599627370497',
  '-1e300',
  '-7',
  '-2147483648',
  '2147483647',
);
const anyConst = fc.oneof(
  { weight: 6, arbitrary: num.map(String) },
  { weight: 1, arbitrary: edgeNum },
  { weight: 1, arbitrary: fc.constantFrom('nil', 'true', 'false', '"x"') },
);

function expr(n: number, depth: number): fc.Arbitrary<string> {
  // `o` is a local of an enclosing `let`: read from the frame, never written
  const local = fc.constantFrom(...NAMES.slice(0, n), 'o');
  if (depth <= 0) return fc.oneof(local, anyConst);
  const sub = expr(n, depth - 1);
  return fc.oneof(
    { weight: 3, arbitrary: fc.oneof(local, anyConst) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(fc.constantFrom('+', '-', '*', '<', '>', '<=', '>=', '=', 'not='), sub, sub)
        .map(([op, a, b]) => `(${op} ${a} ${b})`),
    },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('inc', 'dec'), sub).map(([op, a]) => `(${op} ${a})`) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom('quot', 'rem', 'mod', '/', 'max', 'min'), sub, sub)
        .map(([op, a, b]) => `(${op} ${a} ${b})`),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom('abs', 'even?', 'odd?', 'zero?', 'pos?', 'neg?', 'not'), sub)
        .map(([op, a]) => `(${op} ${a})`),
    },
    { weight: 1, arbitrary: fc.tuple(sub, sub, sub).map(([t, a, b]) => `(if ${t} ${a} ${b})`) },
  );
}

const loopProgram = fc.integer({ min: 1, max: 3 }).chain((n) =>
  fc
    .tuple(
      fc.array(fc.oneof({ weight: 8, arbitrary: num.map(String) }, { weight: 1, arbitrary: fc.constant('"s"') }), {
        minLength: n,
        maxLength: n,
      }),
      fc.integer({ min: 1, max: 400 }),
      fc.array(expr(n, 2), { minLength: n, maxLength: n }),
      expr(n, 2),
      fc.oneof({ weight: 8, arbitrary: num.map(String) }, { weight: 1, arbitrary: fc.constant('"s"') }),
    )
    .map(([inits, limit, steps, result, outer]) => {
      const bindings = inits.map((v, i) => `${NAMES[i]} ${v}`).join(' ');
      // the first local counts up to the limit, so most loops end; some run out of fuel
      const recur = [`(inc ${NAMES[0]})`, ...steps.slice(1)].join(' ');
      return `(let [o ${outer}] (loop [${bindings}] (if (< ${NAMES[0]} ${limit}) (recur ${recur}) ${result})))`;
    }),
);

/**
 * `coldAfter`: iterations on the closures before a loop new to the process is generated
 * (then the switch happens mid-loop); `wasm`: loops of numbers as WebAssembly (loop-wasm.ts).
 */
async function outcome(src: string, fuel: number, codegen: boolean, coldAfter = 0, wasm = true) {
  loopCodegen.enabled = codegen;
  loopCodegen.coldAfter = coldAfter;
  loopCodegen.wasm = wasm;
  const r = await run(src, { limits: { fuel, timeoutMs: 60_000 } });
  const what =
    r.status === 'ok'
      ? `ok ${prStr(r.value)}`
      : r.status === 'error'
        ? `error ${r.error.code}: ${r.error.message}`
        : r.status;
  return { what, fuel: r.fuelUsed };
}

afterEach(() => {
  loopCodegen.enabled = true;
  loopCodegen.coldAfter = 5_000;
  loopCodegen.wasm = true;
});

describe('numeric loops compiled to JS', () => {
  it('give the same value or error and use the same fuel as the closures, at any fuel limit', async () => {
    const before = loopCodegen.compiled;
    const wasmBefore = loopCodegen.wasmCompiled;
    await fc.assert(
      fc.asyncProperty(
        loopProgram,
        fc.integer({ min: 5, max: 6000 }),
        fc.constantFrom(0, 0, 1, 7, 60),
        async (src, fuel, coldAfter) => {
          const closures = await outcome(src, fuel, false);
          // wasm first: a loop source runs as wasm only while its JS has not been made
          expect(await outcome(src, fuel, true, coldAfter), src).toEqual(closures);
          expect(await outcome(src, fuel, true, coldAfter, false), src).toEqual(closures);
        },
      ),
      { numRuns: 400 },
    );
    // most random loops are in the subset and run long enough: the comparison is not vacuous
    expect(loopCodegen.compiled - before).toBeGreaterThan(360);
    expect(loopCodegen.wasmCompiled - wasmBefore).toBeGreaterThan(60);
  });

  it('the benchmark loop: same answer and fuel, with and without', async () => {
    const src = '(loop [i 0 acc 0] (if (< i 100000) (recur (inc i) (+ acc i)) acc))';
    expect(await outcome(src, 1e9, true)).toEqual(await outcome(src, 1e9, false));
    expect((await outcome(src, 1e9, true)).what).toBe('ok 4999950000');
  });

  it('a loop nested in the arguments of an outer recur reads the outer loop variable (ptc-0604: was a leaked ReferenceError)', async () => {
    const src =
      '(loop [i 0 result []] (if (< i 3) (recur (+ i 1) (conj result (loop [j 0 sum 0] (if (< j i) (recur (+ j 1) (+ sum j)) sum)))) result))';
    const before = loopCodegen.compiled;
    const generated = await outcome(src, 1e6, true);
    expect(loopCodegen.compiled).toBeGreaterThan(before);
    expect(generated.what).toBe('ok [0 0 1]');
    expect(generated).toEqual(await outcome(src, 1e6, false));
  });

  it('a loop without locals, and fuel running out after several 2^20-unit chunks', async () => {
    for (const [src, fuel] of [
      ['(loop [] (recur))', 10_000],
      ['(loop [i 0] (recur (inc i)))', 3_000_017],
      ['(loop [i 0 acc 0] (if (< i 700000) (recur (inc i) (+ acc i)) acc))', 7_000_000],
    ] as const) {
      const before = loopCodegen.compiled;
      const generated = await outcome(src, fuel, true);
      expect(loopCodegen.compiled, src).toBe(before + 1);
      expect(generated, src).toEqual(await outcome(src, fuel, false));
      expect(generated.fuel, src).toBe(fuel);
    }
  });
});
