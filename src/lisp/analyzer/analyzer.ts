/**
 * The analyzer's core: dispatch over forms, symbols, calls and special forms. Bindings
 * and destructuring patterns, functions, control forms and the PTC forms (tools, tasks,
 * where) live in their own modules and are called with the analyzer.
 */
import type { Form, Span } from '../form.ts';
import { PtcError } from '../errors.ts';
import { printForm } from '../printer/index.ts';
import { literalToValue } from '../reader/data.ts';
import { compileRegex } from '../regex.ts';
import type { ToolDef } from '../tools.ts';
import { type Value, PList, list, sym as symbolValue } from '../values.ts';
import { builtinValue, coreArityError, lookupCore } from '../core/builtins.ts';
import { coreConstants, coreNamespaces } from '../core/index.ts';
import type { Node, Program } from './nodes.ts';
import { OP2, type Op2 } from './nodes.ts';
import { Scope } from './scope.ts';
import {
  SPECIAL_FORMS,
  PLACEHOLDER,
  collectDefs,
  describeForm,
  err,
  isSym,
  literalValue,
  lst,
  sym,
  threadStep,
  vecf,
} from './syntax.ts';
import { specialValueHint, undefinedHint } from './hints.ts';
import { fn, fnLiteral, letfn } from './functions.ts';
import { caseForm, cond, condp, forForm, tryForm } from './control.ts';
import { task, toolCall, where } from './effects.ts';
import { bindingsOf, patternOf } from './patterns.ts';
import { dotDotForm, dotForm, isMethodName, methodCall } from './interop.ts';

export interface AnalyzeOptions {
  /** the program text, used to keep each `fn`'s source as written */
  source?: string;
  /** names already bound in the user namespace */
  globals?: Iterable<string>;
  /** available tools by name */
  tools?: ReadonlyMap<string, ToolDef>;
  /** the journal at the start of the run: literal task ids found here are hits */
  journal?: ReadonlyMap<string, unknown> | null;
  /** most characters of a regex literal @default 1000 */
  maxRegexLength?: number;
  /**
   * Host namespaces read like `data/`: `step/fetch` reads the context key `"step/fetch"`
   * (the plan executor's `step/` and `param/`).
   */
  dataNamespaces?: Iterable<string>;
}

/** Namespace prefixes the core library resolves (an unknown name there is undefined, not an unknown namespace). */
let coreNs: Set<string> | undefined;
const coreNamespaceSet = (): Set<string> => (coreNs ??= new Set(coreNamespaces()));

/** One analysis: the scopes, the pending checks, and the dispatch over forms. */
export class Analyzer {
  scope = new Scope(null);
  readonly globals: Set<string>;
  readonly tools: ReadonlyMap<string, ToolDef>;
  private readonly undefinedSyms = new Map<string, Span>();
  readonly unknownTools = new Map<string, Span>();
  /** > 0 inside the body of a task that is a journal hit: unknown tools are checked at run time */
  deferTools = 0;
  /** arity `recur` must have here, or null where `recur` is not allowed */
  recurArity: number | null = null;
  inFnLiteral = false;
  private gensyms = 0;
  /** names the program defines at top level anywhere: function bodies may refer to them before the def */
  private readonly laterDefs = new Set<string>();
  private readonly dataNamespaces: ReadonlySet<string>;

  constructor(readonly opts: AnalyzeOptions) {
    this.globals = new Set(opts.globals ?? []);
    this.dataNamespaces = new Set(opts.dataNamespaces ?? []);
    this.tools = opts.tools ?? new Map();
  }

  program(forms: Form[]): Program {
    for (const f of forms) collectDefs(f, this.laterDefs);
    const body: Node[] = forms.map((f) => this.an(f, false));
    this.finish();
    const span: Span = forms[0]?.span ?? { offset: 0, length: 0, line: 1, col: 1 };
    const node: Node =
      body.length === 0
        ? { kind: 'const', value: null, span }
        : body.length === 1
          ? body[0]!
          : { kind: 'do', body, span };
    return { body: node, frameSize: this.scope.size };
  }

  private finish(): void {
    if (this.undefinedSyms.size > 0) {
      const names = [...this.undefinedSyms.keys()];
      const first = this.undefinedSyms.values().next().value as Span;
      const msg = names.length === 1 ? `Undefined variable: ${names[0]}` : `Undefined variables: ${names.join(', ')}`;
      throw err('unbound_var', msg, first, undefinedHint(names));
    }
    if (this.unknownTools.size > 0) {
      const names = [...this.unknownTools.keys()];
      const first = this.unknownTools.values().next().value as Span;
      const avail = [...this.tools.keys()];
      const msg = `Unknown tool${names.length > 1 ? 's' : ''}: ${names.join(', ')}. ${
        avail.length ? `Available tools: ${avail.join(', ')}` : 'No tools available.'
      }`;
      throw err('unknown_tool', msg, first);
    }
  }

  source(f: Form): string {
    const src = this.opts.source;
    if (src !== undefined && f.span && f.span.length > 0 && f.span.offset + f.span.length <= src.length) {
      return src.slice(f.span.offset, f.span.offset + f.span.length);
    }
    return printForm(f);
  }

  private gensym(): string {
    // a space cannot occur in a symbol read from source, so this never clashes
    return ` g${++this.gensyms}`;
  }

  // ------------------------------------------------------------ dispatch

  an(f: Form, tail: boolean): Node {
    switch (f.kind) {
      case 'nil':
        return { kind: 'const', value: null, span: f.span };
      case 'bool':
      case 'number':
      case 'string':
      case 'char':
      case 'keyword':
        return { kind: 'const', value: f.value, span: f.span };
      case 'regex':
        try {
          return { kind: 'const', value: compileRegex(f.source, this.opts.maxRegexLength ?? 1000), span: f.span };
        } catch (e) {
          if (e instanceof PtcError) throw new PtcError(e.code, e.message, f.span, e.hint, 'analyze', e.details);
          throw e;
        }
      case 'symbol':
        return this.symbol(f, false);
      case 'vector':
      case 'set': {
        const lit = literalValue(f);
        if (lit !== undefined) return { kind: 'const', value: lit, span: f.span };
        return { kind: f.kind, items: f.items.map((x) => this.an(x, false)), span: f.span };
      }
      case 'map': {
        const lit = literalValue(f);
        if (lit !== undefined) return { kind: 'const', value: lit, span: f.span };
        return { kind: 'map', items: f.items.map((x) => this.an(x, false)), span: f.span };
      }
      case 'fnLiteral':
        return fnLiteral(this, f);
      case 'var': {
        const name = f.name.startsWith('user/') ? f.name.slice(5) : f.name;
        if (!this.globals.has(name)) this.undefinedSyms.set(name, f.span);
        return { kind: 'var', name, span: f.span };
      }
      case 'list':
        return this.list(f, tail);
    }
  }

  private symbol(f: Extract<Form, { kind: 'symbol' }>, orNil: boolean): Node {
    const { ns, name, span } = f;
    if (ns === null) {
      const slot = this.scope.lookup(name);
      if (slot !== undefined) return { kind: 'local', slot, name, span };
      if (PLACEHOLDER.test(name)) {
        throw err(
          'invalid_placeholder',
          `${name} can only be used inside #(...)`,
          span,
          'write (fn [x] ...) or #(... % ...)',
        );
      }
      if (name === '*1' || name === '*2' || name === '*3') return { kind: 'history', index: Number(name[1]) - 1, span };
      if (this.globals.has(name)) return { kind: 'global', name, orNil: false, span };
      if (this.scope.parent !== null && this.laterDefs.has(name)) return { kind: 'global', name, orNil: false, span };
      const core = lookupCore(null, name);
      if (core) return { kind: 'const', value: builtinValue(name, core), span };
      if (SPECIAL_FORMS.has(name)) {
        throw err(
          'invalid_form',
          `${name} is a special form and cannot be used as a value`,
          span,
          specialValueHint(name),
        );
      }
      if (name === 'data') throw err('invalid_form', 'data cannot be used alone; read a key with data/name', span);
      if (orNil) return { kind: 'global', name, orNil: true, span };
      if (!this.undefinedSyms.has(name)) this.undefinedSyms.set(name, span);
      return { kind: 'global', name, orNil: false, span };
    }
    if (this.dataNamespaces.has(ns)) return { kind: 'data', name: `${ns}/${name}`, span };
    switch (ns) {
      case 'data':
        return { kind: 'data', name, span };
      case 'tool':
        throw err('invalid_form', `tool/${name} must be called: (tool/${name} {...})`, span);
      case 'budget':
        if (name === 'remaining') return { kind: 'budget', span };
        throw err(
          'unbound_var',
          `Undefined variable: budget/${name}`,
          span,
          'the only budget function is (budget/remaining)',
        );
      case 'user':
        if (!this.globals.has(name) && !orNil && !this.undefinedSyms.has(name)) this.undefinedSyms.set(name, span);
        return { kind: 'global', name, orNil, span };
    }
    const full = `${ns}/${name}`;
    if (Object.hasOwn(coreConstants, full)) return { kind: 'const', value: coreConstants[full]!, span };
    const core = lookupCore(ns, name);
    if (core) return { kind: 'const', value: builtinValue(full, core), span };
    if (coreNamespaceSet().has(ns)) {
      if (!this.undefinedSyms.has(full)) this.undefinedSyms.set(full, span);
      return { kind: 'const', value: null, span };
    }
    throw err(
      'unknown_namespace',
      `unknown namespace ${ns}/`,
      span,
      'namespaces: tool/, data/, budget/, str/, set/, Math/, date/',
    );
  }

  // ------------------------------------------------------------ lists

  private list(f: Extract<Form, { kind: 'list' }>, tail: boolean): Node {
    const items = f.items;
    if (items.length === 0) return { kind: 'const', value: PList.EMPTY, span: f.span };
    const head = items[0]!;
    if (head.kind === 'symbol') {
      if (head.ns === null && this.scope.lookup(head.name) === undefined && SPECIAL_FORMS.has(head.name)) {
        return this.special(head.name, f, tail);
      }
      if (
        head.ns === null &&
        (isMethodName(head.name) || head.name === '..') &&
        this.scope.lookup(head.name) === undefined
      ) {
        return head.name === '..' ? dotDotForm(this, f) : methodCall(this, f);
      }
      if (head.ns === 'tool') return toolCall(this, head.name, f);
      if (head.ns === 'budget' && head.name === 'remaining') {
        if (items.length !== 1) throw err('invalid_arity', '(budget/remaining) takes no arguments', f.span);
        return { kind: 'budget', span: f.span };
      }
      const fn = this.symbol(head, false);
      const args = this.args(items);
      if (fn.kind === 'const' && fn.value !== null && head.ns !== 'user') {
        const name = head.ns === null ? head.name : `${head.ns}/${head.name}`;
        const core = lookupCore(head.ns, head.name);
        if (core) {
          const [lo, hi] = core.arity;
          if (args.length < lo || args.length > hi) {
            const e = coreArityError(name, core.arity, args.length);
            throw err('arity_error', e.message, f.span);
          }
          if (head.ns === null && args.length === 2 && OP2.has(name)) {
            return { kind: 'op2', op: name as Op2, name, core, a: args[0]!, b: args[1]!, span: f.span };
          }
          if (head.ns === null && args.length === 1 && (name === 'inc' || name === 'dec')) {
            return { kind: 'op1', op: name, name, core, a: args[0]!, span: f.span };
          }
          return { kind: 'callCore', name, core, args, span: f.span };
        }
      }
      return { kind: 'call', fn, args, span: f.span };
    }
    if (head.kind === 'keyword') {
      if (items.length < 2 || items.length > 3) {
        throw err(
          'arity_error',
          `keyword ${printForm(head)} expects 1 or 2 arguments, got ${items.length - 1}`,
          f.span,
        );
      }
      return { kind: 'callKw', key: head.value, args: this.args(items), span: f.span };
    }
    if (
      head.kind === 'number' ||
      head.kind === 'string' ||
      head.kind === 'nil' ||
      head.kind === 'bool' ||
      head.kind === 'char'
    ) {
      throw err(
        'not_callable',
        `${describeForm(head)} is not a function: ${describeForm(f)}`,
        f.span,
        head.kind === 'number' ? `for a vector of numbers write [${items.map(describeForm).join(' ')}]` : undefined,
      );
    }
    return { kind: 'call', fn: this.an(head, false), args: this.args(items), span: f.span };
  }

  private args(items: Form[]): Node[] {
    const out: Node[] = new Array(items.length - 1);
    for (let i = 1; i < items.length; i++) out[i - 1] = this.an(items[i]!, false);
    return out;
  }

  /** The value of quoted data: `'(1 2)` is a list, `'[a b]` a vector of symbols. */
  private quoted(form: Form): Value {
    const other = (f: Form): Value => {
      switch (f.kind) {
        case 'list':
          return list(f.items.map((x) => literalToValue(x, other)!));
        case 'regex':
          return compileRegex(f.source, this.opts.maxRegexLength ?? 1000);
        case 'symbol':
          return symbolValue(f.ns === null ? f.name : `${f.ns}/${f.name}`);
        default:
          throw err(
            'invalid_form',
            `cannot quote ${f.kind === 'fnLiteral' ? '#(...)' : `#'${(f as { name?: string }).name}`}`,
            f.span,
          );
      }
    };
    return literalToValue(form, other)!;
  }

  body(forms: Form[], tail: boolean, span: Span): Node {
    if (forms.length === 0) return { kind: 'const', value: null, span };
    if (forms.length === 1) return this.an(forms[0]!, tail);
    const body = forms.map((x, i) => this.an(x, tail && i === forms.length - 1));
    return { kind: 'do', body, span };
  }

  arity(f: Extract<Form, { kind: 'list' }>, name: string, lo: number, hi: number, shape: string): void {
    const n = f.items.length - 1;
    if (n < lo || n > hi)
      throw err(
        'invalid_arity',
        `${name} expects ${shape}, got ${n} argument${n === 1 ? '' : 's'}`,
        f.span,
        `usage: ${shape}`,
      );
  }

  private special(name: string, f: Extract<Form, { kind: 'list' }>, tail: boolean): Node {
    const it = f.items;
    const span = f.span;
    switch (name) {
      case 'do':
        return this.body(it.slice(1), tail, span);
      case 'comment':
        return { kind: 'const', value: null, span };
      case 'declare':
        for (const x of it.slice(1)) {
          if (!isSym(x)) throw err('invalid_form', 'declare takes names: (declare f g)', x.span);
          this.checkDefName(x.name, x.span);
          this.globals.add(x.name);
        }
        return { kind: 'const', value: null, span };
      case 'quote':
        if (it.length !== 2) throw err('invalid_form', `quote takes one form, got ${it.length - 1}`, span);
        return { kind: 'const', value: this.quoted(it[1]!), span };
      case '.':
        return dotForm(this, f);
      case 'fn*':
      case 'let*':
      case 'loop*':
      case 'var':
        throw err('invalid_form', `${name} is not supported`, span);
      case 'if':
      case 'if-not': {
        this.arity(f, name, 2, 3, `(${name} test then else?)`);
        const test = this.an(it[1]!, false);
        const a = this.an(it[2]!, tail);
        const b = it[3] ? this.an(it[3], tail) : ({ kind: 'const', value: null, span } as Node);
        return name === 'if'
          ? { kind: 'if', test, then: a, else: b, span }
          : { kind: 'if', test, then: b, else: a, span };
      }
      case 'when':
      case 'when-not': {
        this.arity(f, name, 1, Infinity, `(${name} test body...)`);
        const test = this.an(it[1]!, false);
        const body = this.body(it.slice(2), tail, span);
        const nil: Node = { kind: 'const', value: null, span };
        return name === 'when'
          ? { kind: 'if', test, then: body, else: nil, span }
          : { kind: 'if', test, then: nil, else: body, span };
      }
      case 'if-let':
      case 'if-some':
      case 'when-let':
      case 'when-some': {
        const isIf = name.startsWith('if');
        if (isIf) this.arity(f, name, 2, 3, `(${name} [x expr] then else?)`);
        else this.arity(f, name, 1, Infinity, `(${name} [x expr] body...)`);
        const bv = it[1]!;
        if (bv.kind !== 'vector' || bv.items.length !== 2) {
          throw err('invalid_form', `${name} needs one binding: (${name} [x expr] ...)`, bv.span);
        }
        const init = this.an(bv.items[1]!, false);
        const mark = this.scope.mark();
        const pattern = patternOf(this, bv.items[0]!);
        const then = isIf ? this.an(it[2]!, tail) : this.body(it.slice(2), tail, span);
        this.scope.reset(mark);
        const els = isIf && it[3] ? this.an(it[3], tail) : ({ kind: 'const', value: null, span } as Node);
        return { kind: 'ifLet', pattern, init, then, else: els, some: name.endsWith('some'), span };
      }
      case 'cond':
        return cond(this, f, tail);
      case 'case':
        return caseForm(this, f, tail);
      case 'condp':
        return condp(this, f, tail);
      case 'and':
      case 'or': {
        const items = it.slice(1).map((x, i, all) => {
          const last = i === all.length - 1;
          if (name === 'or' && isSym(x) && x.ns === null) return this.symbol(x, true);
          return this.an(x, tail && last);
        });
        if (items.length === 0) return { kind: 'const', value: name === 'and' ? true : null, span };
        if (items.length === 1) return items[0]!;
        return { kind: name, items, span };
      }
      case 'let': {
        this.arity(f, 'let', 1, Infinity, '(let [name value ...] body...)');
        const mark = this.scope.mark();
        const bindings = bindingsOf(this, it[1]!, 'let');
        const body = this.body(it.slice(2), tail, span);
        this.scope.reset(mark);
        return { kind: 'let', bindings, body, span };
      }
      case 'loop': {
        this.arity(f, 'loop', 1, Infinity, '(loop [name value ...] body...)');
        const mark = this.scope.mark();
        const bindings = bindingsOf(this, it[1]!, 'loop');
        const saved = this.recurArity;
        this.recurArity = bindings.length;
        const body = this.body(it.slice(2), true, span);
        this.recurArity = saved;
        this.scope.reset(mark);
        return { kind: 'loop', bindings, body, span };
      }
      case 'recur': {
        if (this.recurArity === null) throw err('invalid_form', 'recur can only be used inside loop or fn', span);
        if (!tail)
          throw err(
            'invalid_form',
            'recur must be in tail position',
            span,
            'recur must be the last thing evaluated in its loop or fn body',
          );
        const n = it.length - 1;
        if (n !== this.recurArity) {
          throw err(
            'invalid_arity',
            `recur expects ${this.recurArity} argument${this.recurArity === 1 ? '' : 's'}, got ${n}`,
            span,
          );
        }
        return { kind: 'recur', args: this.args(it), span };
      }
      case 'fn':
        return { kind: 'fn', fn: fn(this, f, it.slice(1), null), span };
      case 'defn':
      case 'defn-': {
        const nameForm = it[1];
        if (!isSym(nameForm)) throw err('invalid_form', `${name} needs a name: (defn name [params] body...)`, span);
        this.checkDefName(nameForm.name, nameForm.span);
        this.globals.add(nameForm.name);
        let rest = it.slice(2);
        if (rest[0]?.kind === 'string' && rest.length > 1) rest = rest.slice(1);
        if (rest[0]?.kind === 'map' && rest.length > 1) rest = rest.slice(1);
        if (rest.length === 0) throw err('invalid_form', `${name} ${nameForm.name} needs a parameter vector`, span);
        const info = fn(this, f, [nameForm, ...rest], null);
        return { kind: 'def', name: nameForm.name, value: { kind: 'fn', fn: info, span }, once: false, span };
      }
      case 'def':
      case 'defonce': {
        this.arity(f, name, 1, 3, `(${name} name value)`);
        const nameForm = it[1]!;
        if (!isSym(nameForm))
          throw err('invalid_form', `${name} needs a symbol name: (${name} name value)`, nameForm.span);
        if (it.length === 4 && it[2]!.kind !== 'string')
          throw err('invalid_form', `${name} takes a name, an optional docstring and a value`, span);
        this.checkDefName(nameForm.name, nameForm.span);
        this.globals.add(nameForm.name);
        const valueForm = it.length === 4 ? it[3]! : it[2];
        const value = valueForm ? this.an(valueForm, false) : null;
        return { kind: 'def', name: nameForm.name, value, once: name === 'defonce', span };
      }
      case 'letfn':
        return letfn(this, f, tail);
      case 'for':
      case 'doseq':
        return forForm(this, f, name === 'for');
      case 'dotimes': {
        this.arity(f, 'dotimes', 1, Infinity, '(dotimes [i n] body...)');
        const bv = it[1]!;
        if (bv.kind !== 'vector' || bv.items.length !== 2 || !isSym(bv.items[0])) {
          throw err('invalid_form', 'dotimes needs one binding: (dotimes [i n] body...)', bv.span);
        }
        const count = this.an(bv.items[1]!, false);
        const mark = this.scope.mark();
        const slot = this.scope.alloc();
        this.scope.bind((bv.items[0] as { name: string }).name, slot);
        const saved = this.recurArity;
        this.recurArity = null;
        const body = this.body(it.slice(2), false, span);
        this.recurArity = saved;
        this.scope.reset(mark);
        return { kind: 'dotimes', slot, count, body, span };
      }
      case '->':
      case '->>': {
        if (it.length < 2) throw err('invalid_arity', `${name} needs a value to thread: (${name} x f ...)`, span);
        let acc = it[1]!;
        for (const step of it.slice(2)) acc = threadStep(acc, step, name === '->');
        return this.an(acc, tail);
      }
      case 'some->':
      case 'some->>': {
        if (it.length < 2) throw err('invalid_arity', `${name} needs a value to thread: (${name} x f ...)`, span);
        if (it.length === 2) return this.an(it[1]!, tail);
        // (some-> x f more...) ≡ (if-some [t x] (some-> (-> t f) more...) nil)
        const t = sym(this.gensym(), span);
        const stepped = threadStep(t, it[2]!, name === 'some->');
        const inner = lst([sym(name, span), stepped, ...it.slice(3)], span);
        return this.an(lst([sym('if-some', span), vecf([t, it[1]!], span), inner, { kind: 'nil', span }], span), tail);
      }
      case 'cond->':
      case 'cond->>': {
        if (it.length < 2 || it.length % 2 !== 0) {
          throw err('invalid_arity', `${name} needs a value and test/form pairs: (${name} x test form ...)`, span);
        }
        const g = sym(this.gensym(), span);
        const binds: Form[] = [g, it[1]!];
        for (let i = 2; i < it.length; i += 2) {
          binds.push(g, lst([sym('if', span), it[i]!, threadStep(g, it[i + 1]!, name === 'cond->'), g], span));
        }
        return this.an(lst([sym('let', span), vecf(binds, span), g], span), tail);
      }
      case 'as->': {
        if (it.length < 3 || !isSym(it[2]))
          throw err('invalid_arity', 'as-> needs a value and a name: (as-> x name form...)', span);
        const binds: Form[] = [it[2], it[1]!];
        for (const step of it.slice(3)) binds.push(it[2], step);
        return this.an(lst([sym('let', span), vecf(binds, span), it[2]], span), tail);
      }
      case 'where':
        return where(this, f);
      case 'all-of':
      case 'any-of':
      case 'none-of':
        return {
          kind: 'combine',
          mode: name.slice(0, name.indexOf('-')) as 'all' | 'any' | 'none',
          preds: this.args(it),
          span,
        };
      case 'pmap':
        this.arity(f, 'pmap', 2, 2, '(pmap f coll)');
        return { kind: 'pmap', fn: this.an(it[1]!, false), coll: this.an(it[2]!, false), span };
      case 'pcalls':
        return { kind: 'pcalls', fns: this.args(it), span };
      case 'return':
      case 'fail':
        this.arity(f, name, 1, 1, `(${name} value)`);
        return { kind: name, value: this.an(it[1]!, false), span };
      case 'throw':
        this.arity(f, name, 1, 1, '(throw (ex-info "message" {...}))');
        return { kind: 'throw', value: this.an(it[1]!, false), span };
      case 'task':
        return task(this, f);
      case 'step-done':
        this.arity(f, 'step-done', 2, 2, '(step-done "id" "summary")');
        return { kind: 'stepDone', id: this.an(it[1]!, false), summary: this.an(it[2]!, false), span };
      case 'task-reset':
        this.arity(f, 'task-reset', 1, 1, '(task-reset "id")');
        return { kind: 'taskReset', id: this.an(it[1]!, false), span };
      case 'try':
        return tryForm(this, f, tail);
    }
    throw err('invalid_form', `${name} is not supported`, span);
  }

  private checkDefName(name: string, span: Span): void {
    if (SPECIAL_FORMS.has(name) || lookupCore(null, name)) {
      throw err(
        'cannot_shadow_builtin',
        `cannot define ${name}: it is a built-in name`,
        span,
        `choose another name, e.g. my-${name}`,
      );
    }
    if (name.includes('/')) throw err('invalid_form', `cannot define a qualified name ${name}`, span);
  }
}
