/**
 * A small fake {@link Runtime} for calling core builtins directly, plus
 * {@link miniEvaluator}, a tiny evaluator for test tables (calls, symbols, and just
 * enough `fn`/`#()`/`if`/`let` to pass functions around; it is not the evaluator), and
 * `ev`/`pr`/`evError` built with it over the core tables under test here.
 * `fake-runtime-b.ts` builds the same over the whole core library.
 */
import { List } from 'immutable';
import { fnFns } from '../../../src/lisp/core/functions.ts';
import { mapFns } from '../../../src/lisp/core/maps.ts';
import type { CoreFn, CoreTable } from '../../../src/lisp/core/registry.ts';
import { seqFns } from '../../../src/lisp/core/seq.ts';
import { setFns } from '../../../src/lisp/core/sets.ts';
import { walkFns } from '../../../src/lisp/core/walk.ts';
import { PtcError, limitExceeded } from '../../../src/lisp/errors.ts';
import type { Form } from '../../../src/lisp/form.ts';
import { getIn1 } from '../../../src/lisp/lookup.ts';
import { prStr } from '../../../src/lisp/printer/index.ts';
import { formToValue, read } from '../../../src/lisp/reader/index.ts';
import { compileRegex } from '../../../src/lisp/regex.ts';
import {
  type Runtime,
  PMap,
  PSet,
  type Value,
  Builtin,
  Keyword,
  equals,
  isMap,
  isSet,
  isVector,
  list,
  truthy,
} from '../../../src/lisp/values.ts';

export interface FakeRuntimeOptions {
  maxCollectionSize?: number;
  /** fuel units before `limit_exceeded` @default Infinity */
  fuel?: number;
}

export class FakeRuntime implements Runtime {
  /** fuel charged so far by tick() */
  ticks = 0;
  /** calls made through apply() */
  calls = 0;
  readonly printed: string[] = [];
  readonly maxCollectionSize: number;
  private readonly fuel: number;

  constructor(options: FakeRuntimeOptions = {}) {
    this.maxCollectionSize = options.maxCollectionSize ?? 100_000;
    this.fuel = options.fuel ?? Infinity;
  }

  apply1(f: Value, x: Value): Value {
    return this.apply(f, [x]);
  }

  apply2(f: Value, x: Value, y: Value): Value {
    return this.apply(f, [x, y]);
  }

  updatesInPlace(): boolean {
    return false;
  }

  apply(f: Value, args: Value[]): Value {
    this.calls++;
    this.tick(1);
    if (f instanceof Builtin) return f.impl(args, this);
    if (f instanceof Keyword) return getIn1(args[0] ?? null, f, args[1] ?? null);
    if (isMap(f) || isSet(f)) return getIn1(f, args[0] ?? null, args[1] ?? null);
    if (isVector(f)) return getIn1(f, args[0] ?? null);
    throw new PtcError('not_callable', `${prStr(f)} is not a function`);
  }

  tick(n = 1): void {
    this.ticks += n;
    if (this.ticks > this.fuel) throw limitExceeded('fuel', `fuel of ${this.fuel} steps spent`);
  }

  checkSize(n: number): void {
    if (n > this.maxCollectionSize) {
      throw limitExceeded('collection_size', `collection of ${n} items exceeds ${this.maxCollectionSize}`);
    }
  }

  print(line: string): void {
    this.printed.push(line);
  }
}

// ---------------------------------------------------------------- helper functions for tables

const num = (v: Value): number => {
  if (typeof v !== 'number') throw new PtcError('type_error', `expected number, got ${prStr(v)}`);
  return v;
};

const helpers: Record<string, (args: Value[]) => Value> = {
  inc: ([x]) => num(x!) + 1,
  dec: ([x]) => num(x!) - 1,
  '+': (xs) => xs.reduce<number>((a, b) => a + num(b), 0),
  '*': (xs) => xs.reduce<number>((a, b) => a * num(b), 1),
  '-': ([x, ...ys]) => (ys.length === 0 ? -num(x!) : ys.reduce<number>((a, b) => a - num(b), num(x!))),
  'even?': ([x]) => num(x!) % 2 === 0,
  'odd?': ([x]) => Math.abs(num(x!) % 2) === 1,
  'pos?': ([x]) => num(x!) > 0,
  'neg?': ([x]) => num(x!) < 0,
  'zero?': ([x]) => num(x!) === 0,
  'nil?': ([x]) => x === null,
  'string?': ([x]) => typeof x === 'string',
  'number?': ([x]) => typeof x === 'number',
  'vector?': ([x]) => isVector(x!),
  'map?': ([x]) => isMap(x!),
  not: ([x]) => !truthy(x!),
  '=': ([a, b]) => equals(a!, b!),
  '<': ([a, b]) => num(a!) < num(b!),
  '>': ([a, b]) => num(a!) > num(b!),
  '<=': ([a, b]) => num(a!) <= num(b!),
  '>=': ([a, b]) => num(a!) >= num(b!),
  mod: ([a, b]) => ((num(a!) % num(b!)) + num(b!)) % num(b!),
  str: (xs) => xs.map((x) => (x === null ? '' : typeof x === 'string' ? x : prStr(x))).join(''),
  println: () => null,
};

const tables: CoreTable[] = [seqFns, mapFns, setFns, fnFns, walkFns];

/** The table entry for a core name, as the evaluator would resolve it. */
export function coreFn(name: string): CoreFn {
  for (const t of tables) if (Object.hasOwn(t, name)) return t[name]!;
  throw new Error(`no core function ${name}`);
}

function checkedBuiltin(name: string, entry: CoreFn): Builtin {
  return new Builtin(name, (args, rt) => {
    const [min, max] = entry.arity;
    if (args.length < min || args.length > max) {
      throw new PtcError('arity_error', `${name}: wrong number of arguments (${args.length})`);
    }
    return entry.fn(args, rt);
  });
}

function resolveTables(_ns: string | null, name: string): Value {
  if (Object.hasOwn(helpers, name)) return new Builtin(name, (args) => helpers[name]!(args));
  return checkedBuiltin(name, coreFn(name));
}

// ---------------------------------------------------------------- mini evaluator

type Env = Map<string, Value>;

/** What {@link miniEvaluator} gives: `ev`, `pr` and `evError` over one symbol resolver. */
export interface MiniEvaluator {
  /** Evaluates one form of source. */
  ev(source: string, rt?: Runtime): Value;
  /** `pr-str` of the value of `source`. */
  pr(source: string, rt?: Runtime): string;
  /** The PtcError `source` throws (fails the test if it does not throw one). */
  evError(source: string, rt?: Runtime): PtcError;
}

/**
 * A tiny evaluator for test tables: calls, free symbols resolved by `resolve(ns, name)`,
 * regex literals, maps and sets with evaluated items, and just enough `fn`/`#()`/`if`/
 * `let`/`quote` (unless shadowed by a local) to pass functions around. It is not the
 * evaluator.
 */
export function miniEvaluator(resolve: (ns: string | null, name: string) => Value): MiniEvaluator {
  function evalForm(f: Form, env: Env, rt: Runtime): Value {
    switch (f.kind) {
      case 'symbol':
        if (f.ns === null && env.has(f.name)) return env.get(f.name)!;
        return resolve(f.ns, f.name);
      case 'regex':
        return compileRegex(f.source, 1000);
      case 'vector':
        return List(f.items.map((x) => evalForm(x, env, rt)));
      case 'set':
        return PSet.from(f.items.map((x) => evalForm(x, env, rt)));
      case 'map': {
        const entries: [Value, Value][] = [];
        for (let i = 0; i < f.items.length; i += 2)
          entries.push([evalForm(f.items[i]!, env, rt), evalForm(f.items[i + 1]!, env, rt)]);
        return PMap.from(entries);
      }
      case 'fnLiteral':
        return closure(['%1', '%2', '%3'], { kind: 'list', items: f.items, span: f.span }, env, rt, true);
      case 'list': {
        const [head, ...rest] = f.items;
        if (!head) return list([]);
        if (head.kind === 'symbol' && head.ns === null && !env.has(head.name)) {
          switch (head.name) {
            case 'fn': {
              const params = rest[0]!;
              if (params.kind !== 'vector') throw new Error('mini-eval: fn needs a params vector');
              return closure(
                params.items.map((p) => (p as { name: string }).name),
                rest[1]!,
                env,
                rt,
                false,
              );
            }
            case 'if':
              return truthy(evalForm(rest[0]!, env, rt))
                ? evalForm(rest[1]!, env, rt)
                : rest[2]
                  ? evalForm(rest[2], env, rt)
                  : null;
            case 'let': {
              const bindings = rest[0] as Extract<Form, { kind: 'vector' }>;
              const inner = new Map(env);
              for (let i = 0; i < bindings.items.length; i += 2) {
                inner.set((bindings.items[i] as { name: string }).name, evalForm(bindings.items[i + 1]!, inner, rt));
              }
              return evalForm(rest[1]!, inner, rt);
            }
            case 'quote':
              return formToValue(rest[0]!);
          }
        }
        const fn = evalForm(head, env, rt);
        return rt.apply(
          fn,
          rest.map((x) => evalForm(x, env, rt)),
        );
      }
      default:
        return formToValue(f);
    }
  }

  function closure(params: string[], body: Form, env: Env, rt: Runtime, literal: boolean): Builtin {
    return new Builtin('fn', (args) => {
      const inner = new Map(env);
      params.forEach((p, i) => inner.set(p, args[i] ?? null));
      if (literal) inner.set('%', args[0] ?? null);
      return evalForm(body, inner, rt);
    });
  }

  const ev = (source: string, rt: Runtime = new FakeRuntime()): Value => {
    const forms = read(source);
    if (forms.length !== 1) throw new Error(`expected one form: ${source}`);
    return evalForm(forms[0]!, new Map(), rt);
  };
  return {
    ev,
    pr: (source, rt) => prStr(ev(source, rt)),
    evError(source, rt) {
      try {
        ev(source, rt);
      } catch (e) {
        if (e instanceof PtcError) return e;
        throw e;
      }
      throw new Error(`expected an error from ${source}`);
    },
  };
}

/**
 * The mini evaluator over the tables under test here (seq, maps, sets, functions, walk)
 * plus a few plain helpers (`inc`, `+`, `even?`, ...); qualified names resolve by their
 * bare name.
 */
export const { ev, pr, evError } = miniEvaluator(resolveTables);
