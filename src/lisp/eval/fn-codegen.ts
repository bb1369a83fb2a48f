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
 *   {@link CHUNK} units instead of the closures' 4096 (as loop-codegen.ts does; the
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
 * An arity is generated on its 200th call ({@link compileLater}); until then, and
 * whenever the generated code gives up, its closures run.
 *
 * The generated source holds only slot numbers, indices into the constants array and
 * names of our own variables: nothing of the program's text.
 */
import type { Arity, FnInfo, Node } from '../analyzer/nodes.ts';
import { resolveCore } from '../core/index.ts';
import type { Value } from '../values.ts';
import type { Code } from './compile.ts';
import { generatedFunction } from './generated-code.ts';
import { CHECK_EVERY } from './index.ts';

/**
 * Switch, calls before an arity is compiled, count of arities compiled and of runs
 * abandoned: for tests that compare with the closures.
 */
export const fnCodegen = { enabled: true, compileAfter: 200, compiled: 0, bailed: 0 };

/** Bodies bigger than this stay on the closures (source size, compile time). */
const MAX_NODES = 400;
/**
 * The generated code stops (and the closures take over) where the closures would be this
 * many JS frames deep. Measured on Node's default stack, cold: the closures overflow at
 * 5,000 to 10,000 frames (fib's body is 5 frames per level: fine at 1,000 levels, not at
 * 2,000; a self call under 19 nested nodes overflows at 510 levels).
 */
const STACK_FRAMES = 2500;
const BAIL = { bail: true };
/** Fuel units between the generated code's fuel and clock checks (about a millisecond of work). */
const CHUNK = 1 << 20;
/** Most nodes of a body with its inlined copies (see {@link withInlining}). */
const INLINE_NODES = 600;

const ARITH: Record<string, string> = { '+': '+', '-': '-', '*': '*' };

/** A number written by {@link Generator.constant}: a literal or a `K[i]` (no type test needed). */
const isNumberConstant = (x: string): boolean => x.startsWith('K[') || /^\(?-?\d/.test(x);
const COMPARE: Record<string, string> = { '<': '<', '>': '>', '<=': '<=', '>=': '>=', '=': '===', '==': '===', 'not=': '!==' };

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
const ARITHMETIC = new Map<unknown, { args: number; numbers: boolean; code: (r: string, x: string, y: string) => string }>(
  (
    [
      ['quot', 2, true, (r: string, x: string, y: string) => `if (${y} === 0) bail(); ${r} = Math.trunc(${x} / ${y}); if (${r} === 0) ${r} = 0;`],
      ['rem', 2, true, (r: string, x: string, y: string) => `if (${y} === 0) bail(); ${r} = ${x} % ${y}; if (${r} === 0) ${r} = 0;`],
      ['mod', 2, true, (r: string, x: string, y: string) => `if (${y} === 0) bail(); ${r} = ${x} % ${y}; if (${r} !== 0 && (${r} < 0) !== (${y} < 0)) ${r} += ${y}; if (${r} === 0) ${r} = 0;`],
      ['/', 2, true, (r: string, x: string, y: string) => `if (${y} === 0) bail(); ${r} = ${x} / ${y}; if (${r} === 0) ${r} = 0;`],
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
  const one = (k: number): string => (k === 1 ? `if (--ev.ticks <= 0) ev.slowCheck(${CHUNK});` : `if ((ev.ticks -= ${k}) <= 0) ev.slowCheck(${CHUNK});`);
  if (gs.length === 1) return one(gs[0]!);
  // when more units are left than the groups use, none of them would reach a check: one subtraction
  const total = gs.reduce((a, b) => a + b, 0);
  return `if (ev.ticks > ${total}) ev.ticks -= ${total}; else { ${gs.map(one).join(' ')} }`;
}

/** Which copy of the body a {@link Generator} writes: the function's own, or one inlined at a self call. */
interface Frame {
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
class Generator {
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
  private local$(slot: number): string {
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
    return [...Array.from({ length: this.temps }, (_, i) => `t${i}${this.frame.suffix}`), ...[...this.lets].map((s) => this.local$(s))];
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
    if (this.params.includes(n.slot)) return this.local$(n.slot);
    const t = this.temp();
    this.emit(`${t} = ${this.local$(n.slot)};`);
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
      if (this.params.some((s) => this.local$(s) === v) || isNumberConstant(v) || v === 'null' || v === 'true' || v === 'false') args.push(v);
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
    const frame: Frame = { suffix: `_${id}`, inline: this.frame.inline - 1, exit: { result, label }, ids: this.frame.ids };
    const sub = new Generator(this.info, this.arity, this.params, this.consts, frame);
    if (!sub.tail(this.arity.body) || sub.recurs) return false;
    this.selfCalls += sub.selfCalls;
    const inits = [`${sub.r} = ${this.r} - 1`, ...this.params.map((s, i) => `${sub.local$(s)} = ${args[i]}`), ...sub.declared];
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
      this.emit(`${this.local$(b.pattern.slot)} = ${v};`);
    }
    return true;
  }

  private unbind(n: Extract<Node, { kind: 'let' }>): void {
    for (const b of n.bindings) if (b.pattern.kind === 'bind' && !this.params.includes(b.pattern.slot)) this.scope.delete(b.pattern.slot);
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
        this.emit(`${this.params.map((s, i) => `${this.local$(s)} = ${args[i]};`).join(' ')} continue;`);
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

/**
 * The body generated again with its self calls inlined one or two levels deep (fib's
 * leaves then cost no JS call: about 30-45% less time), when the copies stay within
 * {@link INLINE_NODES}; undefined when it has no self call, loops (`recur`), or is too big.
 */
function withInlining(info: FnInfo, arity: Arity, slots: readonly number[], plain: Generator): Generator | undefined {
  const k = plain.selfCalls;
  if (k === 0 || plain.recurs) return undefined;
  const n = plain.size;
  const depth = n * (1 + k + k * k) <= INLINE_NODES ? 2 : n * (1 + k) <= INLINE_NODES ? 1 : 0;
  if (depth === 0) return undefined;
  const g = new Generator(info, arity, slots, [], { suffix: '', inline: depth, exit: null, ids: { next: 0 } });
  return g.tail(arity.body) && !g.recurs ? g : undefined;
}

/**
 * The generated function: `run(ev, K, r, ...params)` computes the body with `r` self calls
 * left before the depth limit; `enter(ev, K, r, f)` calls it with the params read from the
 * frame `f`. Made once per source and shared by every fn with that source, so V8 optimises
 * one function for all runs of a program (a closure made per run starts cold each time).
 */
type Generated = {
  enter: (ev: unknown, consts: Value[], r: number, f: Value[]) => Value;
};
const instances = new WeakMap<object, Generated>();

function generated(slots: readonly number[], body: string): Generated {
  const params = slots.map((s) => `, v${s}`).join('');
  const source = `
    const bail = () => { throw BAIL; };
    function run(ev, K, r${params}) {
      ${body}
    }
    return { enter: (ev, K, r, f) => run(ev, K, r${slots.map((s) => `, f[${s}]`).join('')}) };`;
  const make = generatedFunction<(bail: unknown) => Generated>(['BAIL'], source);
  let g = instances.get(make);
  if (g === undefined) instances.set(make, (g = make(BAIL)));
  return g;
}

/**
 * The arity's body as one JS function behind a {@link Code} (see the module comment), or
 * undefined when it is outside the subset (throws on a bug: see {@link compileLater}). `slots` are its param slots (plain names);
 * `closures` is the body compiled the usual way.
 */
export function fastFn(info: FnInfo, arity: Arity, slots: readonly number[], closures: Code): Code | undefined {
  const g = new Generator(info, arity, slots);
  if (!g.tail(arity.body)) return undefined;
  const cap = Math.max(1, Math.floor(STACK_FRAMES / g.framesPerLevel()));
  const best = withInlining(info, arity, slots, g) ?? g;
  const { enter } = generated(slots, best.source());
  const consts = best.consts;
  let off = false;
  fnCodegen.compiled++;
  return (f, ev) => {
    if (off) return closures(f, ev);
    const ticks = ev.ticks;
    const base = ev.fuelBase;
    try {
      const v = enter(ev, consts, (ev.maxDepth < cap ? ev.maxDepth : cap) - ev.depth, f);
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
}

/**
 * Gives `arity` (compiled as `ar`, whose `body` is its closures) the generated body on
 * its {@link fnCodegen.compileAfter}-th call: generating and `new Function` cost about
 * as much as a thousand closure calls, a loss for a fn called a few times. Until then a
 * stub counts calls and runs the closures; then `ar.body` is replaced, by the generated
 * body or, outside the subset, by the closures themselves.
 */
export function compileLater(info: FnInfo, arity: Arity, ar: { slots: number[]; body: Code }): void {
  if (!fnCodegen.enabled || arity.rest !== null) return;
  const closures = ar.body;
  const after = fnCodegen.compileAfter;
  let calls = 0;
  let body: Code | undefined;
  ar.body = (f, ev) => {
    if (body === undefined) {
      if (++calls <= after) return closures(f, ev);
      try {
        body = fastFn(info, arity, ar.slots, closures) ?? closures;
      } catch {
        body = closures; // a generator bug must never break a program: the closures run it
      }
      ar.body = body;
    }
    return body(f, ev); // a runBody loop (recur) may still hold the stub
  };
}
