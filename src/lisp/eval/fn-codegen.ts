/**
 * Numeric fns as one JS function. A fn arity with plain-name params whose body uses only
 * its params and `let` locals, numbers, booleans, nil, `+ - * < > <= >= = == not=`,
 * `inc`/`dec`, `zero? pos? neg? not`, `if` (so `when`, `cond`), `and`, `or`, `do`, `let`,
 * `recur` and calls to itself (its own name, same arity) is compiled, in addition to its
 * closures, into a JS function that calls itself directly: no frame array, no closure
 * call per node, no try/finally per call. It behaves exactly like the closures:
 *
 * - Fuel: the generated code charges `ev.ticks` with the same units, grouped the same
 *   way and in the same order as the closures (see compile.ts: a node charges together
 *   with its leading local/constant operands), and runs `ev.slowCheck()` at the same
 *   points. So the fuel used, `budget/remaining`, where fuel runs out and when the clock
 *   is read are unchanged.
 * - Depth: a self call counts one level, as `Evaluator.enter` does; the level is carried
 *   as a JS argument (nothing else reads `ev.depth` meanwhile).
 * - Anything unusual (an operand that is not a number, the depth limit, fuel or time
 *   running out, the host stack) abandons the whole run: the fuel state saved when the
 *   fn was entered is restored and the closures run the same call again. The subset has
 *   no side effects, so they give exactly their own result or error (spans and messages
 *   included). A fn that abandoned once stays on the closures, so a fn that keeps
 *   failing does not pay twice.
 * - The host stack: the generated code uses much less stack per level than the closures,
 *   so it could succeed where the closures overflow. It therefore only goes
 *   {@link DEPTH_CAP} levels deep (a depth the closures reach without overflowing);
 *   deeper recursion is left to the closures.
 *
 * The generated source holds only slot numbers, indices into the constants array and
 * names of our own variables: nothing of the program's text.
 */
import type { Arity, FnInfo, Node } from '../analyzer/nodes.ts';
import { resolveCore } from '../core/index.ts';
import type { Value } from '../values.ts';
import type { Code } from './compile.ts';

/** Switch, count of arities compiled and of runs abandoned, for tests that compare with the closures. */
export const fnCodegen = { enabled: true, compiled: 0, bailed: 0 };

/** Bodies bigger than this stay on the closures (source size, compile time). */
const MAX_NODES = 400;
/**
 * The generated code stops (and the closures take over) beyond this call depth. The
 * default `maxDepth` is 512; the closures reach well over 1000 levels on Node's default
 * stack, so up to here they would not have overflowed where the generated code did not.
 */
const DEPTH_CAP = 512;
const BAIL = { bail: true };

const ARITH: Record<string, string> = { '+': '+', '-': '-', '*': '*' };
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

/** `k` units charged as one group, as the closures do. */
const charge = (k: number): string => (k === 1 ? '--ev.ticks <= 0 && ev.slowCheck()' : `(ev.ticks -= ${k}) <= 0 && ev.slowCheck()`);
const C1 = charge(1);

class Generator {
  readonly consts: Value[] = [];
  private temps = 0;
  private nodes = 0;
  /** slots of `let` locals (declared once at the top of the function) */
  readonly lets = new Set<number>();
  /** slots readable at this point: the params and the `let` locals in scope */
  private readonly scope: Set<number>;
  recurs = false;

  constructor(
    private readonly info: FnInfo,
    private readonly arity: Arity,
    private readonly params: readonly number[],
  ) {
    this.scope = new Set(params);
  }

  temp(): string {
    return `t${this.temps++}`;
  }

  /** `let t0, t1, ..., v5, ...;` for every temporary and `let` local. */
  declarations(): string {
    const names = [...Array.from({ length: this.temps }, (_, i) => `t${i}`), ...[...this.lets].map((s) => `v${s}`)];
    return names.length === 0 ? '' : `let ${names.join(', ')};`;
  }

  private grow(): boolean {
    return ++this.nodes <= MAX_NODES;
  }

  private local(n: Node): string | undefined {
    return n.kind === 'local' && this.scope.has(n.slot) ? `v${n.slot}` : undefined;
  }

  private constant(v: Value): string | undefined {
    if (v === null || typeof v === 'boolean') return String(v);
    if (typeof v !== 'number') return undefined;
    this.consts.push(v);
    return `K[${this.consts.length - 1}]`;
  }

  /** A JS expression for the value of `n`, charging fuel as the closures do. */
  value(n: Node): string | undefined {
    if (!this.grow()) return undefined;
    switch (n.kind) {
      case 'local': {
        const v = this.local(n);
        return v && `(${C1}, ${v})`;
      }
      case 'const': {
        const v = this.constant(n.value);
        return v && `(${C1}, ${v})`;
      }
      case 'op1': {
        // `(inc local)` charges 2 units at once, like compileOp1
        const local = this.local(n.a);
        const a = local ?? this.value(n.a);
        if (a === undefined) return undefined;
        const x = this.temp();
        const r = this.temp();
        const head = local ? `${charge(2)}, ${x} = ${local}` : `${C1}, ${x} = ${a}`;
        return `(${head}, typeof ${x} === 'number' ? ((${r} = ${x} ${n.op === 'inc' ? '+' : '-'} 1) === 0 ? 0 : ${r}) : bail())`;
      }
      case 'op2':
        return this.op2(n);
      case 'if': {
        const test = this.value(n.test);
        const then = test && this.value(n.then);
        const els = then && this.value(n.else);
        if (!els) return undefined;
        const t = this.temp();
        return `(${C1}, ${t} = ${test}, ${t} !== null && ${t} !== false ? ${then} : ${els})`;
      }
      case 'and':
      case 'or': {
        const items: string[] = [];
        for (const it of n.items) {
          const v = this.value(it);
          if (v === undefined) return undefined;
          items.push(v);
        }
        const t = this.temp();
        // the first falsy (and) / truthy (or) item ends it; otherwise the last item's value
        const stop = n.kind === 'and' ? `${t} === null || ${t} === false` : `${t} !== null && ${t} !== false`;
        let code = items[items.length - 1]!;
        for (let i = items.length - 2; i >= 0; i--) code = `(${t} = ${items[i]}, ${stop} ? ${t} : ${code})`;
        return `(${C1}, ${code})`;
      }
      case 'do': {
        const parts: string[] = [];
        for (const x of n.body) {
          const v = this.value(x);
          if (v === undefined) return undefined;
          parts.push(v);
        }
        return `(${C1}, ${parts.join(', ')})`;
      }
      case 'let': {
        const binds = this.bindings(n);
        if (binds === undefined) return undefined;
        const body = this.value(n.body);
        this.unbind(n);
        return body && `(${C1}, ${binds.join(', ')}, ${body})`;
      }
      case 'callCore': {
        const test = PREDICATES.get(n.core);
        if (test === undefined || n.args.length !== 1) return undefined;
        const a = this.value(n.args[0]!);
        if (a === undefined) return undefined;
        const x = this.temp();
        return `(${C1}, ${x} = ${a}, ${test(x)})`;
      }
      case 'call':
        return this.selfCall(n);
      default:
        return undefined;
    }
  }

  /** Same shapes and charges as compileOp2: (local, number) and (local, local) charge 3 units at once. */
  private op2(n: Extract<Node, { kind: 'op2' }>): string | undefined {
    const x = this.temp();
    const y = this.temp();
    let head: string;
    const la = this.local(n.a);
    const lb = this.local(n.b);
    if (la && n.b.kind === 'const' && typeof n.b.value === 'number') {
      head = `${charge(3)}, ${x} = ${la}, ${y} = ${this.constant(n.b.value)}`;
    } else if (la && lb) {
      head = `${charge(3)}, ${x} = ${la}, ${y} = ${lb}`;
    } else if ((n.a.kind === 'local' && !la) || (n.b.kind === 'local' && !lb)) {
      return undefined; // a captured local or the fn itself
    } else {
      const a = this.value(n.a);
      const b = a && this.value(n.b);
      if (!b) return undefined;
      head = `${C1}, ${x} = ${a}, ${y} = ${b}`;
    }
    const both = `typeof ${x} === 'number' && typeof ${y} === 'number'`;
    if (ARITH[n.op]) {
      const r = this.temp();
      return `(${head}, ${both} ? ((${r} = ${x} ${ARITH[n.op]} ${y}) === 0 ? 0 : ${r}) : bail())`;
    }
    return `(${head}, ${both} ? ${x} ${COMPARE[n.op]} ${y} : bail())`;
  }

  /**
   * `(name args...)` where name is the fn's own slot and the call lands on this arity.
   * Charges as compileCall: with 1 or 2 args the node and the local at once, otherwise
   * one unit each; then the args; then one call level (enter), checked against `lim`.
   */
  private selfCall(n: Extract<Node, { kind: 'call' }>): string | undefined {
    const { info, arity } = this;
    if (n.fn.kind !== 'local' || info.selfSlot < 0 || n.fn.slot !== info.selfSlot) return undefined;
    if (n.args.length !== arity.fixed || info.byCount[n.args.length] !== arity) return undefined;
    const names: string[] = [];
    const parts: string[] = [];
    for (const a of n.args) {
      const v = this.value(a);
      if (v === undefined) return undefined;
      const t = this.temp();
      names.push(t);
      parts.push(`${t} = ${v}`);
    }
    const head = n.args.length === 1 || n.args.length === 2 ? charge(2) : `${C1}, ${C1}`;
    return `(${[head, ...parts].join(', ')}, d >= lim ? bail() : run(ev, d + 1${names.map((t) => `, ${t}`).join('')}))`;
  }

  /** `v5 = init` for each binding of a `let` of plain names (its slots then in scope). */
  private bindings(n: Extract<Node, { kind: 'let' }>): string[] | undefined {
    const out: string[] = [];
    for (const b of n.bindings) {
      if (b.pattern.kind !== 'bind') return undefined;
      const v = this.value(b.init);
      if (v === undefined) return undefined;
      this.lets.add(b.pattern.slot);
      this.scope.add(b.pattern.slot);
      out.push(`v${b.pattern.slot} = ${v}`);
    }
    return out;
  }

  private unbind(n: Extract<Node, { kind: 'let' }>): void {
    for (const b of n.bindings) if (b.pattern.kind === 'bind' && !this.params.includes(b.pattern.slot)) this.scope.delete(b.pattern.slot);
  }

  /** Statements for `n` in tail position: `continue` after a recur, `return` of a value. */
  tail(n: Node): string | undefined {
    switch (n.kind) {
      case 'if': {
        if (!this.grow()) return undefined;
        const test = this.value(n.test);
        const then = test && this.tail(n.then);
        const els = then && this.tail(n.else);
        if (!els) return undefined;
        const t = this.temp();
        return `${C1}; ${t} = ${test}; if (${t} !== null && ${t} !== false) { ${then} } else { ${els} }`;
      }
      case 'let': {
        if (!this.grow()) return undefined;
        const binds = this.bindings(n);
        const body = binds && this.tail(n.body);
        this.unbind(n);
        return body && `${C1}; ${binds!.join('; ')}; ${body}`;
      }
      case 'do': {
        if (!this.grow()) return undefined;
        const parts: string[] = [];
        for (const x of n.body.slice(0, -1)) {
          const v = this.value(x);
          if (v === undefined) return undefined;
          parts.push(`${v};`);
        }
        const last = this.tail(n.body[n.body.length - 1]!);
        return last && `${C1}; ${parts.join(' ')} ${last}`;
      }
      case 'recur': {
        // compileRecur: one unit, the args in order, then the params rebound
        if (!this.grow() || n.args.length !== this.params.length) return undefined;
        const names: string[] = [];
        const parts: string[] = [];
        for (const a of n.args) {
          const v = this.value(a);
          if (v === undefined) return undefined;
          const t = this.temp();
          names.push(t);
          parts.push(`${t} = ${v};`);
        }
        this.recurs = true;
        return `${C1}; ${parts.join(' ')} ${this.params.map((s, i) => `v${s} = ${names[i]};`).join(' ')} continue;`;
      }
      default: {
        const v = this.value(n);
        return v && `return ${v};`;
      }
    }
  }
}

type Factory = (K: Value[], closures: Code, bail: unknown, cap: number, stats: typeof fnCodegen) => Code;

/**
 * Generated functions by source. The same source (the same fn shape, constants apart)
 * reuses one factory, so its functions share V8's feedback and optimised code: a program
 * run again, or a fn like one seen before, does not start cold. Measured (fib 25, runs of
 * one program): a new factory per run 5.6 ms, cached ...
 */
const factories = new Map<string, Factory>();
const MAX_FACTORIES = 200;

/**
 * The arity's body as one JS function behind a {@link Code} (see the module comment), or
 * undefined when it is outside the subset. `slots` are its param slots (plain names);
 * `closures` is the body compiled the usual way.
 */
export function fastFn(info: FnInfo, arity: Arity, slots: readonly number[], closures: Code): Code | undefined {
  if (!fnCodegen.enabled || arity.rest !== null) return undefined;
  const g = new Generator(info, arity, slots);
  const body = g.tail(arity.body);
  if (body === undefined) return undefined;
  const params = slots.map((s) => `v${s}`);
  const source = `
    const bail = () => { throw BAIL; };
    let lim = 0, off = false;
    function run(ev, d${params.map((p) => `, ${p}`).join('')}) {
      ${g.declarations()}
      ${g.recurs ? `for (;;) { ${body} }` : body}
    }
    return function fastFnBody(f, ev) {
      if (off) return closures(f, ev);
      const ticks = ev.ticks, base = ev.fuelBase, d = ev.depth;
      lim = ev.maxDepth < CAP ? ev.maxDepth : CAP;
      try {
        return run(ev, d${slots.map((s) => `, f[${s}]`).join('')});
      } catch (e) {
        // a value, limit or error the closures handle: they run this call again from the same fuel state
        off = true;
        stats.bailed++;
        ev.ticks = ticks;
        ev.fuelBase = base;
        return closures(f, ev);
      }
    };`;
  try {
    let factory = factories.get(source);
    if (factory === undefined) {
      if (factories.size >= MAX_FACTORIES) factories.clear();
      factory = new Function('K', 'closures', 'BAIL', 'CAP', 'stats', source) as Factory;
      factories.set(source, factory);
    }
    const code = factory(g.consts, closures, BAIL, DEPTH_CAP, fnCodegen);
    fnCodegen.compiled++;
    return code;
  } catch {
    return undefined; // a generator bug must never break a program: the closures run it
  }
}
