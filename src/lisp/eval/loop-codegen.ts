/**
 * Numeric loops as one JS function. A `loop` whose body uses only locals, numbers,
 * booleans, nil, `+ - * < > <= >= = == not=`, `inc`/`dec`, `quot rem mod / max min abs`,
 * `even? odd? zero? pos? neg? not`, `if` and `recur` to this loop is compiled, in
 * addition to its closures, into a JS function that runs a whole iteration without a
 * call per node. It behaves exactly like the closures:
 *
 * - Fuel: the iteration counts the nodes it evaluates (one unit each, as the closures
 *   charge) and takes them from the fuel counter at its end. It runs only when more units
 *   are left before the next fuel and clock check than the longest path can use, so the
 *   closures would not have checked within it either. When too few are left the check is
 *   made in place (`ev.slowCheck(CHUNK)`: the total left is unchanged, more of it moves
 *   into the counter, the clock is read); only when the fuel left in all is that low do
 *   the closures run the iteration, so exhaustion happens exactly where it would.
 * - Values: the same arithmetic (doubles, -0 turned into 0) and comparisons on numbers.
 *   Anything else (a string where a number was expected, ...) marks the iteration as
 *   abandoned; it is dropped before it changed anything (the code is pure, so finishing
 *   the expression with a dummy value is harmless) and the closures run it again: same
 *   result, same error. No exceptions, so no try/catch in the hot loop.
 * - Speed: only the iterations are generated; the loop's locals and the fuel counter are
 *   JS variables in them, and {@link drive} moves them to and from the frame and
 *   `ev.ticks`. The 1e6-iteration benchmark loop went from about 8 ms to 1.5 ms with this
 *   shape (and with generated functions cached by source).
 *
 * The generated source holds only slot numbers, number/boolean/nil literals, indices into
 * the constants array and names of our own variables: nothing of the program's text.
 */
import type { Node } from '../analyzer/nodes.ts';
import { resolveCore } from '../core/index.ts';
import type { Value } from '../values.ts';
import type { Code } from './compile.ts';
import { CHECK_EVERY, type Evaluator } from './index.ts';
import { generatedFunction, isGenerated } from './generated-code.ts';
import { RECUR } from './signals.ts';

/**
 * Switch, count of loops compiled, and iterations a loop new to the process runs on the
 * closures before its iterations are generated (see {@link fastLoop}), for tests that
 * compare the generated code with the closures. 50,000: measured first runs (npm run
 * bench -- lisp, and a 2,000 to 1e6-iteration sweep) were slower generated below about
 * 20,000 to 100,000 iterations, as V8 optimises a new function only after it has run a
 * while.
 */
export const loopCodegen = { enabled: true, compiled: 0, coldAfter: 50_000 };

/** Bodies bigger than this stay on the closures (source size, compile time). */
const MAX_NODES = 300;

const ARITH: Record<string, string> = { '+': '+', '-': '-', '*': '*' };
const COMPARE: Record<string, string> = { '<': '<', '>': '>', '<=': '<=', '>=': '>=', '=': '===', '==': '===', 'not=': '!==' };

/**
 * Core functions called in the loop, as JS expressions over the temporaries holding their
 * arguments: the value the core function (core/math.ts, predicates) gives, or BAILED where
 * it would throw (an argument that is not a number, a divisor of 0, `even?` of a
 * non-integer); `+ 0` turns -0 into 0 where the core function cleans it. `m` is a spare
 * temporary.
 */
const num2 = (x: string, y: string) => `typeof ${x} === 'number' && typeof ${y} === 'number'`;
const CORE = new Map<unknown, { args: number; code: (x: string, y: string, m: string) => string }>(
  (
    [
      ['quot', 2, (x: string, y: string) => `${num2(x, y)} && ${y} !== 0 ? Math.trunc(${x} / ${y}) + 0 : BAILED`],
      ['rem', 2, (x: string, y: string) => `${num2(x, y)} && ${y} !== 0 ? (${x} % ${y}) + 0 : BAILED`],
      ['mod', 2, (x: string, y: string, m: string) => `${num2(x, y)} && ${y} !== 0 ? (${m} = ${x} % ${y}, (${m} !== 0 && (${m} < 0) !== (${y} < 0) ? ${m} + ${y} : ${m}) + 0) : BAILED`],
      ['/', 2, (x: string, y: string) => `${num2(x, y)} && ${y} !== 0 ? (${x} / ${y}) + 0 : BAILED`],
      ['max', 2, (x: string, y: string) => `${num2(x, y)} ? Math.max(${x}, ${y}) : BAILED`],
      ['min', 2, (x: string, y: string) => `${num2(x, y)} ? Math.min(${x}, ${y}) : BAILED`],
      ['abs', 1, (x: string) => `typeof ${x} === 'number' ? Math.abs(${x}) : BAILED`],
      ['even?', 1, (x: string) => `Number.isInteger(${x}) ? ${x} % 2 === 0 : BAILED`],
      ['odd?', 1, (x: string) => `Number.isInteger(${x}) ? ${x} % 2 !== 0 : BAILED`],
      ['zero?', 1, (x: string) => `${x} === 0`],
      ['pos?', 1, (x: string) => `typeof ${x} === 'number' && ${x} > 0`],
      ['neg?', 1, (x: string) => `typeof ${x} === 'number' && ${x} < 0`],
      ['not', 1, (x: string) => `${x} === null || ${x} === false`],
    ] as const
  ).map(([name, args, code]) => [resolveCore(null, name), { args, code }]),
);

class Generator {
  readonly consts: Value[] = [];
  private temps = 0;
  nodes = 0;

  constructor(private readonly slots: readonly number[]) {}

  /**
   * The JS expression for a local: a loop local lives in a JS variable (`l0`...) during
   * the loop; any other local (of an enclosing `let`, `loop` or `fn`) is read from the
   * frame `f`, which the iterations never write.
   */
  private local(slot: number): string {
    const i = this.slots.indexOf(slot);
    return i >= 0 ? `l${i}` : `f[${slot}]`;
  }

  temp(): string {
    return `t${this.temps++}`;
  }

  /** `let c, t0, t1, ...;` for every temporary used. */
  declarations(): string {
    return `let ${['c', ...Array.from({ length: this.temps }, (_, i) => `t${i}`)].join(', ')};`;
  }

  /** A JS expression for the value of `n`, counting one unit in `c` per node. */
  value(n: Node): string | undefined {
    if (++this.nodes > MAX_NODES) return undefined;
    switch (n.kind) {
      case 'local':
        return `(c++, ${this.local(n.slot)})`;
      case 'const': {
        const v = n.value;
        if (v !== null && typeof v !== 'number' && typeof v !== 'boolean') return undefined;
        return `(c++, ${literal(v) ?? `K[${this.consts.push(v) - 1}]`})`;
      }
      case 'op1': {
        const a = this.value(n.a);
        if (a === undefined) return undefined;
        const x = this.temp();
        // x + 1 and x - 1 are never -0, so unlike the binary ops they need no `+ 0`
        return `(c++, ${x} = ${a}, typeof ${x} === 'number' ? ${x} ${n.op === 'inc' ? '+' : '-'} 1 : BAILED)`;
      }
      case 'op2': {
        const a = this.value(n.a);
        const b = a === undefined ? undefined : this.value(n.b);
        if (a === undefined || b === undefined) return undefined;
        const x = this.temp();
        const y = this.temp();
        const both = `typeof ${x} === 'number' && typeof ${y} === 'number'`;
        // `+ 0` turns -0 into 0 and leaves every other double as it is (the closures' `r === 0 ? 0 : r`)
        if (ARITH[n.op]) return `(c++, ${x} = ${a}, ${y} = ${b}, ${both} ? (${x} ${ARITH[n.op]} ${y}) + 0 : BAILED)`;
        return `(c++, ${x} = ${a}, ${y} = ${b}, ${both} ? ${x} ${COMPARE[n.op]} ${y} : BAILED)`;
      }
      case 'callCore': {
        // as compileCallCore: one unit for the call, then the args'; these functions charge nothing more
        const spec = CORE.get(n.core);
        if (spec === undefined || n.args.length !== spec.args) return undefined;
        const assigns: string[] = [];
        const xs: string[] = [];
        for (const arg of n.args) {
          const v = this.value(arg);
          if (v === undefined) return undefined;
          const x = this.temp();
          xs.push(x);
          assigns.push(`${x} = ${v}`);
        }
        return `(c++, ${assigns.join(', ')}, (${spec.code(xs[0]!, xs[1] ?? '', this.temp())}))`;
      }
      case 'if': {
        const test = this.value(n.test);
        const then = test === undefined ? undefined : this.value(n.then);
        const els = then === undefined ? undefined : this.value(n.else);
        if (test === undefined || then === undefined || els === undefined) return undefined;
        const t = this.temp();
        return `(c++, ${t} = ${test}, (${t} !== null && ${t} !== false) ? ${then} : ${els})`;
      }
      default:
        return undefined;
    }
  }

  /** Statements for `n` in tail position: `continue` after a recur, `return` of a value. */
  tail(n: Node): string | undefined {
    if (n.kind === 'if') {
      if (++this.nodes > MAX_NODES) return undefined;
      const test = this.value(n.test);
      const then = test === undefined ? undefined : this.tail(n.then);
      const els = then === undefined ? undefined : this.tail(n.else);
      if (test === undefined || then === undefined || els === undefined) return undefined;
      const t = this.temp();
      return `c++; ${t} = ${test}; if (${t} !== null && ${t} !== false) { ${then} } else { ${els} }`;
    }
    if (n.kind === 'recur') {
      if (++this.nodes > MAX_NODES || n.args.length !== this.slots.length) return undefined;
      const values: string[] = [];
      for (const a of n.args) {
        const v = this.value(a);
        if (v === undefined) return undefined;
        values.push(v);
      }
      const names = values.map(() => this.temp());
      const compute = values.map((v, i) => `${names[i]} = ${v};`).join(' ');
      const assign = this.slots.map((_s, i) => `l${i} = ${names[i]};`).join(' ');
      return `c++; ${compute} if (bailed) break; tk -= c; ${assign} continue;`;
    }
    const v = this.value(n);
    if (v === undefined) return undefined;
    const r = this.temp();
    return `${r} = ${v}; if (bailed) break; s[${this.slots.length}] = tk - c; s[${this.slots.length + 1}] = ${r}; STORE return ${DONE};`;
  }
}

/** JS source for a number, boolean or nil constant, when it is a plain literal (else it goes to `K`). */
function literal(v: number | boolean | null): string | undefined {
  if (typeof v !== 'number') return String(v);
  return Number.isFinite(v) && !Object.is(v, -0) ? String(v) : undefined;
}

/** The most units one iteration of `n` can use (its longest path). */
function longestPath(n: Node): number {
  switch (n.kind) {
    case 'op1':
      return 1 + longestPath(n.a);
    case 'op2':
      return 1 + longestPath(n.a) + longestPath(n.b);
    case 'if':
      return 1 + longestPath(n.test) + Math.max(longestPath(n.then), longestPath(n.else));
    case 'recur':
    case 'callCore':
      return 1 + n.args.reduce((sum, a) => sum + longestPath(a), 0);
    default:
      return 1;
  }
}

/**
 * The loop's iterations as one JS function (see the module comment), or undefined when
 * the body is outside the subset. `slots` are the loop's locals in binding order;
 * `closures` is the body compiled the usual way.
 */
export function fastLoop(body: Node, slots: readonly number[], closures: Code): Code | undefined {
  if (!loopCodegen.enabled) return undefined;
  const g = new Generator(slots);
  const tail = g.tail(body);
  if (tail === undefined) return undefined;
  const max = longestPath(body);
  const n = slots.length;
  const store = slots.map((_s, i) => `s[${i}] = l${i};`).join(' ');
  // Only the iterations are generated: they take the loop's locals and the fuel counter
  // from `s`, keep them in JS variables (l0, l1, ..., tk) and put them back when they stop.
  // Touching nothing else keeps V8's optimised code for them simple and stable.
  const source = `
      'use strict';
      ${g.declarations()}
      ${slots.map((_s, i) => `let l${i} = s[${i}];`).join(' ')}
      let tk = s[${n}];
      let bailed = false;
      while (tk > ${max}) {
        c = 0;
        ${tail.replace('STORE', store).replaceAll('BAILED', '(bailed = true, 0)')}
      }
      ${store} s[${n}] = tk;
      return bailed ? ${BAILED} : ${LOW};`;
  const params = ['s', 'K', 'f'];
  const make = (): Iterations | undefined => {
    try {
      const fn = generatedFunction<Iterations>(params, source);
      loopCodegen.compiled++;
      return fn;
    } catch {
      return undefined; // a generator bug must never break a program: the closures run it
    }
  };
  // Made before (a program run again, or one of the same shape): its code is warm, use it
  // at once. New: the closures (warm from every earlier program) run the first
  // `coldAfter` iterations, as a short loop runs faster on them than in a function V8
  // has never seen.
  let iterations = isGenerated(params, source) || loopCodegen.coldAfter === 0 ? make() : undefined;
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
    return drive(iterations, g.consts, slots, max, closures, f, ev);
  };
}

/** What the generated iterations stopped on. */
const DONE = 0;
const LOW = 1;
const BAILED = 2;

/** Units between clock checks in generated code: about a millisecond of it. */
const CHUNK = 1 << 20;

type Iterations = (s: Value[], consts: Value[], f: Value[]) => typeof DONE | typeof LOW | typeof BAILED;

/** Runs the loop: generated iterations while they can, the closures for the others. */
function drive(iterations: Iterations, consts: Value[], slots: readonly number[], max: number, closures: Code, f: Value[], ev: Evaluator): Value {
  const n = slots.length;
  const s: Value[] = new Array(n + 2);
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

