/**
 * Set functions: constructors plus `clojure.set`. The table serves the `set/` and
 * `clojure.set/` namespaces; `union`, `intersection` and `difference` are also bare
 * names (as in the reference). Sets keep insertion order; membership is exact (`:a` and
 * `"a"` are different members).
 */
import { PMap, PSet, type Runtime, type Value, isSet, truthy } from '../values.ts';
import { expectCallable, expectMap, seqItems } from './args.ts';
import { type CoreTable, VARIADIC, defn } from './registry.ts';
import { compareValues } from './seq.ts';

/** A set from a set (as is), nil (empty) or any other collection (its items). */
function asSet(fn: string, v: Value, rt: Runtime): PSet {
  if (isSet(v)) return v;
  const out = PSet.from(seqItems(fn, v, rt));
  rt.tick(out.size);
  rt.checkSize(out.size);
  return out;
}

function sizeChecked(s: PSet, rt: Runtime): PSet {
  rt.tick(s.size);
  rt.checkSize(s.size);
  return s;
}

export const setFns: CoreTable = {
  set: defn([1, 1], ([c], rt) => asSet('set', c!, rt), '(set coll) set of the items'),
  'hash-set': defn([0, VARIADIC], (xs, rt) => sizeChecked(PSet.from(xs), rt), '(hash-set & xs) set of the arguments'),
  'sorted-set': defn(
    [0, VARIADIC],
    (xs, rt) =>
      sizeChecked(
        PSet.from(xs).sort((a, b) => compareValues(a, b, 'sorted-set')),
        rt,
      ),
    '(sorted-set & xs) set of the arguments in sorted order',
  ),
  union: defn(
    [0, VARIADIC],
    (ss, rt) => {
      if (ss.length === 0) return PSet.EMPTY;
      const first = asSet('union', ss[0]!, rt);
      return sizeChecked(
        first.withMutations((out) => {
          for (const s of ss.slice(1)) for (const x of seqItems('union', s, rt)) out.add(x);
        }),
        rt,
      );
    },
    '(union & sets) set of the items in any of the sets',
  ),
  intersection: defn(
    [1, VARIADIC],
    ([s, ...ss], rt) => {
      const others = ss.map((o) => asSet('intersection', o, rt));
      return sizeChecked(
        asSet('intersection', s!, rt).filter((x) => others.every((o) => o.has(x))),
        rt,
      );
    },
    '(intersection s & sets) set of the items in every set',
  ),
  difference: defn(
    [1, VARIADIC],
    ([s, ...ss], rt) => {
      const others = ss.map((o) => asSet('difference', o, rt));
      return sizeChecked(
        asSet('difference', s!, rt).filter((x) => !others.some((o) => o.has(x))),
        rt,
      );
    },
    '(difference s & sets) set of the items of s in none of the other sets',
  ),
  'subset?': defn(
    [2, 2],
    ([a, b], rt) => {
      const bs = asSet('subset?', b!, rt);
      return asSet('subset?', a!, rt).every((x) => bs.has(x));
    },
    '(subset? a b) true if every item of a is in b',
  ),
  'superset?': defn(
    [2, 2],
    ([a, b], rt) => {
      const as = asSet('superset?', a!, rt);
      return asSet('superset?', b!, rt).every((x) => as.has(x));
    },
    '(superset? a b) true if every item of b is in a',
  ),
  select: defn(
    [2, 2],
    ([p, s], rt) => {
      expectCallable('select', p!);
      return asSet('select', s!, rt).filter((x) => truthy(rt.apply(p!, [x])));
    },
    '(select pred set) set of the items for which pred is truthy',
  ),
  'rename-keys': defn(
    [2, 2],
    ([m, kmap]) => {
      const mm = expectMap('rename-keys', m!);
      const renames = expectMap('rename-keys', kmap!);
      const removed = mm.deleteAll(renames.keys());
      return removed.withMutations((out) => {
        for (const [from, to] of renames) if (mm.has(from)) out.set(to, mm.get(from) as Value);
      });
    },
    '(rename-keys m {old new ...}) map with keys renamed',
  ),
  'map-invert': defn(
    [1, 1],
    ([m], rt) => {
      const mm: PMap = m === null ? PMap.EMPTY : expectMap('map-invert', m!);
      rt.tick(mm.size);
      return PMap.from(Array.from(mm, ([k, v]) => [v, k] as [Value, Value]));
    },
    '(map-invert m) map from values to keys',
  ),
};

/**
 * Names of {@link setFns} that are also available without a namespace: the
 * constructors (clojure.core in Clojure) and the reference's bare set operations.
 * The rest (`subset?`, `select`, `rename-keys`, ...) need `set/` or `clojure.set/`.
 */
export const BARE_SET_NAMES = ['set', 'hash-set', 'sorted-set', 'union', 'intersection', 'difference'] as const;
