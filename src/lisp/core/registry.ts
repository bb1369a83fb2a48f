/**
 * The contract of the core library: functions live in tables by area (`seq.ts`,
 * `maps.ts`, `strings.ts`, `math.ts`, ...), each a record of name → {@link CoreFn}.
 * `core/index.ts` merges the tables into namespaces and resolves names.
 */
import type { BuiltinImpl } from '../values.ts';

export interface CoreFn {
  /** `[min, max]` argument counts; `max` is `Infinity` for variadic functions */
  arity: readonly [number, number];
  fn: BuiltinImpl;
  /** one line for the language reference in the system prompt */
  doc?: string;
}

export type CoreTable = Record<string, CoreFn>;

/** Shorthand for table entries: `defn([1, 1], ([x], rt) => ..., 'doc')`. */
export const defn = (arity: readonly [number, number], fn: BuiltinImpl, doc?: string): CoreFn => ({
  arity,
  fn,
  doc,
});

export const VARIADIC = Infinity;
