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
