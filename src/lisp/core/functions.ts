/**
 * Higher-order functions that build functions: `partial`, `comp`, `complement`,
 * `constantly`, `fnil`, `juxt`, `every-pred`, `some-fn`. Every function they return is
 * a {@link Builtin} carrying re-readable source, so `(partial + 1)` prints as
 * `(partial + 1)` and survives the journal and turn history as text.
 */
import { List } from 'immutable';
import { valueSource } from '../printer/index.ts';
import { composeTransducers } from './transducers.ts';
import { type BuiltinImpl, type Value, Builtin, truthy } from '../values.ts';
import { expectCallable } from './args.ts';
import { type CoreTable, VARIADIC, defn } from './registry.ts';

/** A builtin built by `maker` from `args`, printed as `(maker arg ...)`. */
function made(maker: string, args: Value[], impl: BuiltinImpl): Builtin {
  return new Builtin(maker, impl, () => `(${[maker, ...args.map((a) => valueSource(a))].join(' ')})`);
}

/**
 * `args` with nil arguments replaced by the defaults at their positions: the same array
 * when none is nil (a call of `(fnil inc 0)` on a present value copies nothing).
 */
function withDefaults(args: Value[], defaults: Value[]): Value[] {
  let out = args;
  const n = Math.min(args.length, defaults.length);
  for (let i = 0; i < n; i++) {
    if (args[i] !== null) continue;
    if (out === args) out = args.slice();
    out[i] = defaults[i]!;
  }
  return out;
}

function callables(fn: string, fs: Value[]): Value[] {
  for (const f of fs) expectCallable(fn, f);
  return fs;
}

export const fnFns: CoreTable = {
  identity: defn([1, 1], ([x]) => x!, '(identity x) returns x'),
  constantly: defn(
    [1, 1],
    ([x]) => made('constantly', [x!], () => x!),
    '(constantly x) a function that always returns x',
  ),
  partial: defn(
    [1, VARIADIC],
    (args) => {
      const f = args[0]!;
      expectCallable('partial', f);
      if (args.length === 1) return f;
      // the argument array is ours (comp and juxt keep theirs too); no rest destructuring
      // or spreads: programs make these in loops, (update m k (partial + 1))
      const fixed = args.slice(1);
      return made('partial', args, (more, rt) => rt.apply(f, fixed.concat(more)));
    },
    '(partial f & args) f with the first arguments fixed: ((partial + 1) 2) is 3',
  ),
  comp: defn(
    [0, VARIADIC],
    (fs) => {
      callables('comp', fs);
      // transducers compose in data-flow order: (comp (filter p) (map f)) filters first
      const xf = composeTransducers(fs);
      if (xf && fs.length > 1) return xf;
      if (fs.length === 0) return new Builtin('identity', ([x]) => x ?? null);
      if (fs.length === 1) return fs[0]!;
      return made('comp', fs, (args, rt) => {
        let v = rt.apply(fs[fs.length - 1]!, args);
        for (let i = fs.length - 2; i >= 0; i--) v = rt.apply(fs[i]!, [v]);
        return v;
      });
    },
    '(comp f g & fs) composition, right to left: ((comp inc +) 1 2) is 4',
  ),
  complement: defn(
    [1, 1],
    ([f]) => (expectCallable('complement', f!), made('complement', [f!], (args, rt) => !truthy(rt.apply(f!, args)))),
    '(complement f) a function returning the logical opposite of f',
  ),
  comparator: defn(
    [1, 1],
    ([pred]) => {
      expectCallable('comparator', pred!);
      return made('comparator', [pred!], ([a, b], rt) =>
        truthy(rt.apply(pred!, [a!, b!])) ? -1 : truthy(rt.apply(pred!, [b!, a!])) ? 1 : 0,
      );
    },
    '(comparator pred) a comparator for sort from a less-than predicate: (sort (comparator >) xs)',
  ),
  fnil: defn(
    [2, 4],
    (args) => {
      const f = args[0]!;
      expectCallable('fnil', f);
      // made in loops all the time, (update m k (fnil inc 0)): see partial
      const defaults = args.slice(1);
      return made('fnil', args, (xs, rt) => rt.apply(f, withDefaults(xs, defaults)));
    },
    '(fnil f default & defaults) f with nil arguments replaced by defaults: ((fnil inc 0) nil) is 1',
  ),
  juxt: defn(
    [0, VARIADIC],
    (fs) => made('juxt', callables('juxt', fs), (args, rt) => List(fs.map((f) => rt.apply(f, args)))),
    '(juxt f & fs) a function returning [(f x) (g x) ...]',
  ),
  'every-pred': defn(
    [1, VARIADIC],
    (ps) =>
      made('every-pred', callables('every-pred', ps), (args, rt) =>
        ps.every((p) => args.every((x) => truthy(rt.apply1(p, x)))),
      ),
    '(every-pred p & ps) a predicate true when every p is truthy for every argument',
  ),
  'some-fn': defn(
    [1, VARIADIC],
    (ps) =>
      made('some-fn', callables('some-fn', ps), (args, rt) => {
        let r: Value = null;
        for (const p of ps) {
          for (const x of args) {
            r = rt.apply1(p, x);
            if (truthy(r)) return r;
          }
        }
        return r;
      }),
    '(some-fn p & ps) a function returning the first truthy (p x) over its arguments',
  ),
};
