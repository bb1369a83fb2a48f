/**
 * Numeric loops as one JS function. A `loop` whose body uses only locals, numbers,
 * booleans, nil, `+ - * < > <= >= = == not=`, `inc`/`dec`, `if` and `recur` to this loop
 * is compiled, in addition to its closures, into a JS function that runs a whole
 * iteration without a call per node. It behaves exactly like the closures:
 *
 * - Fuel: the iteration counts the nodes it evaluates (one unit each, as the closures
 *   charge) and takes them from `ev.ticks` at its end. It runs only when more units are
 *   left before the next fuel and clock check than the longest path can use, so the
 *   closures would not have checked within it either; otherwise the closures run that
 *   iteration, and checks, exhaustion and deadlines happen exactly where they would.
 * - Values: the same arithmetic (doubles, -0 turned into 0) and comparisons on numbers.
 *   Anything else (a string where a number was expected, ...) abandons the iteration
 *   before it changed anything, and the closures run it again: same result, same error.
 *
 * The generated source holds only slot numbers, indices into the constants array and
 * names of our own variables: nothing of the program's text.
 */
import type { Node } from '../analyzer/nodes.ts';
import type { Value } from '../values.ts';
import type { Code } from './compile.ts';
import { RECUR } from './signals.ts';

/** Switch (and count of loops compiled) for tests that compare the generated code with the closures. */
export const loopCodegen = { enabled: true, compiled: 0 };

/** Bodies bigger than this stay on the closures (source size, compile time). */
const MAX_NODES = 300;
const BAIL = { bail: true };

const ARITH: Record<string, string> = { '+': '+', '-': '-', '*': '*' };
const COMPARE: Record<string, string> = { '<': '<', '>': '>', '<=': '<=', '>=': '>=', '=': '===', '==': '===', 'not=': '!==' };

class Generator {
  readonly consts: Value[] = [];
  private temps = 0;
  nodes = 0;

  constructor(private readonly slots: readonly number[]) {}

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
        return `(c++, f[${n.slot}])`;
      case 'const': {
        const v = n.value;
        if (v !== null && typeof v !== 'number' && typeof v !== 'boolean') return undefined;
        this.consts.push(v);
        return `(c++, K[${this.consts.length - 1}])`;
      }
      case 'op1': {
        const a = this.value(n.a);
        if (a === undefined) return undefined;
        const x = this.temp();
        const r = this.temp();
        return `(c++, ${x} = ${a}, typeof ${x} === 'number' ? ((${r} = ${x} ${n.op === 'inc' ? '+' : '-'} 1) === 0 ? 0 : ${r}) : bail())`;
      }
      case 'op2': {
        const a = this.value(n.a);
        const b = a === undefined ? undefined : this.value(n.b);
        if (a === undefined || b === undefined) return undefined;
        const x = this.temp();
        const y = this.temp();
        const both = `typeof ${x} === 'number' && typeof ${y} === 'number'`;
        if (ARITH[n.op]) {
          const r = this.temp();
          return `(c++, ${x} = ${a}, ${y} = ${b}, ${both} ? ((${r} = ${x} ${ARITH[n.op]} ${y}) === 0 ? 0 : ${r}) : bail())`;
        }
        return `(c++, ${x} = ${a}, ${y} = ${b}, ${both} ? ${x} ${COMPARE[n.op]} ${y} : bail())`;
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
      const assign = this.slots.map((s, i) => `f[${s}] = ${names[i]};`).join(' ');
      return `c++; ${compute} ev.ticks -= c; ${assign} continue;`;
    }
    const v = this.value(n);
    if (v === undefined) return undefined;
    const r = this.temp();
    return `${r} = ${v}; ev.ticks -= c; return ${r};`;
  }
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
  const source = `
    const bail = () => { throw BAIL; };
    return function fastLoop(f, ev) {
      ${g.declarations()}
      for (;;) {
        if (ev.ticks <= ${max}) {
          const r = closures(f, ev);
          if (r !== RECUR) return r;
          continue;
        }
        c = 0;
        try {
          ${tail}
        } catch (e) {
          if (e !== BAIL) throw e;
          const r = closures(f, ev);
          if (r !== RECUR) return r;
        }
      }
    };`;
  try {
    const code = new Function('K', 'closures', 'RECUR', 'BAIL', source)(g.consts, closures, RECUR, BAIL) as Code;
    loopCodegen.compiled++;
    return code;
  } catch {
    return undefined; // a generator bug must never break a program: the closures run it
  }
}
