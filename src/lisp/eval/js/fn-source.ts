/**
 * The JS source of a numeric fn body (see fn-codegen.ts for what is generated and why it
 * behaves exactly like the closures): a {@link FnSource} walks the analyzed body and
 * writes statements that compute it over JS numbers, charge fuel in the closures' groups
 * and count self calls against the depth limit, optionally with the self calls inlined.
 */
import type { Arity, FnInfo, Node } from '../../analyzer/nodes.ts';
import { resolveCore } from '../../core/index.ts';
import type { Value } from '../../values.ts';

/** Bodies bigger than this stay on the closures (source size, compile time). */
const MAX_NODES = 400;
/** Fuel units between the generated code's fuel and clock checks (about a millisecond of work). */
const CHUNK = 1 << 20;

const ARITH: Record<string, string> = { '+': '+', '-': '-', '*': '*' };

/** A number written by {@link FnSource.constant}: a literal or a `K[i]` (no type test needed). */
const isNumberConstant = (x: string): boolean => x.startsWith('K[') || /^\(?-?\d/.test(x);
const COMPARE: Record<string, string> = {
  '<': '<',
  '>': '>',
  '<=': '<=',
  '>=': '>=',
  '=': '===',
  '==': '===',
  'not=': '!==',
};

/** Core predicates whose result is fixed for any argument: a JS test on `x`. */
const PREDICATES = new Map<unknown, (x: string) => string>(
  (
    [
      ['zero?', (x: string) => `${x} === 0`],
      ['pos?', (x: string) => `(typeof ${x} === 'number' && ${x} > 0)`],
      ['neg?', (x: string) => `(typeof ${x} === 'number' && ${x} < 0)`],
      ['not', (x: string) => `(${x} === null || ${x} === false)`],
    ] as const
  ).map(([name, test]) => [resolveCore(null, name), test]),
);

/**
 * Core arithmetic on numbers, as the core functions compute it (core/math.ts: `-0`
 * cleaned where they clean it); the emitted statements bail where the function would
 * throw (a divisor of 0, an odd? of a non-integer). The args are already known numbers,
 * except for `even?`/`odd?`, which test for an integer themselves.
 */
const ARITHMETIC = new Map<
  unknown,
  { args: number; numbers: boolean; code: (r: string, x: string, y: string) => string }
>(
  (
    [
      [
        'quot',
        2,
        true,
        (r: string, x: string, y: string) =>
          `if (${y} === 0) bail(); ${r} = Math.trunc(${x} / ${y}); if (${r} === 0) ${r} = 0;`,
      ],
      [
        'rem',
        2,
        true,
        (r: string, x: string, y: string) => `if (${y} === 0) bail(); ${r} = ${x} % ${y}; if (${r} === 0) ${r} = 0;`,
      ],
      [
        'mod',
        2,
        true,
        (r: string, x: string, y: string) =>
          `if (${y} === 0) bail(); ${r} = ${x} % ${y}; if (${r} !== 0 && (${r} < 0) !== (${y} < 0)) ${r} += ${y}; if (${r} === 0) ${r} = 0;`,
      ],
      [
        '/',
        2,
        true,
        (r: string, x: string, y: string) => `if (${y} === 0) bail(); ${r} = ${x} / ${y}; if (${r} === 0) ${r} = 0;`,
      ],
      ['max', 2, true, (r: string, x: string, y: string) => `${r} = Math.max(${x}, ${y});`],
      ['min', 2, true, (r: string, x: string, y: string) => `${r} = Math.min(${x}, ${y});`],
      ['abs', 1, true, (r: string, x: string) => `${r} = Math.abs(${x});`],
      ['even?', 1, false, (r: string, x: string) => `if (!Number.isInteger(${x})) bail(); ${r} = ${x} % 2 === 0;`],
      ['odd?', 1, false, (r: string, x: string) => `if (!Number.isInteger(${x})) bail(); ${r} = ${x} % 2 !== 0;`],
    ] as const
  ).map(([name, args, numbers, code]) => [resolveCore(null, name), { args, numbers, code }]),
);

/** Statements that charge fuel groups `gs` (in order) exactly as the closures would. */
function chargeCode(gs: readonly number[]): string {
  const one = (k: number): string =>
    k === 1 ? `if (--ev.ticks <= 0) ev.slowCheck(${CHUNK});` : `if ((ev.ticks -= ${k}) <= 0) ev.slowCheck(${CHUNK});`;
  if (gs.length === 1) return one(gs[0]!);
  // when more units are left than the groups use, none of them would reach a check: one subtraction
  const total = gs.reduce((a, b) => a + b, 0);
  return `if (ev.ticks > ${total}) ev.ticks -= ${total}; else { ${gs.map(one).join(' ')} }`;
}

/** Which copy of the body a {@link FnSource} writes: the function's own, or one inlined at a self call. */
export interface Frame {
  /** appended to every variable the copy names (`v3_1`, `t0_1`); '' for the function's own */
  suffix: string;
  /** levels of self calls still to inline below this copy (0: they call `run`) */
  inline: number;
  /** where the value goes in tail position: null for `return`, else `result = x; break label;` */
  exit: { result: string; label: string } | null;
  /** numbers the inlined copies, across the whole function */
  ids: { next: number };
}

/**
 * Emits the body as statements into `out`. Fuel is charged in the closures' groups, but a
 * run of groups is written as one subtraction where nothing observable happens in between
 * (only arithmetic and type tests, whose failure abandons the run anyway): before a self
 * call, a branch, a return or a recur, {@link flush} charges the pending groups.
 */
export class FnSource {
  private readonly out: string[] = [];
  private pending: number[] = [];
  private temps = 0;
  private nodes = 0;
  /** self calls generated (each a call of `run` or an inlined copy of the body) */
  selfCalls = 0;
  /** slots of `let` locals (declared once at the top of the function) */
  private readonly lets = new Set<number>();
  /** slots readable at this point: the params and the `let` locals in scope */
  private readonly scope: Set<number>;
  recurs = false;
  /** closure frames around the node being generated, and the most around a self call */
  private level = 0;
  private callLevel = 0;

  constructor(
    private readonly info: FnInfo,
    private readonly arity: Arity,
    private readonly params: readonly number[],
    /** constants written as `K[i]`, shared with the inlined copies */
    readonly consts: Value[] = [],
    private readonly frame: Frame = { suffix: '', inline: 0, exit: null, ids: { next: 0 } },
  ) {
    this.scope = new Set(params);
  }

  private temp(): string {
    return `t${this.temps++}${this.frame.suffix}`;
  }

  /** The variable of local `slot` in this copy of the body. */
  private varOf(slot: number): string {
    return `v${slot}${this.frame.suffix}`;
  }

  /** The variable holding the self calls left before the depth limit. */
  private get r(): string {
    return `r${this.frame.suffix}`;
  }

  private emit(stmt: string): void {
    this.out.push(stmt);
  }

  private charge(k: number): void {
    this.pending.push(k);
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    this.emit(chargeCode(this.pending));
    this.pending = [];
  }

  /** The function body: declarations and the statements. */
  source(): string {
    const decl = this.declared.length === 0 ? '' : `let ${this.declared.join(', ')};`;
    const body = this.out.join('\n');
    return `${decl}\n${this.recurs ? `for (;;) {\n${body}\n}` : body}`;
  }

  /** Temporaries and `let` locals, declared once. */
  private get declared(): string[] {
    return [
      ...Array.from({ length: this.temps }, (_, i) => `t${i}${this.frame.suffix}`),
      ...[...this.lets].map((s) => this.varOf(s)),
    ];
  }

  private grow(): boolean {
    return ++this.nodes <= MAX_NODES;
  }

  /** Nodes of the body generated so far. */
  get size(): number {
    return this.nodes;
  }

  /** A param (read as is: only a recur reassigns it, after its args are computed) or a `let` local (copied). */
  private local(n: Node): string | undefined {
    if (n.kind !== 'local' || !this.scope.has(n.slot)) return undefined;
    if (this.params.includes(n.slot)) return this.varOf(n.slot);
    const t = this.temp();
    this.emit(`${t} = ${this.varOf(n.slot)};`);
    return t;
  }

  /**
   * A number is written as a literal when `String` gives it back exactly (finite, not
   * -0): V8 then folds it into the code instead of loading `K[i]` and checking its type.
   */
  private constant(v: Value): string | undefined {
    if (v === null || typeof v === 'boolean') return String(v);
    if (typeof v !== 'number') return undefined;
    if (Number.isFinite(v) && !Object.is(v, -0)) return v < 0 ? `(${v})` : String(v);
    this.consts.push(v);
    return `K[${this.consts.length - 1}]`;
  }

  /** `if (x is not a number) bail();` unless it is a number constant. */
  private number(x: string): void {
    if (!isNumberConstant(x)) this.emit(`if (typeof ${x} !== 'number') bail();`);
  }

  /** Emits the statements computing `n`; returns a JS expression for its value (valid right after them). */
  value(n: Node): string | undefined {
    this.level++; // the node's closure is one JS frame (callCore's evAll one more)
    try {
      return this.valueOf(n);
    } finally {
      this.level--;
    }
  }

  /** JS frames one level of recursion takes on the closures: the nodes down to the self call, call1/enter, runBody and the generated body's entry. */
  framesPerLevel(): number {
    return this.callLevel + 3;
  }

  private valueOf(n: Node): string | undefined {
    if (!this.grow()) return undefined;
    switch (n.kind) {
      case 'local':
        this.charge(1);
        return this.local(n);
      case 'const': {
        const v = this.constant(n.value);
        if (v !== undefined) this.charge(1);
        return v;
      }
      case 'op1': {
        // `(inc local)` charges 2 units at once, like compileOp1
        let x: string | undefined;
        if (n.a.kind === 'local') {
          this.charge(2);
          x = this.local(n.a);
        } else {
          this.charge(1);
          x = this.value(n.a);
        }
        if (x === undefined) return undefined;
        this.number(x);
        const r = this.temp();
        // x + 1 and x - 1 are never -0: no cleaning
        this.emit(`${r} = ${x} ${n.op === 'inc' ? '+' : '-'} 1;`);
        return r;
      }
      case 'op2':
        return this.op2(n);
      case 'if': {
        this.charge(1);
        const t = this.value(n.test);
        if (t === undefined) return undefined;
        const carried = this.pending; // charged in each branch, with its own groups
        const r = this.temp();
        this.emit(`if (${t} !== null && ${t} !== false) {`);
        this.pending = [...carried];
        const then = this.value(n.then);
        if (then === undefined) return undefined;
        this.flush();
        this.emit(`${r} = ${then}; } else {`);
        this.pending = [...carried];
        const els = this.value(n.else);
        if (els === undefined) return undefined;
        this.flush();
        this.emit(`${r} = ${els}; }`);
        return r;
      }
      case 'and':
      case 'or': {
        // the first falsy (and) / truthy (or) item ends it; otherwise the last item's value
        this.charge(1);
        const r = this.temp();
        const go = n.kind === 'and' ? `${r} !== null && ${r} !== false` : `${r} === null || ${r} === false`;
        for (let i = 0; i < n.items.length; i++) {
          const v = this.value(n.items[i]!);
          if (v === undefined) return undefined;
          this.flush();
          this.emit(`${r} = ${v};`);
          if (i < n.items.length - 1) this.emit(`if (${go}) {`);
        }
        this.emit('}'.repeat(n.items.length - 1));
        return r;
      }
      case 'do': {
        this.charge(1);
        let v: string | undefined;
        for (const x of n.body) if ((v = this.value(x)) === undefined) return undefined;
        return v;
      }
      case 'let': {
        this.charge(1);
        if (!this.bind(n)) return undefined;
        const body = this.value(n.body);
        this.unbind(n);
        return body;
      }
      case 'callCore': {
        // compileCallCore: one unit, then the args; these core functions charge nothing more
        const test = PREDICATES.get(n.core);
        const op = ARITHMETIC.get(n.core);
        if (n.args.length !== (test ? 1 : op?.args)) return undefined;
        this.charge(1);
        const xs: string[] = [];
        this.level++;
        for (const a of n.args) {
          const x = this.value(a);
          if (x === undefined) return undefined;
          xs.push(x);
        }
        this.level--;
        const r = this.temp();
        if (test) this.emit(`${r} = ${test(xs[0]!)};`);
        else {
          if (op!.numbers) for (const x of xs) this.number(x);
          this.emit(op!.code(r, xs[0]!, xs[1] ?? ''));
        }
        return r;
      }
      case 'call':
        return this.selfCall(n);
      default:
        return undefined;
    }
  }

  /** Same shapes and charges as compileOp2: (local, number) and (local, local) charge 3 units at once. */
  private op2(n: Extract<Node, { kind: 'op2' }>): string | undefined {
    let x: string | undefined;
    let y: string | undefined;
    if (n.a.kind === 'local' && ((n.b.kind === 'const' && typeof n.b.value === 'number') || n.b.kind === 'local')) {
      this.charge(3);
      x = this.local(n.a);
      y = n.b.kind === 'local' ? this.local(n.b) : this.constant(n.b.value);
    } else {
      this.charge(1);
      x = this.value(n.a);
      y = x === undefined ? undefined : this.value(n.b);
    }
    if (x === undefined || y === undefined) return undefined;
    this.number(x);
    this.number(y);
    const r = this.temp();
    // `+ 0` turns -0 into 0 and leaves every other number as it is, without a branch
    if (ARITH[n.op]) this.emit(`${r} = (${x} ${ARITH[n.op]} ${y}) + 0;`);
    else this.emit(`${r} = ${x} ${COMPARE[n.op]} ${y};`);
    return r;
  }

  /**
   * `(name args...)` where name is the fn's own slot and the call lands on this arity.
   * Charges as compileCall: with 1 or 2 args the node and the local at once, otherwise
   * one unit each; then the args; then one call level (enter), checked against `r`, the self calls left.
   */
  private selfCall(n: Extract<Node, { kind: 'call' }>): string | undefined {
    const { info, arity } = this;
    if (n.fn.kind !== 'local' || info.selfSlot < 0 || n.fn.slot !== info.selfSlot) return undefined;
    if (n.args.length !== arity.fixed || info.byCount[n.args.length] !== arity) return undefined;
    this.callLevel = Math.max(this.callLevel, this.level);
    if (n.args.length === 1 || n.args.length === 2) this.charge(2);
    else this.pending.push(1, 1);
    const args: string[] = [];
    for (const a of n.args) {
      const v = this.value(a);
      if (v === undefined) return undefined;
      // a param can be read as is: nothing reassigns it before the call
      if (
        this.params.some((s) => this.varOf(s) === v) ||
        isNumberConstant(v) ||
        v === 'null' ||
        v === 'true' ||
        v === 'false'
      )
        args.push(v);
      else {
        const t = this.temp();
        this.emit(`${t} = ${v};`);
        args.push(t);
      }
    }
    this.flush();
    this.selfCalls++;
    const r = this.temp();
    if (this.frame.inline > 0) return this.inlined(args, r) ? r : undefined;
    this.emit(`if (${this.r} <= 0) bail(); ${r} = run(ev, K, ${this.r} - 1${args.map((a) => `, ${a}`).join('')});`);
    return r;
  }

  /**
   * The self call as a copy of the body in a labelled block instead of a JS call: its
   * params and temporaries are its own variables (suffixed), its value goes to `result`.
   * It charges what the call's body would, in the same order, and counts the same level
   * against the depth limit, so only the JS call is saved.
   */
  private inlined(args: string[], result: string): boolean {
    const id = this.frame.ids.next++;
    const label = `L${id}`;
    const frame: Frame = {
      suffix: `_${id}`,
      inline: this.frame.inline - 1,
      exit: { result, label },
      ids: this.frame.ids,
    };
    const sub = new FnSource(this.info, this.arity, this.params, this.consts, frame);
    if (!sub.tail(this.arity.body) || sub.recurs) return false;
    this.selfCalls += sub.selfCalls;
    const inits = [
      `${sub.r} = ${this.r} - 1`,
      ...this.params.map((s, i) => `${sub.varOf(s)} = ${args[i]}`),
      ...sub.declared,
    ];
    this.emit(`if (${this.r} <= 0) bail(); ${label}: { let ${inits.join(', ')};\n${sub.out.join('\n')}\n}`);
    return true;
  }

  /** `v5 = init;` for each binding of a `let` of plain names (its slots then in scope). */
  private bind(n: Extract<Node, { kind: 'let' }>): boolean {
    for (const b of n.bindings) {
      if (b.pattern.kind !== 'bind') return false;
      const v = this.value(b.init);
      if (v === undefined) return false;
      this.lets.add(b.pattern.slot);
      this.scope.add(b.pattern.slot);
      this.emit(`${this.varOf(b.pattern.slot)} = ${v};`);
    }
    return true;
  }

  private unbind(n: Extract<Node, { kind: 'let' }>): void {
    for (const b of n.bindings)
      if (b.pattern.kind === 'bind' && !this.params.includes(b.pattern.slot)) this.scope.delete(b.pattern.slot);
  }

  /** Emits `n` in tail position: ends with `continue` after a recur, `return` of a value. */
  tail(n: Node): boolean {
    this.level++;
    try {
      return this.tailOf(n);
    } finally {
      this.level--;
    }
  }

  private tailOf(n: Node): boolean {
    switch (n.kind) {
      case 'if': {
        if (!this.grow()) return false;
        this.charge(1);
        const t = this.value(n.test);
        if (t === undefined) return false;
        const carried = this.pending; // charged in each branch, with its own groups
        this.emit(`if (${t} !== null && ${t} !== false) {`);
        this.pending = [...carried];
        if (!this.tail(n.then)) return false;
        this.emit('} else {');
        this.pending = [...carried];
        if (!this.tail(n.else)) return false;
        this.emit('}');
        return true;
      }
      case 'let': {
        if (!this.grow()) return false;
        this.charge(1);
        if (!this.bind(n)) return false;
        const ok = this.tail(n.body);
        this.unbind(n);
        return ok;
      }
      case 'do': {
        if (!this.grow()) return false;
        this.charge(1);
        for (const x of n.body.slice(0, -1)) if (this.value(x) === undefined) return false;
        return this.tail(n.body[n.body.length - 1]!);
      }
      case 'recur': {
        // compileRecur: one unit, the args in order, then the params rebound
        if (!this.grow() || n.args.length !== this.params.length) return false;
        this.charge(1);
        const args: string[] = [];
        for (const a of n.args) {
          const v = this.value(a);
          if (v === undefined) return false;
          const t = this.temp();
          this.emit(`${t} = ${v};`);
          args.push(t);
        }
        this.flush();
        this.emit(`${this.params.map((s, i) => `${this.varOf(s)} = ${args[i]};`).join(' ')} continue;`);
        this.recurs = true;
        return true;
      }
      default: {
        const v = this.valueOf(n); // the same node: one frame, counted by tail()
        if (v === undefined) return false;
        this.flush();
        const exit = this.frame.exit;
        this.emit(exit === null ? `return ${v};` : `${exit.result} = ${v}; break ${exit.label};`);
        return true;
      }
    }
  }
}
