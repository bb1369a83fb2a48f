/**
 * The evaluator: a synchronous, exhaustive `switch` on `node.kind`.
 *
 * Tools are asynchronous but evaluation is not. A tool call whose result is not known
 * yet throws the internal {@link SUSPEND} signal; `run()` awaits the pending calls and
 * evaluates the program again from the start, and this time the calls are answered
 * from the per-run call log (keyed by a deterministic call-site path), never invoking
 * the handler twice. `pmap`/`pcalls` evaluate every branch before suspending, so the
 * pending calls of all branches run concurrently. Effects (tools the host runs
 * elsewhere) use the same mechanism: a missing effect result suspends the run.
 *
 * One instance evaluates one attempt; {@link RunState} is shared by all attempts of
 * one `run()`.
 * @module
 */
import { createHash } from 'node:crypto';
import type { EffectOptions, EffectRequest, Journal, Limits, Namespace, ToolCallRecord, Warning } from '../api.ts';
import type { Binding, FnInfo, ForClause, Node, Pattern, Program } from '../analyzer/nodes.ts';
import { NIL_KEY } from '../analyzer/nodes.ts';
import { PtcError, limitExceeded } from '../errors.ts';
import { canonicalJson, fromJson, keyShapeOf, toJson, toToolArgs, type KeyShape } from '../json.ts';
import { getIn1, mapGet } from '../lookup.ts';
import { formatNumber, prStr } from '../printer/index.ts';
import type { Json, ToolDef } from '../tools.ts';
import {
  Builtin,
  FnValue,
  Keyword,
  LazySeq,
  PList,
  type PMap,
  type Runtime,
  type Value,
  equals,
  isMap,
  isSequential,
  isSet,
  isVector,
  kw,
  map as pmap,
  seqable,
  set as pset,
  truthy,
  typeName,
  vec,
} from '../values.ts';
import { allOf, anyOf, noneOf, whereFn } from '../core/query.ts';
import { exInfo } from './builtins.ts';
import { Closure, VarRef } from './closure.ts';

export { Closure, VarRef } from './closure.ts';

// ---------------------------------------------------------------- control signals

/** Evaluation stopped at a tool call whose result is not known yet. Internal. */
export class SuspendSignal {
  private constructor() {}
  static readonly INSTANCE = new SuspendSignal();
}
export const SUSPEND = SuspendSignal.INSTANCE;

export class ReturnSignal {
  constructor(readonly value: Value) {}
}
export class FailSignal {
  constructor(readonly value: Value) {}
}
/** `(throw x)`: a value travelling to the nearest `catch`. */
export class ThrowSignal {
  constructor(
    readonly value: Value,
    readonly span: import('../form.ts').Span,
  ) {}
}

/** Returned (not thrown) by `recur`; only ever seen by the enclosing loop or fn. */
const RECUR = { recur: true } as unknown as Value;
const MISSING = { missing: true } as unknown as Value;

// ---------------------------------------------------------------- shared run state

/** One tool call known to the run, by call-site path. */
export interface CallEntry {
  tool: string;
  args: string;
  state: 'pending' | 'ok' | 'error';
  promise?: Promise<unknown>;
  result?: Json;
  error?: PtcError;
  record: ToolCallRecord;
  started: number;
}

export interface RunState {
  program: Program;
  limits: Limits;
  tools: ReadonlyMap<string, ToolDef>;
  context: Record<string, unknown>;
  history: Value[];
  runId: string;
  effects?: EffectOptions;
  journal: Journal | null;
  summaries: Map<string, string>;
  namespace: Namespace;
  /** absolute deadline, `Date.now()` ms */
  deadline: number;
  abort: AbortController;
  log: Map<string, CallEntry>;
}

interface TaskFrame {
  id: string;
  calls: number;
}

const K_FUEL = kw('fuel');
const K_TOOL_CALLS = kw('tool-calls');
const K_TYPE = kw('type');

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/** Idempotency key of a call inside `(task id ...)`: the n-th call gets `#n` (n ≥ 2). */
export function taskKey(runId: string, taskId: string, n: number): string {
  const base = sha256(`${runId}\u0000task\u0000${taskId}`);
  return n > 1 ? `${base}#${n}` : base;
}

/** Idempotency key of a call outside any task. */
export function callKey(runId: string, tool: string, argsCanonical: string): string {
  return sha256(`${runId}\u0000${tool}\u0000${argsCanonical}`);
}

const shapeCache = new WeakMap<object, KeyShape | null>();
function shapeOf(tool: ToolDef): KeyShape | undefined {
  const s = tool.input as unknown as object;
  let v = shapeCache.get(s);
  if (v === undefined) {
    v = keyShapeOf(tool.input) ?? null;
    shapeCache.set(s, v);
  }
  return v ?? undefined;
}

const isThenable = (x: unknown): x is Promise<unknown> =>
  x !== null && (typeof x === 'object' || typeof x === 'function') && typeof (x as { then?: unknown }).then === 'function';

/** A JS value from a tool handler as JSON (Dates become strings, functions vanish). */
function resultToJson(r: unknown): Json {
  if (r === undefined || r === null) return null;
  if (typeof r === 'string' || typeof r === 'boolean') return r;
  if (typeof r === 'number') return Number.isFinite(r) ? r : null;
  const text = JSON.stringify(r);
  return text === undefined ? null : (JSON.parse(text) as Json);
}

function errorText(e: unknown): string {
  if (e instanceof Error) return e.message || e.name;
  if (typeof e === 'string') return e;
  try {
    return JSON.stringify(e) ?? 'unknown error';
  } catch {
    return 'unknown error';
  }
}

/** Text of a JS exception safe to show: no `undefined`, no `[object Object]`. */
const safeText = (s: string): string => s.replace(/\bundefined\b/g, 'nil').replace(/\[object \w+\]/g, 'value');

// ---------------------------------------------------------------- the evaluator

export type Outcome =
  | { kind: 'ok'; value: Value; returned: boolean }
  | { kind: 'fail'; value: Value }
  | { kind: 'error'; error: PtcError }
  | { kind: 'suspend' };

export class Evaluator implements Runtime {
  readonly journal: Journal | null;
  readonly summaries: Map<string, string>;
  readonly namespace: Namespace;
  readonly prints: string[] = [];
  readonly toolCalls: ToolCallRecord[] = [];
  readonly warnings: Warning[] = [];
  /** calls started in this attempt whose results are not known yet */
  readonly pendingCalls: CallEntry[] = [];
  readonly pendingEffects: EffectRequest[] = [];
  readonly maxCollectionSize: number;

  private fuelLeft: number;
  private checkAt: number;
  private depth = 0;
  private printed = 0;
  private recurArgs: Value[] = [];
  private readonly tasks: TaskFrame[] = [];
  private prefix = '';
  private ordinal = 0;
  private toolCount = 0;
  private readonly dataCache = new Map<string, Value>();
  private readonly maxDepth: number;

  constructor(private readonly st: RunState) {
    this.journal = st.journal === null ? null : new Map(st.journal);
    this.summaries = new Map(st.summaries);
    this.namespace = new Map(st.namespace);
    this.fuelLeft = st.limits.fuel;
    this.checkAt = Math.max(this.fuelLeft - 4096, 0);
    this.maxCollectionSize = st.limits.maxCollectionSize;
    this.maxDepth = st.limits.maxDepth;
  }

  /** read by `re-pattern` and friends (core/regex.ts) */
  get maxRegexLength(): number {
    return this.st.limits.maxRegexLength;
  }

  get fuelUsed(): number {
    return this.st.limits.fuel - Math.max(this.fuelLeft, 0);
  }

  /** Evaluates the whole program once. */
  execute(): Outcome {
    const frame: Value[] = new Array(this.st.program.frameSize);
    try {
      let v = this.ev(this.st.program.body, frame);
      if (v instanceof LazySeq) v = this.realize(v);
      return { kind: 'ok', value: v, returned: false };
    } catch (e) {
      return this.outcomeOf(e);
    }
  }

  /** Evaluates one analyzed expression (used by namespace deserialisation). */
  evalProgram(program: Program): Value {
    const frame: Value[] = new Array(program.frameSize);
    return this.ev(program.body, frame);
  }

  private outcomeOf(e: unknown): Outcome {
    if (e === SUSPEND) return { kind: 'suspend' };
    try {
      if (e instanceof ReturnSignal) {
        const v = e.value instanceof LazySeq ? this.realize(e.value) : e.value;
        return { kind: 'ok', value: v, returned: true };
      }
      if (e instanceof FailSignal) {
        const v = e.value instanceof LazySeq ? this.realize(e.value) : e.value;
        return { kind: 'fail', value: v };
      }
    } catch (inner) {
      return this.outcomeOf(inner);
    }
    if (e instanceof ThrowSignal) {
      const msg = isMap(e.value) ? mapGet(e.value, kw('message')) : e.value;
      return {
        kind: 'error',
        error: new PtcError(
          'type_error',
          `uncaught exception: ${typeof msg === 'string' ? msg : prStr(msg)}`,
          e.span,
          'catch it with (try ... (catch Exception e ...)), or end the program with (fail ...)',
          'eval',
          { thrown: safeJson(e.value) },
        ),
      };
    }
    return { kind: 'error', error: this.toPtcError(e, undefined, undefined) };
  }

  private realize(v: LazySeq): Value {
    return new PList(
      vec(
        v.realize(this.maxCollectionSize, () => {
          throw limitExceeded('collection_size', `result sequence has more than ${this.maxCollectionSize} items (is it infinite?)`);
        }),
      ),
    );
  }

  // ------------------------------------------------------------ Runtime

  tick(n = 1): void {
    this.fuelLeft -= n;
    if (this.fuelLeft <= this.checkAt) this.slowCheck();
  }

  private slowCheck(): void {
    if (this.fuelLeft <= 0) {
      throw limitExceeded('fuel', `evaluation used more than ${this.st.limits.fuel} steps`);
    }
    if (Date.now() > this.st.deadline) {
      throw limitExceeded('timeout', `program exceeded the ${this.st.limits.timeoutMs} ms time limit`);
    }
    this.checkAt = Math.max(this.fuelLeft - 4096, 0);
  }

  checkSize(n: number): void {
    if (n > this.maxCollectionSize) {
      throw limitExceeded('collection_size', `collection of ${n} items exceeds the limit of ${this.maxCollectionSize}`);
    }
  }

  print(line: string): void {
    this.printed += line.length + 1;
    if (this.printed > this.st.limits.maxOutputChars) {
      throw limitExceeded('output', `printed output exceeds ${this.st.limits.maxOutputChars} characters`);
    }
    this.prints.push(line);
  }

  apply(f: Value, args: Value[]): Value {
    if (f instanceof Closure) return this.callClosure(f, args);
    if (f instanceof Builtin) return f.impl(args, this);
    if (f instanceof Keyword) {
      if (args.length < 1 || args.length > 2) throw arity(`keyword :${f.fullName}`, '1 or 2', args.length);
      return getIn1(args[0]!, f, args.length > 1 ? args[1]! : null);
    }
    if (f instanceof VarRef) {
      const v = this.namespace.get(f.name);
      if (v === undefined) throw new PtcError('unbound_var', `Undefined variable: ${f.name}`);
      return this.apply(v, args);
    }
    if (isMap(f)) {
      if (args.length < 1 || args.length > 2) throw arity('a map', '1 or 2', args.length);
      return mapGet(f, args[0]!, args.length > 1 ? args[1]! : null);
    }
    if (isSet(f)) {
      if (args.length !== 1) throw arity('a set', '1', args.length);
      return getIn1(f, args[0]!, null);
    }
    if (isVector(f)) {
      if (args.length !== 1) throw arity('a vector', '1', args.length);
      const i = args[0]!;
      if (typeof i !== 'number' || !Number.isInteger(i)) throw new PtcError('type_error', `vector index must be an integer, got ${typeName(i)}`);
      if (i < 0 || i >= f.size) throw new PtcError('index_out_of_bounds', `index ${i} is out of bounds for a vector of ${f.size} items`);
      return f.get(i)!;
    }
    throw new PtcError('not_callable', `${describe(f)} is not a function`, undefined, notCallableHint(f));
  }

  callClosure(c: Closure, args: Value[]): Value {
    const info = c.info;
    const n = args.length;
    const ar = info.byCount[n] ?? (info.variadic !== null && n >= info.variadic.fixed ? info.variadic : undefined);
    if (ar === undefined) throw closureArity(info, n);
    if (++this.depth > this.maxDepth) {
      this.depth--;
      throw limitExceeded('depth', `function calls nested more than ${this.maxDepth} deep (infinite recursion?)`);
    }
    const f: Value[] = new Array(info.frameSize);
    const caps = info.captures;
    for (let i = 0; i < caps.length; i++) f[caps[i]!.slot] = c.captured[i]!;
    if (info.selfSlot >= 0) f[info.selfSlot] = c;
    const params = ar.params;
    for (let i = 0; i < params.length; i++) {
      const p = params[i]!;
      if (p.kind === 'bind') f[p.slot] = args[i]!;
      else this.destructure(p, args[i]!, f);
    }
    if (ar.rest) this.destructure(ar.rest, n > ar.fixed ? new PList(vec(args.slice(ar.fixed))) : null, f);
    try {
      for (;;) {
        const r = this.ev(ar.body, f);
        if (r !== RECUR) return r;
        const ra = this.recurArgs;
        for (let i = 0; i < params.length; i++) {
          const p = params[i]!;
          if (p.kind === 'bind') f[p.slot] = ra[i]!;
          else this.destructure(p, ra[i]!, f);
        }
        if (ar.rest) this.destructure(ar.rest, ra[params.length]!, f);
      }
    } finally {
      this.depth--;
    }
  }

  // ------------------------------------------------------------ eval

  ev(n: Node, f: Value[]): Value {
    if (--this.fuelLeft <= this.checkAt) this.slowCheck();
    switch (n.kind) {
      case 'local':
        return f[n.slot]!;
      case 'const':
        return n.value;
      case 'op2': {
        const a = this.ev(n.a, f);
        const b = this.ev(n.b, f);
        if (typeof a === 'number' && typeof b === 'number') {
          switch (n.op) {
            case '+': {
              const r = a + b;
              return r === 0 ? 0 : r;
            }
            case '-': {
              const r = a - b;
              return r === 0 ? 0 : r;
            }
            case '*': {
              const r = a * b;
              return r === 0 ? 0 : r;
            }
            case '<':
              return a < b;
            case '>':
              return a > b;
            case '<=':
              return a <= b;
            case '>=':
              return a >= b;
            case '=':
            case '==':
              return a === b;
            case 'not=':
              return a !== b;
          }
        }
        try {
          return n.core.fn([a, b], this);
        } catch (e) {
          throw this.toPtcError(e, n.span, n.name, [a, b]);
        }
      }
      case 'op1': {
        const a = this.ev(n.a, f);
        if (typeof a === 'number') {
          const r = n.op === 'inc' ? a + 1 : a - 1;
          return r === 0 ? 0 : r;
        }
        try {
          return n.core.fn([a], this);
        } catch (e) {
          throw this.toPtcError(e, n.span, n.name, [a]);
        }
      }
      case 'if':
        return this.ev(truthy(this.ev(n.test, f)) ? n.then : n.else, f);
      case 'recur':
        this.recurArgs = this.evArgs(n.args, f);
        return RECUR;
      case 'callCore': {
        const args = this.evArgs(n.args, f);
        try {
          return n.core.fn(args, this);
        } catch (e) {
          throw this.toPtcError(e, n.span, n.name, args);
        }
      }
      case 'call': {
        const fn = this.ev(n.fn, f);
        const args = this.evArgs(n.args, f);
        return this.applyAt(fn, args, n.span);
      }
      case 'callKw': {
        const m = this.ev(n.args[0]!, f);
        return getIn1(m, n.key, n.args.length > 1 ? this.ev(n.args[1]!, f) : null);
      }
      case 'let':
        this.bind(n.bindings, f);
        return this.ev(n.body, f);
      case 'do': {
        const body = n.body;
        const last = body.length - 1;
        for (let i = 0; i < last; i++) this.ev(body[i]!, f);
        return this.ev(body[last]!, f);
      }
      case 'loop': {
        this.bind(n.bindings, f);
        const bs = n.bindings;
        for (;;) {
          const r = this.ev(n.body, f);
          if (r !== RECUR) return r;
          const ra = this.recurArgs;
          for (let i = 0; i < bs.length; i++) {
            const p = bs[i]!.pattern;
            if (p.kind === 'bind') f[p.slot] = ra[i]!;
            else this.destructure(p, ra[i]!, f);
          }
        }
      }
      case 'global': {
        const v = this.namespace.get(n.name);
        if (v !== undefined) return v;
        if (n.orNil) return null;
        throw new PtcError('unbound_var', `Undefined variable: ${n.name}`, n.span);
      }
      case 'and': {
        let v: Value = true;
        for (const x of n.items) {
          v = this.ev(x, f);
          if (!truthy(v)) return v;
        }
        return v;
      }
      case 'or': {
        let v: Value = null;
        for (const x of n.items) {
          v = this.ev(x, f);
          if (truthy(v)) return v;
        }
        return v;
      }
      case 'fn':
        return this.closure(n.fn, f);
      case 'vector':
        return vec(this.evArgs(n.items, f));
      case 'map': {
        const items = this.evArgs(n.items, f);
        const entries: [Value, Value][] = [];
        for (let i = 0; i < items.length; i += 2) entries.push([items[i]!, items[i + 1]!]);
        return pmap(entries);
      }
      case 'set':
        return pset(this.evArgs(n.items, f));
      case 'ifLet': {
        const v = this.ev(n.init, f);
        if (n.some ? v === null : !truthy(v)) return this.ev(n.else, f);
        this.destructure(n.pattern, v, f);
        return this.ev(n.then, f);
      }
      case 'case': {
        const v = this.ev(n.test, f);
        let idx: number | undefined;
        if (v === null) idx = n.table.get(NIL_KEY);
        else if (typeof v !== 'object' || v instanceof Keyword) idx = n.table.get(v);
        else for (const o of n.others) if (equals(o.value, v)) { idx = o.index; break; }
        if (idx !== undefined) return this.ev(n.results[idx]!, f);
        if (n.default) return this.ev(n.default, f);
        throw new PtcError('type_error', `case: no clause matches ${prStr(v)}`, n.span, 'add a default expression as the last form of case');
      }
      case 'condp': {
        const pred = this.ev(n.pred, f);
        const expr = this.ev(n.expr, f);
        for (const c of n.clauses) {
          const r = this.applyAt(pred, [this.ev(c.test, f), expr], n.span);
          if (truthy(r)) return c.arrow ? this.applyAt(this.ev(c.result, f), [r], n.span) : this.ev(c.result, f);
        }
        if (n.default) return this.ev(n.default, f);
        throw new PtcError('type_error', `condp: no clause matches ${prStr(expr)}`, n.span, 'add a default expression as the last form of condp');
      }
      case 'for': {
        const out: Value[] = [];
        this.forClause(n.clauses, 0, n.body, n.collect ? out : null, f);
        return n.collect ? new PList(vec(out)) : null;
      }
      case 'dotimes': {
        const count = this.ev(n.count, f);
        if (typeof count !== 'number') throw new PtcError('type_error', `dotimes: expected a number, got ${typeName(count)}`, n.span);
        for (let i = 0; i < count; i++) {
          f[n.slot] = i;
          this.ev(n.body, f);
        }
        return null;
      }
      case 'tool':
        return this.tool(n, f);
      case 'task':
        return this.task(n, f);
      case 'var':
        return new VarRef(n.name);
      case 'history':
        return this.st.history[n.index] ?? null;
      case 'data':
        return this.data(n.name, n.span);
      case 'budget': {
        const max = this.st.limits.maxToolCalls;
        return pmap([
          [K_FUEL, Math.max(this.fuelLeft, 0)],
          [K_TOOL_CALLS, Number.isFinite(max) ? Math.max(max - this.toolCount, 0) : null],
        ]);
      }
      case 'letfn': {
        const made = n.fns.map((info, i) => {
          const c = this.closure(info, f);
          f[n.slots[i]!] = c;
          return c;
        });
        for (const c of made) c.captured = c.info.captures.map((cap) => f[cap.outer]!);
        return this.ev(n.body, f);
      }
      case 'def': {
        if (n.once && this.namespace.has(n.name)) return new VarRef(n.name);
        const v = n.value === null ? null : this.ev(n.value, f);
        this.namespace.set(n.name, v);
        return new VarRef(n.name);
      }
      case 'where':
        try {
          return whereFn(n.field, n.op, n.value === null ? null : this.ev(n.value, f));
        } catch (e) {
          throw this.toPtcError(e, n.span, 'where');
        }
      case 'combine': {
        const preds = this.evArgs(n.preds, f);
        return n.mode === 'all' ? allOf(preds) : n.mode === 'any' ? anyOf(preds) : noneOf(preds);
      }
      case 'pmap': {
        const fn = this.ev(n.fn, f);
        const coll = this.ev(n.coll, f);
        const items = this.items('pmap', coll, n.span);
        return new PList(vec(this.parallel(items.length, (i) => this.applyAt(fn, [items[i]!], n.span))));
      }
      case 'pcalls': {
        const fns = this.evArgs(n.fns, f);
        return new PList(vec(this.parallel(fns.length, (i) => this.applyAt(fns[i]!, [], n.span))));
      }
      case 'return':
        throw new ReturnSignal(this.ev(n.value, f));
      case 'fail':
        throw new FailSignal(this.ev(n.value, f));
      case 'stepDone': {
        const id = stepString('step-done', 'id', this.ev(n.id, f), n.span);
        const summary = stepString('step-done', 'summary', this.ev(n.summary, f), n.span);
        this.summaries.set(id, summary);
        return summary;
      }
      case 'taskReset': {
        const id = stepString('task-reset', 'id', this.ev(n.id, f), n.span);
        this.journal?.delete(id);
        return null;
      }
      case 'try':
        return this.tryNode(n, f);
      case 'throw': {
        const v = this.ev(n.value, f);
        if (isMap(v)) throw new ThrowSignal(v, n.span);
        if (typeof v === 'string') throw new ThrowSignal(exInfo(v, pmap()), n.span);
        throw new PtcError('type_error', `throw expects an exception made with ex-info, got ${typeName(v)}`, n.span, '(throw (ex-info "message" {:key value}))');
      }
    }
  }

  private evArgs(nodes: Node[], f: Value[]): Value[] {
    const n = nodes.length;
    const out: Value[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = this.ev(nodes[i]!, f);
    return out;
  }

  applyAt(fn: Value, args: Value[], span: import('../form.ts').Span): Value {
    try {
      return this.apply(fn, args);
    } catch (e) {
      throw this.toPtcError(e, span, fn instanceof FnValue ? fn.name : undefined, args);
    }
  }

  /** Any exception as what should propagate: signals unchanged, PtcErrors located, JS errors typed. */
  toPtcError(e: unknown, span: import('../form.ts').Span | undefined, fnName: string | undefined, args?: Value[]): PtcError {
    if (e instanceof PtcError) return e.withSpan(span);
    if (e === SUSPEND || e instanceof ReturnSignal || e instanceof FailSignal || e instanceof ThrowSignal) throw e;
    if (e instanceof RangeError && /call stack/i.test(e.message)) {
      return limitExceeded('depth', 'recursion too deep: the host stack is exhausted', span);
    }
    const types = args ? ` (${args.map(typeName).join(', ')})` : '';
    return new PtcError(
      'type_error',
      `${fnName ?? 'function'} cannot be applied to these arguments${types}: ${safeText(errorText(e))}`,
      span,
    );
  }

  private closure(info: FnInfo, f: Value[]): Closure {
    const caps = info.captures;
    const captured: Value[] = new Array(caps.length);
    for (let i = 0; i < caps.length; i++) captured[i] = f[caps[i]!.outer]!;
    return new Closure(info, captured);
  }

  private bind(bindings: Binding[], f: Value[]): void {
    for (let i = 0; i < bindings.length; i++) {
      const b = bindings[i]!;
      const v = this.ev(b.init, f);
      if (b.pattern.kind === 'bind') f[b.pattern.slot] = v;
      else this.destructure(b.pattern, v, f);
    }
  }

  destructure(p: Pattern, v: Value, f: Value[]): void {
    switch (p.kind) {
      case 'bind':
        f[p.slot] = v;
        return;
      case 'seq': {
        if (p.as >= 0) f[p.as] = v;
        const items = p.items;
        if (v === null) {
          for (const it of items) this.destructure(it, null, f);
          if (p.rest) this.destructure(p.rest, null, f);
          return;
        }
        if (isVector(v) || v instanceof PList) {
          const list = isVector(v) ? v : v.items;
          for (let i = 0; i < items.length; i++) this.destructure(items[i]!, i < list.size ? list.get(i)! : null, f);
          if (p.rest) this.destructure(p.rest, list.size > items.length ? new PList(list.slice(items.length)) : null, f);
          return;
        }
        if (typeof v === 'string' || v instanceof LazySeq) {
          const all = typeof v === 'string' ? Array.from(v) : null;
          const at = (i: number): Value => {
            if (all) return i < all.length ? all[i]! : null;
            const x = (v as LazySeq).nth(i);
            return x === LazySeq.END ? null : x;
          };
          for (let i = 0; i < items.length; i++) this.destructure(items[i]!, at(i), f);
          if (p.rest) {
            let rest: Value = null;
            if (all) rest = all.length > items.length ? new PList(vec(all.slice(items.length))) : null;
            else {
              const lz = v as LazySeq;
              const start = items.length;
              if (lz.nth(start) !== LazySeq.END) rest = new LazySeq((i) => lz.nth(start + i));
            }
            this.destructure(p.rest, rest, f);
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
          if (x === MISSING) x = e.default ? this.ev(e.default, f) : null;
          this.destructure(e.pattern, x, f);
        }
        return;
      }
    }
  }

  private items(what: string, coll: Value, span: import('../form.ts').Span): Value[] {
    if (coll instanceof LazySeq) {
      return coll.realize(this.maxCollectionSize, () => {
        throw limitExceeded('collection_size', `${what}: sequence has more than ${this.maxCollectionSize} items`, span);
      });
    }
    const it = seqable(coll);
    if (!it) throw new PtcError('type_error', `${what}: expected a collection, got ${typeName(coll)}`, span);
    return Array.from(it);
  }

  private forClause(clauses: ForClause[], ci: number, body: Node, out: Value[] | null, f: Value[]): boolean {
    if (ci === clauses.length) {
      const v = this.ev(body, f);
      if (out) {
        out.push(v);
        if (out.length > this.maxCollectionSize) this.checkSize(out.length);
      }
      return true;
    }
    const c = clauses[ci]!;
    switch (c.kind) {
      case 'bind': {
        const coll = this.ev(c.coll, f);
        const it = seqable(coll);
        if (!it) throw new PtcError('type_error', `${out ? 'for' : 'doseq'}: expected a collection, got ${typeName(coll)}`, c.span);
        for (const x of it) {
          this.tick();
          if (c.pattern.kind === 'bind') f[c.pattern.slot] = x;
          else this.destructure(c.pattern, x, f);
          if (!this.forClause(clauses, ci + 1, body, out, f)) break;
        }
        return true;
      }
      case 'let':
        this.bind(c.bindings, f);
        return this.forClause(clauses, ci + 1, body, out, f);
      case 'when':
        return truthy(this.ev(c.test, f)) ? this.forClause(clauses, ci + 1, body, out, f) : true;
      case 'while':
        return truthy(this.ev(c.test, f)) ? this.forClause(clauses, ci + 1, body, out, f) : false;
    }
  }

  private tryNode(n: Extract<Node, { kind: 'try' }>, f: Value[]): Value {
    let result: Value;
    try {
      result = this.ev(n.body, f);
    } catch (e) {
      const clause = catchClause(n.catches, e);
      if (!clause) {
        if (n.finally && runsFinally(e)) this.ev(n.finally, f);
        throw e;
      }
      try {
        f[clause.slot] = exceptionValue(e);
        result = this.ev(clause.body, f);
      } catch (e2) {
        if (n.finally && runsFinally(e2)) this.ev(n.finally, f);
        throw e2;
      }
    }
    if (n.finally) this.ev(n.finally, f);
    return result;
  }

  // ------------------------------------------------------------ parallel branches

  /**
   * Runs `count` branches in order, each with its own call-site path. Branches that
   * stop at a pending tool call are skipped; if any did, the whole form suspends with
   * the pending calls of every branch.
   */
  private parallel(count: number, branch: (i: number) => Value): Value[] {
    this.checkSize(count);
    const out: Value[] = new Array(count);
    const savedPrefix = this.prefix;
    const savedOrdinal = this.ordinal;
    const base = `${savedPrefix}${savedOrdinal}p`;
    let suspended = false;
    try {
      for (let i = 0; i < count; i++) {
        this.prefix = `${base}${i}/`;
        this.ordinal = 0;
        try {
          out[i] = branch(i);
        } catch (e) {
          if (e === SUSPEND) suspended = true;
          else throw e;
        }
      }
    } finally {
      this.prefix = savedPrefix;
      this.ordinal = savedOrdinal + 1;
    }
    if (suspended) throw SUSPEND;
    return out;
  }

  // ------------------------------------------------------------ data/, where

  private data(name: string, span: import('../form.ts').Span): Value {
    const cached = this.dataCache.get(name);
    if (cached !== undefined) return cached;
    const ctx = this.st.context;
    let v: Value = null;
    if (Object.prototype.hasOwnProperty.call(ctx, name)) {
      try {
        const raw = ctx[name];
        // context values are normally plain JSON already; other JS values go through JSON text
        try {
          v = fromJson(raw as Json);
        } catch {
          v = fromJson(resultToJson(raw));
        }
      } catch (e) {
        throw this.toPtcError(e, span, `data/${name}`);
      }
    }
    this.dataCache.set(name, v);
    return v;
  }

  // ------------------------------------------------------------ tasks

  private task(n: Extract<Node, { kind: 'task' }>, f: Value[]): Value {
    const id = this.ev(n.id, f);
    if (typeof id !== 'string' || id === '') {
      throw new PtcError(
        'type_error',
        `task id must be a non-empty string, got ${id === '' ? 'an empty string' : typeName(id)}`,
        n.span,
        'task ids are strings: (task "order_1" ...) or (task (str "order_" id) ...)',
      );
    }
    const journal = this.journal;
    if (journal) {
      if (journal.has(id)) return fromJson(journal.get(id)!);
    } else if (this.warnings.length === 0 || !this.warnings.some((w) => w.code === 'journal_inactive')) {
      this.warnings.push({ code: 'journal_inactive', message: `no journal: task "${id}" ran without being recorded` });
    }
    this.tasks.push({ id, calls: 0 });
    let v: Value;
    try {
      v = this.ev(n.body, f);
    } finally {
      this.tasks.pop();
    }
    let j: Json;
    try {
      j = toJson(v, { maxItems: this.maxCollectionSize });
    } catch (e) {
      if (e instanceof PtcError) {
        throw new PtcError(e.code, `task "${id}": ${e.message}`, n.span, e.hint ?? 'a task result must be data (nil, booleans, numbers, strings, keywords, collections)', 'eval', e.details);
      }
      throw e;
    }
    journal?.set(id, j);
    return fromJson(j);
  }

  // ------------------------------------------------------------ tools

  private tool(n: Extract<Node, { kind: 'tool' }>, f: Value[]): Value {
    const tool = this.st.tools.get(n.name);
    if (!tool) {
      const avail = [...this.st.tools.keys()];
      throw new PtcError('unknown_tool', `Unknown tool: ${n.name}. ${avail.length ? `Available tools: ${avail.join(', ')}` : 'No tools available.'}`, n.span);
    }
    const argv = this.evArgs(n.args, f);
    let argMap: Value;
    if (argv.length === 0) argMap = pmap();
    else if (argv.length === 1) {
      argMap = argv[0]!;
      if (argMap !== null && !isMap(argMap)) {
        throw new PtcError('invalid_tool_args', `tool/${n.name} takes named arguments, got a ${typeName(argMap)}`, n.span, `wrap arguments in a map: (tool/${n.name} {:key value})`);
      }
    } else {
      const entries: [Value, Value][] = [];
      for (let i = 0; i < argv.length; i += 2) {
        const k = argv[i]!;
        if (!(k instanceof Keyword) && typeof k !== 'string') {
          throw new PtcError('invalid_tool_args', `tool/${n.name}: argument names must be keywords, got ${typeName(k)}`, n.span);
        }
        entries.push([k, argv[i + 1]!]);
      }
      argMap = pmap(entries);
    }
    if (++this.toolCount > this.st.limits.maxToolCalls) {
      throw new PtcError('tool_call_limit_exceeded', `more than ${this.st.limits.maxToolCalls} tool calls in one program (tool_call_limit)`, n.span);
    }
    let json: Json;
    try {
      json = toToolArgs(argMap, shapeOf(tool), { maxItems: this.maxCollectionSize });
    } catch (e) {
      const msg = e instanceof PtcError ? e.message : safeText(errorText(e));
      throw new PtcError('invalid_tool_args', `tool/${n.name}: ${msg}`, n.span);
    }
    const parsed = tool.input.safeParse(json);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message, code: i.code }));
      const text = issues.map((i) => `${i.path.length ? i.path.join('.') : '(arguments)'}: ${i.message}`).join('; ');
      throw new PtcError('invalid_tool_args', `tool/${n.name}: ${text}`, n.span, undefined, 'eval', { issues });
    }
    const args = resultToJson(parsed.data);
    const canonical = canonicalJson(args);
    const task = this.tasks.length ? this.tasks[this.tasks.length - 1]! : null;
    const taskId = task ? task.id : null;
    const runId = this.st.runId;
    const key = task ? taskKey(runId, task.id, ++task.calls) : callKey(runId, tool.name, canonical);
    const path = this.prefix + String(this.ordinal++);

    const fx = this.st.effects;
    if (fx && fx.isEffect(tool)) {
      const results = fx.results;
      if (results && results.has(key)) {
        const r = results.get(key)!;
        this.toolCalls.push({ tool: tool.name, args, taskId, idempotencyKey: key, result: r, durationMs: 0 });
        return fromJson(r);
      }
      this.pendingEffects.push({ id: key, taskId, tool: tool.name, args, idempotencyKey: key });
      throw SUSPEND;
    }

    const known = this.st.log.get(path);
    if (known) {
      if (known.tool !== tool.name || known.args !== canonical) {
        throw new PtcError('tool_error', `tool/${n.name}: the program made different tool calls when it was re-evaluated (is it deterministic?)`, n.span);
      }
      if (known.state === 'pending') {
        this.pendingCalls.push(known);
        throw SUSPEND;
      }
      this.toolCalls.push(known.record);
      if (known.state === 'error') throw known.error!.withSpan(n.span);
      return fromJson(known.result!);
    }

    const record: ToolCallRecord = { tool: tool.name, args, taskId, idempotencyKey: key, durationMs: 0 };
    const entry: CallEntry = { tool: tool.name, args: canonical, state: 'pending', record, started: Date.now() };
    this.st.log.set(path, entry);
    let r: unknown;
    try {
      r = tool.handler(parsed.data, { idempotencyKey: key, taskId, signal: this.st.abort.signal });
    } catch (e) {
      settleError(entry, e, n.name);
      this.toolCalls.push(record);
      throw entry.error!.withSpan(n.span);
    }
    if (isThenable(r)) {
      entry.promise = Promise.resolve(r).then(
        (v) => settleOk(entry, v, n.name),
        (e) => settleError(entry, e, n.name),
      );
      this.pendingCalls.push(entry);
      throw SUSPEND;
    }
    settleOk(entry, r, n.name);
    this.toolCalls.push(record);
    if (entry.state === 'error') throw entry.error!.withSpan(n.span);
    return fromJson(entry.result!);
  }
}

function settleOk(entry: CallEntry, v: unknown, name: string): void {
  entry.record.durationMs = Date.now() - entry.started;
  try {
    entry.result = resultToJson(v);
    entry.state = 'ok';
    entry.record.result = entry.result;
  } catch (e) {
    settleError(entry, new Error(`returned a value that is not JSON (${safeText(errorText(e))})`), name);
  }
}

function settleError(entry: CallEntry, e: unknown, name: string): void {
  entry.record.durationMs = Date.now() - entry.started;
  const msg = safeText(errorText(e));
  entry.state = 'error';
  entry.error = new PtcError('tool_error', `tool/${name} failed: ${msg}`);
  entry.record.error = msg;
}

// ---------------------------------------------------------------- helpers

function arity(what: string, expected: string, got: number): PtcError {
  return new PtcError('arity_error', `${what} expects ${expected} argument${expected === '1' ? '' : 's'}, got ${got}`);
}

function closureArity(info: FnInfo, got: number): PtcError {
  const counts = info.arities.map((a) => (a.rest ? `${a.fixed} or more` : String(a.fixed)));
  const expected = counts.length === 1 ? counts[0]! : `${counts.slice(0, -1).join(', ')} or ${counts[counts.length - 1]}`;
  const plural = counts.length === 1 && counts[0] === '1' ? 'argument' : 'arguments';
  return new PtcError('arity_error', `${info.name ?? 'fn'} expects ${expected} ${plural}, got ${got}`);
}

function describe(v: Value): string {
  if (v === null) return 'nil';
  if (typeof v === 'string') return `the string ${prStr(v).slice(0, 40)}`;
  if (typeof v === 'number' || typeof v === 'boolean') return `${typeName(v)} ${String(v)}`;
  return `a ${typeName(v)}`;
}

function notCallableHint(v: Value): string | undefined {
  if (typeof v === 'number') return 'a list of numbers is written as a vector: [1 2 3]';
  if (v === null) return 'the function is nil: check the name, or that a value you call is bound';
  return undefined;
}

function stepString(form: string, what: string, v: Value, span: import('../form.ts').Span): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return formatNumber(v);
  if (v instanceof Keyword) return v.fullName;
  throw new PtcError('type_error', `${form}: ${what} must be a string, number or keyword, got ${typeName(v)}`, span);
}

function runsFinally(e: unknown): boolean {
  if (e === SUSPEND) return false;
  if (e instanceof PtcError && e.code === 'limit_exceeded') return false;
  if (e instanceof RangeError) return false;
  return true;
}

const UNCATCHABLE = new Set(['limit_exceeded', 'tool_call_limit_exceeded']);

function catchClause(catches: import('../analyzer/nodes.ts').CatchClause[], e: unknown) {
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

function safeJson(v: Value): Json {
  try {
    return toJson(v);
  } catch {
    return prStr(v);
  }
}
