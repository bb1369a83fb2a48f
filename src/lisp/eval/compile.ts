/**
 * Closure compilation: every analyzed {@link Node} becomes a JS closure
 * `(frame, evaluator) => value`, built once per program (and cached, so re-executions
 * after a suspension reuse it). Evaluating a node is then one indirect call instead of a
 * `switch` on `node.kind` over objects of many shapes.
 *
 * The compiled code behaves exactly like the node it came from, fuel included: every
 * node charges one unit when it starts. A node whose leading operands are locals or
 * constants (which cannot fail and have no effects) charges for them together with
 * itself, so the fuel used, the point where fuel runs out and `budget/remaining` are
 * unchanged.
 *
 * `recur` evaluates its arguments, rebinds the enclosing loop's (or fn arity's) locals
 * in place and returns {@link RECUR}; the loop or fn then runs its body again. No
 * exception and no argument array per iteration.
 * @module
 */
import type { Binding, CatchClause, FnInfo, ForClause, Node, Op2, Pattern, Program } from '../analyzer/nodes.ts';
import { NIL_KEY } from '../analyzer/nodes.ts';
import type { Span } from '../form.ts';
import { PtcError } from '../errors.ts';
import { getIn1, mapGet } from '../lookup.ts';
import { formatNumber, prStr } from '../printer/index.ts';
import {
  LazySeq,
  PList,
  type PMap,
  type Value,
  equals,
  isMap,
  isSequential,
  isVector,
  kw,
  map as pmap,
  seqable,
  set as pset,
  typeName,
  vec,
  isFn,
  isKeyword,
  isSymbol,
  isLazySeq,
  isPList,
} from '../values.ts';
import { allOf, anyOf, noneOf, whereFn } from '../core/query.ts';
import type { CoreFn } from '../core/registry.ts';
import { exInfo } from './builtins.ts';
import { Closure, VarRef, isClosure } from './closure.ts';
import type { Evaluator } from './index.ts';
import { FailSignal, MISSING, RECUR, ReturnSignal, SUSPEND, ThrowSignal } from './signals.ts';
import { fastLoop } from './loop-codegen.ts';
import { compileLater } from './fn-codegen.ts';

/** A compiled node. */
export type Code = (f: Value[], ev: Evaluator) => Value;

/** A compiled binding pattern: {@link Pattern} with compiled `:or` defaults. */
export type CPattern =
  | { kind: 'bind'; slot: number }
  | { kind: 'seq'; items: CPattern[]; rest: CPattern | null; as: number; span: Span }
  | { kind: 'map'; entries: CMapEntry[]; as: number; span: Span };

interface CMapEntry {
  key: Value;
  pattern: CPattern;
  default: Code | null;
}

interface CBinding {
  pattern: CPattern;
  init: Code;
}

/** A compiled fn arity. */
export interface CArity {
  fixed: number;
  params: CPattern[];
  rest: CPattern | null;
  /** every param is a plain name (no destructuring) */
  simple: boolean;
  /** param slots when {@link simple} */
  slots: number[];
  body: Code;
}

/** A compiled `fn`; its closures share it. */
export interface CFn {
  info: FnInfo;
  byCount: (CArity | undefined)[];
  variadic: CArity | null;
}

type CForClause =
  | { kind: 'bind'; pattern: CPattern; coll: Code; span: Span }
  | { kind: 'let'; bindings: CBinding[] }
  | { kind: 'when'; test: Code }
  | { kind: 'while'; test: Code };

/** What a `recur` rebinds: the params of a fn arity or the bindings of a loop. */
interface RecurTarget {
  params: CPattern[];
  rest: CPattern | null;
}

const K_FUEL = kw('fuel');
const K_TOOL_CALLS = kw('tool-calls');
const K_TYPE = kw('type');

const compiled = new WeakMap<Program, Code>();

/** The compiled body of a program (compiled on first use). */
export function programCode(p: Program): Code {
  let c = compiled.get(p);
  if (c === undefined) {
    c = compile(p.body, null);
    compiled.set(p, c);
  }
  return c;
}

// ---------------------------------------------------------------- the compiler

function compileAll(nodes: Node[], rt: RecurTarget | null): Code[] {
  return nodes.map((n) => compile(n, rt));
}

function evAll(codes: Code[], f: Value[], ev: Evaluator): Value[] {
  const n = codes.length;
  const out: Value[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = codes[i]!(f, ev);
  return out;
}

function compilePattern(p: Pattern): CPattern {
  switch (p.kind) {
    case 'bind':
      return { kind: 'bind', slot: p.slot };
    case 'seq':
      return { kind: 'seq', items: p.items.map(compilePattern), rest: p.rest ? compilePattern(p.rest) : null, as: p.as, span: p.span };
    case 'map':
      return {
        kind: 'map',
        entries: p.entries.map((e) => ({ key: e.key, pattern: compilePattern(e.pattern), default: e.default ? compile(e.default, null) : null })),
        as: p.as,
        span: p.span,
      };
  }
}

function compileBindings(bs: Binding[], rt: RecurTarget | null): CBinding[] {
  return bs.map((b) => ({ pattern: compilePattern(b.pattern), init: compile(b.init, rt) }));
}

function bindAll(bs: CBinding[], f: Value[], ev: Evaluator): void {
  for (let i = 0; i < bs.length; i++) {
    const b = bs[i]!;
    const v = b.init(f, ev);
    const p = b.pattern;
    if (p.kind === 'bind') f[p.slot] = v;
    else destructure(p, v, f, ev);
  }
}

/** Compiles one fn (all its arities). */
export function compileFn(info: FnInfo): CFn {
  const arity = (a: FnInfo['arities'][number]): CArity => {
    const params = a.params.map(compilePattern);
    const rest = a.rest ? compilePattern(a.rest) : null;
    const simple = params.every((p) => p.kind === 'bind');
    const slots = simple ? params.map((p) => (p as { slot: number }).slot) : [];
    const ar: CArity = { fixed: a.fixed, params, rest, simple, slots, body: compile(a.body, { params, rest }) };
    // numeric (self-recursive) fns run as one JS function once called often (fn-codegen.ts), exactly like the closures
    if (simple && rest === null) compileLater(info, a, ar);
    return ar;
  };
  const byArity = new Map(info.arities.map((a) => [a, arity(a)]));
  return {
    info,
    byCount: info.byCount.map((a) => (a === undefined ? undefined : byArity.get(a))),
    variadic: info.variadic ? byArity.get(info.variadic)! : null,
  };
}

function makeClosure(cf: CFn, f: Value[]): Closure {
  const caps = cf.info.captures;
  const captured: Value[] = new Array(caps.length);
  for (let i = 0; i < caps.length; i++) captured[i] = f[caps[i]!.outer]!;
  return new Closure(cf.info, captured, cf);
}

/** Compiles a node; `rt` is what a `recur` in tail position rebinds. */
export function compile(n: Node, rt: RecurTarget | null): Code {
  switch (n.kind) {
    case 'local': {
      const slot = n.slot;
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        return f[slot]!;
      };
    }
    case 'const': {
      const value = n.value;
      return (_f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        return value;
      };
    }
    case 'op2':
      return compileOp2(n);
    case 'op1':
      return compileOp1(n);
    case 'if': {
      const test = compile(n.test, rt);
      const then = compile(n.then, rt);
      const els = compile(n.else, rt);
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const t = test(f, ev);
        return t !== null && t !== false ? then(f, ev) : els(f, ev);
      };
    }
    case 'recur':
      return compileRecur(n, rt);
    case 'callCore':
      return compileCallCore(n);
    case 'call':
      return compileCall(n);
    case 'callKw': {
      const key = n.key;
      const m0 = n.args[0]!;
      if (n.args.length === 1 && m0.kind === 'local') {
        const slot = m0.slot;
        return (f, ev) => {
          if ((ev.ticks -= 2) <= 0) ev.slowCheck();
          return getIn1(f[slot]!, key, null);
        };
      }
      const mc = compile(m0, rt);
      const dc = n.args.length > 1 ? compile(n.args[1]!, rt) : null;
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const m = mc(f, ev);
        return getIn1(m, key, dc !== null ? dc(f, ev) : null);
      };
    }
    case 'let': {
      const bs = compileBindings(n.bindings, rt);
      const body = compile(n.body, rt);
      if (bs.length === 1 && bs[0]!.pattern.kind === 'bind') {
        const slot = bs[0]!.pattern.slot;
        const init = bs[0]!.init;
        return (f, ev) => {
          if (--ev.ticks <= 0) ev.slowCheck();
          f[slot] = init(f, ev);
          return body(f, ev);
        };
      }
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        bindAll(bs, f, ev);
        return body(f, ev);
      };
    }
    case 'do': {
      const body = n.body.map((x, i) => compile(x, i === n.body.length - 1 ? rt : null));
      const last = body.length - 1;
      const tail = body[last]!;
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        for (let i = 0; i < last; i++) body[i]!(f, ev);
        return tail(f, ev);
      };
    }
    case 'loop': {
      const bs = compileBindings(n.bindings, rt);
      const body = compile(n.body, { params: bs.map((b) => b.pattern), rest: null });
      const plain = bs.every((b) => b.pattern.kind === 'bind');
      // numeric loops run as one JS function per iteration (loop-codegen.ts), exactly like the closures
      const fast = plain ? fastLoop(n.body, bs.map((b) => (b.pattern as { slot: number }).slot), body) : undefined;
      if (fast) {
        return (f, ev) => {
          if (--ev.ticks <= 0) ev.slowCheck();
          bindAll(bs, f, ev);
          return fast(f, ev);
        };
      }
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        bindAll(bs, f, ev);
        for (;;) {
          const r = body(f, ev);
          if (r !== RECUR) return r;
        }
      };
    }
    case 'global': {
      const { name, orNil, span } = n;
      return (_f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const v = ev.namespace.get(name);
        if (v !== undefined) return v;
        if (orNil) return null;
        throw new PtcError('unbound_var', `Undefined variable: ${name}`, span);
      };
    }
    case 'and': {
      const items = compileAll(n.items, rt);
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        let v: Value = true;
        for (let i = 0; i < items.length; i++) {
          v = items[i]!(f, ev);
          if (v === null || v === false) return v;
        }
        return v;
      };
    }
    case 'or': {
      const items = compileAll(n.items, rt);
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        let v: Value = null;
        for (let i = 0; i < items.length; i++) {
          v = items[i]!(f, ev);
          if (v !== null && v !== false) return v;
        }
        return v;
      };
    }
    case 'fn': {
      const cf = compileFn(n.fn);
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        return makeClosure(cf, f);
      };
    }
    case 'vector': {
      const items = compileAll(n.items, rt);
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        return vec(evAll(items, f, ev));
      };
    }
    case 'map': {
      const items = compileAll(n.items, rt);
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const vs = evAll(items, f, ev);
        const entries: [Value, Value][] = [];
        for (let i = 0; i < vs.length; i += 2) entries.push([vs[i]!, vs[i + 1]!]);
        return pmap(entries);
      };
    }
    case 'set': {
      const items = compileAll(n.items, rt);
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        return pset(evAll(items, f, ev));
      };
    }
    case 'ifLet': {
      const init = compile(n.init, rt);
      const pattern = compilePattern(n.pattern);
      const then = compile(n.then, rt);
      const els = compile(n.else, rt);
      const some = n.some;
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const v = init(f, ev);
        if (some ? v === null : v === null || v === false) return els(f, ev);
        destructure(pattern, v, f, ev);
        return then(f, ev);
      };
    }
    case 'case': {
      const test = compile(n.test, rt);
      const table = n.table;
      const others = n.others;
      const results = compileAll(n.results, rt);
      const def = n.default ? compile(n.default, rt) : null;
      const span = n.span;
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const v = test(f, ev);
        let idx: number | undefined;
        if (v === null) idx = table.get(NIL_KEY);
        else if (typeof v !== 'object' || isKeyword(v) || isSymbol(v)) idx = table.get(v);
        else
          for (const o of others)
            if (equals(o.value, v)) {
              idx = o.index;
              break;
            }
        if (idx !== undefined) return results[idx]!(f, ev);
        if (def) return def(f, ev);
        throw new PtcError('type_error', `case: no clause matches ${prStr(v)}`, span, 'add a default expression as the last form of case');
      };
    }
    case 'condp': {
      const predc = compile(n.pred, rt);
      const exprc = compile(n.expr, rt);
      const clauses = n.clauses.map((c) => ({ test: compile(c.test, rt), result: compile(c.result, c.arrow ? null : rt), arrow: c.arrow }));
      const def = n.default ? compile(n.default, rt) : null;
      const span = n.span;
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const pred = predc(f, ev);
        const expr = exprc(f, ev);
        for (const c of clauses) {
          const r = ev.applyAt(pred, [c.test(f, ev), expr], span);
          if (r !== null && r !== false) return c.arrow ? ev.applyAt(c.result(f, ev), [r], span) : c.result(f, ev);
        }
        if (def) return def(f, ev);
        throw new PtcError('type_error', `condp: no clause matches ${prStr(expr)}`, span, 'add a default expression as the last form of condp');
      };
    }
    case 'for': {
      const clauses = n.clauses.map(compileForClause);
      const body = compile(n.body, rt);
      const collect = n.collect;
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const out: Value[] = [];
        forClause(ev, clauses, 0, body, collect ? out : null, f);
        return collect ? new PList(vec(out)) : null;
      };
    }
    case 'dotimes': {
      const countc = compile(n.count, rt);
      const body = compile(n.body, rt);
      const { slot, span } = n;
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const count = countc(f, ev);
        if (typeof count !== 'number') throw new PtcError('type_error', `dotimes: expected a number, got ${typeName(count)}`, span);
        for (let i = 0; i < count; i++) {
          f[slot] = i;
          body(f, ev);
        }
        return null;
      };
    }
    case 'tool': {
      const args = compileAll(n.args, rt);
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        return ev.tool(n, args, f);
      };
    }
    case 'task': {
      const id = compile(n.id, rt);
      const body = compile(n.body, rt);
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        return ev.task(n, id, body, f);
      };
    }
    case 'var': {
      const name = n.name;
      return (_f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        return new VarRef(name);
      };
    }
    case 'history': {
      const index = n.index;
      return (_f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        return ev.history[index] ?? null;
      };
    }
    case 'data': {
      const { name, span } = n;
      return (_f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        return ev.data(name, span);
      };
    }
    case 'budget':
      return (_f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const max = ev.maxToolCalls;
        return pmap([
          [K_FUEL, Math.max(ev.fuelLeft, 0)],
          [K_TOOL_CALLS, Number.isFinite(max) ? Math.max(max - ev.toolCount, 0) : null],
        ]);
      };
    case 'letfn': {
      const cfns = n.fns.map(compileFn);
      const slots = n.slots;
      const body = compile(n.body, rt);
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const made = cfns.map((cf, i) => {
          const c = makeClosure(cf, f);
          f[slots[i]!] = c;
          return c;
        });
        for (const c of made) c.captured = c.info.captures.map((cap) => f[cap.outer]!);
        return body(f, ev);
      };
    }
    case 'def': {
      const { name, once } = n;
      const value = n.value === null ? null : compile(n.value, rt);
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        if (once && ev.namespace.has(name)) return new VarRef(name);
        const v = value === null ? null : value(f, ev);
        ev.namespace.set(name, v);
        return new VarRef(name);
      };
    }
    case 'where': {
      const { field, op, span } = n;
      const value = n.value === null ? null : compile(n.value, rt);
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        try {
          return whereFn(field, op, value === null ? null : value(f, ev));
        } catch (e) {
          throw ev.toPtcError(e, span, 'where');
        }
      };
    }
    case 'combine': {
      const preds = compileAll(n.preds, rt);
      const mode = n.mode;
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const ps = evAll(preds, f, ev);
        return mode === 'all' ? allOf(ps) : mode === 'any' ? anyOf(ps) : noneOf(ps);
      };
    }
    case 'pmap': {
      const fnc = compile(n.fn, rt);
      const collc = compile(n.coll, rt);
      const span = n.span;
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const fn = fnc(f, ev);
        const coll = collc(f, ev);
        const items = ev.items('pmap', coll, span);
        return new PList(vec(ev.parallel(items.length, (i) => ev.applyAt(fn, [items[i]!], span))));
      };
    }
    case 'pcalls': {
      const fnsc = compileAll(n.fns, rt);
      const span = n.span;
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const fns = evAll(fnsc, f, ev);
        return new PList(vec(ev.parallel(fns.length, (i) => ev.applyAt(fns[i]!, [], span))));
      };
    }
    case 'return':
    case 'fail': {
      const value = compile(n.value, rt);
      const Signal = n.kind === 'return' ? ReturnSignal : FailSignal;
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        throw new Signal(value(f, ev));
      };
    }
    case 'stepDone': {
      const idc = compile(n.id, rt);
      const summaryc = compile(n.summary, rt);
      const span = n.span;
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const id = stepString('step-done', 'id', idc(f, ev), span);
        const summary = stepString('step-done', 'summary', summaryc(f, ev), span);
        ev.summaries.set(id, summary);
        return summary;
      };
    }
    case 'taskReset': {
      const idc = compile(n.id, rt);
      const span = n.span;
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const id = stepString('task-reset', 'id', idc(f, ev), span);
        ev.resetTask(id);
        return null;
      };
    }
    case 'try': {
      const body = compile(n.body, rt);
      const catches = n.catches.map((c) => ({ match: c.match, slot: c.slot, body: compile(c.body, rt) }));
      const fin = n.finally ? compile(n.finally, rt) : null;
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        return tryNode(body, catches, fin, f, ev);
      };
    }
    case 'throw': {
      const value = compile(n.value, rt);
      const span = n.span;
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const v = value(f, ev);
        if (isMap(v)) throw new ThrowSignal(v, span);
        if (typeof v === 'string') throw new ThrowSignal(exInfo(v, pmap()), span);
        throw new PtcError('type_error', `throw expects an exception made with ex-info, got ${typeName(v)}`, span, '(throw (ex-info "message" {:key value}))');
      };
    }
  }
}

// ---------------------------------------------------------------- calls

function compileCall(n: Extract<Node, { kind: 'call' }>): Code {
  const fc = compile(n.fn, null);
  const args = compileAll(n.args, null);
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

function compileCallCore(n: Extract<Node, { kind: 'callCore' }>): Code {
  const args = compileAll(n.args, null);
  const { span, name } = n;
  const fn = n.core.fn;
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

function compileRecur(n: Extract<Node, { kind: 'recur' }>, rt: RecurTarget | null): Code {
  if (rt === null) throw new PtcError('invalid_form', 'recur can only be used inside loop or fn', n.span);
  const args = compileAll(n.args, null);
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

// ---------------------------------------------------------------- arithmetic fast paths

type Slow = (av: Value[], ev: Evaluator) => Value;

/** The core function, for arguments that are not all numbers (errors located at the call). */
function slowPath(core: CoreFn, span: Span, name: string): Slow {
  const fn = core.fn;
  return (av, ev) => {
    try {
      return fn(av, ev);
    } catch (e) {
      throw ev.toPtcError(e, span, name, av);
    }
  };
}

function compileOp1(n: Extract<Node, { kind: 'op1' }>): Code {
  const slow = slowPath(n.core, n.span, n.name);
  const d = n.op === 'inc' ? 1 : -1;
  if (n.a.kind === 'local') {
    const slot = n.a.slot;
    return (f, ev) => {
      if ((ev.ticks -= 2) <= 0) ev.slowCheck();
      const a = f[slot]!;
      if (typeof a === 'number') {
        const r = a + d;
        return r === 0 ? 0 : r;
      }
      return slow([a], ev);
    };
  }
  const ca = compile(n.a, null);
  return (f, ev) => {
    if (--ev.ticks <= 0) ev.slowCheck();
    const a = ca(f, ev);
    if (typeof a === 'number') {
      const r = a + d;
      return r === 0 ? 0 : r;
    }
    return slow([a], ev);
  };
}

function compileOp2(n: Extract<Node, { kind: 'op2' }>): Code {
  const slow = slowPath(n.core, n.span, n.name);
  const { a, b, op } = n;
  if (a.kind === 'local' && b.kind === 'const' && typeof b.value === 'number') return op2LocalNum(op, a.slot, b.value, slow);
  if (a.kind === 'local' && b.kind === 'local') return op2LocalLocal(op, a.slot, b.slot, slow);
  return op2Generic(op, compile(a, null), compile(b, null), slow);
}

// One literal closure per operator and operand shape, so each is optimised for its own
// operation: V8 shares optimised code and call feedback between closures of one literal,
// so a table of operator functions called from one shared closure makes that call
// polymorphic and not inlined. Measured (npm run bench -- lisp, median): with a table,
// 1e6-iteration loop/recur 18.3 -> 24.6 ms, fib 25 7.8 -> 10.1 ms.

function op2Generic(op: Op2, ca: Code, cb: Code, slow: Slow): Code {
  switch (op) {
    case '+':
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const a = ca(f, ev);
        const b = cb(f, ev);
        if (typeof a === 'number' && typeof b === 'number') {
          const r = a + b;
          return r === 0 ? 0 : r;
        }
        return slow([a, b], ev);
      };
    case '-':
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const a = ca(f, ev);
        const b = cb(f, ev);
        if (typeof a === 'number' && typeof b === 'number') {
          const r = a - b;
          return r === 0 ? 0 : r;
        }
        return slow([a, b], ev);
      };
    case '*':
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const a = ca(f, ev);
        const b = cb(f, ev);
        if (typeof a === 'number' && typeof b === 'number') {
          const r = a * b;
          return r === 0 ? 0 : r;
        }
        return slow([a, b], ev);
      };
    case '<':
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const a = ca(f, ev);
        const b = cb(f, ev);
        if (typeof a === 'number' && typeof b === 'number') return a < b;
        return slow([a, b], ev);
      };
    case '>':
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const a = ca(f, ev);
        const b = cb(f, ev);
        if (typeof a === 'number' && typeof b === 'number') return a > b;
        return slow([a, b], ev);
      };
    case '<=':
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const a = ca(f, ev);
        const b = cb(f, ev);
        if (typeof a === 'number' && typeof b === 'number') return a <= b;
        return slow([a, b], ev);
      };
    case '>=':
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const a = ca(f, ev);
        const b = cb(f, ev);
        if (typeof a === 'number' && typeof b === 'number') return a >= b;
        return slow([a, b], ev);
      };
    case '=':
    case '==':
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const a = ca(f, ev);
        const b = cb(f, ev);
        if (typeof a === 'number' && typeof b === 'number') return a === b;
        return slow([a, b], ev);
      };
    case 'not=':
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const a = ca(f, ev);
        const b = cb(f, ev);
        if (typeof a === 'number' && typeof b === 'number') return a !== b;
        return slow([a, b], ev);
      };
  }
}

/** `(op local 123)`: the node and both operands charged at once (3 units). */
function op2LocalNum(op: Op2, s: number, b: number, slow: Slow): Code {
  switch (op) {
    case '+':
      return (f, ev) => {
        if ((ev.ticks -= 3) <= 0) ev.slowCheck();
        const a = f[s]!;
        if (typeof a === 'number') {
          const r = a + b;
          return r === 0 ? 0 : r;
        }
        return slow([a, b], ev);
      };
    case '-':
      return (f, ev) => {
        if ((ev.ticks -= 3) <= 0) ev.slowCheck();
        const a = f[s]!;
        if (typeof a === 'number') {
          const r = a - b;
          return r === 0 ? 0 : r;
        }
        return slow([a, b], ev);
      };
    case '*':
      return (f, ev) => {
        if ((ev.ticks -= 3) <= 0) ev.slowCheck();
        const a = f[s]!;
        if (typeof a === 'number') {
          const r = a * b;
          return r === 0 ? 0 : r;
        }
        return slow([a, b], ev);
      };
    case '<':
      return (f, ev) => {
        if ((ev.ticks -= 3) <= 0) ev.slowCheck();
        const a = f[s]!;
        return typeof a === 'number' ? a < b : slow([a, b], ev);
      };
    case '>':
      return (f, ev) => {
        if ((ev.ticks -= 3) <= 0) ev.slowCheck();
        const a = f[s]!;
        return typeof a === 'number' ? a > b : slow([a, b], ev);
      };
    case '<=':
      return (f, ev) => {
        if ((ev.ticks -= 3) <= 0) ev.slowCheck();
        const a = f[s]!;
        return typeof a === 'number' ? a <= b : slow([a, b], ev);
      };
    case '>=':
      return (f, ev) => {
        if ((ev.ticks -= 3) <= 0) ev.slowCheck();
        const a = f[s]!;
        return typeof a === 'number' ? a >= b : slow([a, b], ev);
      };
    case '=':
    case '==':
      return (f, ev) => {
        if ((ev.ticks -= 3) <= 0) ev.slowCheck();
        const a = f[s]!;
        return typeof a === 'number' ? a === b : slow([a, b], ev);
      };
    case 'not=':
      return (f, ev) => {
        if ((ev.ticks -= 3) <= 0) ev.slowCheck();
        const a = f[s]!;
        return typeof a === 'number' ? a !== b : slow([a, b], ev);
      };
  }
}

/** `(op local local)`: 3 units at once. */
function op2LocalLocal(op: Op2, sa: number, sb: number, slow: Slow): Code {
  switch (op) {
    case '+':
      return (f, ev) => {
        if ((ev.ticks -= 3) <= 0) ev.slowCheck();
        const a = f[sa]!;
        const b = f[sb]!;
        if (typeof a === 'number' && typeof b === 'number') {
          const r = a + b;
          return r === 0 ? 0 : r;
        }
        return slow([a, b], ev);
      };
    case '-':
      return (f, ev) => {
        if ((ev.ticks -= 3) <= 0) ev.slowCheck();
        const a = f[sa]!;
        const b = f[sb]!;
        if (typeof a === 'number' && typeof b === 'number') {
          const r = a - b;
          return r === 0 ? 0 : r;
        }
        return slow([a, b], ev);
      };
    case '*':
      return (f, ev) => {
        if ((ev.ticks -= 3) <= 0) ev.slowCheck();
        const a = f[sa]!;
        const b = f[sb]!;
        if (typeof a === 'number' && typeof b === 'number') {
          const r = a * b;
          return r === 0 ? 0 : r;
        }
        return slow([a, b], ev);
      };
    case '<':
      return (f, ev) => {
        if ((ev.ticks -= 3) <= 0) ev.slowCheck();
        const a = f[sa]!;
        const b = f[sb]!;
        return typeof a === 'number' && typeof b === 'number' ? a < b : slow([a, b], ev);
      };
    case '>':
      return (f, ev) => {
        if ((ev.ticks -= 3) <= 0) ev.slowCheck();
        const a = f[sa]!;
        const b = f[sb]!;
        return typeof a === 'number' && typeof b === 'number' ? a > b : slow([a, b], ev);
      };
    case '<=':
      return (f, ev) => {
        if ((ev.ticks -= 3) <= 0) ev.slowCheck();
        const a = f[sa]!;
        const b = f[sb]!;
        return typeof a === 'number' && typeof b === 'number' ? a <= b : slow([a, b], ev);
      };
    case '>=':
      return (f, ev) => {
        if ((ev.ticks -= 3) <= 0) ev.slowCheck();
        const a = f[sa]!;
        const b = f[sb]!;
        return typeof a === 'number' && typeof b === 'number' ? a >= b : slow([a, b], ev);
      };
    case '=':
    case '==':
      return (f, ev) => {
        if ((ev.ticks -= 3) <= 0) ev.slowCheck();
        const a = f[sa]!;
        const b = f[sb]!;
        return typeof a === 'number' && typeof b === 'number' ? a === b : slow([a, b], ev);
      };
    case 'not=':
      return (f, ev) => {
        if ((ev.ticks -= 3) <= 0) ev.slowCheck();
        const a = f[sa]!;
        const b = f[sb]!;
        return typeof a === 'number' && typeof b === 'number' ? a !== b : slow([a, b], ev);
      };
  }
}

// ---------------------------------------------------------------- destructuring

export function destructure(p: CPattern, v: Value, f: Value[], ev: Evaluator): void {
  switch (p.kind) {
    case 'bind':
      f[p.slot] = v;
      return;
    case 'seq': {
      if (p.as >= 0) f[p.as] = v;
      const items = p.items;
      if (v === null) {
        for (const it of items) destructure(it, null, f, ev);
        if (p.rest) destructure(p.rest, null, f, ev);
        return;
      }
      if (isVector(v) || isPList(v)) {
        const list = isVector(v) ? v : v.items;
        for (let i = 0; i < items.length; i++) destructure(items[i]!, i < list.size ? list.get(i)! : null, f, ev);
        if (p.rest) destructure(p.rest, list.size > items.length ? new PList(list.slice(items.length)) : null, f, ev);
        return;
      }
      if (typeof v === 'string' || isLazySeq(v)) {
        const all = typeof v === 'string' ? Array.from(v) : null;
        const at = (i: number): Value => {
          if (all) return i < all.length ? all[i]! : null;
          const x = (v as LazySeq).nth(i);
          return x === LazySeq.END ? null : x;
        };
        for (let i = 0; i < items.length; i++) destructure(items[i]!, at(i), f, ev);
        if (p.rest) {
          let rest: Value = null;
          if (all) rest = all.length > items.length ? new PList(vec(all.slice(items.length))) : null;
          else {
            const lz = v as LazySeq;
            const start = items.length;
            if (lz.nth(start) !== LazySeq.END) rest = new LazySeq((i) => lz.nth(start + i));
          }
          destructure(p.rest, rest, f, ev);
        }
        return;
      }
      throw new PtcError('destructure_error', `cannot destructure a ${typeName(v)} with a vector pattern`, p.span, isMap(v) ? 'use a map pattern {:keys [a b]} for maps' : undefined);
    }
    case 'map': {
      let m: PMap | null = null;
      if (isMap(v)) m = v;
      else if (v !== null && isSequential(v)) {
        const xs = Array.from(seqable(v)!);
        if (xs.length === 1 && isMap(xs[0]!)) m = xs[0] as PMap;
        else {
          const entries: [Value, Value][] = [];
          for (let i = 0; i < xs.length; i += 2) entries.push([xs[i]!, xs[i + 1] ?? null]);
          m = pmap(entries);
        }
      } else if (v !== null) {
        throw new PtcError('destructure_error', `cannot destructure a ${typeName(v)} with a map pattern`, p.span);
      }
      if (p.as >= 0) f[p.as] = v;
      for (const e of p.entries) {
        let x = m === null ? MISSING : mapGet(m, e.key, MISSING);
        if (x === MISSING) x = e.default ? e.default(f, ev) : null;
        destructure(e.pattern, x, f, ev);
      }
      return;
    }
  }
}

// ---------------------------------------------------------------- for / doseq

function compileForClause(c: ForClause): CForClause {
  switch (c.kind) {
    case 'bind':
      return { kind: 'bind', pattern: compilePattern(c.pattern), coll: compile(c.coll, null), span: c.span };
    case 'let':
      return { kind: 'let', bindings: compileBindings(c.bindings, null) };
    case 'when':
      return { kind: 'when', test: compile(c.test, null) };
    case 'while':
      return { kind: 'while', test: compile(c.test, null) };
  }
}

function forClause(ev: Evaluator, clauses: CForClause[], ci: number, body: Code, out: Value[] | null, f: Value[]): boolean {
  if (ci === clauses.length) {
    const v = body(f, ev);
    if (out) {
      out.push(v);
      if (out.length > ev.maxCollectionSize) ev.checkSize(out.length);
    }
    return true;
  }
  const c = clauses[ci]!;
  switch (c.kind) {
    case 'bind': {
      const coll = c.coll(f, ev);
      const it = seqable(coll);
      if (!it) throw new PtcError('type_error', `${out ? 'for' : 'doseq'}: expected a collection, got ${typeName(coll)}`, c.span);
      for (const x of it) {
        ev.tick();
        if (c.pattern.kind === 'bind') f[c.pattern.slot] = x;
        else destructure(c.pattern, x, f, ev);
        if (!forClause(ev, clauses, ci + 1, body, out, f)) break;
      }
      return true;
    }
    case 'let':
      bindAll(c.bindings, f, ev);
      return forClause(ev, clauses, ci + 1, body, out, f);
    case 'when': {
      const t = c.test(f, ev);
      return t !== null && t !== false ? forClause(ev, clauses, ci + 1, body, out, f) : true;
    }
    case 'while': {
      const t = c.test(f, ev);
      return t !== null && t !== false ? forClause(ev, clauses, ci + 1, body, out, f) : false;
    }
  }
}

// ---------------------------------------------------------------- try

interface CCatch {
  match: CatchClause['match'];
  slot: number;
  body: Code;
}

function tryNode(body: Code, catches: CCatch[], fin: Code | null, f: Value[], ev: Evaluator): Value {
  let result: Value;
  try {
    result = body(f, ev);
  } catch (e) {
    const clause = catchClause(catches, e);
    if (!clause) {
      if (fin && runsFinally(e)) fin(f, ev);
      throw e;
    }
    try {
      f[clause.slot] = exceptionValue(e);
      result = clause.body(f, ev);
    } catch (e2) {
      if (fin && runsFinally(e2)) fin(f, ev);
      throw e2;
    }
  }
  if (fin) fin(f, ev);
  return result;
}

function runsFinally(e: unknown): boolean {
  if (e === SUSPEND) return false;
  if (e instanceof PtcError && e.code === 'limit_exceeded') return false;
  if (e instanceof RangeError) return false;
  return true;
}

const UNCATCHABLE = new Set(['limit_exceeded', 'tool_call_limit_exceeded']);

function catchClause(catches: CCatch[], e: unknown): CCatch | undefined {
  if (catches.length === 0) return undefined;
  if (e instanceof ThrowSignal) return catches.find((c) => c.match !== 'arithmetic');
  if (e instanceof PtcError && !UNCATCHABLE.has(e.code)) {
    return catches.find((c) => c.match === 'all' || (c.match === 'arithmetic' && e.code === 'arithmetic_error'));
  }
  return undefined;
}

function exceptionValue(e: unknown): Value {
  if (e instanceof ThrowSignal) return e.value;
  const p = e as PtcError;
  return exInfo(p.message, pmap([[K_TYPE, kw(p.code)]]), [[K_TYPE, kw(p.code)]]);
}

// ---------------------------------------------------------------- helpers

function stepString(form: string, what: string, v: Value, span: Span): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return formatNumber(v);
  if (isKeyword(v)) return v.fullName;
  throw new PtcError('type_error', `${form}: ${what} must be a string, number or keyword, got ${typeName(v)}`, span);
}
