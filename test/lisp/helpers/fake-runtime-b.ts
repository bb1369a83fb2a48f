/**
 * A tiny evaluator over the merged core library (`resolveCore`), for the core tables
 * of strings, regex, math, predicates and query. It runs calls, core names (bare and
 * qualified), `Math/PI`-style constants, regex literals and just enough `fn`/`#()`/`if`/
 * `let`/`quote` to pass functions around. It is not the evaluator. The runtime is
 * {@link FakeRuntime}.
 */
import { List, OrderedMap, OrderedSet } from 'immutable';
import { coreConstants, resolveCore } from '../../../src/lisp/core/index.ts';
import { PtcError } from '../../../src/lisp/errors.ts';
import type { Form } from '../../../src/lisp/form.ts';
import { prStr } from '../../../src/lisp/printer/index.ts';
import { formToValue, read } from '../../../src/lisp/reader/index.ts';
import { compileRegex } from '../../../src/lisp/regex.ts';
import { type Runtime, type Value, Builtin, list, truthy } from '../../../src/lisp/values.ts';
import { FakeRuntime } from './fake-runtime.ts';

export { FakeRuntime };

type Env = Map<string, Value>;

function core(ns: string | null, name: string): Value {
  const full = ns === null ? name : `${ns}/${name}`;
  if (Object.hasOwn(coreConstants, full)) return coreConstants[full]!;
  const entry = resolveCore(ns, name);
  if (!entry) throw new PtcError('unbound_var', `unknown name ${full}`);
  const [lo, hi] = entry.arity;
  return new Builtin(full, (args, rt) => {
    if (args.length < lo || args.length > hi) throw new PtcError('arity_error', `${full}: wrong number of arguments (${args.length})`);
    return entry.fn(args, rt);
  });
}

function evalForm(f: Form, env: Env, rt: Runtime): Value {
  switch (f.kind) {
    case 'symbol':
      if (f.ns === null && env.has(f.name)) return env.get(f.name)!;
      return core(f.ns, f.name);
    case 'regex':
      return compileRegex(f.source, 1000);
    case 'vector':
      return List(f.items.map((x) => evalForm(x, env, rt)));
    case 'set':
      return OrderedSet(f.items.map((x) => evalForm(x, env, rt)));
    case 'map': {
      const entries: [Value, Value][] = [];
      for (let i = 0; i < f.items.length; i += 2) {
        entries.push([evalForm(f.items[i]!, env, rt), evalForm(f.items[i + 1]!, env, rt)]);
      }
      return OrderedMap(entries);
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
            return closure(params.items.map((p) => (p as { name: string }).name), rest[1]!, env, rt, false);
          }
          case 'if':
            return truthy(evalForm(rest[0]!, env, rt)) ? evalForm(rest[1]!, env, rt) : rest[2] ? evalForm(rest[2], env, rt) : null;
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
      return rt.apply(fn, rest.map((x) => evalForm(x, env, rt)));
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

/** The value of one form of source. */
export function ev(source: string, rt: Runtime = new FakeRuntime()): Value {
  const forms = read(source);
  if (forms.length !== 1) throw new Error(`expected one form: ${source}`);
  return evalForm(forms[0]!, new Map(), rt);
}

/** `pr-str` of the value of `source`. */
export const pr = (source: string, rt?: Runtime): string => prStr(ev(source, rt));

/** The PtcError `source` throws (fails the test if it does not throw one). */
export function evError(source: string, rt?: Runtime): PtcError {
  try {
    ev(source, rt);
  } catch (e) {
    if (e instanceof PtcError) return e;
    throw e;
  }
  throw new Error(`expected an error from ${source}`);
}
