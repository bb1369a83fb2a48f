/**
 * Control signals of the evaluator: thrown (suspension, `return`, `fail`, `throw`) or
 * returned (`recur`) through compiled code.
 * @module
 */
import type { Span } from '../form.ts';
import type { Value } from '../values.ts';

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
    readonly span: Span,
  ) {}
}

/**
 * Returned (not thrown) by `recur` once it has rebound the loop's (or fn's) locals;
 * only ever seen by the enclosing loop or fn, which then runs its body again.
 */
export const RECUR = { recur: true } as unknown as Value;
/** "no such key" marker for map destructuring */
export const MISSING = { missing: true } as unknown as Value;
