/**
 * The JS source of a numeric loop's iterations (see loop-codegen.ts for what is generated
 * and why it behaves exactly like the closures). A {@link LoopSource} walks the loop body
 * and writes one JS expression per node, knowing each expression's type where it can:
 *
 * - Types: arithmetic gives a number (`BAILED` is written as `(bailed = true, 0)`, a
 *   number too), comparisons and predicates give booleans, a constant its own type. A
 *   number needs no `typeof` test where it is used and a boolean no truthiness test, so
 *   only locals and values read from the frame are tested. A loop local used as a number
 *   whose every `recur` value is a number is tested once, when the iterations start
 *   (`numeric`): the values it takes after that are numbers.
 * - Fuel: every node charges one unit, as the closures do. The units of a path are
 *   counted while writing it, so the code adds a constant per iteration; only where the
 *   two branches of an `if` in value position charge differently is `c` added to.
 *
 * A new function starts in V8's interpreter, which runs every bytecode written: fewer
 * tests and counters there is what makes a first run fast (and V8 optimises a smaller
 * function sooner).
 */
import type { Node } from '../../analyzer/nodes.ts';
import { resolveCore } from '../../core/index.ts';
import type { Value } from '../../values.ts';
import { BAILED, DONE, LOW, longestPath } from '../loop-status.ts';

/** Bodies bigger than this stay on the closures (source size, compile time). */
const MAX_NODES = 300;

type Ty = 'number' | 'boolean' | 'any';

/** A node as a JS expression: its type and the fuel units it charges on every path (the rest goes to `c`). */
interface Expr {
  js: string;
  ty: Ty;
  units: number;
}

const ARITH: Record<string, string> = { '+': '+', '-': '-', '*': '*' };
const COMPARE: Record<string, string> = {
  '<': '<',
  '>': '>',
  '<=': '<=',
  '>=': '>=',
  '=': '===',
  '==': '===',
  'not=': '!==',
};

/** `x` is a JS identifier or literal: it can be written twice without a temporary. */
const simple = (x: string): boolean => /^[\w.]+$|^\(-[\d.e+]+\)$/.test(x);

/**
 * Core functions allowed in the loop, as JS over the values of their arguments (`m` is a
 * spare temporary): the value the core function (core/math.ts, predicates) gives, where
 * it gives one. `needs`: the arguments must be numbers (else the core function throws:
 * the iteration bails), `divisor`: the second must not be 0 (else it throws).
 */
interface CoreSpec {
  args: number;
  needs: boolean;
  divisor?: boolean;
  ty: Ty;
  code: (x: string, y: string, m: string, xTy: Ty) => string;
}

const CORE = new Map<unknown, CoreSpec>(
  (
    [
      ['quot', { args: 2, needs: true, divisor: true, ty: 'number', code: (x, y) => `Math.trunc(${x} / ${y}) + 0` }],
      ['rem', { args: 2, needs: true, divisor: true, ty: 'number', code: (x, y) => `(${x} % ${y}) + 0` }],
      [
        'mod',
        {
          args: 2,
          needs: true,
          divisor: true,
          ty: 'number',
          code: (x, y, m) => `(${m} = ${x} % ${y}, (${m} !== 0 && (${m} < 0) !== (${y} < 0) ? ${m} + ${y} : ${m}) + 0)`,
        },
      ],
      ['/', { args: 2, needs: true, divisor: true, ty: 'number', code: (x, y) => `(${x} / ${y}) + 0` }],
      ['max', { args: 2, needs: true, ty: 'number', code: (x, y) => `Math.max(${x}, ${y})` }],
      ['min', { args: 2, needs: true, ty: 'number', code: (x, y) => `Math.min(${x}, ${y})` }],
      ['abs', { args: 1, needs: true, ty: 'number', code: (x) => `Math.abs(${x})` }],
      [
        'even?',
        { args: 1, needs: false, ty: 'boolean', code: (x) => `(Number.isInteger(${x}) ? ${x} % 2 === 0 : BAILED)` },
      ],
      [
        'odd?',
        { args: 1, needs: false, ty: 'boolean', code: (x) => `(Number.isInteger(${x}) ? ${x} % 2 !== 0 : BAILED)` },
      ],
      ['zero?', { args: 1, needs: false, ty: 'boolean', code: (x) => `${x} === 0` }],
      [
        'pos?',
        {
          args: 1,
          needs: false,
          ty: 'boolean',
          code: (x, _y, _m, t) => (t === 'number' ? `${x} > 0` : `(typeof ${x} === 'number' && ${x} > 0)`),
        },
      ],
      [
        'neg?',
        {
          args: 1,
          needs: false,
          ty: 'boolean',
          code: (x, _y, _m, t) => (t === 'number' ? `${x} < 0` : `(typeof ${x} === 'number' && ${x} < 0)`),
        },
      ],
      [
        'not',
        {
          args: 1,
          needs: false,
          ty: 'boolean',
          code: (x, _y, _m, t) => (t === 'boolean' ? `!${x}` : `(${x} === null || ${x} === false)`),
        },
      ],
    ] as const satisfies ReadonlyArray<readonly [string, CoreSpec]>
  ).map(([name, spec]) => [resolveCore(null, name), spec]),
);

/** JS source for a number, boolean or nil constant, when it is a plain literal (else it goes to `K`). */
function literal(v: number | boolean | null): string | undefined {
  if (typeof v !== 'number') return String(v);
  if (!Number.isFinite(v) || Object.is(v, -0)) return undefined;
  return v < 0 ? `(${v})` : String(v);
}

/** The loop locals (by index) that `n` uses where a number is needed. */
function numericUses(n: Node, slots: readonly number[], out: Set<number>): void {
  const use = (a: Node) => {
    if (a.kind === 'local' && slots.includes(a.slot)) out.add(slots.indexOf(a.slot));
  };
  switch (n.kind) {
    case 'op1':
      use(n.a);
      numericUses(n.a, slots, out);
      return;
    case 'op2':
      use(n.a);
      use(n.b);
      numericUses(n.a, slots, out);
      numericUses(n.b, slots, out);
      return;
    case 'callCore':
      if (CORE.get(n.core)?.needs) n.args.forEach(use);
      for (const a of n.args) numericUses(a, slots, out);
      return;
    case 'if':
      numericUses(n.test, slots, out);
      numericUses(n.then, slots, out);
      numericUses(n.else, slots, out);
      return;
    case 'recur':
      for (const a of n.args) numericUses(a, slots, out);
      return;
    default:
      return;
  }
}

/** The loop's iterations as JS (see the module comment). */
export class LoopSource {
  readonly consts: Value[] = [];
  private temps = 0;
  private nodes = 0;
  /** `c` is added to (an `if` in value position whose branches charge differently) */
  private dynamic = false;
  /** frame slots read (locals of enclosing forms), read once when the iterations start */
  private readonly outer = new Set<number>();
  /** the type of each loop local's value in each `recur` */
  private readonly recurTypes: Ty[][] = [];

  /** `numeric`: indices of the loop locals known to be numbers (tested when the iterations start). */
  constructor(
    private readonly slots: readonly number[],
    private readonly numeric: ReadonlySet<number>,
  ) {}

  /** The whole function body, or undefined when `body` is outside the subset. */
  static write(body: Node, slots: readonly number[]): { source: string; consts: Value[] } | undefined {
    const uses = new Set<number>();
    numericUses(body, slots, uses);
    // assume every local used as a number stays one; drop those a recur gives something else, until none is dropped
    let numeric = uses;
    for (;;) {
      const g = new LoopSource(slots, numeric);
      const source = g.function(body);
      if (source === undefined) return undefined;
      const kept = new Set([...numeric].filter((i) => g.recurTypes.every((tys) => tys[i] === 'number')));
      if (kept.size === numeric.size) return { source, consts: g.consts };
      numeric = kept;
    }
  }

  private function(body: Node): string | undefined {
    const tail = this.tail(body, 0);
    if (tail === undefined) return undefined;
    const n = this.slots.length;
    const store = this.slots.map((_s, i) => `s[${i}] = l${i};`).join(' ');
    const temps = ['m', ...Array.from({ length: this.temps }, (_, i) => `t${i}`), ...(this.dynamic ? ['c'] : [])];
    const guard = [...this.numeric].map((i) => `typeof l${i} !== 'number'`);
    // Only the iterations are generated: they take the loop's locals and the fuel counter
    // from `s`, keep them in JS variables (l0, l1, ..., tk) and put them back when they stop.
    // Touching nothing else keeps V8's optimised code for them simple and stable.
    return `
      'use strict';
      let ${temps.join(', ')};
      ${this.slots.map((_s, i) => `let l${i} = s[${i}];`).join(' ')}
      ${guard.length ? `if (${guard.join(' || ')}) return ${BAILED};` : ''}
      ${[...this.outer].map((slot) => `const f${slot} = f[${slot}];`).join(' ')}
      let tk = s[${n}];
      let bailed = false;
      while (tk > ${longestPath(body)}) {
        ${this.dynamic ? 'c = 0;' : ''}
        ${tail.replace('STORE', store).replaceAll('BAILED', '(bailed = true, 0)')}
      }
      ${store} s[${n}] = tk;
      return bailed ? ${BAILED} : ${LOW};`;
  }

  /**
   * The JS expression for a local: a loop local lives in a JS variable (`l0`...) during
   * the loop; any other local (of an enclosing `let`, `loop` or `fn`) is read from the
   * frame `f`, which the iterations never write, once when they start.
   */
  private local(slot: number): Expr {
    const i = this.slots.indexOf(slot);
    if (i >= 0) return { js: `l${i}`, ty: this.numeric.has(i) ? 'number' : 'any', units: 1 };
    this.outer.add(slot);
    return { js: `f${slot}`, ty: 'any', units: 1 };
  }

  private temp(): string {
    return `t${this.temps++}`;
  }

  /** `e` where it is needed more than once: itself if simple, else a temporary assigned first (`assign`). */
  private once(e: Expr, assign: string[]): string {
    if (simple(e.js)) return e.js;
    const t = this.temp();
    assign.push(`${t} = ${e.js}`);
    return t;
  }

  /** `(a1, a2, ..., x)`: the assignments, then `x`. */
  private static seq(assign: string[], x: string): string {
    return assign.length ? `(${assign.join(', ')}, ${x})` : `(${x})`;
  }

  /** A test that every untyped operand among `xs` is a number (true when all are known numbers). */
  private static numbers(xs: readonly [string, Ty][]): string[] {
    return xs.filter(([, ty]) => ty !== 'number').map(([x]) => `typeof ${x} === 'number'`);
  }

  /** `x` as a JS boolean (Clojure truthiness). */
  private truthy(e: Expr, assign: string[]): string {
    if (e.ty === 'boolean') return e.js;
    const x = this.once(e, assign);
    return `${x} !== null && ${x} !== false`;
  }

  /** A JS expression for the value of `n` (see {@link Expr}). */
  value(n: Node): Expr | undefined {
    if (++this.nodes > MAX_NODES) return undefined;
    switch (n.kind) {
      case 'local':
        return this.local(n.slot);
      case 'const': {
        const v = n.value;
        if (v !== null && typeof v !== 'number' && typeof v !== 'boolean') return undefined;
        const ty: Ty = typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'boolean' : 'any';
        return { js: literal(v) ?? `K[${this.consts.push(v) - 1}]`, ty, units: 1 };
      }
      case 'op1': {
        const a = this.value(n.a);
        if (a === undefined) return undefined;
        const op = n.op === 'inc' ? '+' : '-';
        // x + 1 and x - 1 are never -0, so unlike the binary ops they need no `+ 0`
        if (a.ty === 'number') return { js: `(${a.js} ${op} 1)`, ty: 'number', units: 1 + a.units };
        const assign: string[] = [];
        const x = this.once(a, assign);
        return {
          js: LoopSource.seq(assign, `typeof ${x} === 'number' ? ${x} ${op} 1 : BAILED`),
          ty: 'number',
          units: 1 + a.units,
        };
      }
      case 'op2': {
        const a = this.value(n.a);
        const b = a === undefined ? undefined : this.value(n.b);
        if (a === undefined || b === undefined) return undefined;
        const assign: string[] = [];
        const x = a.ty === 'number' ? a.js : this.once(a, assign);
        const y = b.ty === 'number' ? b.js : this.once(b, assign);
        const tests = LoopSource.numbers([
          [x, a.ty],
          [y, b.ty],
        ]);
        // `+ 0` turns -0 into 0 and leaves every other double as it is (the closures' `r === 0 ? 0 : r`)
        const op = ARITH[n.op] ? `(${x} ${ARITH[n.op]} ${y}) + 0` : `${x} ${COMPARE[n.op]} ${y}`;
        const js = tests.length ? `${tests.join(' && ')} ? ${op} : BAILED` : op;
        return { js: LoopSource.seq(assign, js), ty: ARITH[n.op] ? 'number' : 'boolean', units: 1 + a.units + b.units };
      }
      case 'callCore':
        return this.callCore(n);
      case 'if': {
        const test = this.value(n.test);
        const then = test === undefined ? undefined : this.value(n.then);
        const els = then === undefined ? undefined : this.value(n.else);
        if (test === undefined || then === undefined || els === undefined) return undefined;
        const assign: string[] = [];
        const cond = this.truthy(test, assign);
        // the units both branches charge count with the if; the difference goes to `c`
        const base = Math.min(then.units, els.units);
        const branch = (e: Expr) =>
          e.units > base ? ((this.dynamic = true), `(c += ${e.units - base}, ${e.js})`) : e.js;
        const ty = then.ty === els.ty ? then.ty : 'any';
        return {
          js: LoopSource.seq(assign, `${cond} ? ${branch(then)} : ${branch(els)}`),
          ty,
          units: 1 + test.units + base,
        };
      }
      default:
        return undefined;
    }
  }

  /** A core function call (as compileCallCore: one unit for the call, then the args'). */
  private callCore(n: Extract<Node, { kind: 'callCore' }>): Expr | undefined {
    const spec = CORE.get(n.core);
    if (spec === undefined || n.args.length !== spec.args) return undefined;
    const args: Expr[] = [];
    for (const arg of n.args) {
      const v = this.value(arg);
      if (v === undefined) return undefined;
      args.push(v);
    }
    const assign: string[] = [];
    const xs = args.map((a) => this.once(a, assign));
    const tests = spec.needs ? LoopSource.numbers(xs.map((x, i) => [x, args[i]!.ty] as [string, Ty])) : [];
    const y = xs[1] ?? '';
    if (spec.divisor && !(/^[\d.e+]+$/.test(y) && Number(y) !== 0)) tests.push(`${y} !== 0`);
    const code = spec.code(xs[0]!, y, 'm', args[0]!.ty);
    const js = tests.length ? `${tests.join(' && ')} ? ${code} : BAILED` : code;
    return { js: LoopSource.seq(assign, js), ty: spec.ty, units: 1 + args.reduce((sum, a) => sum + a.units, 0) };
  }

  /**
   * Statements for `n` in tail position: `continue` after a recur, `return` of a value.
   * `units`: what the enclosing tail `if`s charged on the way here.
   */
  tail(n: Node, units: number): string | undefined {
    const charge = (k: number) => (this.dynamic ? `${k} + c` : `${k}`);
    if (n.kind === 'if') {
      if (++this.nodes > MAX_NODES) return undefined;
      const test = this.value(n.test);
      if (test === undefined) return undefined;
      const assign: string[] = [];
      const cond = this.truthy(test, assign);
      const then = this.tail(n.then, units + 1 + test.units);
      const els = then === undefined ? undefined : this.tail(n.else, units + 1 + test.units);
      if (then === undefined || els === undefined) return undefined;
      return `if (${assign.length ? `${LoopSource.seq(assign, cond)}` : cond}) { ${then} } else { ${els} }`;
    }
    if (n.kind === 'recur') {
      if (++this.nodes > MAX_NODES || n.args.length !== this.slots.length) return undefined;
      const values: Expr[] = [];
      for (const a of n.args) {
        const v = this.value(a);
        if (v === undefined) return undefined;
        values.push(v);
      }
      this.recurTypes.push(values.map((v) => v.ty));
      const total = units + 1 + values.reduce((sum, v) => sum + v.units, 0);
      // every value is computed before any local changes (a value may read another local)
      const names = values.map((v, i) => (v.js === `l${i}` ? undefined : this.temp()));
      const compute = values.map((v, i) => (names[i] ? `${names[i]} = ${v.js};` : '')).join(' ');
      const assign = names.map((t, i) => (t ? `l${i} = ${t};` : '')).join(' ');
      return `${compute} if (bailed) break; tk -= ${charge(total)}; ${assign} continue;`;
    }
    const v = this.value(n);
    if (v === undefined) return undefined;
    const r = this.temp();
    const n0 = this.slots.length;
    return `${r} = ${v.js}; if (bailed) break; s[${n0}] = tk - (${charge(units + v.units)}); s[${n0 + 1}] = ${r}; STORE return ${DONE};`;
  }
}
