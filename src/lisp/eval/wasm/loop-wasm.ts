/**
 * A numeric loop's iterations as WebAssembly, for loops whose locals are all numbers (the
 * same subset and the same behaviour as the JS of loop-source.ts, see loop-codegen.ts).
 *
 * Why: JS made with `new Function` is new to V8 on a program's first run, and V8 runs it
 * in its bytecode interpreter, slower than our warm closures, until it has optimised it
 * (on a loaded machine after 100,000 iterations and more). A WebAssembly module is
 * compiled to machine code at once (Liftoff, a fraction of a millisecond for a loop) and
 * runs a numeric iteration in a few nanoseconds from its first iteration.
 *
 * Same values: numbers are f64 as in JS and the operations are IEEE's (`+ - * /`,
 * comparisons, trunc, min/max/abs with JS's -0 and NaN rules); `+ 0` turns -0 into 0 as
 * the JS code does. `rem`/`mod` (JS `%`, which WebAssembly lacks) are computed as i64
 * remainders on integers below 2^53, where they are exact; other operands give up.
 * Same fuel: the same units per path, taken from `tk` at the same points.
 * Giving up (`bailed`): the iteration is dropped before it changed anything, as in the
 * JS code; the wrapper then hands the loop, from that state, to the JS iterations, which
 * compute it or give it to the closures. Booleans are i32; nil, strings and any value of
 * mixed type keep the loop on the JS iterations.
 */
import type { Node } from '../../analyzer/nodes.ts';
import { resolveCore } from '../../core/index.ts';
import type { Value } from '../../values.ts';
import { BAILED, DONE, LOW, longestPath } from '../loop-status.ts';
import {
  OP,
  TYPE,
  type WasmInstance,
  f64Const,
  f64StoreAt,
  i32Const,
  localGet,
  localSet,
  moduleBytes,
  remainder,
  sharedMemory,
} from './wasm-module.ts';

type Ty = 'number' | 'boolean';

/** A node as wasm code leaving its value on the stack (f64 for a number, i32 for a boolean). */
interface Expr {
  code: number[];
  ty: Ty;
  units: number;
}

/** The result of the exported function besides DONE/LOW/BAILED: done, with a boolean value. */
const DONE_BOOLEAN = 3;
const MAX_NODES = 300;

const ARITH: Record<string, number> = { '+': OP.f64Add, '-': OP.f64Sub, '*': OP.f64Mul };
const COMPARE: Record<string, number> = {
  '<': OP.f64Lt,
  '>': OP.f64Gt,
  '<=': OP.f64Le,
  '>=': OP.f64Ge,
  '=': OP.f64Eq,
  '==': OP.f64Eq,
  'not=': OP.f64Ne,
};
const CORE = new Map<unknown, string>(
  ['quot', 'rem', 'mod', '/', 'max', 'min', 'abs', 'even?', 'odd?', 'zero?', 'pos?', 'neg?', 'not'].map((n) => [
    resolveCore(null, n),
    n,
  ]),
);

const get = localGet;
const set = localSet;
const cleanZero = [...f64Const(0), OP.f64Add];

/** The loop locals and the frame slots of enclosing forms that `n` reads. */
function outerSlots(n: Node, slots: readonly number[], out: Set<number>): void {
  if (n.kind === 'local') {
    if (!slots.includes(n.slot)) out.add(n.slot);
    return;
  }
  const kids =
    n.kind === 'op1'
      ? [n.a]
      : n.kind === 'op2'
        ? [n.a, n.b]
        : n.kind === 'if'
          ? [n.test, n.then, n.else]
          : n.kind === 'recur' || n.kind === 'callCore'
            ? n.args
            : [];
  for (const k of kids) outerSlots(k, slots, out);
}

/** The module's function, as wasm code (see the module comment). */
class LoopWasm {
  private nodes = 0;
  private f64Temps = 0;
  private dynamic = false;
  private depth = 0;
  /** local indices: params (loop locals, outer slots, tk), then bailed and status (i32), then c and temps (f64) */
  private readonly tk: number;
  private readonly bailed: number;
  private readonly status: number;
  private readonly c: number;
  private readonly firstTemp: number;

  constructor(
    private readonly slots: readonly number[],
    readonly outer: readonly number[],
  ) {
    this.tk = slots.length + outer.length;
    this.bailed = this.tk + 1;
    this.status = this.tk + 2;
    this.c = this.tk + 3;
    this.firstTemp = this.tk + 4;
  }

  private temp(): number {
    return this.firstTemp + this.f64Temps++;
  }

  /** Marks the iteration as given up and pushes a dummy value of type `ty`. */
  private bail(ty: Ty): number[] {
    return [...i32Const(1), ...set(this.bailed), ...(ty === 'number' ? f64Const(0) : i32Const(0))];
  }

  /** `cond ? then : bail` with a value of type `ty`. */
  private guarded(cond: number[], ty: Ty, then: number[]): number[] {
    return [...cond, OP.if, ty === 'number' ? TYPE.f64 : TYPE.i32, ...then, OP.else, ...this.bail(ty), OP.end];
  }

  /** Exact `%` (see {@link remainder}); an operand it cannot take gives the iteration up. */
  private rem(x: number, y: number, k: number | undefined): number[] {
    return remainder(x, y, k, (cond, code) => this.guarded(cond, 'number', code));
  }

  value(n: Node): Expr | undefined {
    if (++this.nodes > MAX_NODES) return undefined;
    switch (n.kind) {
      case 'local': {
        const i = this.slots.indexOf(n.slot);
        return { code: get(i >= 0 ? i : this.slots.length + this.outer.indexOf(n.slot)), ty: 'number', units: 1 };
      }
      case 'const':
        if (typeof n.value === 'number') return { code: f64Const(n.value), ty: 'number', units: 1 };
        if (typeof n.value === 'boolean') return { code: i32Const(n.value ? 1 : 0), ty: 'boolean', units: 1 };
        return undefined;
      case 'op1': {
        const a = this.value(n.a);
        if (a?.ty !== 'number') return undefined;
        return {
          code: [...a.code, ...f64Const(1), n.op === 'inc' ? OP.f64Add : OP.f64Sub],
          ty: 'number',
          units: 1 + a.units,
        };
      }
      case 'op2': {
        const a = this.value(n.a);
        const b = a?.ty === 'number' ? this.value(n.b) : undefined;
        if (a === undefined || b?.ty !== 'number') return undefined;
        const arith = ARITH[n.op];
        const code =
          arith !== undefined ? [...a.code, ...b.code, arith, ...cleanZero] : [...a.code, ...b.code, COMPARE[n.op]!];
        return { code, ty: arith !== undefined ? 'number' : 'boolean', units: 1 + a.units + b.units };
      }
      case 'callCore':
        return this.callCore(n);
      case 'if': {
        const test = this.value(n.test);
        const then = test === undefined ? undefined : this.value(n.then);
        const els = then === undefined ? undefined : this.value(n.else);
        if (test === undefined || then === undefined || els === undefined || then.ty !== els.ty) return undefined;
        // the units both branches charge count with the if; the difference goes to `c`
        const base = Math.min(then.units, els.units);
        const branch = (e: Expr) =>
          e.units > base
            ? ((this.dynamic = true),
              [...get(this.c), ...f64Const(e.units - base), OP.f64Add, ...set(this.c), ...e.code])
            : e.code;
        const code = [
          ...this.truthy(test),
          OP.if,
          then.ty === 'number' ? TYPE.f64 : TYPE.i32,
          ...branch(then),
          OP.else,
          ...branch(els),
          OP.end,
        ];
        return { code, ty: then.ty, units: 1 + test.units + base };
      }
      default:
        return undefined;
    }
  }

  /** An i32 condition: a boolean as it is; a number is truthy (computed for its give-ups, then dropped). */
  private truthy(e: Expr): number[] {
    return e.ty === 'boolean' ? e.code : [...e.code, OP.drop, ...i32Const(1)];
  }

  private callCore(n: Extract<Node, { kind: 'callCore' }>): Expr | undefined {
    const name = CORE.get(n.core);
    if (name === undefined) return undefined;
    const binary = ['quot', 'rem', 'mod', '/', 'max', 'min'].includes(name);
    if (n.args.length !== (binary ? 2 : 1)) return undefined;
    const args: Expr[] = [];
    for (const a of n.args) {
      const v = this.value(a);
      if (v === undefined) return undefined;
      args.push(v);
    }
    const units = 1 + args.reduce((sum, a) => sum + a.units, 0);
    const [a, b] = args as [Expr, Expr | undefined];
    if (name === 'not')
      return {
        code: a.ty === 'boolean' ? [...a.code, OP.i32Eqz] : [...a.code, OP.drop, ...i32Const(0)],
        ty: 'boolean',
        units,
      };
    if (a.ty !== 'number' || (b !== undefined && b.ty !== 'number')) return undefined;
    const d = n.args[1];
    const k =
      d?.kind === 'const' && typeof d.value === 'number' && d.value !== 0 && (d.value | 0) === d.value
        ? d.value
        : undefined;
    const code = this.numeric(name, a.code, b?.code ?? [], k);
    return { code, ty: ['even?', 'odd?', 'zero?', 'pos?', 'neg?'].includes(name) ? 'boolean' : 'number', units };
  }

  /** A core function of numbers (`xc`, `yc` push its arguments; `k`: the second is this non-zero int32 constant), as core/math.ts computes it. */
  private numeric(name: string, xc: number[], yc: number[], k: number | undefined): number[] {
    switch (name) {
      case 'max':
        return [...xc, ...yc, OP.f64Max];
      case 'min':
        return [...xc, ...yc, OP.f64Min];
      case 'abs':
        return [...xc, OP.f64Abs];
      case 'zero?':
        return [...xc, ...f64Const(0), OP.f64Eq];
      case 'pos?':
        return [...xc, ...f64Const(0), OP.f64Gt];
      case 'neg?':
        return [...xc, ...f64Const(0), OP.f64Lt];
      case 'even?':
      case 'odd?': {
        // an integer (finite, its own trunc), else give up; x - 2 * trunc(x / 2) is exact for it
        const x = this.temp();
        const integer = [
          ...get(x),
          OP.f64Trunc,
          ...get(x),
          OP.f64Eq,
          ...get(x),
          OP.f64Abs,
          ...f64Const(Infinity),
          OP.f64Lt,
          OP.i32And,
        ];
        const parity = [
          ...get(x),
          ...f64Const(2),
          ...get(x),
          ...f64Const(0.5),
          OP.f64Mul,
          OP.f64Trunc,
          OP.f64Mul,
          OP.f64Sub,
          ...f64Const(0),
          name === 'even?' ? OP.f64Eq : OP.f64Ne,
        ];
        return [...xc, ...set(x), ...this.guarded(integer, 'boolean', parity)];
      }
      default: {
        // quot rem mod /: the divisor must not be 0 (the core function throws: the closures raise it)
        const x = this.temp();
        const y = this.temp();
        let then: number[];
        if (name === 'quot') then = [...get(x), ...get(y), OP.f64Div, OP.f64Trunc, ...cleanZero];
        else if (name === '/') then = [...get(x), ...get(y), OP.f64Div, ...cleanZero];
        // a remainder of integers converted back is never -0 (JS's -0 is cleaned to 0), nor is m + y below
        else if (name === 'rem') then = this.rem(x, y, k);
        else {
          // mod: the remainder moved to the divisor's sign
          const m = this.temp();
          const negative = k === undefined ? [...get(y), ...f64Const(0), OP.f64Lt] : i32Const(k < 0 ? 1 : 0);
          const differ = [
            ...get(m),
            ...f64Const(0),
            OP.f64Ne,
            ...get(m),
            ...f64Const(0),
            OP.f64Lt,
            ...negative,
            OP.i32Ne,
            OP.i32And,
          ];
          then = [
            ...this.rem(x, y, k),
            ...set(m),
            ...differ,
            OP.if,
            TYPE.f64,
            ...get(m),
            ...get(y),
            OP.f64Add,
            OP.else,
            ...get(m),
            OP.end,
          ];
        }
        const compute = [...xc, ...set(x), ...yc, ...set(y)];
        // a non-zero constant divisor needs no test
        return k !== undefined
          ? [...compute, ...then]
          : [...compute, ...this.guarded([...get(y), ...f64Const(0), OP.f64Ne], 'number', then)];
      }
    }
  }

  /** `tk -= units (+ c)`. */
  private charge(units: number): number[] {
    return [
      ...get(this.tk),
      ...f64Const(units),
      OP.f64Sub,
      ...(this.dynamic ? [...get(this.c), OP.f64Sub] : []),
      ...set(this.tk),
    ];
  }

  /** Code for `n` in tail position: it ends with a branch to `top` (recur), `exit` (a value) or `bail`. */
  tail(n: Node, units: number, labels: { top: number; bail: number; exit: number }): number[] | undefined {
    const br = (level: number) => this.depth - level;
    if (n.kind === 'if') {
      if (++this.nodes > MAX_NODES) return undefined;
      const test = this.value(n.test);
      if (test === undefined) return undefined;
      this.depth++;
      const then = this.tail(n.then, units + 1 + test.units, labels);
      const els = then === undefined ? undefined : this.tail(n.else, units + 1 + test.units, labels);
      this.depth--;
      if (then === undefined || els === undefined) return undefined;
      return [...this.truthy(test), OP.if, TYPE.empty, ...then, OP.else, ...els, OP.end];
    }
    if (n.kind === 'recur') {
      if (++this.nodes > MAX_NODES || n.args.length !== this.slots.length) return undefined;
      const values: Expr[] = [];
      for (const a of n.args) {
        const v = this.value(a);
        if (v?.ty !== 'number') return undefined;
        values.push(v);
      }
      const total = units + 1 + values.reduce((sum, v) => sum + v.units, 0);
      // every value is computed before any local changes (a value may read another local)
      const temps = values.map(() => this.temp());
      const compute = values.flatMap((v, i) => [...v.code, ...set(temps[i]!)]);
      const assign = temps.flatMap((t, i) => [...get(t), ...set(i)]);
      return [
        ...compute,
        ...get(this.bailed),
        OP.brIf,
        br(labels.bail),
        ...this.charge(total),
        ...assign,
        OP.br,
        br(labels.top),
      ];
    }
    const v = this.value(n);
    if (v === undefined) return undefined;
    const r = this.temp();
    const result =
      v.ty === 'number'
        ? [...v.code, ...set(r)]
        : [...v.code, OP.if, TYPE.f64, ...f64Const(1), OP.else, ...f64Const(0), OP.end, ...set(r)];
    const status = v.ty === 'number' ? DONE : DONE_BOOLEAN;
    const store = f64StoreAt(8 * (this.slots.length + 1), get(r));
    return [
      ...result,
      ...get(this.bailed),
      OP.brIf,
      br(labels.bail),
      ...this.charge(units + v.units),
      ...store,
      ...i32Const(status),
      ...set(this.status),
      OP.br,
      br(labels.exit),
    ];
  }

  /** The module, or undefined when the body is outside the subset. */
  module(body: Node): Uint8Array | undefined {
    // block $exit (level 1) / block $bail (2) / loop $top (3)
    this.depth = 3;
    const tail = this.tail(body, 0, { exit: 1, bail: 2, top: 3 });
    if (tail === undefined) return undefined;
    const n = this.slots.length;
    const max = longestPath(body);
    const store = [
      ...Array.from({ length: n }, (_, i) => f64StoreAt(8 * i, get(i))).flat(),
      ...f64StoreAt(8 * n, get(this.tk)),
    ];
    const code = [
      ...i32Const(LOW),
      ...set(this.status),
      OP.block,
      TYPE.empty,
      OP.block,
      TYPE.empty,
      OP.loop,
      TYPE.empty,
      // while (tk > longest path): else stop, LOW
      ...get(this.tk),
      ...f64Const(max),
      OP.f64Gt,
      OP.i32Eqz,
      OP.brIf,
      2,
      ...(this.dynamic ? [...f64Const(0), ...set(this.c)] : []),
      ...tail,
      OP.end,
      OP.end,
      // given up: the locals and tk are those before the iteration
      ...i32Const(BAILED),
      ...set(this.status),
      OP.end,
      ...store,
      ...get(this.status),
    ];
    return moduleBytes(
      this.tk + 1,
      [
        [2, TYPE.i32],
        [1 + this.f64Temps, TYPE.f64],
      ],
      code,
    );
  }
}

/** The module for a loop body whose locals (`slots`) are all numbers, with the outer slots it reads; undefined outside the subset. */
export function writeWasm(body: Node, slots: readonly number[]): { bytes: Uint8Array; outer: number[] } | undefined {
  const outer = new Set<number>();
  outerSlots(body, slots, outer);
  const w = new LoopWasm(slots, [...outer]);
  const bytes = w.module(body);
  return bytes && { bytes, outer: [...outer] };
}

/** A loop's iterations: locals and fuel in `s` (see loop-codegen.ts's drive), what they stopped on. */
export type Iterations = (s: Value[], consts: Value[], f: Value[]) => typeof DONE | typeof LOW | typeof BAILED;

/**
 * The iterations run by the module, with the signature of the JS ones (`js`): locals and fuel in `s`, and the same results. A local or outer value that
 * is not a number, or an iteration the module gives up, hands the loop to the JS iterations
 * from that state; after a give-up the module is not used again.
 */
export function wasmIterations(
  instance: WasmInstance,
  slots: number,
  outer: readonly number[],
  js: Iterations,
): Iterations {
  const run = instance.exports.f!;
  const mem = new Float64Array(sharedMemory().buffer);
  const args: number[] = new Array<number>(slots + outer.length + 1).fill(0);
  let off = false;
  return (s, K, f) => {
    if (off) return js(s, K, f);
    for (let i = 0; i < slots; i++) {
      const v = s[i];
      if (typeof v !== 'number') return js(s, K, f);
      args[i] = v;
    }
    for (let i = 0; i < outer.length; i++) {
      const v = f[outer[i]!];
      if (typeof v !== 'number') return js(s, K, f);
      args[slots + i] = v;
    }
    args[slots + outer.length] = s[slots] as number;
    const status = run(...args);
    for (let i = 0; i <= slots; i++) s[i] = mem[i]!;
    if (status === DONE || status === DONE_BOOLEAN) {
      s[slots + 1] = status === DONE ? mem[slots + 1]! : mem[slots + 1] !== 0;
      return DONE;
    }
    if (status === LOW) return LOW;
    off = true;
    return js(s, K, f);
  };
}
