/** Control forms: `cond`, `case`, `condp`, `for`/`doseq` and `try`. */
import type { Form, Span } from '../form.ts';
import type { Analyzer } from './analyzer.ts';
import { printForm } from '../printer/index.ts';
import type { CatchClause, ForClause, Node } from './nodes.ts';
import { NIL_KEY } from './nodes.ts';
import { describeForm, err, isSym, literalValue } from './syntax.ts';
import { bindingsOf, patternOf } from './patterns.ts';
import { type Value, Keyword, Sym, sym as symbolValue } from '../values.ts';

export function cond(az: Analyzer, f: Extract<Form, { kind: 'list' }>, tail: boolean): Node {
  const it = f.items.slice(1);
  if (it.length % 2 !== 0)
    throw err(
      'invalid_cond_form',
      'cond needs test/result pairs (an even number of forms)',
      f.span,
      'use :else as the last test',
    );
  const pairs: { test: Node | null; then: Node; span: Span }[] = [];
  for (let i = 0; i < it.length; i += 2) {
    const t = it[i]!;
    const always = t.kind === 'keyword' || (t.kind === 'bool' && t.value);
    pairs.push({ test: always ? null : az.an(t, false), then: az.an(it[i + 1]!, tail), span: t.span });
  }
  let node: Node = { kind: 'const', value: null, span: f.span };
  for (let i = pairs.length - 1; i >= 0; i--) {
    const p = pairs[i]!;
    node = p.test === null ? p.then : { kind: 'if', test: p.test, then: p.then, else: node, span: p.span };
  }
  return node;
}

export function caseForm(az: Analyzer, f: Extract<Form, { kind: 'list' }>, tail: boolean): Node {
  az.arity(f, 'case', 1, Infinity, '(case x value result ... default?)');
  const test = az.an(f.items[1]!, false);
  const rest = f.items.slice(2);
  const table = new Map<unknown, number>();
  const others: { value: Value; index: number }[] = [];
  const results: Node[] = [];
  const seen: Value[] = [];
  const add = (c: Form, index: number): void => {
    // as in Clojure, case constants are not evaluated: a symbol matches that symbol as data
    const v = c.kind === 'symbol' ? symbolValue(c.ns === null ? c.name : `${c.ns}/${c.name}`) : literalValue(c);
    if (v === undefined) {
      throw err(
        'invalid_form',
        `case constants must be literals, got ${describeForm(c)}`,
        c.span,
        'use keywords, strings, numbers, nil or booleans',
      );
    }
    if (v === null || typeof v !== 'object' || v instanceof Keyword || v instanceof Sym) {
      const key = v === null ? NIL_KEY : v;
      if (table.has(key)) throw err('invalid_form', `duplicate case constant ${describeForm(c)}`, c.span);
      table.set(key, index);
    } else {
      others.push({ value: v, index });
    }
    seen.push(v);
  };
  for (let i = 0; i + 1 < rest.length; i += 2) {
    const c = rest[i]!;
    const index = results.length;
    if (c.kind === 'list') {
      if (c.items.length === 0) throw err('invalid_form', 'empty case constant list', c.span);
      c.items.forEach((x) => add(x, index));
    } else add(c, index);
    results.push(az.an(rest[i + 1]!, tail));
  }
  const def = rest.length % 2 === 1 ? az.an(rest[rest.length - 1]!, tail) : null;
  return { kind: 'case', test, table, others, results, default: def, span: f.span };
}

export function condp(az: Analyzer, f: Extract<Form, { kind: 'list' }>, tail: boolean): Node {
  az.arity(f, 'condp', 2, Infinity, '(condp pred expr test result ... default?)');
  const pred = az.an(f.items[1]!, false);
  const expr = az.an(f.items[2]!, false);
  const rest = f.items.slice(3);
  const clauses: { test: Node; result: Node; arrow: boolean }[] = [];
  let i = 0;
  let def: Node | null = null;
  while (i < rest.length) {
    if (i + 1 >= rest.length) {
      def = az.an(rest[i]!, tail);
      break;
    }
    const arrow = rest[i + 1]!.kind === 'keyword' && (rest[i + 1] as { value: Keyword }).value.fullName === '>>';
    if (arrow) {
      if (i + 2 >= rest.length) throw err('invalid_form', 'condp :>> needs a function after it', rest[i + 1]!.span);
      clauses.push({ test: az.an(rest[i]!, false), result: az.an(rest[i + 2]!, false), arrow: true });
      i += 3;
    } else {
      clauses.push({ test: az.an(rest[i]!, false), result: az.an(rest[i + 1]!, tail), arrow: false });
      i += 2;
    }
  }
  return { kind: 'condp', pred, expr, clauses, default: def, span: f.span };
}

export function forForm(az: Analyzer, f: Extract<Form, { kind: 'list' }>, collect: boolean): Node {
  const name = collect ? 'for' : 'doseq';
  az.arity(f, name, collect ? 2 : 1, collect ? 2 : Infinity, `(${name} [x coll ...] body${collect ? '' : '...'})`);
  const bv = f.items[1]!;
  if (bv.kind !== 'vector' || bv.items.length === 0 || bv.items.length % 2 !== 0) {
    throw err(
      'invalid_form',
      `${name} needs a binding vector of name/collection pairs: (${name} [x coll] ...)`,
      bv.span,
    );
  }
  const mark = az.scope.mark();
  const clauses: ForClause[] = [];
  for (let i = 0; i < bv.items.length; i += 2) {
    const k = bv.items[i]!;
    const v = bv.items[i + 1]!;
    if (k.kind === 'keyword') {
      if (clauses.length === 0)
        throw err('invalid_form', `${name} must start with a binding, not ${printForm(k)}`, k.span);
      switch (k.value.fullName) {
        case 'let':
          clauses.push({ kind: 'let', bindings: bindingsOf(az, v, ':let') });
          continue;
        case 'when':
          clauses.push({ kind: 'when', test: az.an(v, false) });
          continue;
        case 'while':
          clauses.push({ kind: 'while', test: az.an(v, false) });
          continue;
      }
      throw err('invalid_form', `unknown ${name} modifier ${printForm(k)}; use :let, :when or :while`, k.span);
    }
    if (v.kind === 'number' || v.kind === 'keyword' || v.kind === 'bool') {
      throw err(
        'invalid_form',
        `${name} needs a collection to iterate, got ${printForm(v)}`,
        v.span,
        v.kind === 'number' ? `use (range ${printForm(v)})` : undefined,
      );
    }
    const coll = az.an(v, false);
    clauses.push({ kind: 'bind', pattern: patternOf(az, k), coll, span: k.span });
  }
  const saved = az.recurArity;
  az.recurArity = null;
  const body = az.body(f.items.slice(2), false, f.span);
  az.recurArity = saved;
  az.scope.reset(mark);
  return { kind: 'for', clauses, body, collect, span: f.span };
}

export function tryForm(az: Analyzer, f: Extract<Form, { kind: 'list' }>, tail: boolean): Node {
  const bodyForms: Form[] = [];
  const catches: CatchClause[] = [];
  let fin: Node | null = null;
  const saved = az.recurArity;
  az.recurArity = null; // no recur across try
  try {
    for (const x of f.items.slice(1)) {
      if (x.kind === 'list' && isSym(x.items[0], 'catch')) {
        const cls = x.items[1];
        const name = x.items[2];
        if (!cls || !isSym(name)) throw err('invalid_form', 'catch looks like (catch Exception e body...)', x.span);
        const c = cls.kind === 'symbol' ? (cls.ns ? `${cls.ns}/${cls.name}` : cls.name) : '';
        const match: CatchClause['match'] = /ExceptionInfo$/.test(c)
          ? 'thrown'
          : /ArithmeticException$/.test(c)
            ? 'arithmetic'
            : 'all';
        const mark = az.scope.mark();
        const slot = az.scope.alloc();
        az.scope.bind(name.name, slot);
        catches.push({ match, slot, body: az.body(x.items.slice(3), false, x.span) });
        az.scope.reset(mark);
      } else if (x.kind === 'list' && isSym(x.items[0], 'finally')) {
        fin = az.body(x.items.slice(1), false, x.span);
      } else {
        if (catches.length || fin) throw err('invalid_form', 'catch and finally must come last in try', x.span);
        bodyForms.push(x);
      }
    }
    void tail;
    return { kind: 'try', body: az.body(bodyForms, false, f.span), catches, finally: fin, span: f.span };
  } finally {
    az.recurArity = saved;
  }
}
