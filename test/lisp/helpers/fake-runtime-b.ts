/**
 * The mini evaluator of `fake-runtime.ts` over the merged core library (`resolveCore`),
 * for the core tables of strings, regex, math, predicates and query: core names (bare and
 * qualified) and `Math/PI`-style constants. The runtime is {@link FakeRuntime}.
 */
import { coreConstants, resolveCore } from '../../../src/lisp/core/index.ts';
import { PtcError } from '../../../src/lisp/errors.ts';
import { type Value, Builtin } from '../../../src/lisp/values.ts';
import { FakeRuntime, miniEvaluator } from './fake-runtime.ts';

export { FakeRuntime };

function core(ns: string | null, name: string): Value {
  const full = ns === null ? name : `${ns}/${name}`;
  if (Object.hasOwn(coreConstants, full)) return coreConstants[full]!;
  const entry = resolveCore(ns, name);
  if (!entry) throw new PtcError('unbound_var', `unknown name ${full}`);
  const [lo, hi] = entry.arity;
  return new Builtin(full, (args, rt) => {
    if (args.length < lo || args.length > hi)
      throw new PtcError('arity_error', `${full}: wrong number of arguments (${args.length})`);
    return entry.fn(args, rt);
  });
}

export const { ev, pr, evError } = miniEvaluator(core);
