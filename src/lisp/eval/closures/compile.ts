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
 * Call sites, arithmetic, destructuring, `for` clauses and `try` are compiled in their own
 * modules (calls.ts, arithmetic.ts, ../destructure.ts, comprehension.ts, try-catch.ts);
 * those that compile operands are handed {@link compile} rather than importing this module,
 * and the shapes of compiled code are in code.ts, so none imports this module back. Numeric
 * loops and fns also get generated JS or WebAssembly (../loop-codegen.ts, ../fn-codegen.ts).
 * @module
 */
import type { Binding, FnInfo, ForClause, Node, Pattern, Program } from '../../analyzer/nodes.ts';
import { NIL_KEY } from '../../analyzer/nodes.ts';
import type { Span } from '../../form.ts';
import { PtcError } from '../../errors.ts';
import { getIn1 } from '../../lookup.ts';
import { formatNumber, prStr } from '../../printer/index.ts';
import { vectorOfArray } from '../../vector-of-array.ts';
import {
  PList,
  type Value,
  equals,
  isMap,
  kw,
  map as pmap,
  set as pset,
  typeName,
  isKeyword,
  isSymbol,
} from '../../values.ts';
import { allOf, anyOf, noneOf, whereFn } from '../../core/query.ts';
import { exInfo } from '../../core/builtins.ts';
import { Closure, VarRef } from '../closure.ts';
import { FailSignal, RECUR, ReturnSignal, ThrowSignal } from '../signals.ts';
import { fastLoop } from '../loop-codegen.ts';
import { compileLater } from '../fn-codegen.ts';
import { updatesFirstParamInPlace } from './in-place-accumulator.ts';
import { compileCall, compileCallCore, compileRecur } from './calls.ts';
import { compileOp1, compileOp2 } from './arithmetic.ts';
import { destructure } from '../destructure.ts';
import { type CForClause, forClause } from './comprehension.ts';
import { tryNode } from './try-catch.ts';
import {
  type CArity,
  type CBinding,
  type CFn,
  type CPattern,
  type Code,
  type RecurTarget,
  bindAll,
  evAll,
} from './code.ts';

const K_FUEL = kw('fuel');
const K_TOOL_CALLS = kw('tool-calls');

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

export function compileAll(nodes: Node[], rt: RecurTarget | null): Code[] {
  return nodes.map((n) => compile(n, rt));
}

export function compilePattern(p: Pattern): CPattern {
  switch (p.kind) {
    case 'bind':
      return { kind: 'bind', slot: p.slot };
    case 'seq':
      return {
        kind: 'seq',
        items: p.items.map(compilePattern),
        rest: p.rest ? compilePattern(p.rest) : null,
        as: p.as,
        span: p.span,
      };
    case 'map':
      return {
        kind: 'map',
        entries: p.entries.map((e) => ({
          key: e.key,
          pattern: compilePattern(e.pattern),
          default: e.default ? compile(e.default, null) : null,
        })),
        as: p.as,
        span: p.span,
      };
  }
}

export function compileBindings(bs: Binding[], rt: RecurTarget | null): CBinding[] {
  return bs.map((b) => ({ pattern: compilePattern(b.pattern), init: compile(b.init, rt) }));
}

export function compileForClause(c: ForClause): CForClause {
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

/** Compiles one fn (all its arities). */
export function compileFn(info: FnInfo): CFn {
  const arity = (a: FnInfo['arities'][number]): CArity => {
    const params = a.params.map(compilePattern);
    const rest = a.rest ? compilePattern(a.rest) : null;
    const simple = params.every((p) => p.kind === 'bind');
    const slots = simple ? params.map((p) => (p as { slot: number }).slot) : [];
    const ar: CArity = {
      fixed: a.fixed,
      params,
      rest,
      simple,
      slots,
      body: compile(a.body, { params, rest }),
      inPlaceFirst: updatesFirstParamInPlace(a),
      direct: undefined,
    };
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
      return compileOp2(n, compile);
    case 'op1':
      return compileOp1(n, compile);
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
      return compileRecur(n, rt, compile);
    case 'callCore':
      return compileCallCore(n, compile);
    case 'call':
      return compileCall(n, compile);
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
      const fast = plain
        ? fastLoop(
            n.body,
            bs.map((b) => (b.pattern as { slot: number }).slot),
            body,
          )
        : undefined;
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
        // evAll's array is fresh: the vector takes it (vec would copy it first)
        return vectorOfArray(evAll(items, f, ev));
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
        throw new PtcError(
          'type_error',
          `case: no clause matches ${prStr(v)}`,
          span,
          'add a default expression as the last form of case',
        );
      };
    }
    case 'condp': {
      const predc = compile(n.pred, rt);
      const exprc = compile(n.expr, rt);
      const clauses = n.clauses.map((c) => ({
        test: compile(c.test, rt),
        result: compile(c.result, c.arrow ? null : rt),
        arrow: c.arrow,
      }));
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
        throw new PtcError(
          'type_error',
          `condp: no clause matches ${prStr(expr)}`,
          span,
          'add a default expression as the last form of condp',
        );
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
        return collect ? PList.fromArray(out) : null;
      };
    }
    case 'dotimes': {
      const countc = compile(n.count, rt);
      const body = compile(n.body, rt);
      const { slot, span } = n;
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const count = countc(f, ev);
        if (typeof count !== 'number')
          throw new PtcError('type_error', `dotimes: expected a number, got ${typeName(count)}`, span);
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
        return PList.fromArray(ev.parallel(items.length, (i) => ev.applyAt(fn, [items[i]!], span)));
      };
    }
    case 'pcalls': {
      const fnsc = compileAll(n.fns, rt);
      const span = n.span;
      return (f, ev) => {
        if (--ev.ticks <= 0) ev.slowCheck();
        const fns = evAll(fnsc, f, ev);
        return PList.fromArray(ev.parallel(fns.length, (i) => ev.applyAt(fns[i]!, [], span)));
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
        throw new PtcError(
          'type_error',
          `throw expects an exception made with ex-info, got ${typeName(v)}`,
          span,
          '(throw (ex-info "message" {:key value}))',
        );
      };
    }
  }
}

// ---------------------------------------------------------------- helpers

function stepString(form: string, what: string, v: Value, span: Span): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return formatNumber(v);
  if (isKeyword(v)) return v.fullName;
  throw new PtcError('type_error', `${form}: ${what} must be a string, number or keyword, got ${typeName(v)}`, span);
}
