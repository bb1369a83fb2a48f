/**
 * Numeric loops as one JS function. A `loop` whose body uses only locals, numbers,
 * booleans, nil, `+ - * < > <= >= = == not=`, `inc`/`dec`, `quot rem mod / max min abs`,
 * `even? odd? zero? pos? neg? not`, `if` and `recur` to this loop is compiled, in
 * addition to its closures, into a JS function that runs a whole iteration without a
 * call per node. It behaves exactly like the closures:
 *
 * - Fuel: an iteration takes the units of the nodes it evaluated (one each, as the
 *   closures charge; counted per path when the source is written, loop-source.ts) from
 *   the fuel counter at its end. It runs only when more units
 *   are left before the next fuel and clock check than the longest path can use, so the
 *   closures would not have checked within it either. When too few are left the check is
 *   made in place (`ev.slowCheck(CHUNK)`: the total left is unchanged, more of it moves
 *   into the counter, the clock is read); only when the fuel left in all is that low do
 *   the closures run the iteration, so exhaustion happens exactly where it would.
 * - Values: the same arithmetic (doubles, -0 turned into 0) and comparisons on numbers.
 *   Anything else (a string where a number was expected, ...) marks the iteration as
 *   abandoned (a local that must be a number and is not is found when the iterations
 *   start); it is dropped before it changed anything (the code is pure, so finishing
 *   the expression with a dummy value is harmless) and the closures run it again: same
 *   result, same error. No exceptions, so no try/catch in the hot loop.
 * - Speed: only the iterations are generated; the loop's locals and the fuel counter are
 *   JS variables in them, and {@link drive} moves them to and from the frame and
 *   `ev.ticks`. The 1e6-iteration benchmark loop went from about 8 ms to 1.5 ms with this
 *   shape (and with generated functions cached by source).
 *
 * A loop whose locals and values are all numbers (and booleans) runs, on its first run in
 * the process, as a WebAssembly module (loop-wasm.ts) in place of the JS iterations: new JS
 * runs in V8's interpreter until V8 has optimised it, a module is machine code from its
 * first iteration. Later runs take the JS, by then warm.
 *
 * The generated source holds only slot numbers, number/boolean/nil literals, indices into
 * the constants array and names of our own variables: nothing of the program's text.
 */
import type { Node } from '../analyzer/nodes.ts';
import type { Value } from '../values.ts';
import type { Code } from './closures/code.ts';
import type { Evaluator } from './index.ts';
import { CHECK_EVERY } from './fuel.ts';
import { generatedFunction, isGenerated } from './js/generated-code.ts';
import { wasmInstance } from './wasm/instances.ts';
import { type Iterations, wasmIterations, writeWasm } from './wasm/loop-wasm.ts';
import { wasmApi } from './wasm/wasm-module.ts';
import { RECUR } from './signals.ts';
import { LoopSource } from './js/loop-source.ts';
import { DONE, LOW, longestPath } from './loop-status.ts';

/**
 * Switch, count of loops compiled, and iterations a loop new to the process runs on the
 * closures before its iterations are generated (see {@link fastLoop}), for tests that
 * compare the generated code with the closures. 5,000: V8 optimises a new function only
 * after it has run a while, so a short loop is faster on the closures; measured first
 * runs (CPU ms, loops of 300 to 30,000 iterations and the bench's loops) with the lean
 * source of loop-source.ts: 50,000 kept 10,000-iteration loops 0.2 ms faster but cost the
 * 1e6-iteration loop 3 ms and collatz 4 ms.
 */
export const loopCodegen = {
  enabled: true,
  compiled: 0,
  coldAfter: 5_000,
  wasm: wasmApi !== undefined,
  wasmCompiled: 0,
};

/**
 * The loop's iterations as one JS function (see the module comment), or undefined when
 * the body is outside the subset. `slots` are the loop's locals in binding order;
 * `closures` is the body compiled the usual way.
 */
export function fastLoop(body: Node, slots: readonly number[], closures: Code): Code | undefined {
  if (!loopCodegen.enabled) return undefined;
  const written = LoopSource.write(body, slots);
  if (written === undefined) return undefined;
  const { source, consts } = written;
  const max = longestPath(body);
  const params = ['s', 'K', 'f'];
  // Made before (a program run again, or one of the same shape): the JS is warm, use it at
  // once (V8's optimised JS of these loops is up to twice as fast as its optimised wasm).
  // New: a loop of numbers only runs as WebAssembly (loop-wasm.ts), machine code from its
  // first iteration, where new JS would start in V8's interpreter.
  const warm = isGenerated(params, source);
  const wasm = loopCodegen.wasm && !warm ? writeWasm(body, slots) : undefined;
  const make = (): Iterations | undefined => {
    try {
      const js = generatedFunction<Iterations>(params, source);
      const fn = wasm ? wasmIterations(wasmInstance(wasm.bytes), slots.length, wasm.outer, js) : js;
      loopCodegen.compiled++;
      if (wasm) loopCodegen.wasmCompiled++;
      return fn;
    } catch {
      return undefined; // a generator bug must never break a program: the closures run it
    }
  };
  // New: the closures (warm from every earlier program) run the first `coldAfter`
  // iterations, as a short loop runs faster on them than in code V8 has never seen.
  let iterations = warm || loopCodegen.coldAfter === 0 ? make() : undefined;
  let left = loopCodegen.coldAfter;
  let failed = false;
  return (f, ev) => {
    while (iterations === undefined) {
      if (left <= 0 && !failed) {
        iterations = make();
        failed = iterations === undefined;
        continue;
      }
      left--;
      const r = closures(f, ev);
      if (r !== RECUR) return r;
    }
    return drive(iterations, consts, slots, max, closures, f, ev);
  };
}

/** Units between clock checks in generated code: about a millisecond of it. */
const CHUNK = 1 << 20;

/** Runs the loop: generated iterations while they can, the closures for the others. */
function drive(
  iterations: Iterations,
  consts: Value[],
  slots: readonly number[],
  max: number,
  closures: Code,
  f: Value[],
  ev: Evaluator,
): Value {
  const n = slots.length;
  // filled with nil first: an array of any values from the start, whatever the locals hold
  // (one that starts as small integers changes kind when a double arrives, and V8's
  // optimised iterations, made for the first kind, are thrown away)
  const s: Value[] = new Array<Value>(n + 2).fill(null);
  for (let i = 0; i < n; i++) s[i] = f[slots[i]!]!;
  s[n] = ev.ticks;
  for (;;) {
    const stop = iterations(s, consts, f);
    ev.ticks = s[n] as number;
    for (let i = 0; i < n; i++) f[slots[i]!] = s[i]!;
    if (stop === DONE) {
      if (ev.ticks > CHECK_EVERY) ev.slowCheck(); // the closures check every CHECK_EVERY units
      return s[n + 1]!;
    }
    // too few units before the next check: make it now (the total left is unchanged,
    // more of it moves into ev.ticks, and the clock is read) and go on when enough are left
    if (stop === LOW && ev.ticks > 0) {
      ev.slowCheck(CHUNK);
      if (ev.ticks > max) {
        s[n] = ev.ticks;
        continue;
      }
    }
    // little fuel left in all, or a value that is not a number: the closures run this iteration
    if (ev.ticks > CHECK_EVERY) ev.slowCheck();
    const r = closures(f, ev);
    if (r !== RECUR) return r;
    for (let i = 0; i < n; i++) s[i] = f[slots[i]!]!;
    s[n] = ev.ticks;
  }
}
