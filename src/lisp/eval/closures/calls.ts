/**
 * Compiled call sites: calls of fn values (closures without an argument array), of core
 * functions, and `recur`. Operands are compiled by the `compile` handed in (compile.ts's).
 */
import type { Node } from '../../analyzer/nodes.ts';
import { PtcError } from '../../errors.ts';
import { type Value, isFn } from '../../values.ts';
import { isClosure } from '../closure.ts';
import { RECUR } from '../signals.ts';
import { destructure } from '../destructure.ts';
import { type Code, type Compile, type RecurTarget, evAll } from './code.ts';

const compileAll = (compile: Compile, nodes: Node[]): Code[] => nodes.map((n) => compile(n, null));

export function compileCall(n: Extract<Node, { kind: 'call' }>, compile: Compile): Code {
  const fc = compile(n.fn, null);
  const args = compileAll(compile, n.args);
  const span = n.span;
  const fnName = (fn: Value): string | undefined => (isFn(fn) ? fn.name : undefined);
  // Closures are called without an argument array (call0/call1/call2), and a local
  // function (self-recursion, let-bound fns) is read from its slot with the node's fuel,
  // one closure call less; errors are located as applyAt does. These arity-specialised
  // blocks are what makes calls cheap: without the local ones fib 25 goes 7.9 -> 9.6 ms.
  if (n.fn.kind === 'local' && (args.length === 1 || args.length === 2)) {
    // a local function (self-recursion, let-bound fns): the node and the local charged at once
    const slot = n.fn.slot;
    const a0 = args[0]!;
    if (args.length === 1) {
      return (f, ev) => {
        if ((ev.ticks -= 2) <= 0) ev.slowCheck();
        const fn = f[slot]!;
        const x = a0(f, ev);
        try {
          return isClosure(fn) ? ev.call1(fn, x) : ev.apply(fn, [x]);
        } catch (e) {
          throw ev.toPtcError(e, span, fnName(fn), [x]);
        }
      };
    }
    const a1 = args[1]!;
    return (f, ev) => {
      if ((ev.ticks -= 2) <= 0) ev.slowCheck();
      const fn = f[slot]!;
      const x = a0(f, ev);
      const y = a1(f, ev);
      try {
        return isClosure(fn) ? ev.call2(fn, x, y) : ev.apply(fn, [x, y]);
      } catch (e) {
        throw ev.toPtcError(e, span, fnName(fn), [x, y]);
      }
    };
  }
  switch (args.length) {
    case 0:
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const fn = fc(f, ev);
        try {
          return isClosure(fn) ? ev.call0(fn) : ev.apply(fn, []);
        } catch (e) {
          throw ev.toPtcError(e, span, fnName(fn), []);
        }
      };
    case 1: {
      const a0 = args[0]!;
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const fn = fc(f, ev);
        const x = a0(f, ev);
        try {
          return isClosure(fn) ? ev.call1(fn, x) : ev.apply(fn, [x]);
        } catch (e) {
          throw ev.toPtcError(e, span, fnName(fn), [x]);
        }
      };
    }
    case 2: {
      const a0 = args[0]!;
      const a1 = args[1]!;
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const fn = fc(f, ev);
        const x = a0(f, ev);
        const y = a1(f, ev);
        try {
          return isClosure(fn) ? ev.call2(fn, x, y) : ev.apply(fn, [x, y]);
        } catch (e) {
          throw ev.toPtcError(e, span, fnName(fn), [x, y]);
        }
      };
    }
    default:
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const fn = fc(f, ev);
        return ev.applyAt(fn, evAll(args, f, ev), span);
      };
  }
}

export function compileCallCore(n: Extract<Node, { kind: 'callCore' }>, compile: Compile): Code {
  const shaped = callCoreShaped(n, compile);
  if (shaped !== undefined) return shaped;
  const args = compileAll(compile, n.args);
  const { span, name } = n;
  const { fn, call1, call2, call3 } = n.core;
  // a core function's fixed-arity form: the same charge, order of evaluation and errors,
  // without the argument array
  if (args.length === 1 && call1) {
    const a0 = args[0]!;
    return (f, ev) => {
      if (--ev.ticks <= 0) ev.slowCheck();
      const x = a0(f, ev);
      try {
        return call1(x, ev);
      } catch (e) {
        throw ev.toPtcError(e, span, name, [x]);
      }
    };
  }
  if (args.length === 2 && call2) {
    const a0 = args[0]!;
    const a1 = args[1]!;
    return (f, ev) => {
      if (--ev.ticks <= 0) ev.slowCheck();
      const x = a0(f, ev);
      const y = a1(f, ev);
      try {
        return call2(x, y, ev);
      } catch (e) {
        throw ev.toPtcError(e, span, name, [x, y]);
      }
    };
  }
  if (args.length === 3 && call3) {
    const a0 = args[0]!;
    const a1 = args[1]!;
    const a2 = args[2]!;
    return (f, ev) => {
      if (--ev.ticks <= 0) ev.slowCheck();
      const x = a0(f, ev);
      const y = a1(f, ev);
      const z = a2(f, ev);
      try {
        return call3(x, y, z, ev);
      } catch (e) {
        throw ev.toPtcError(e, span, name, [x, y, z]);
      }
    };
  }
  return (f, ev) => {
    if (--ev.ticks <= 0) ev.slowCheck();
    const av = evAll(args, f, ev);
    try {
      return fn(av, ev);
    } catch (e) {
      throw ev.toPtcError(e, span, name, av);
    }
  };
}

/**
 * A fixed-arity core call whose arguments are a local and a constant, or a node and a
 * constant (`(mod i 7)`, `(quot (* i i) 3)`), or one local (`(even? n)`): the locals and
 * constants read without their closures, charged where theirs would charge (leading ones
 * with the call), the same errors.
 */
function callCoreShaped(n: Extract<Node, { kind: 'callCore' }>, compile: Compile): Code | undefined {
  const { span, name, args } = n;
  const { call1, call2 } = n.core;
  const [a0, a1] = args;
  if (args.length === 1 && call1 && a0!.kind === 'local') {
    const slot = a0!.slot;
    return (f, ev) => {
      if ((ev.ticks -= 2) <= 0) ev.slowCheck();
      const x = f[slot]!;
      try {
        return call1(x, ev);
      } catch (e) {
        throw ev.toPtcError(e, span, name, [x]);
      }
    };
  }
  if (args.length !== 2 || !call2 || a1!.kind !== 'const') return undefined;
  const y = a1!.value;
  if (a0!.kind === 'local') {
    const slot = a0!.slot;
    return (f, ev) => {
      if ((ev.ticks -= 3) <= 0) ev.slowCheck();
      const x = f[slot]!;
      try {
        return call2(x, y, ev);
      } catch (e) {
        throw ev.toPtcError(e, span, name, [x, y]);
      }
    };
  }
  const c0 = compile(a0!, null);
  return (f, ev) => {
    if (--ev.ticks <= 0) ev.slowCheck();
    const x = c0(f, ev);
    if (--ev.ticks <= 0) ev.slowCheck();
    try {
      return call2(x, y, ev);
    } catch (e) {
      throw ev.toPtcError(e, span, name, [x, y]);
    }
  };
}

export function compileRecur(n: Extract<Node, { kind: 'recur' }>, rt: RecurTarget | null, compile: Compile): Code {
  if (rt === null) throw new PtcError('invalid_form', 'recur can only be used inside loop or fn', n.span);
  const args = compileAll(compile, n.args);
  const { params, rest } = rt;
  const np = params.length;
  if (rest === null && np === args.length && params.every((p) => p.kind === 'bind')) {
    const slots = params.map((p) => (p as { slot: number }).slot);
    // Specialised for 1-3 plain params: no argument array per iteration. The generic
    // path for these (evAll + a copy loop) made the 1e6-iteration loop/recur bench
    // 18.2 -> 34.8 ms.
    switch (np) {
      case 1: {
        const a0 = args[0]!;
        const s0 = slots[0]!;
        return (f, ev) => {
          if (--ev.ticks <= 0) ev.slowCheck();
          f[s0] = a0(f, ev);
          return RECUR;
        };
      }
      case 2: {
        const a0 = args[0]!;
        const a1 = args[1]!;
        const s0 = slots[0]!;
        const s1 = slots[1]!;
        return (f, ev) => {
          if (--ev.ticks <= 0) ev.slowCheck();
          const x = a0(f, ev);
          const y = a1(f, ev);
          f[s0] = x;
          f[s1] = y;
          return RECUR;
        };
      }
      case 3: {
        const a0 = args[0]!;
        const a1 = args[1]!;
        const a2 = args[2]!;
        const s0 = slots[0]!;
        const s1 = slots[1]!;
        const s2 = slots[2]!;
        return (f, ev) => {
          if (--ev.ticks <= 0) ev.slowCheck();
          const x = a0(f, ev);
          const y = a1(f, ev);
          const z = a2(f, ev);
          f[s0] = x;
          f[s1] = y;
          f[s2] = z;
          return RECUR;
        };
      }
    }
  }
  return (f, ev) => {
    if (--ev.ticks <= 0) ev.slowCheck();
    const ra = evAll(args, f, ev);
    for (let i = 0; i < np; i++) {
      const p = params[i]!;
      if (p.kind === 'bind') f[p.slot] = ra[i]!;
      else destructure(p, ra[i]!, f, ev);
    }
    if (rest) destructure(rest, ra[np]!, f, ev);
    return RECUR;
  };
}
