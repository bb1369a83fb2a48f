/**
 * Which reducing functions may be handed a transient map or vector by `reduce`.
 *
 * `(reduce (fn [m x] (assoc m (:id x) x)) {} coll)` copies a path of the map's trie per
 * item, although every intermediate map is dropped as soon as the next is made: only
 * `reduce` holds the accumulator, and the fn passes it to `assoc` and nowhere else. For
 * such a fn `reduce` builds one transient map (updated in place) and freezes it at the
 * end, as `(persistent! (reduce assoc! (transient {}) ...))` would in Clojure. Nothing
 * can tell the difference: no code ever sees an intermediate map.
 *
 * The test is syntactic and conservative. The arity takes two params, the first a plain
 * name (the accumulator), and its body gives either the accumulator itself, or a value
 * that does not mention it, or a call of the core `assoc`, `update`, `assoc-in`,
 * `update-in`, `dissoc` or `conj` whose first argument is again such a body (so `(-> m (assoc
 * :a 1) (update :n inc))`) and whose other arguments do not mention it; `if`, `let` and
 * `do` combine these, their tests, bindings and other forms not mentioning it. Reading
 * the accumulator with `get`, `contains?`, `count`, `empty?` or a keyword (`(:total m)`)
 * is not a mention: those give a value stored in it, or a number or boolean, never the
 * map itself. Any node kind not known here counts as a mention, as does a nested fn
 * that captures it.
 */
import type { Arity, Binding, Node, Pattern } from '../../analyzer/nodes.ts';
import { resolveCore } from '../../core/index.ts';

/**
 * Core functions that, given a transient map or vector as first argument, update it in
 * place and return it, or return a new persistent collection without writing to it, and
 * pass it to nothing else (`update` and `update-in` pass the old value, not the
 * collection, to their fn; nested collections are read from it and written back
 * persistently; `conj` appends to a vector, and makes a new map from a map).
 */
const IN_PLACE = new Set<unknown>(
  ['assoc', 'update', 'assoc-in', 'update-in', 'dissoc', 'conj'].map((name) => resolveCore(null, name)),
);

/** Core functions that read a collection and give a value stored in it, a number or a boolean. */
const READERS = new Set<unknown>(['get', 'contains?', 'count', 'empty?'].map((name) => resolveCore(null, name)));

/** True when `reduce` may pass this two-param arity a transient map or vector (see the module comment). */
export function updatesFirstParamInPlace(arity: Arity): boolean {
  if (arity.fixed !== 2 || arity.rest !== null) return false;
  const acc = arity.params[0]!;
  if (acc.kind !== 'bind') return false;
  // the item's destructuring may have `:or` defaults, evaluated with the accumulator in scope
  return !patternMentions(arity.params[1]!, acc.slot) && givesAcc(arity.body, acc.slot);
}

/** Whether `n`, as the fn's value, gives the accumulator `slot` (updated in place) or a value not holding it. */
function givesAcc(n: Node, slot: number): boolean {
  switch (n.kind) {
    case 'local':
      return true; // the accumulator itself, or another local (which cannot hold it: see mentions)
    case 'callCore': {
      if (!IN_PLACE.has(n.core)) return !mentions(n, slot);
      const [first, ...others] = n.args;
      if (first === undefined || !givesAcc(first, slot)) return false;
      // the other args run after `first`: once it may have updated the accumulator, not even a read
      const reads = isLocal(first, slot);
      return !others.some((x) => mentions(x, slot, reads));
    }
    case 'if':
      return !mentions(n.test, slot) && givesAcc(n.then, slot) && givesAcc(n.else, slot);
    case 'let':
      return !bindingsMention(n.bindings, slot) && givesAcc(n.body, slot);
    case 'do':
      return !n.body.slice(0, -1).some((x) => mentions(x, slot)) && givesAcc(n.body[n.body.length - 1]!, slot);
    default:
      return !mentions(n, slot);
  }
}

/**
 * Whether `n` may use local `slot` other than by reading it (with `reads`; see the module
 * comment), or at all (without). True for any node kind not listed.
 */
function mentions(n: Node, slot: number, reads = true): boolean {
  const any = (ns: readonly Node[]): boolean => ns.some((x) => mentions(x, slot, reads));
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
      return bindingsMention(n.bindings, slot, reads) || mentions(n.body, slot, reads);
    case 'op1':
      return mentions(n.a, slot, reads);
    case 'op2':
      return any([n.a, n.b]);
    case 'callCore':
      if (reads && READERS.has(n.core) && isLocal(n.args[0], slot)) return any(n.args.slice(1));
      return any(n.args);
    case 'callKw':
      // (:k m) and (:k m default) read a value stored in it
      if (reads && isLocal(n.args[0], slot)) return any(n.args.slice(1));
      return any(n.args);
    case 'call':
      return mentions(n.fn, slot, reads) || any(n.args);
    case 'fn':
      // a nested fn reaches the enclosing locals only through its captures
      return n.fn.captures.some((c) => c.outer === slot);
    default:
      return true;
  }
}

const isLocal = (n: Node | undefined, slot: number): boolean =>
  n !== undefined && n.kind === 'local' && n.slot === slot;

function bindingsMention(bs: readonly Binding[], slot: number, reads = true): boolean {
  return bs.some((b) => patternMentions(b.pattern, slot, reads) || mentions(b.init, slot, reads));
}

/** Whether a destructuring pattern's `:or` defaults may read local `slot`. */
function patternMentions(p: Pattern, slot: number, reads = true): boolean {
  switch (p.kind) {
    case 'bind':
      return false;
    case 'seq':
      return (
        p.items.some((q) => patternMentions(q, slot, reads)) ||
        (p.rest !== null && patternMentions(p.rest, slot, reads))
      );
    case 'map':
      return p.entries.some(
        (e) => (e.default !== null && mentions(e.default, slot, reads)) || patternMentions(e.pattern, slot, reads),
      );
  }
}
