/**
 * A numeric fn body as WebAssembly, for fns whose params and values are all numbers (and
 * booleans): the subset of fn-source.ts without `let`, `do`, `and`/`or` and `recur`, and
 * the same behaviour (see fn-codegen.ts), on a fn's first run in the process, where the
 * JS of fn-source.ts would start in V8's interpreter (see loop-wasm.ts for why).
 *
 * - Fuel: `ticks` is a global of the module, `ev.ticks` copied in and out; the groups are
 *   those of fn-source.ts, charged in the same order and by one subtraction where it does;
 *   where they reach 0, the module calls `refill` (the evaluator's check, which may throw:
 *   fuel or time spent).
 * - Giving up: a trap (`unreachable`) or a throw from `refill` ends the call; fn-codegen.ts's
 *   wrapper restores the fuel state and the closures run the call again, as for the JS.
 * - Values: f64 as JS numbers, `+ 0` where fn-source.ts cleans -0; `rem`/`mod` are exact
 *   integer remainders (32 bits, else 64 below 2^53, else a give-up).
 */
import type { Arity, FnInfo, Node } from '../../analyzer/nodes.ts';
import { resolveCore } from '../../core/index.ts';
import type { Value } from '../../values.ts';
import type { Evaluator } from '../index.ts';
import {
  FOLD_BASE,
  FOLD_ITEMS,
  OP,
  TYPE,
  f64Const,
  fnModuleBytes,
  i32Const,
  localGet,
  localSet,
  remainder,
  sharedMemory,
} from './wasm-module.ts';
import { wasmInstance } from './instances.ts';

type Ty = 'number' | 'boolean';
interface Val {
  local: number;
  ty: Ty;
}

const MAX_NODES = 400;
/** Fuel units between checks (as fn-source.ts). */
const CHUNK = 1 << 20;
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
  ['zero?', 'pos?', 'neg?', 'not', 'quot', 'rem', 'mod', '/', 'max', 'min', 'abs', 'even?', 'odd?'].map((n) => [
    resolveCore(null, n),
    n,
  ]),
);
const UNARY = new Set(['zero?', 'pos?', 'neg?', 'not', 'abs', 'even?', 'odd?']);

const get = localGet;
const set = localSet;
const TICKS_GET = [0x23, 0];
const TICKS_SET = [0x24, 0];
const REFILL = [0x10, 0];
const RUN = [0x10, 1];
const cleanZero = [...f64Const(0), OP.f64Add];

/** Emits the body (see the module comment); locals: the params, `r` (self calls left), then the temps. */
class FnWasm {
  private out: number[] = [];
  private pending: number[] = [];
  private nodes = 0;
  /** the type of each temp, in order: temp k is local r + 1 + k */
  private readonly temps: Ty[] = [];
  private readonly r: number;

  constructor(
    private readonly info: FnInfo,
    private readonly arity: Arity,
    private readonly params: readonly number[],
  ) {
    this.r = params.length;
  }

  private temp(ty: Ty): number {
    return this.r + this.temps.push(ty);
  }

  private emit(...code: number[][]): void {
    const out = this.out;
    for (const c of code) for (let i = 0; i < c.length; i++) out.push(c[i]!);
  }

  private charge(k: number): void {
    this.pending.push(k);
  }

  /** The pending groups, as fn-source.ts's chargeCode. */
  private flush(): void {
    const gs = this.pending;
    if (gs.length === 0) return;
    this.pending = [];
    const one = (k: number) => [
      ...TICKS_GET,
      ...f64Const(k),
      OP.f64Sub,
      ...TICKS_SET,
      ...TICKS_GET,
      ...f64Const(0),
      OP.f64Le,
      OP.if,
      TYPE.empty,
      ...TICKS_GET,
      ...REFILL,
      ...TICKS_SET,
      OP.end,
    ];
    if (gs.length === 1) return this.emit(one(gs[0]!));
    const total = gs.reduce((a, b) => a + b, 0);
    this.emit(
      [
        ...TICKS_GET,
        ...f64Const(total),
        OP.f64Gt,
        OP.if,
        TYPE.empty,
        ...TICKS_GET,
        ...f64Const(total),
        OP.f64Sub,
        ...TICKS_SET,
        OP.else,
      ],
      ...gs.map(one),
      [OP.end],
    );
  }

  private grow(): boolean {
    return ++this.nodes <= MAX_NODES;
  }

  /** `v` (of type `ty`) into a new temp. */
  private store(ty: Ty, code: number[]): Val {
    const t = this.temp(ty);
    this.emit(code, set(t));
    return { local: t, ty };
  }

  private param(n: Node): Val | undefined {
    if (n.kind !== 'local') return undefined;
    const i = this.params.indexOf(n.slot);
    return i < 0 ? undefined : { local: i, ty: 'number' };
  }

  private constant(n: Node): Val | undefined {
    if (n.kind !== 'const') return undefined;
    if (typeof n.value === 'number') return this.store('number', f64Const(n.value));
    if (typeof n.value === 'boolean') return this.store('boolean', i32Const(n.value ? 1 : 0));
    return undefined;
  }

  value(n: Node): Val | undefined {
    if (!this.grow()) return undefined;
    switch (n.kind) {
      case 'local':
        this.charge(1);
        return this.param(n);
      case 'const': {
        const v = this.constant(n);
        if (v !== undefined) this.charge(1);
        return v;
      }
      case 'op1': {
        let x: Val | undefined;
        if (n.a.kind === 'local') {
          this.charge(2);
          x = this.param(n.a);
        } else {
          this.charge(1);
          x = this.value(n.a);
        }
        if (x?.ty !== 'number') return undefined;
        return this.store('number', [...get(x.local), ...f64Const(1), n.op === 'inc' ? OP.f64Add : OP.f64Sub]);
      }
      case 'op2': {
        let x: Val | undefined;
        let y: Val | undefined;
        if (n.a.kind === 'local' && ((n.b.kind === 'const' && typeof n.b.value === 'number') || n.b.kind === 'local')) {
          this.charge(3);
          x = this.param(n.a);
          y = n.b.kind === 'local' ? this.param(n.b) : this.constant(n.b);
        } else {
          this.charge(1);
          x = this.value(n.a);
          y = x === undefined ? undefined : this.value(n.b);
        }
        if (x?.ty !== 'number' || y?.ty !== 'number') return undefined;
        const arith = ARITH[n.op];
        if (arith !== undefined) return this.store('number', [...get(x.local), ...get(y.local), arith, ...cleanZero]);
        return this.store('boolean', [...get(x.local), ...get(y.local), COMPARE[n.op]!]);
      }
      case 'if': {
        this.charge(1);
        const t = this.value(n.test);
        if (t === undefined) return undefined;
        const carried = this.pending; // charged in each branch, with its own groups
        this.emit(this.truthy(t), [OP.if, TYPE.empty]);
        this.pending = [...carried];
        const then = this.value(n.then);
        if (then === undefined) return undefined;
        this.flush();
        const r = this.temp(then.ty);
        this.emit(get(then.local), set(r), [OP.else]);
        this.pending = [...carried];
        const els = this.value(n.else);
        if (els?.ty !== then.ty) return undefined;
        this.flush();
        this.emit(get(els.local), set(r), [OP.end]);
        return { local: r, ty: then.ty };
      }
      case 'callCore':
        return this.callCore(n);
      case 'call':
        return this.selfCall(n);
      default:
        return undefined;
    }
  }

  private truthy(t: Val): number[] {
    return t.ty === 'boolean' ? get(t.local) : i32Const(1);
  }

  private callCore(n: Extract<Node, { kind: 'callCore' }>): Val | undefined {
    const name = CORE.get(n.core);
    if (name === undefined || n.args.length !== (UNARY.has(name) ? 1 : 2)) return undefined;
    this.charge(1);
    const xs: Val[] = [];
    for (const a of n.args) {
      const v = this.value(a);
      if (v === undefined) return undefined;
      xs.push(v);
    }
    const [x, y] = xs as [Val, Val | undefined];
    // the predicates take any value: false for a boolean (zero?, pos?, neg?), `not` of a number is false
    if (name === 'not') return this.store('boolean', x.ty === 'boolean' ? [...get(x.local), OP.i32Eqz] : i32Const(0));
    if (name === 'zero?' || name === 'pos?' || name === 'neg?') {
      if (x.ty === 'boolean') return this.store('boolean', i32Const(0));
      return this.store('boolean', [
        ...get(x.local),
        ...f64Const(0),
        name === 'zero?' ? OP.f64Eq : name === 'pos?' ? OP.f64Gt : OP.f64Lt,
      ]);
    }
    if (x.ty !== 'number' || (y !== undefined && y.ty !== 'number')) return undefined;
    const a = x.local;
    const b = y?.local ?? 0;
    const trap = [OP.unreachable];
    const nonZero = [...get(b), ...f64Const(0), OP.f64Eq, OP.if, TYPE.empty, ...trap, OP.end];
    switch (name) {
      case 'abs':
        return this.store('number', [...get(a), OP.f64Abs]);
      case 'max':
        return this.store('number', [...get(a), ...get(b), OP.f64Max]);
      case 'min':
        return this.store('number', [...get(a), ...get(b), OP.f64Min]);
      case 'even?':
      case 'odd?': {
        const integer = [
          ...get(a),
          OP.f64Trunc,
          ...get(a),
          OP.f64Eq,
          ...get(a),
          OP.f64Abs,
          ...f64Const(Infinity),
          OP.f64Lt,
          OP.i32And,
        ];
        this.emit(integer, [OP.i32Eqz, OP.if, TYPE.empty, ...trap, OP.end]);
        return this.store('boolean', [
          ...get(a),
          ...f64Const(2),
          ...get(a),
          ...f64Const(0.5),
          OP.f64Mul,
          OP.f64Trunc,
          OP.f64Mul,
          OP.f64Sub,
          ...f64Const(0),
          name === 'even?' ? OP.f64Eq : OP.f64Ne,
        ]);
      }
      case 'quot':
        this.emit(nonZero);
        return this.store('number', [...get(a), ...get(b), OP.f64Div, OP.f64Trunc, ...cleanZero]);
      case '/':
        this.emit(nonZero);
        return this.store('number', [...get(a), ...get(b), OP.f64Div, ...cleanZero]);
      default: {
        // rem, mod: an exact integer remainder, never -0 (JS's -0 is cleaned to 0)
        this.emit(nonZero);
        const m = this.store('number', this.rem(a, b)).local;
        if (name === 'rem') return { local: m, ty: 'number' };
        const differ = [
          ...get(m),
          ...f64Const(0),
          OP.f64Ne,
          ...get(m),
          ...f64Const(0),
          OP.f64Lt,
          ...get(b),
          ...f64Const(0),
          OP.f64Lt,
          OP.i32Ne,
          OP.i32And,
        ];
        return this.store('number', [
          ...differ,
          OP.if,
          TYPE.f64,
          ...get(m),
          ...get(b),
          OP.f64Add,
          OP.else,
          ...get(m),
          OP.end,
        ]);
      }
    }
  }

  /** Exact `%` (see {@link remainder}); an operand it cannot take traps (the closures run the call). */
  private rem(x: number, y: number): number[] {
    return remainder(x, y, undefined, (cond, code) => [
      ...cond,
      OP.i32Eqz,
      OP.if,
      TYPE.empty,
      OP.unreachable,
      OP.end,
      ...code,
    ]);
  }

  /** A call of the fn itself on this arity, charged as fn-source.ts's selfCall. */
  private selfCall(n: Extract<Node, { kind: 'call' }>): Val | undefined {
    const { info, arity } = this;
    if (n.fn.kind !== 'local' || info.selfSlot < 0 || n.fn.slot !== info.selfSlot) return undefined;
    if (n.args.length !== arity.fixed || info.byCount[n.args.length] !== arity) return undefined;
    if (n.args.length === 1 || n.args.length === 2) this.charge(2);
    else this.pending.push(1, 1);
    const args: Val[] = [];
    for (const a of n.args) {
      const v = this.value(a);
      if (v?.ty !== 'number') return undefined;
      args.push(v);
    }
    this.flush();
    // no self calls left before the depth limit: give up (the closures raise it)
    this.emit(get(this.r), f64Const(0), [OP.f64Le, OP.if, TYPE.empty, OP.unreachable, OP.end]);
    return this.store('number', [
      ...args.flatMap((a) => get(a.local)),
      ...get(this.r),
      ...f64Const(1),
      OP.f64Sub,
      ...RUN,
    ]);
  }

  tail(n: Node): boolean {
    if (n.kind === 'if') {
      if (!this.grow()) return false;
      this.charge(1);
      const t = this.value(n.test);
      if (t === undefined) return false;
      const carried = this.pending;
      this.emit(this.truthy(t), [OP.if, TYPE.empty]);
      this.pending = [...carried];
      if (!this.tail(n.then)) return false;
      this.emit([OP.else]);
      this.pending = [...carried];
      if (!this.tail(n.else)) return false;
      this.emit([OP.end]);
      return true;
    }
    if (n.kind === 'let' || n.kind === 'do' || n.kind === 'recur') return false;
    const v = this.value(n);
    if (v?.ty !== 'number') return false;
    this.flush();
    this.emit(get(v.local), [OP.return]);
    return true;
  }

  /** The module: params, r, then the temps, each declared with its type. */
  bytes(): Uint8Array {
    // a body that returns in both branches of an if still needs a value after it
    const locals = this.temps.map((ty) => [1, ty === 'number' ? TYPE.f64 : TYPE.i32] as const);
    return fnModuleBytes(this.r + 1, locals, [...this.out, OP.unreachable]);
  }
}

/** The module of an arity's body, or undefined outside the subset. */
export function writeFnWasm(info: FnInfo, arity: Arity, params: readonly number[]): Uint8Array | undefined {
  const w = new FnWasm(info, arity, params);
  return w.tail(arity.body) ? w.bytes() : undefined;
}

/** The evaluator of the call running in a module (a module calls out only to `refill`). */
let current: Evaluator | null = null;

const refill = (ticks: number): number => {
  const ev = current!;
  ev.ticks = ticks;
  ev.slowCheck(CHUNK);
  return ev.ticks;
};

/** What fn-codegen.ts calls: `run` with the args, `enter` with the params read from a frame. */
export interface FnGenerated {
  enter: (ev: Evaluator, consts: Value[], r: number, f: Value[]) => Value;
  run: (ev: Evaluator, consts: Value[], r: number, x: Value, y: Value) => Value;
  /**
   * A two-param fn's fold (fn-codegen.ts's `fold`): `reduce`'s loop over the numbers
   * `xs[from..]`, at most {@link FOLD_ITEMS} of them and up to the first item that is not a
   * number; how many it took and the last acc. A throw (a trap, fuel or time) leaves the
   * evaluator's fuel to the caller, which restores it.
   */
  fold?: (ev: Evaluator, acc: number, xs: readonly Value[], from: number, r: number) => { acc: number; took: number };
}

/**
 * The numbers of `xs` from `from` into `items`, up to its length and the first item that is
 * not a number; how many. One function for every module and run, so that V8 optimises it
 * once (a loop in each module's own closure ran cold in every first run).
 */
function copyNumbers(xs: readonly Value[], from: number, items: Float64Array): number {
  const end = Math.min(xs.length, from + items.length);
  let n = 0;
  for (let i = from; i < end; i++) {
    const x = xs[i];
    if (typeof x !== 'number') break;
    items[n++] = x;
  }
  return n;
}

/** Thrown for an argument that is not a number: fn-codegen.ts's wrapper then runs the closures. */
const NOT_A_NUMBER = { notANumber: true };

/** The function of the module of `bytes` behind fn-codegen.ts's interface (one instance per module, cached). */
export function fnInstance(bytes: Uint8Array, slots: readonly number[]): FnGenerated {
  const exports = wasmInstance(bytes, { r: refill }).exports;
  const e = exports.e!;
  const mem = new Float64Array(sharedMemory().buffer);
  // the fuel counter goes in as the last argument and comes back at mem[0]; no other state
  // outlives a call (a throw from refill or a trap leaves ev.ticks to fn-codegen.ts's wrapper)
  const n = slots.length;
  const run = (ev: Evaluator, _K: Value[], r: number, x: Value, y: Value): Value => {
    if (typeof x !== 'number' || (n === 2 && typeof y !== 'number')) throw NOT_A_NUMBER;
    current = ev;
    const v = n === 1 ? e(x, r, ev.ticks) : e(x, y as number, r, ev.ticks);
    ev.ticks = mem[0]!;
    return v;
  };
  const f = exports.f;
  const items = new Float64Array(sharedMemory().buffer, FOLD_BASE, FOLD_ITEMS);
  const fold: FnGenerated['fold'] =
    f === undefined
      ? undefined
      : (ev, acc, xs, from, r) => {
          const n = copyNumbers(xs, from, items);
          if (n === 0) return { acc, took: 0 };
          current = ev;
          const v = f(acc, n, r, ev.ticks);
          ev.ticks = mem[0]!;
          return { acc: v, took: n };
        };
  return {
    run,
    fold,
    enter: (ev, K, r, fr) => {
      if (n === 1 || n === 2) return run(ev, K, r, fr[slots[0]!]!, n === 2 ? fr[slots[1]!]! : null);
      const args: number[] = [];
      for (const s of slots) {
        const v = fr[s];
        if (typeof v !== 'number') throw NOT_A_NUMBER;
        args.push(v);
      }
      current = ev;
      const v = e(...args, r, ev.ticks);
      ev.ticks = mem[0]!;
      return v;
    },
  };
}
