/**
 * The evaluator. Analyzed nodes are compiled once into JS closures (`compile.ts`);
 * this class is the state of one attempt (fuel, depth, journal, tool calls) and what
 * compiled code and builtins call back into (`apply`, tools, tasks).
 *
 * Tools are asynchronous but evaluation is not. A tool call whose result is not known
 * yet throws the internal {@link SUSPEND} signal; `run()` awaits the pending calls and
 * evaluates the program again from the start, and this time the calls are answered
 * from the per-run call log (keyed by a deterministic call-site path), never invoking
 * the handler twice. `pmap`/`pcalls` evaluate every branch before suspending, so the
 * pending calls of all branches run concurrently. Effects (tools the host runs
 * elsewhere) use the same mechanism: a missing effect result suspends the run. How a
 * call with valid arguments is answered is in `tool-calls.ts`.
 *
 * One instance evaluates one attempt; {@link RunState} is shared by all attempts of
 * one `run()`.
 * @module
 */
import type {
  EffectOptions,
  EffectRequest,
  Journal,
  Limits,
  Namespace,
  RunOptions,
  ToolCallRecord,
  Warning,
} from '../api.ts';
import type { Node, Program } from '../analyzer/nodes.ts';
import type { Span } from '../form.ts';
import { PtcError, limitExceeded } from '../errors.ts';
import { fromJson, toJson } from '../json.ts';
import { mapGet } from '../lookup.ts';
import { prStr } from '../printer/index.ts';
import type { Json, ToolDef } from '../tools.ts';
import {
  type CallEntry,
  type ToolCall,
  callKey,
  errorText,
  performToolCall,
  resultToJson,
  safeText,
  taskKey,
  toolArgMap,
  validToolArgs,
} from './tool-calls.ts';
import {
  Builtin,
  LazySeq,
  PList,
  type Runtime,
  type Value,
  isMap,
  kw,
  seqable,
  typeName,
  isFn,
  isLazySeq,
} from '../values.ts';
import type { Code } from './closures/code.ts';
import { programCode } from './closures/compile.ts';
import { CHECK_EVERY } from './fuel.ts';
import { destructure } from './destructure.ts';
import { realizeNested } from './realize.ts';
import { vectorOfArray } from '../vector-of-array.ts';
import { applyData, closureArity } from './apply-data.ts';
import { Closure, VarRef, isClosure } from './closure.ts';
import { FailSignal, RECUR, ReturnSignal, SUSPEND, ThrowSignal } from './signals.ts';

/** An effect the program stopped at, with where its call is (run() turns that into the program line). */
export type PendingEffect = Omit<EffectRequest, 'call'> & { span: Span };

export { Closure, VarRef } from './closure.ts';

export { SuspendSignal, SUSPEND, ReturnSignal, FailSignal, ThrowSignal } from './signals.ts';
export { type CallEntry, taskKey, callKey, errorText, resultToJson } from './tool-calls.ts';

// ---------------------------------------------------------------- shared run state

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
  onJournal?: RunOptions['onJournal'];
}

interface TaskFrame {
  id: string;
  calls: number;
}

/** `Builtin` has no subclasses: a prototype test is `instanceof Builtin`, without its slow path (see Closure.isClosure). */
const BUILTIN_PROTO: object = Builtin.prototype;

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
  readonly pendingEffects: PendingEffect[] = [];
  readonly maxCollectionSize: number;

  /**
   * Fuel units left before the next {@link slowCheck} (internal, decremented by compiled
   * code). The fuel left is `fuelBase + ticks`; the check runs when `ticks <= 0`, that is
   * every 4096 units and when the fuel is spent.
   */
  ticks: number;
  /** fuel left at the next check (internal; saved and restored by fn-codegen.ts) */
  fuelBase: number;
  /** call depth (internal; read by fn-codegen.ts) */
  depth = 0;
  private printed = 0;
  private readonly tasks: TaskFrame[] = [];
  private prefix = '';
  private ordinal = 0;
  /** tool calls made in this attempt */
  toolCount = 0;
  private readonly dataCache = new Map<string, Value>();
  /** (internal; read by fn-codegen.ts) */
  readonly maxDepth: number;

  constructor(private readonly st: RunState) {
    this.journal = st.journal === null ? null : new Map(st.journal);
    this.summaries = new Map(st.summaries);
    this.namespace = new Map(st.namespace);
    const fuel = st.limits.fuel;
    const checkAt = Math.max(fuel - CHECK_EVERY, 0);
    this.fuelBase = checkAt;
    this.ticks = Number.isFinite(fuel) ? smi(fuel - checkAt) : 0;
    this.maxCollectionSize = st.limits.maxCollectionSize;
    this.maxDepth = st.limits.maxDepth;
  }

  /** fuel left in this attempt (may be negative once spent) */
  get fuelLeft(): number {
    return this.fuelBase + this.ticks;
  }

  get maxToolCalls(): number {
    return this.st.limits.maxToolCalls;
  }

  /** `*1 *2 *3` */
  get history(): Value[] {
    return this.st.history;
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
      let v = programCode(this.st.program)(frame, this);
      if (isLazySeq(v)) v = this.realize(v);
      this.realizeInside(v);
      return { kind: 'ok', value: v, returned: false };
    } catch (e) {
      return this.outcomeOf(e);
    }
  }

  /** Evaluates one analyzed expression (used by namespace deserialisation). */
  evalProgram(program: Program): Value {
    const frame: Value[] = new Array(program.frameSize);
    return programCode(program)(frame, this);
  }

  private outcomeOf(e: unknown): Outcome {
    if (e === SUSPEND) return { kind: 'suspend' };
    try {
      if (e instanceof ReturnSignal) {
        const v = isLazySeq(e.value) ? this.realize(e.value) : e.value;
        this.realizeInside(v);
        return { kind: 'ok', value: v, returned: true };
      }
      if (e instanceof FailSignal) {
        const v = isLazySeq(e.value) ? this.realize(e.value) : e.value;
        this.realizeInside(v);
        return { kind: 'fail', value: v };
      }
    } catch (inner) {
      return this.outcomeOf(inner);
    }
    if (e instanceof ThrowSignal) {
      const msg = isMap(e.value) ? mapGet(e.value, kw('message')) : e.value;
      const data = isMap(e.value) ? mapGet(e.value, kw('data')) : null;
      return {
        kind: 'error',
        error: new PtcError(
          'uncaught_exception',
          `uncaught exception: ${typeof msg === 'string' ? msg : prStr(msg)}`,
          e.span,
          'catch it with (try ... (catch Exception e ...)), or end the program with (fail ...)',
          'eval',
          // ex-message, ex-data and the whole exception value, as JSON
          { message: safeJson(msg), data: safeJson(data), thrown: safeJson(e.value) },
        ),
      };
    }
    return { kind: 'error', error: this.toPtcError(e, undefined, undefined) };
  }

  /** The lazy seqs nested in a result (realize.ts), within the collection-size limit. */
  private realizeInside(v: Value): void {
    realizeNested(v, this.maxCollectionSize, () => {
      throw limitExceeded(
        'collection_size',
        `the result holds lazy sequences of more than ${this.maxCollectionSize} items in all (is one infinite?)`,
      );
    });
  }

  private realize(v: LazySeq): Value {
    return PList.fromArray(
      v.realize(this.maxCollectionSize, () => {
        throw limitExceeded(
          'collection_size',
          `result sequence has more than ${this.maxCollectionSize} items (is it infinite?)`,
        );
      }),
    );
  }

  // ------------------------------------------------------------ Runtime

  tick(n = 1): void {
    if ((this.ticks -= n) <= 0) this.slowCheck();
  }

  /**
   * Fuel spent or `chunk` units since the last check: fuel and clock (internal). The
   * closures check every 4096 units; generated numeric code, some 50 times faster per
   * unit, takes bigger chunks (and gives back what it did not use when it ends).
   */
  slowCheck(chunk = CHECK_EVERY): void {
    const left = this.fuelBase + this.ticks;
    if (left <= 0) {
      throw limitExceeded('fuel', `evaluation used more than ${this.st.limits.fuel} steps`);
    }
    if (Date.now() > this.st.deadline) {
      throw limitExceeded('timeout', `program exceeded the ${this.st.limits.timeoutMs} ms time limit`);
    }
    const checkAt = Math.max(left - chunk, 0);
    this.fuelBase = checkAt;
    // unlimited fuel: check the clock every `chunk` units
    this.ticks = Number.isFinite(left) ? smi(left - checkAt) : chunk;
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
    if (isClosure(f)) return this.callClosure(f, args);
    if (f !== null && typeof f === 'object' && Object.getPrototypeOf(f) === BUILTIN_PROTO)
      return (f as Builtin).impl(args, this);
    if (f instanceof VarRef) {
      const v = this.namespace.get(f.name);
      if (v === undefined) throw new PtcError('unbound_var', `Undefined variable: ${f.name}`);
      return this.apply(v, args);
    }
    return applyData(f, args);
  }

  apply1(f: Value, x: Value): Value {
    return isClosure(f) ? this.call1(f, x) : this.apply(f, [x]);
  }

  apply2(f: Value, x: Value, y: Value): Value {
    if (isClosure(f)) return this.call2(f, x, y);
    // a core function with a two-argument form (`(reduce + xs)`): no argument array
    if (f !== null && typeof f === 'object' && Object.getPrototypeOf(f) === BUILTIN_PROTO) {
      const call2 = (f as Builtin).call2;
      if (call2 !== undefined) return call2(x, y, this);
    }
    return this.apply(f, [x, y]);
  }

  updatesInPlace(f: Value): boolean {
    return isClosure(f) && f.code.byCount[2]?.inPlaceFirst === true;
  }

  foldNumbers(f: Value, acc: Value, xs: readonly Value[], from: number): readonly [Value, number] | undefined {
    if (!isClosure(f)) return undefined;
    const ar = f.code.byCount[2];
    return ar?.fold !== undefined && ar.simple ? ar.fold(this, f, acc, xs, from) : undefined;
  }

  callClosure(c: Closure, args: Value[]): Value {
    const cf = c.code;
    const n = args.length;
    const ar = cf.byCount[n] ?? (cf.variadic !== null && n >= cf.variadic.fixed ? cf.variadic : undefined);
    if (ar === undefined) throw closureArity(c.info, n);
    const f = this.enter(c);
    try {
      if (ar.simple) {
        const slots = ar.slots;
        for (let i = 0; i < slots.length; i++) f[slots[i]!] = args[i]!;
      } else {
        const params = ar.params;
        for (let i = 0; i < params.length; i++) {
          const p = params[i]!;
          if (p.kind === 'bind') f[p.slot] = args[i]!;
          else destructure(p, args[i]!, f, this);
        }
      }
      if (ar.rest) destructure(ar.rest, n > ar.fixed ? new PList(vectorOfArray(args.slice(ar.fixed))) : null, f, this);
      return runBody(ar.body, f, this);
    } finally {
      this.depth--;
    }
  }

  /** `callClosure(c, [])` without the array (compiled call sites). */
  call0(c: Closure): Value {
    const ar = c.code.byCount[0];
    if (ar === undefined) return this.callClosure(c, []);
    const f = this.enter(c);
    try {
      return runBody(ar.body, f, this);
    } finally {
      this.depth--;
    }
  }

  /** `callClosure(c, [x])` without the array when the arity is plain names. */
  call1(c: Closure, x: Value): Value {
    const ar = c.code.byCount[1];
    if (ar === undefined || !ar.simple) return this.callClosure(c, [x]);
    if (ar.direct !== undefined) return ar.direct(this, c, 1, x, null);
    const f = this.enter(c);
    try {
      f[ar.slots[0]!] = x;
      return runBody(ar.body, f, this);
    } finally {
      this.depth--;
    }
  }

  /** `callClosure(c, [x, y])` without the array when the arity is plain names. */
  call2(c: Closure, x: Value, y: Value): Value {
    const ar = c.code.byCount[2];
    if (ar === undefined || !ar.simple) return this.callClosure(c, [x, y]);
    if (ar.direct !== undefined) return ar.direct(this, c, 2, x, y);
    const f = this.enter(c);
    try {
      const slots = ar.slots;
      f[slots[0]!] = x;
      f[slots[1]!] = y;
      return runBody(ar.body, f, this);
    } finally {
      this.depth--;
    }
  }

  /** One more call level (the caller decrements `depth` when done), and the callee's frame. */
  private enter(c: Closure): Value[] {
    if (++this.depth > this.maxDepth) {
      this.depth--;
      throw limitExceeded('depth', `function calls nested more than ${this.maxDepth} deep (infinite recursion?)`);
    }
    const info = c.info;
    const f: Value[] = new Array(info.frameSize);
    const caps = info.captures;
    const captured = c.captured;
    for (let i = 0; i < caps.length; i++) f[caps[i]!.slot] = captured[i]!;
    if (info.selfSlot >= 0) f[info.selfSlot] = c;
    return f;
  }

  applyAt(fn: Value, args: Value[], span: Span): Value {
    try {
      return this.apply(fn, args);
    } catch (e) {
      throw this.toPtcError(e, span, isFn(fn) ? fn.name : undefined, args);
    }
  }

  /** Any exception as what should propagate: signals unchanged, PtcErrors located, JS errors typed. */
  toPtcError(e: unknown, span: Span | undefined, fnName: string | undefined, args?: Value[]): PtcError {
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

  /** The items of a collection, realising a lazy seq within the size limit. */
  items(what: string, coll: Value, span: Span): Value[] {
    if (isLazySeq(coll)) {
      return coll.realize(this.maxCollectionSize, () => {
        throw limitExceeded('collection_size', `${what}: sequence has more than ${this.maxCollectionSize} items`, span);
      });
    }
    const it = seqable(coll);
    if (!it) throw new PtcError('type_error', `${what}: expected a collection, got ${typeName(coll)}`, span);
    return Array.from(it);
  }

  // ------------------------------------------------------------ parallel branches

  /**
   * Runs `count` branches in order, each with its own call-site path. Branches that
   * stop at a pending tool call are skipped; if any did, the whole form suspends with
   * the pending calls of every branch.
   */
  parallel(count: number, branch: (i: number) => Value): Value[] {
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

  data(name: string, span: Span): Value {
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

  task(n: Extract<Node, { kind: 'task' }>, idCode: Code, body: Code, f: Value[]): Value {
    const id = idCode(f, this);
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
      v = body(f, this);
    } finally {
      this.tasks.pop();
    }
    let j: Json;
    try {
      j = toJson(v, { maxItems: this.maxCollectionSize });
    } catch (e) {
      if (e instanceof PtcError) {
        throw new PtcError(
          e.code,
          `task "${id}": ${e.message}`,
          n.span,
          e.hint ?? 'a task result must be data (nil, booleans, numbers, strings, keywords, collections)',
          'eval',
          e.details,
        );
      }
      throw e;
    }
    if (journal) {
      journal.set(id, j);
      this.st.onJournal?.({ id, value: j });
    }
    return fromJson(j);
  }

  /** `(task-reset id)`: the journal entry goes, and the host hears of it. */
  resetTask(id: string): void {
    if (!this.journal?.delete(id)) return;
    this.st.onJournal?.({ id });
  }

  // ------------------------------------------------------------ tools

  tool(n: Extract<Node, { kind: 'tool' }>, argCodes: Code[], f: Value[]): Value {
    const tool = this.st.tools.get(n.name);
    if (!tool) {
      const avail = [...this.st.tools.keys()];
      throw new PtcError(
        'unknown_tool',
        `Unknown tool: ${n.name}. ${avail.length ? `Available tools: ${avail.join(', ')}` : 'No tools available.'}`,
        n.span,
      );
    }
    const argv: Value[] = new Array(argCodes.length);
    for (let i = 0; i < argCodes.length; i++) argv[i] = argCodes[i]!(f, this);
    const argMap = toolArgMap(n.name, argv, n.span);
    if (++this.toolCount > this.st.limits.maxToolCalls) {
      throw new PtcError(
        'tool_call_limit_exceeded',
        `more than ${this.st.limits.maxToolCalls} tool calls in one program (tool_call_limit)`,
        n.span,
      );
    }
    const { parsed, args, canonical } = validToolArgs(tool, argMap, n.span, this.maxCollectionSize);
    const task = this.tasks.length ? this.tasks[this.tasks.length - 1]! : null;
    const runId = this.st.runId;
    const call: ToolCall = {
      tool,
      parsed,
      args,
      canonical,
      taskId: task ? task.id : null,
      key: task ? taskKey(runId, task.id, ++task.calls) : callKey(runId, tool.name, canonical),
      path: this.prefix + String(this.ordinal++),
      span: n.span,
    };
    return performToolCall(call, this.st, this);
  }
}

/**
 * `x`, as a small integer when it is one. `ticks` is written by every node; the
 * difference of two large doubles (fuel 1e10) is a heap number even when it is 4096, and
 * a field holding heap numbers costs every write. Measured (CPU ms, min of 15, three
 * alternated runs): fib 25 on the closures 11.5 -> 10.0, with fn-codegen 4.0 -> 2.5.
 */
const smi = (x: number): number => (x === (x | 0) ? x | 0 : x);

/** Runs a fn body until it ends without `recur`. */
function runBody(body: Code, f: Value[], ev: Evaluator): Value {
  for (;;) {
    const r = body(f, ev);
    if (r !== RECUR) return r;
  }
}

// ---------------------------------------------------------------- helpers

function safeJson(v: Value): Json {
  try {
    return toJson(v);
  } catch {
    return prStr(v);
  }
}
