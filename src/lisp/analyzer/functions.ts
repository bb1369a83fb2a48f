/** Functions: `fn` with its arities, `#()` literals and `letfn`. */
import type { Form, Span } from '../form.ts';
import type { Analyzer } from './analyzer.ts';
import { Scope } from './scope.ts';
import type { Arity, FnInfo, Node, Pattern } from './nodes.ts';
import { PLACEHOLDER, err, isSym } from './syntax.ts';
import { patternOf } from './patterns.ts';

/** `parts`: the forms after `fn` (optional name, then params+body or arity lists). */
export function fn(az: Analyzer, whole: Form, parts: Form[], letfnSource: string | null): FnInfo {
  let name: string | null = null;
  let rest = parts;
  if (isSym(rest[0])) {
    name = rest[0].name;
    rest = rest.slice(1);
  }
  const arityForms: { params: Form; body: Form[]; span: Span }[] = [];
  if (rest[0]?.kind === 'vector') {
    arityForms.push({ params: rest[0], body: rest.slice(1), span: whole.span });
  } else if (rest.length > 0 && rest.every((x) => x.kind === 'list')) {
    for (const a of rest as Extract<Form, { kind: 'list' }>[]) {
      if (a.items[0]?.kind !== 'vector')
        throw err('invalid_form', 'each arity needs a parameter vector: ([x] body...)', a.span);
      arityForms.push({ params: a.items[0], body: a.items.slice(1), span: a.span });
    }
  } else {
    throw err('invalid_form', 'fn needs a parameter vector: (fn [x] body...)', whole.span);
  }
  const outer = az.scope;
  const scope = new Scope(outer);
  az.scope = scope;
  const savedRecur = az.recurArity;
  let selfSlot = -1;
  if (name !== null) {
    selfSlot = scope.alloc();
    scope.bind(name, selfSlot);
  }
  const arities: Arity[] = [];
  try {
    for (const a of arityForms)
      arities.push(fnArity(az, a.params as Extract<Form, { kind: 'vector' }>, a.body, a.span));
  } finally {
    az.scope = outer;
    az.recurArity = savedRecur;
  }
  const byCount: (Arity | undefined)[] = [];
  let variadic: Arity | null = null;
  for (const a of arities) {
    if (a.rest) {
      if (variadic) throw err('invalid_form', 'a function can have only one variadic arity', whole.span);
      variadic = a;
    } else {
      if (byCount[a.fixed]) throw err('invalid_form', `two arities with ${a.fixed} parameters`, whole.span);
      byCount[a.fixed] = a;
    }
  }
  if (variadic && byCount.some((a, i) => a !== undefined && i > variadic!.fixed)) {
    throw err('invalid_form', 'a fixed arity cannot have more parameters than the variadic one', whole.span);
  }
  let source: string;
  if (letfnSource !== null) source = letfnSource;
  else if (whole.kind === 'list' && isSym(whole.items[0], 'fn')) source = az.source(whole);
  else source = `(fn ${parts.map((p) => az.source(p)).join(' ')})`;
  return {
    name,
    selfSlot,
    captures: scope.captures,
    frameSize: scope.size,
    byCount,
    variadic,
    arities,
    source,
    span: whole.span,
  };
}

export function fnArity(az: Analyzer, params: Extract<Form, { kind: 'vector' }>, body: Form[], span: Span): Arity {
  const mark = az.scope.mark();
  const ps: Pattern[] = [];
  let rest: Pattern | null = null;
  for (let i = 0; i < params.items.length; i++) {
    const p = params.items[i]!;
    if (isSym(p, '&')) {
      const r = params.items[i + 1];
      if (!r || i + 2 !== params.items.length)
        throw err('invalid_form', '& must be followed by exactly one name', p.span);
      rest = patternOf(az, r);
      break;
    }
    ps.push(patternOf(az, p));
  }
  az.recurArity = ps.length + (rest ? 1 : 0);
  const node = az.body(body, true, span);
  az.scope.reset(mark);
  return { fixed: ps.length, params: ps, rest, body: node };
}

export function fnLiteral(az: Analyzer, f: Extract<Form, { kind: 'fnLiteral' }>): Node {
  if (az.inFnLiteral)
    throw err('invalid_form', 'nested #() are not allowed', f.span, 'use (fn [x] ...) for the inner function');
  let max = 0;
  let variadic = false;
  const scan = (x: Form): void => {
    if (x.kind === 'symbol' && x.ns === null) {
      const m = PLACEHOLDER.exec(x.name);
      if (m) {
        if (m[1] === '&') variadic = true;
        else max = Math.max(max, m[1] === undefined ? 1 : Number(m[1]));
      }
    } else if (x.kind === 'fnLiteral') {
      throw err('invalid_form', 'nested #() are not allowed', x.span, 'use (fn [x] ...) for the inner function');
    } else if ('items' in x) x.items.forEach(scan);
  };
  f.items.forEach(scan);
  if (max > 20) throw err('invalid_placeholder', `%${max}: at most 20 parameters`, f.span);
  const outer = az.scope;
  const scope = new Scope(outer);
  az.scope = scope;
  const savedRecur = az.recurArity;
  az.inFnLiteral = true;
  let arity: Arity;
  try {
    const params: Pattern[] = [];
    for (let i = 1; i <= max; i++) {
      const slot = scope.alloc();
      scope.bind(`%${i}`, slot);
      if (i === 1) scope.bind('%', slot);
      params.push({ kind: 'bind', slot, name: `%${i}` });
    }
    let rest: Pattern | null = null;
    if (variadic) {
      const slot = scope.alloc();
      scope.bind('%&', slot);
      rest = { kind: 'bind', slot, name: '%&' };
    }
    az.recurArity = max + (variadic ? 1 : 0);
    const body = az.an({ kind: 'list', items: f.items, span: f.span }, true);
    arity = { fixed: max, params, rest, body };
  } finally {
    az.scope = outer;
    az.recurArity = savedRecur;
    az.inFnLiteral = false;
  }
  const byCount: (Arity | undefined)[] = [];
  if (!variadic) byCount[max] = arity;
  const info: FnInfo = {
    name: null,
    selfSlot: -1,
    captures: scope.captures,
    frameSize: scope.size,
    byCount,
    variadic: variadic ? arity : null,
    arities: [arity],
    source: az.source(f),
    span: f.span,
  };
  return { kind: 'fn', fn: info, span: f.span };
}

export function letfn(az: Analyzer, f: Extract<Form, { kind: 'list' }>, tail: boolean): Node {
  az.arity(f, 'letfn', 1, Infinity, '(letfn [(f [x] ...) ...] body...)');
  const bv = f.items[1]!;
  if (bv.kind !== 'vector')
    throw err('invalid_form', 'letfn needs a vector of function specs: (letfn [(f [x] ...)] ...)', bv.span);
  const specs = bv.items.map((s) => {
    if (s.kind !== 'list' || !isSym(s.items[0]))
      throw err('invalid_form', 'letfn specs look like (name [params] body...)', s.span);
    return s;
  });
  const mark = az.scope.mark();
  const slots = specs.map((s) => {
    const slot = az.scope.alloc();
    az.scope.bind((s.items[0] as { name: string }).name, slot);
    return slot;
  });
  const names = new Set(specs.map((s) => (s.items[0] as { name: string }).name));
  const group = `[${specs.map((s) => az.source(s)).join(' ')}]`;
  const fns = specs.map((s) => {
    const name = (s.items[0] as { name: string }).name;
    const info = fn(az, s, s.items, `(letfn ${group} ${name})`);
    info.letfnNames = names;
    return info;
  });
  // siblings are reached through the letfn group itself when printed as source
  const body = az.body(f.items.slice(2), tail, f.span);
  az.scope.reset(mark);
  return { kind: 'letfn', slots, fns, body, span: f.span };
}
