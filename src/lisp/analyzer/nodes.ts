/**
 * Typed nodes: what the analyzer produces and the evaluator runs. Every node carries
 * the span of the form it came from. Locals are resolved to frame slots; a function
 * copies the locals it captures into its own frame when it is called.
 */
import type { CoreFn } from '../core/registry.ts';
import type { Span } from '../form.ts';
import type { Value } from '../values.ts';

/** Key of nil in a `case` table. */
export const NIL_KEY: unique symbol = Symbol('nil');

/** A binding pattern (destructuring). */
export type Pattern =
  | { kind: 'bind'; slot: number; name: string }
  | {
      kind: 'seq';
      items: Pattern[];
      rest: Pattern | null;
      as: number;
      span: Span;
    }
  | {
      kind: 'map';
      entries: MapPatternEntry[];
      /** slot of `:as`, or -1 */
      as: number;
      span: Span;
    };

export interface MapPatternEntry {
  key: Value;
  pattern: Pattern;
  /** `:or` default, evaluated only when the key is missing */
  default: Node | null;
}

export interface Binding {
  pattern: Pattern;
  init: Node;
}

export interface Capture {
  name: string;
  /** slot in the enclosing frame */
  outer: number;
  /** slot in the function's own frame */
  slot: number;
}

export interface Arity {
  /** number of fixed parameters */
  fixed: number;
  params: Pattern[];
  /** the `& rest` pattern */
  rest: Pattern | null;
  body: Node;
}

/** A compiled `fn`; closures share it. */
export interface FnInfo {
  name: string | null;
  /** slot holding the function itself (named fn), or -1 */
  selfSlot: number;
  captures: Capture[];
  frameSize: number;
  /** arities by argument count */
  byCount: (Arity | undefined)[];
  variadic: Arity | null;
  /** every arity, for messages */
  arities: Arity[];
  /** re-readable source of the fn form as written */
  source: string;
  /** names of a `letfn` group: reached through the group's own source, never captured as data */
  letfnNames?: ReadonlySet<string>;
  span: Span;
}

export type ForClause =
  | { kind: 'bind'; pattern: Pattern; coll: Node; span: Span }
  | { kind: 'let'; bindings: Binding[] }
  | { kind: 'when'; test: Node }
  | { kind: 'while'; test: Node };

export interface CatchClause {
  /** which errors the clause catches: `ExceptionInfo` only thrown values, `ArithmeticException` only arithmetic errors */
  match: 'all' | 'thrown' | 'arithmetic';
  slot: number;
  body: Node;
}

export type Op2 = '+' | '-' | '*' | '<' | '>' | '<=' | '>=' | '=' | '==' | 'not=';
export const OP2: ReadonlySet<string> = new Set(['+', '-', '*', '<', '>', '<=', '>=', '=', '==', 'not=']);

export type WhereOp = '=' | 'not=' | '>' | '<' | '>=' | '<=' | 'includes' | 'in';

export type Node =
  | { kind: 'const'; value: Value; span: Span }
  | { kind: 'local'; slot: number; name: string; span: Span }
  /** user namespace lookup at run time; `orNil`: the `(or undefined-sym x)` exemption */
  | { kind: 'global'; name: string; orNil: boolean; span: Span }
  /** `#'name` */
  | { kind: 'var'; name: string; span: Span }
  | { kind: 'history'; index: number; span: Span }
  | { kind: 'data'; name: string; span: Span }
  | { kind: 'budget'; span: Span }
  | { kind: 'vector'; items: Node[]; span: Span }
  | { kind: 'map'; items: Node[]; span: Span }
  | { kind: 'set'; items: Node[]; span: Span }
  | { kind: 'do'; body: Node[]; span: Span }
  | { kind: 'let'; bindings: Binding[]; body: Node; span: Span }
  | { kind: 'if'; test: Node; then: Node; else: Node; span: Span }
  | { kind: 'and'; items: Node[]; span: Span }
  | { kind: 'or'; items: Node[]; span: Span }
  /** if-let / if-some (when-* compile to this with a nil else) */
  | { kind: 'ifLet'; pattern: Pattern; init: Node; then: Node; else: Node; some: boolean; span: Span }
  | {
      kind: 'case';
      test: Node;
      /** primitive constants (numbers, strings, booleans, nil, keywords) → result index */
      table: Map<unknown, number>;
      /** collection constants, compared with `=` */
      others: { value: Value; index: number }[];
      results: Node[];
      default: Node | null;
      span: Span;
    }
  | {
      kind: 'condp';
      pred: Node;
      expr: Node;
      clauses: { test: Node; result: Node; arrow: boolean }[];
      default: Node | null;
      span: Span;
    }
  | { kind: 'fn'; fn: FnInfo; span: Span }
  | { kind: 'letfn'; slots: number[]; fns: FnInfo[]; body: Node; span: Span }
  | { kind: 'def'; name: string; value: Node | null; once: boolean; span: Span }
  | { kind: 'loop'; bindings: Binding[]; body: Node; span: Span }
  | { kind: 'recur'; args: Node[]; span: Span }
  | { kind: 'for'; clauses: ForClause[]; body: Node; collect: boolean; span: Span }
  | { kind: 'dotimes'; slot: number; count: Node; body: Node; span: Span }
  | { kind: 'call'; fn: Node; args: Node[]; span: Span }
  | { kind: 'callCore'; name: string; core: CoreFn; args: Node[]; span: Span }
  /** a core arithmetic/comparison call with a fast path for numbers (falls back to `core`) */
  | { kind: 'op2'; op: Op2; name: string; core: CoreFn; a: Node; b: Node; span: Span }
  | { kind: 'op1'; op: 'inc' | 'dec'; name: string; core: CoreFn; a: Node; span: Span }
  | { kind: 'callKw'; key: Value; args: Node[]; span: Span }
  | { kind: 'tool'; name: string; args: Node[]; span: Span }
  /** `field`: keyword, string or vector path; `op` null for `(where field)` */
  | { kind: 'where'; field: Value; op: WhereOp | null; value: Node | null; span: Span }
  | { kind: 'combine'; mode: 'all' | 'any' | 'none'; preds: Node[]; span: Span }
  | { kind: 'pmap'; fn: Node; coll: Node; span: Span }
  | { kind: 'pcalls'; fns: Node[]; span: Span }
  | { kind: 'return'; value: Node; span: Span }
  | { kind: 'fail'; value: Node; span: Span }
  | { kind: 'task'; id: Node; body: Node; span: Span }
  | { kind: 'stepDone'; id: Node; summary: Node; span: Span }
  | { kind: 'taskReset'; id: Node; span: Span }
  | {
      kind: 'try';
      body: Node;
      catches: CatchClause[];
      finally: Node | null;
      span: Span;
    }
  | { kind: 'throw'; value: Node; span: Span };

export type NodeKind = Node['kind'];

/** An analyzed program. */
export interface Program {
  body: Node;
  /** slots of the top-level frame */
  frameSize: number;
}
