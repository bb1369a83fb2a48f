/**
 * Transducers as models write them: `(into [] (map inc) xs)`,
 * `(into [] (comp (filter odd?) (map :n)) xs)`, `(transduce (map :price) + 0 items)`,
 * `(sequence (take 2) xs)`. A transducer here stands for the sequence functions it
 * names, in data-flow order: applying `(comp (filter odd?) (map inc))` to a collection runs
 * `(map inc (filter odd? coll))` with the same functions, so results, laziness, fuel and
 * limits are those of the nested calls. It is a builtin whose source is the form that made
 * it, so it prints, persists and crosses the sandbox like any other function value.
 * Calling one directly (on a reducing function) is refused with a message saying how to use it.
 */
import { PtcError } from '../errors.ts';
import { valueSource } from '../printer/index.ts';
import { Builtin, type Value } from '../values.ts';
import type { CoreTable } from './registry.ts';

interface Step {
  fn: string;
  args: Value[];
}

const STEPS = new WeakMap<Builtin, readonly Step[]>();

/** Sequence functions with a transducer arity, and how many arguments that arity takes. */
const TRANSDUCING: Record<string, number> = {
  map: 1,
  'map-indexed': 1,
  mapcat: 1,
  filter: 1,
  remove: 1,
  keep: 1,
  'keep-indexed': 1,
  take: 1,
  drop: 1,
  'take-while': 1,
  'drop-while': 1,
  'take-nth': 1,
  'partition-all': 1,
  'partition-by': 1,
  interpose: 1,
  distinct: 0,
  dedupe: 0,
};

function notCalled(): never {
  throw new PtcError(
    'type_error',
    'a transducer is not called directly: use it with into, transduce, sequence or eduction, e.g. (into [] (map inc) coll)',
  );
}

function make(steps: readonly Step[], source: string): Builtin {
  const b = new Builtin('transducer', notCalled, source);
  STEPS.set(b, steps);
  return b;
}

/** The steps `v` stands for, or undefined when it is not a transducer. */
export function stepsOf(v: Value): readonly Step[] | undefined {
  return v instanceof Builtin ? STEPS.get(v) : undefined;
}

/** `(comp xf ...)` of transducers only: one transducer running them left to right. */
export function composeTransducers(fs: Value[]): Builtin | undefined {
  const all = fs.map(stepsOf);
  if (all.length === 0 || all.some((s) => s === undefined)) return undefined;
  return make(
    all.flatMap((s) => s!),
    `(comp ${fs.map((f) => valueSource(f)).join(' ')})`,
  );
}

/** The collection through the steps; `call` runs a sequence function by name. */
export function runSteps(steps: readonly Step[], coll: Value, call: (fn: string, args: Value[]) => Value): Value {
  let v = coll;
  for (const s of steps) v = call(s.fn, [...s.args, v]);
  return v;
}

/** The transducer of `fn`, or a clear error naming where one was expected. */
export function expectTransducer(fn: string, v: Value): readonly Step[] {
  const steps = stepsOf(v);
  if (!steps)
    throw new PtcError(
      'type_error',
      `${fn}: expected a transducer such as (map f) or (comp (filter p) (map f)), got ${valueSource(v)}`,
    );
  return steps;
}

/** The table with the transducer arity added to every function that has one in Clojure. */
export function withTransducerArities(table: CoreTable): CoreTable {
  const out: CoreTable = { ...table };
  for (const [name, k] of Object.entries(TRANSDUCING)) {
    const entry = table[name]!;
    out[name] = {
      ...entry,
      arity: [k, entry.arity[1]],
      fn: (args, rt) =>
        args.length === k
          ? make([{ fn: name, args }], `(${[name, ...args.map((a) => valueSource(a))].join(' ')})`)
          : entry.fn(args, rt),
    };
  }
  return out;
}
