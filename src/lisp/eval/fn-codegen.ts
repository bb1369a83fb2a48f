/**
 * Numeric fns as one JS function. A fn arity with plain-name params whose body uses only
 * its params and `let` locals, numbers, booleans, nil, `+ - * < > <= >= = == not=`,
 * `inc dec / quot rem mod max min abs`, `zero? pos? neg? even? odd? not`, `if` (so
 * `when`, `cond`), `and`, `or`, `do`, `let`,
 * `recur` and calls to itself (its own name, same arity) is compiled, in addition to its
 * closures, into a JS function that calls itself directly: no frame array, no closure
 * call per node, no try/finally per call. It behaves exactly like the closures:
 *
 * - Fuel: the generated code charges `ev.ticks` with the same units, grouped the same
 *   way and in the same order as the closures (see compile.ts: a node charges together
 *   with its leading local/constant operands). So the fuel used, `budget/remaining` and
 *   where fuel runs out are unchanged. Its fuel and clock check takes chunks of
 *   2^20 units (`CHUNK` in fn-source.ts) instead of the closures' 4096 (as loop-codegen.ts does; the
 *   surplus is given back when the run ends), so the clock is read less often.
 *   A run of groups with nothing observable between them (only arithmetic and type
 *   tests; an `if` test too: the groups before it are charged in each branch, with the
 *   branch's own) is taken by one subtraction when more units are left than it uses,
 *   since no check would fall inside it; otherwise group by group.
 * - Depth: a self call counts one level, as `Evaluator.enter` does; the levels left are carried
 *   as a JS argument (nothing else reads `ev.depth` meanwhile).
 * - Anything unusual (an operand that is not a number, the depth limit, fuel or time
 *   running out, the host stack) abandons the whole run: the fuel state saved when the
 *   fn was entered is restored and the closures run the same call again. The subset has
 *   no side effects, so they give exactly their own result or error (spans and messages
 *   included). A fn that abandoned once stays on the closures, so a fn that keeps
 *   failing does not pay twice.
 * - The host stack: the generated code uses one JS frame per level, the closures one per
 *   node between the body and the self call plus three, so it could succeed where the
 *   closures overflow. It therefore goes only as deep as the closures would with
 *   {@link STACK_FRAMES} JS frames (a few times fewer than they overflow at), and gives
 *   deeper recursion to the closures, which succeed or overflow as they always did.
 *
 * An arity is generated on its 200th call ({@link compileLater}), or 20,000 calls later
 * when its generated body would be new to the process (a first run: V8 runs a function
 * it has never seen slowly until it optimises it, while the closures are warm from
 * every earlier program); until then, and whenever the generated code gives up, its
 * closures run.
 *
 * An arity of numbers only (no `let`, `do`, `and`/`or`, `recur`) new to the process runs
 * as WebAssembly instead (fn-wasm.ts), at its 200th call: machine code at once, where new
 * JS runs in V8's interpreter until optimised. Its JS is made then too and taken from the
 * next run on (V8's optimised JS is the faster of the two).
 *
 * Such an arity of two params also gets `reduce`'s loop as WebAssembly (`fold`, first run
 * or not): core's `foldArray` hands it the numbers of an array-backed list (`range`, `map`,
 * `filter` results) a batch at a time, and the module charges a unit per item and calls
 * the body, as `foldArray` does, with no JS call per item (the rem/mod/quot reduce of the
 * benchmark: about half the time of a first run). A batch that gives up is run again by the
 * closures from the fuel state before it, like a call the generated code gives up.
 *
 * The generated source holds only slot numbers, indices into the constants array and
 * names of our own variables: nothing of the program's text.
 */
import type { Arity, FnInfo } from '../analyzer/nodes.ts';
import type { Value } from '../values.ts';
import type { CArity, Code, Direct, Fold } from './closures/code.ts';
import { generatedFunction, isGenerated } from './js/generated-code.ts';
import type { Evaluator } from './index.ts';
import { CHECK_EVERY } from './fuel.ts';
import { FnSource } from './js/fn-source.ts';
import { fnInstance, writeFnWasm } from './wasm/fn-wasm.ts';
import { wasmApi } from './wasm/wasm-module.ts';

/**
 * Switch, calls before an arity is compiled (and more calls before a body new to the
 * process is: {@link compileLater}), count of arities compiled and of runs abandoned, and
 * of items `reduce` gave to a WebAssembly fold: for tests that compare with the closures.
 */
export const fnCodegen = {
  enabled: true,
  compileAfter: 200,
  coldAfter: 20_000,
  compiled: 0,
  bailed: 0,
  wasm: wasmApi !== undefined,
  wasmCompiled: 0,
  fold: true,
  foldedItems: 0,
};

/**
 * The generated code stops (and the closures take over) where the closures would be this
 * many JS frames deep. Measured on Node's default stack, cold: the closures overflow at
 * 5,000 to 10,000 frames (fib's body is 5 frames per level: fine at 1,000 levels, not at
 * 2,000; a self call under 19 nested nodes overflows at 510 levels).
 */
const STACK_FRAMES = 2500;
const BAIL = { bail: true };
/** Most nodes of a body with its inlined copies (see {@link withInlining}). */
const INLINE_NODES = 600;

/**
 * The body generated again with its self calls inlined one or two levels deep (fib's
 * leaves then cost no JS call: about 30-45% less time), when the copies stay within
 * {@link INLINE_NODES}; undefined when it has no self call, loops (`recur`), or is too big.
 */
function withInlining(info: FnInfo, arity: Arity, slots: readonly number[], plain: FnSource): FnSource | undefined {
  const k = plain.selfCalls;
  if (k === 0 || plain.recurs) return undefined;
  const n = plain.size;
  const depth = n * (1 + k + k * k) <= INLINE_NODES ? 2 : n * (1 + k) <= INLINE_NODES ? 1 : 0;
  if (depth === 0) return undefined;
  const g = new FnSource(info, arity, slots, [], { suffix: '', inline: depth, exit: null, ids: { next: 0 } });
  return g.tail(arity.body) && !g.recurs ? g : undefined;
}

/**
 * The generated function: `run(ev, K, r, ...params)` computes the body with `r` self calls
 * left before the depth limit; `enter(ev, K, r, f)` calls it with the params read from the
 * frame `f`. Made once per source and shared by every fn with that source, so V8 optimises
 * one function for all runs of a program (a closure made per run starts cold each time).
 */
type Generated = {
  enter: (ev: Evaluator, consts: Value[], r: number, f: Value[]) => Value;
  run: (ev: Evaluator, consts: Value[], r: number, x: Value, y: Value) => Value;
  /** WebAssembly of a two-param fn only (fn-wasm.ts) */
  fold?: (ev: Evaluator, acc: number, xs: readonly Value[], from: number, r: number) => { acc: number; took: number };
};
const instances = new WeakMap<object, Generated>();

function wrapperSource(slots: readonly number[], body: string): string {
  const params = slots.map((s) => `, v${s}`).join('');
  return `
    const bail = () => { throw BAIL; };
    function run(ev, K, r${params}) {
      ${body}
    }
    return { enter: (ev, K, r, f) => run(ev, K, r${slots.map((s) => `, f[${s}]`).join('')}), run };`;
}

function generated(source: string): Generated {
  const make = generatedFunction<(bail: unknown) => Generated>(['BAIL'], source);
  let g = instances.get(make);
  if (g === undefined) instances.set(make, (g = make(BAIL)));
  return g;
}

/**
 * The generated body chosen for an arity: `warm` when its code was made before in this
 * process; `code` gives the body (run in a frame) and the direct call (see {@link fastCode}).
 */
interface FnPlan {
  warm: boolean;
  code: (closures: Code) => Fast;
}

/**
 * What to generate for the arity (see the module comment), or undefined when it is
 * outside the subset (throws on a bug: see {@link compileLater}). `slots` are its param
 * slots (plain names). A body made before (the program runs again, or one of the same
 * shape) is warm: then the inlined body, the fastest once V8 has optimised it. A new one
 * gets the plain body, smaller, so V8 optimises it sooner: a first run of fib 25 took
 * several times longer with the inlined copies than with the plain body.
 */
function planFn(info: FnInfo, arity: Arity, slots: readonly number[]): FnPlan | undefined {
  const g = new FnSource(info, arity, slots);
  if (!g.tail(arity.body)) return undefined;
  const cap = Math.max(1, Math.floor(STACK_FRAMES / g.framesPerLevel()));
  const inlined = withInlining(info, arity, slots, g);
  const plain = wrapperSource(slots, g.source());
  const inlinedSource = inlined && wrapperSource(slots, inlined.source());
  const warm = isGenerated(['BAIL'], plain) || (inlinedSource !== undefined && isGenerated(['BAIL'], inlinedSource));
  const [best, source] = warm && inlined && inlinedSource ? [inlined, inlinedSource] : [g, plain];
  // new, of numbers only: WebAssembly, machine code at once (fn-wasm.ts); its JS is made
  // too, and runs from the next run on (V8's optimised JS is the faster of the two)
  const wasm = !warm && fnCodegen.wasm ? writeFnWasm(info, arity, slots) : undefined;
  if (wasm !== undefined) {
    return {
      warm: true,
      code: (closures) => {
        generated(plain);
        fnCodegen.wasmCompiled++;
        return fastCode(fnInstance(wasm, slots), [], cap, closures);
      },
    };
  }
  // warm, two params: the JS for calls, and reduce's loop still in WebAssembly (its fold
  // takes no JS call per item; the module is kept from the earlier run)
  const foldBytes = fnCodegen.wasm && slots.length === 2 ? writeFnWasm(info, arity, slots) : undefined;
  return {
    warm,
    code: (closures) =>
      fastCode(generated(source), best.consts, cap, closures, foldBytes && fnInstance(foldBytes, slots).fold),
  };
}

/** A generated arity: its body run in a frame, the call without one, and (WebAssembly of two params) `reduce`'s loop. */
interface Fast {
  body: Code;
  direct: Direct;
  fold?: Fold;
}

/**
 * The generated body behind a {@link Code}, and a direct call of it for one- and two-param
 * arities (`Evaluator.call1`/`call2`): the arguments go to the generated function as JS
 * arguments, with no frame, no closure body and no try/finally per call, as the body
 * reads nothing else of a frame (its params and `let` locals are JS variables, its self
 * calls call `run`). The closures run a call it gives up (see the module comment): the
 * direct call then makes the frame and calls the closure as the evaluator would have,
 * depth included.
 */
function fastCode(g: Generated, consts: Value[], cap: number, closures: Code, wasmFold = g.fold): Fast {
  let off = false;
  fnCodegen.compiled++;
  const body: Code = (f, ev) => {
    if (off) return closures(f, ev);
    const ticks = ev.ticks;
    const base = ev.fuelBase;
    try {
      const v = g.enter(ev, consts, (ev.maxDepth < cap ? ev.maxDepth : cap) - ev.depth, f);
      if (ev.ticks > CHECK_EVERY) ev.slowCheck(); // the closures check every CHECK_EVERY units
      return v;
    } catch {
      // a value, limit or error the closures handle: they run this call again from the same fuel state
      off = true;
      fnCodegen.bailed++;
      ev.ticks = ticks;
      ev.fuelBase = base;
      return closures(f, ev);
    }
  };
  const direct: Direct = (ev, c, args, x, y) => {
    const depth = ev.depth + 1;
    // off, or the depth limit reached (the evaluator raises it): the evaluator's own call
    if (off || depth > ev.maxDepth) return ev.callClosure(c, args === 1 ? [x] : [x, y]);
    const ticks = ev.ticks;
    const base = ev.fuelBase;
    ev.depth = depth;
    let v: Value;
    try {
      v = g.run(ev, consts, (ev.maxDepth < cap ? ev.maxDepth : cap) - depth, x, y);
    } catch {
      off = true;
      fnCodegen.bailed++;
      ev.depth = depth - 1;
      ev.ticks = ticks;
      ev.fuelBase = base;
      return ev.callClosure(c, args === 1 ? [x] : [x, y]);
    }
    ev.depth = depth - 1;
    if (ev.ticks > CHECK_EVERY) ev.slowCheck(); // the closures check every CHECK_EVERY units
    return v;
  };
  // reduce's loop in the module, a batch of items at a time, each call as `direct` makes
  // it (one level deeper, the same self calls left); a batch that gives up is given back
  // whole: fuel as before it, and the caller runs its items again through `direct`, which
  // then runs the closures (as for any call this code gives up; the subset has no effects)
  const fold: Fold | undefined =
    wasmFold &&
    ((ev, _c, acc, xs, from) => {
      const depth = ev.depth + 1;
      if (off || depth > ev.maxDepth || typeof acc !== 'number' || !fnCodegen.fold) return undefined;
      const r = (ev.maxDepth < cap ? ev.maxDepth : cap) - depth;
      let i = from;
      while (i < xs.length) {
        const ticks = ev.ticks;
        const base = ev.fuelBase;
        ev.depth = depth;
        let batch: { acc: number; took: number };
        try {
          batch = wasmFold(ev, acc as number, xs, i, r);
        } catch {
          off = true;
          fnCodegen.bailed++;
          ev.ticks = ticks;
          ev.fuelBase = base;
          break;
        } finally {
          ev.depth = depth - 1;
        }
        if (batch.took === 0) break;
        acc = batch.acc;
        i += batch.took;
        fnCodegen.foldedItems += batch.took;
      }
      if (ev.ticks > CHECK_EVERY) ev.slowCheck(); // the closures check every CHECK_EVERY units
      return i === from ? undefined : [acc, i];
    });
  return { body, direct, fold };
}

/**
 * Gives `arity` (compiled as `ar`, whose `body` is its closures) the generated body on
 * its {@link fnCodegen.compileAfter}-th call: generating and `new Function` cost about
 * as much as a thousand closure calls, a loss for a fn called a few times. Until then a
 * stub counts calls and runs the closures; then `ar.body` is replaced, by the generated
 * body or, outside the subset, by the closures themselves.
 */
export function compileLater(info: FnInfo, arity: Arity, ar: Pick<CArity, 'slots' | 'body' | 'direct' | 'fold'>): void {
  if (!fnCodegen.enabled || arity.rest !== null) return;
  const closures = ar.body;
  const after = fnCodegen.compileAfter;
  const direct = ar.slots.length === 1 || ar.slots.length === 2;
  let calls = 0;
  let plan: FnPlan | undefined | null = null;
  let body: Code | undefined;
  ar.body = (f, ev) => {
    if (body === undefined) {
      if (++calls <= after) return closures(f, ev);
      if (plan === null) {
        try {
          plan = planFn(info, arity, ar.slots);
        } catch {
          plan = undefined; // a generator bug must never break a program: the closures run it
        }
      }
      // code V8 has never seen runs slowly until optimised: a new body waits longer
      if (plan !== undefined && !plan.warm && calls <= after + fnCodegen.coldAfter) return closures(f, ev);
      try {
        const fast = plan?.code(closures);
        body = fast?.body ?? closures;
        if (fast && direct) ar.direct = fast.direct;
        if (fast?.fold) ar.fold = fast.fold;
      } catch {
        body = closures;
      }
      ar.body = body;
    }
    return body(f, ev); // a runBody loop (recur) may still hold the stub
  };
}
