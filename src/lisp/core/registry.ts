/**
 * The contract of the core library: functions live in tables by area (`seq.ts`,
 * `maps.ts`, `strings.ts`, `math.ts`, ...), each a record of name → {@link CoreFn}.
 * `core/index.ts` merges the tables into namespaces and resolves names.
 */
import type { BuiltinImpl, Runtime, Value } from '../values.ts';

export interface CoreFn {
  /** `[min, max]` argument counts; `max` is `Infinity` for variadic functions */
  arity: readonly [number, number];
  fn: BuiltinImpl;
  /** one line for the language reference in the system prompt */
  doc?: string;
  /**
   * The same function for exactly one, two or three arguments, without an argument array:
   * compiled call sites with that many arguments use it (a call like `(get m k)` in a
   * reduce step otherwise allocates an array per call). Each must give what `fn` gives
   * for those arguments: value, error and fuel (test/lisp/core-fixed-arity.test.ts).
   * A function of fixed arities only is written with {@link fixedArity}, which derives
   * `fn` from them.
   */
  call1?: (a: Value, rt: Runtime) => Value;
  call2?: (a: Value, b: Value, rt: Runtime) => Value;
  call3?: (a: Value, b: Value, c: Value, rt: Runtime) => Value;
}

export type CoreTable = Record<string, CoreFn>;

/** Shorthand for table entries: `defn([1, 1], ([x], rt) => ..., 'doc')`. */
export const defn = (arity: readonly [number, number], fn: BuiltinImpl, doc?: string): CoreFn => ({
  arity,
  fn,
  doc,
});

export const VARIADIC = Infinity;

/** The fixed-arity forms of a core function. */
export type FixedForms = Pick<CoreFn, 'call1' | 'call2' | 'call3'>;

/**
 * A core function of fixed arities only (at most three arguments), written once as its
 * fixed-arity forms: `fn` calls the form for the argument count, so the general path and
 * the compiled call sites cannot differ.
 */
export function fixedArity(arity: readonly [number, number], forms: FixedForms, doc?: string): CoreFn {
  const { call1, call2, call3 } = forms;
  const fn: BuiltinImpl = (args, rt) => {
    if (args.length === 1 && call1) return call1(args[0]!, rt);
    if (args.length === 2 && call2) return call2(args[0]!, args[1]!, rt);
    if (args.length === 3 && call3) return call3(args[0]!, args[1]!, args[2]!, rt);
    throw new Error(`no form for ${args.length} arguments`); // arities are checked before any call
  };
  return { arity, fn, doc, ...forms };
}
