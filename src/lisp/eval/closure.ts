/**
 * Function values defined by the evaluator: closures (`fn`, `defn`, `#()`, `letfn`) and
 * var references (`#'name`, the value of `def`).
 */
import type { FnInfo } from '../analyzer/nodes.ts';
import type { CFn } from './closures/code.ts';
import { valueSource } from '../printer/index.ts';
import { FnValue, type Value } from '../values.ts';

/** Names that can be written back as a `let` binding. */
const READABLE_NAME = /^[^\s%\d#:'"`~@^;()[\]{}\\][^\s'"`~@^;()[\]{}\\]*$/;

/**
 * A closure: the compiled function plus the values of the locals it captured.
 * Its source is the `fn` form as written, wrapped in a `let` of the captured bindings,
 * so it can be printed, persisted and read back: `(let [y 1] (fn [x] (+ x y)))`. The
 * captured values are written with `valueSource`, so a captured list reads back as a
 * list: `(let [y (list 1 2)] (fn [] y))`.
 */
export class Closure extends FnValue {
  /**
   * Always true. `isClosure(v)` tests this instead of `instanceof Closure`: under tsx
   * (esbuild keepNames) every class constructor gets its `name` redefined, which sends
   * `instanceof` on it down V8's slow path, measurably on every call.
   */
  readonly isClosure = true;
  readonly name: string | undefined;

  constructor(
    readonly info: FnInfo,
    /** values of `info.captures`, in the same order */
    public captured: Value[],
    /** the compiled arities of `info` */
    readonly code: CFn,
  ) {
    super();
    this.name = info.name ?? undefined;
  }

  toSource(): string {
    const caps = this.info.captures;
    const skip = this.info.letfnNames;
    const bindings: string[] = [];
    for (let i = 0; i < caps.length; i++) {
      const c = caps[i]!;
      if (skip?.has(c.name) || !READABLE_NAME.test(c.name)) continue;
      bindings.push(`${c.name} ${valueSource(this.captured[i] ?? null)}`);
    }
    return bindings.length === 0 ? this.info.source : `(let [${bindings.join(' ')}] ${this.info.source})`;
  }
}

/** `v instanceof Closure`, cheaper (see {@link Closure.isClosure}). */
export const isClosure = (v: Value): v is Closure => v !== null && (v as { isClosure?: unknown }).isClosure === true;

/** `#'user/name`: what `def` returns. Calling it calls the current value of the name. */
export class VarRef extends FnValue {
  constructor(readonly name: string) {
    super();
  }

  toSource(): string {
    return `#'user/${this.name}`;
  }
}
