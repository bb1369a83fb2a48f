/**
 * Which reducing functions may be handed a transient map by `reduce`.
 *
 * `(reduce (fn [m x] (assoc m (:id x) x)) {} coll)` copies a path of the map's trie per
 * item, although every intermediate map is dropped as soon as the next is made: only
 * `reduce` holds the accumulator, and the fn passes it to `assoc` and nowhere else. For
 * such a fn `reduce` builds one transient map (updated in place) and freezes it at the
 * end, as `(persistent! (reduce assoc! (transient {}) ...))` would in Clojure. Nothing
 * can tell the difference: no code ever sees an intermediate map.
 *
 * The test is syntactic and conservative: the arity takes two plain params and its body
 * is a call of the core `assoc`, `update`, `assoc-in`, `update-in` or `dissoc` whose
 * first argument is the first param, which no other argument mentions (nor captures in
 * a nested fn). Any node kind not known here counts as a mention.
 */
import type { Arity, Binding, Node, Pattern } from '../analyzer/nodes.ts';
import { resolveCore } from '../core/index.ts';

/**
 * Core functions that, given a transient map as first argument, update it in place and
 * return it, or return a new persistent map without writing to it, and pass it to
 * nothing else (`update` and `update-in` pass the old value, not the map, to their fn;
 * nested maps are read from it and written back persistently).
 */
const IN_PLACE = new Set<unknown>(['assoc', 'update', 'assoc-in', 'update-in', 'dissoc'].map((name) => resolveCore(null, name)));

/** True when `reduce` may pass this two-param arity a transient map (see the module comment). */
export function updatesFirstParamInPlace(arity: Arity): boolean {
  if (arity.fixed !== 2 || arity.rest !== null) return false;
  const acc = arity.params[0]!;
  const body = arity.body;
  if (acc.kind !== 'bind' || body.kind !== 'callCore' || !IN_PLACE.has(body.core)) return false;
  const [first, ...others] = body.args;
  if (first === undefined || first.kind !== 'local' || first.slot !== acc.slot) return false;
  // the item's destructuring may have `:or` defaults, evaluated with the accumulator in scope
  return !patternMentions(arity.params[1]!, acc.slot) && !others.some((n) => mentions(n, acc.slot));
}

/** Whether `n` may read local `slot` (true for any node kind not listed). */
function mentions(n: Node, slot: number): boolean {
  const any = (ns: readonly Node[]): boolean => ns.some((x) => mentions(x, slot));
  switch (n.kind) {
    case 'local':
      return n.slot === slot;
    case 'const':
    case 'global':
    case 'var':
    case 'data':
    case 'history':
    case 'budget':
      return false;
    case 'vector':
    case 'map':
    case 'set':
    case 'and':
    case 'or':
      return any(n.items);
    case 'do':
      return any(n.body);
    case 'if':
      return any([n.test, n.then, n.else]);
    case 'let':
      return bindingsMention(n.bindings, slot) || mentions(n.body, slot);
    case 'op1':
      return mentions(n.a, slot);
    case 'op2':
      return any([n.a, n.b]);
    case 'callCore':
    case 'callKw':
      return any(n.args);
    case 'call':
      return mentions(n.fn, slot) || any(n.args);
    case 'fn':
      // a nested fn reaches the enclosing locals only through its captures
      return n.fn.captures.some((c) => c.outer === slot);
    default:
      return true;
  }
}

function bindingsMention(bs: readonly Binding[], slot: number): boolean {
  return bs.some((b) => patternMentions(b.pattern, slot) || mentions(b.init, slot));
}

/** Whether a destructuring pattern's `:or` defaults may read local `slot`. */
function patternMentions(p: Pattern, slot: number): boolean {
  switch (p.kind) {
    case 'bind':
      return false;
    case 'seq':
      return p.items.some((q) => patternMentions(q, slot)) || (p.rest !== null && patternMentions(p.rest, slot));
    case 'map':
      return p.entries.some((e) => (e.default !== null && mentions(e.default, slot)) || patternMentions(e.pattern, slot));
  }
}
