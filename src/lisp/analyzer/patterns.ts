/** Bindings (`let`, `loop`, `for`) and destructuring patterns: sequential, map, `&` rest, `:as`, `:or`. */
import type { Form } from '../form.ts';
import { type Value, kw } from '../values.ts';
import type { Analyzer } from './analyzer.ts';
import type { Binding, MapPatternEntry, Node, Pattern } from './nodes.ts';
import { describeForm, err, isSym, literalValue } from './syntax.ts';

export function bindingsOf(az: Analyzer, bv: Form, what: string): Binding[] {
  if (bv.kind !== 'vector')
    throw err('invalid_form', `${what} needs a binding vector: (${what} [name value ...] ...)`, bv.span);
  if (bv.items.length % 2 !== 0)
    throw err('invalid_form', `${what} bindings need an even number of forms (name value pairs)`, bv.span);
  const out: Binding[] = [];
  for (let i = 0; i < bv.items.length; i += 2) {
    const init = az.an(bv.items[i + 1]!, false);
    out.push({ pattern: patternOf(az, bv.items[i]!), init });
  }
  return out;
}

function bindName(az: Analyzer, f: Form): Pattern {
  if (!isSym(f) || f.name === '&') {
    throw err('invalid_form', `cannot bind ${describeForm(f)}: expected a symbol, a vector or a map pattern`, f.span);
  }
  const slot = az.scope.alloc();
  az.scope.bind(f.name, slot);
  return { kind: 'bind', slot, name: f.name };
}

/** Allocates slots for the names in a pattern and binds them in the current scope. */
export function patternOf(az: Analyzer, f: Form): Pattern {
  if (f.kind === 'vector') {
    const items: Pattern[] = [];
    let rest: Pattern | null = null;
    let as = -1;
    for (let i = 0; i < f.items.length; i++) {
      const x = f.items[i]!;
      if (isSym(x, '&')) {
        const r = f.items[i + 1];
        if (!r) throw err('invalid_form', '& must be followed by a name', x.span);
        rest = patternOf(az, r);
        i++;
      } else if (x.kind === 'keyword' && x.value.fullName === 'as') {
        const n = f.items[i + 1];
        if (!n) throw err('invalid_form', ':as must be followed by a name', x.span);
        as = (bindName(az, n) as { slot: number }).slot;
        i++;
      } else {
        if (rest) throw err('invalid_form', 'only :as may follow the & rest name', x.span);
        items.push(patternOf(az, x));
      }
    }
    return { kind: 'seq', items, rest, as, span: f.span };
  }
  if (f.kind === 'map') return mapPattern(az, f);
  return bindName(az, f);
}

function mapPattern(az: Analyzer, f: Extract<Form, { kind: 'map' }>): Pattern {
  const defaults = new Map<string, Node>();
  for (let i = 0; i < f.items.length; i += 2) {
    const k = f.items[i]!;
    if (k.kind === 'keyword' && k.value.fullName === 'or') {
      const m = f.items[i + 1]!;
      if (m.kind !== 'map') throw err('invalid_form', ':or needs a map of defaults: {:or {a 1}}', m.span);
      for (let j = 0; j < m.items.length; j += 2) {
        const n = m.items[j]!;
        if (!isSym(n)) throw err('invalid_form', ':or keys must be names', n.span);
        defaults.set(n.name, az.an(m.items[j + 1]!, false));
      }
    }
  }
  const entries: MapPatternEntry[] = [];
  let as = -1;
  for (let i = 0; i < f.items.length; i += 2) {
    const k = f.items[i]!;
    const v = f.items[i + 1]!;
    if (k.kind === 'keyword' && k.value.ns === null) {
      const kname = k.value.name;
      if (kname === 'or') continue;
      if (kname === 'as') {
        as = (bindName(az, v) as { slot: number }).slot;
        continue;
      }
      if (kname === 'keys' || kname === 'strs') {
        if (v.kind !== 'vector') throw err('invalid_form', `:${kname} needs a vector of names`, v.span);
        for (const n of v.items) {
          let full: string;
          let local: string;
          if (n.kind === 'symbol') {
            full = n.ns ? `${n.ns}/${n.name}` : n.name;
            local = n.name;
          } else if (n.kind === 'keyword' && kname === 'keys') {
            full = n.value.fullName;
            local = n.value.name;
          } else if (n.kind === 'string' && kname === 'strs') {
            full = local = n.value;
          } else throw err('invalid_form', `:${kname} entries must be names`, n.span);
          const key: Value = kname === 'keys' ? kw(full) : full;
          const slot = az.scope.alloc();
          az.scope.bind(local, slot);
          entries.push({ key, pattern: { kind: 'bind', slot, name: local }, default: defaults.get(local) ?? null });
        }
        continue;
      }
      if (kname === 'syms')
        throw err(
          'invalid_form',
          ':syms destructuring is not supported (there are no symbol values); use :keys or :strs',
          k.span,
        );
    }
    const key = literalValue(v);
    if (key === undefined) throw err('invalid_form', `map pattern: ${describeForm(v)} is not a literal key`, v.span);
    const pattern = patternOf(az, k);
    entries.push({ key, pattern, default: pattern.kind === 'bind' ? (defaults.get(pattern.name) ?? null) : null });
  }
  return { kind: 'map', entries, as, span: f.span };
}
