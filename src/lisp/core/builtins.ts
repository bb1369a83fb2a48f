/**
 * Core functions as first-class values, and the few functions the evaluator itself
 * provides when the core tables do not (`ex-info`, `ex-message`, `ex-data`).
 */
import { resolveCore } from './index.ts';
import type { CoreFn } from './registry.ts';
import { PtcError } from '../errors.ts';
import { mapGet } from '../lookup.ts';
import { Builtin, type Value, isMap, kw, map } from '../values.ts';

const K_MESSAGE = kw('message');
const K_DATA = kw('data');

/** `clojure.lang.ExceptionInfo` as data: `{:message "..." :data {...}}` (see docs/language.md). */
export function exInfo(message: string, data: Value, extra: [Value, Value][] = []): Value {
  return map([[K_MESSAGE, message], [K_DATA, data], ...extra]);
}

const INTRINSICS: Record<string, CoreFn> = {
  'ex-info': {
    arity: [2, 3],
    fn: ([msg, data]) => {
      if (typeof msg !== 'string') throw new PtcError('type_error', 'ex-info: expected a string message');
      if (data !== null && !isMap(data!)) throw new PtcError('type_error', 'ex-info: expected a map of data');
      return exInfo(msg, data ?? map());
    },
    doc: 'an exception value {:message m :data d} for throw',
  },
  'ex-message': {
    arity: [1, 1],
    fn: ([e]) => (isMap(e!) ? mapGet(e, K_MESSAGE) : null),
    doc: 'the message of an exception value',
  },
  'ex-data': {
    arity: [1, 1],
    fn: ([e]) => (isMap(e!) ? mapGet(e, K_DATA) : null),
    doc: 'the data map of an exception value',
  },
};

/** A core function by namespace and name, falling back to the evaluator's intrinsics. */
export function lookupCore(ns: string | null, name: string): CoreFn | undefined {
  const c = resolveCore(ns, name);
  if (c) return c;
  // an own property only: `constructor`, `toString`, `hasOwnProperty` are not functions of the language
  if ((ns === null || ns === 'clojure.core' || ns === 'core') && Object.hasOwn(INTRINSICS, name))
    return INTRINSICS[name];
  return undefined;
}

const describeArity = ([lo, hi]: readonly [number, number]): string =>
  hi === Infinity ? `at least ${lo}` : lo === hi ? `${lo}` : `${lo} to ${hi}`;

export function coreArityError(name: string, arity: readonly [number, number], got: number): PtcError {
  const [lo, hi] = arity;
  const n = describeArity(arity);
  const plural = lo === hi && lo === 1 ? 'argument' : 'arguments';
  return new PtcError(
    'arity_error',
    `${name} expects ${n} ${plural}, got ${got}`,
    undefined,
    hi === Infinity || lo !== hi ? undefined : undefined,
  );
}

const cache = new Map<string, Builtin>();

/** The function value of a core function (arity-checked), one instance per name. */
export function builtinValue(name: string, core: CoreFn): Builtin {
  let b = cache.get(name);
  if (b) return b;
  const [lo, hi] = core.arity;
  const impl = core.fn;
  b = new Builtin(
    name,
    (args, rt) => {
      if (args.length < lo || args.length > hi) throw coreArityError(name, core.arity, args.length);
      return impl(args, rt);
    },
    undefined,
    lo <= 2 && hi >= 2 ? core.call2 : undefined,
  );
  cache.set(name, b);
  return b;
}
