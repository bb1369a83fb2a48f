/**
 * The shapes of compiled code (a node as `(frame, evaluator) => value`, patterns, fn
 * arities, recur targets) and the two helpers that run lists of it. Apart from the compiler
 * (compile.ts) so that what it calls (calls.ts, arithmetic.ts, comprehension.ts) and what
 * calls compiled code (the evaluator, the JS and WebAssembly back-ends) import these
 * without importing the compiler: no import cycle.
 */
import type { FnInfo, Node } from '../../analyzer/nodes.ts';
import type { Span } from '../../form.ts';
import type { Value } from '../../values.ts';
import type { Closure } from '../closure.ts';
import type { Evaluator } from '../index.ts';
import { destructure } from '../destructure.ts';

/** A compiled node. */
export type Code = (f: Value[], ev: Evaluator) => Value;

/** A compiled binding pattern: the analyzer's `Pattern` with compiled `:or` defaults. */
export type CPattern =
  | { kind: 'bind'; slot: number }
  | { kind: 'seq'; items: CPattern[]; rest: CPattern | null; as: number; span: Span }
  | { kind: 'map'; entries: CMapEntry[]; as: number; span: Span };

interface CMapEntry {
  key: Value;
  pattern: CPattern;
  default: Code | null;
}

export interface CBinding {
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
  /** a two-param arity that only passes its first param to `assoc`, `update`, ... (in-place-accumulator.ts) */
  inPlaceFirst: boolean;
  /** the call without a frame of a one- or two-param arity run as generated code (fn-codegen.ts) */
  direct?: Direct;
  /** `reduce`'s loop over numbers with a two-param arity run as WebAssembly (fn-codegen.ts) */
  fold?: Fold;
}

/** `c` called with `args` (1 or 2) arguments `x` and `y`, as `ev.callClosure(c, [x, y])` would. */
export type Direct = (ev: Evaluator, c: Closure, args: 1 | 2, x: Value, y: Value) => Value;

/**
 * `reduce`'s loop (core's `foldArray`: a unit of fuel, then `(c acc x)`, per item) over the
 * items of `xs` from `from`, as far as it can take them (numbers); the acc after the last
 * it took and the index of the next item. Undefined: it took none.
 */
export type Fold = (
  ev: Evaluator,
  c: Closure,
  acc: Value,
  xs: readonly Value[],
  from: number,
) => readonly [Value, number] | undefined;

/** A compiled `fn`; its closures share it. */
export interface CFn {
  info: FnInfo;
  byCount: (CArity | undefined)[];
  variadic: CArity | null;
}

/** What a `recur` rebinds: the params of a fn arity or the bindings of a loop. */
export interface RecurTarget {
  params: CPattern[];
  rest: CPattern | null;
}

/**
 * The compiler's entry point (compile.ts's `compile`), handed to the modules that compile a
 * node's operands, which would otherwise import compile.ts while it imports them.
 */
export type Compile = (n: Node, rt: RecurTarget | null) => Code;

export function evAll(codes: Code[], f: Value[], ev: Evaluator): Value[] {
  const n = codes.length;
  const out: Value[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = codes[i]!(f, ev);
  return out;
}

export function bindAll(bs: CBinding[], f: Value[], ev: Evaluator): void {
  for (let i = 0; i < bs.length; i++) {
    const b = bs[i]!;
    const v = b.init(f, ev);
    const p = b.pattern;
    if (p.kind === 'bind') f[p.slot] = v;
    else destructure(p, v, f, ev);
  }
}
