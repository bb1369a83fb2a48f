/**
 * Tree walking, as `clojure.walk`: `walk`, `prewalk`, `postwalk`, the `-replace`
 * variants and `keywordize-keys`/`stringify-keys`, plus `tree-seq` (clojure.core).
 * Map entries are visited as `[k v]` vectors; a map is rebuilt from what the walker
 * returns for its entries. Lists stay lists, vectors vectors, sets sets; a lazy seq is
 * realised (bounded) and comes back as a list.
 */
import { List } from 'immutable';
import {
  PMap,
  PSet,
  type Runtime,
  type Value,
  Keyword,
  PList,
  isLazySeq,
  isMap,
  isPList,
  isSet,
  isVector,
  kw,
  truthy,
} from '../values.ts';
import { expectCallable, expectMap, seqItems } from './args.ts';
import { type CoreTable, defn } from './registry.ts';
import { conjAll, eagerList, itemsArray } from './seq.ts';

type Fn = (v: Value) => Value;

/** One level of Clojure's `walk`: `inner` on every child, `outer` on the rebuilt form. */
function walk(fn: string, inner: Fn, outer: Fn, form: Value, rt: Runtime): Value {
  rt.tick(1);
  if (isVector(form)) return outer(form.map((x) => inner(x)));
  if (isPList(form)) return outer(new PList(form.items.map((x) => inner(x))));
  if (isLazySeq(form)) return outer(new PList(List(itemsArray(fn, form, rt).map(inner))));
  if (isMap(form)) {
    const entries = Array.from(form, ([k, v]) => inner(List<Value>([k, v])));
    return outer(conjAll(fn, PMap.EMPTY, entries, rt));
  }
  if (isSet(form)) return outer(PSet.from(Array.from(form, inner)));
  return outer(form);
}

function postwalk(fn: string, f: Fn, form: Value, rt: Runtime): Value {
  return walk(fn, (x) => postwalk(fn, f, x, rt), f, form, rt);
}

function prewalk(fn: string, f: Fn, form: Value, rt: Runtime): Value {
  return walk(
    fn,
    (x) => prewalk(fn, f, x, rt),
    (x) => x,
    f(form),
    rt,
  );
}

const called = (fn: string, f: Value, rt: Runtime): Fn => {
  expectCallable(fn, f);
  return (x) => rt.apply1(f, x);
};

/** A walker replacing values that are keys of `smap` (exact keys). */
const replacer = (fn: string, smap: Value): Fn => {
  const m = expectMap(fn, smap);
  return (x) => (m.has(x) ? (m.get(x) as Value) : x);
};

/** Rewrites the keys of every map met by `postwalk` with `rekey`. */
function rekeyMaps(fn: string, rekey: (k: Value) => Value, form: Value, rt: Runtime): Value {
  return postwalk(
    fn,
    (x) => (isMap(x) ? PMap.EMPTY.withMutations((m) => void (x as PMap).forEach((v, k) => m.set(rekey(k), v))) : x),
    form,
    rt,
  );
}

function* treeSeq(branch: Fn, children: Fn, root: Value, fn: string, rt: Runtime): Generator<Value> {
  const stack: Iterator<Value>[] = [];
  const visit = function* (node: Value): Generator<Value> {
    yield node;
    if (truthy(branch(node))) stack.push(seqItems(fn, children(node), rt)[Symbol.iterator]());
  };
  yield* visit(root);
  while (stack.length > 0) {
    const r = stack[stack.length - 1]!.next();
    if (r.done) stack.pop();
    else yield* visit(r.value);
  }
}

export const walkFns: CoreTable = {
  walk: defn(
    [3, 3],
    ([inner, outer, form], rt) => walk('walk', called('walk', inner!, rt), called('walk', outer!, rt), form!, rt),
    '(walk inner outer form) applies inner to each child of form, then outer to the result',
  ),
  postwalk: defn(
    [2, 2],
    ([f, form], rt) => postwalk('postwalk', called('postwalk', f!, rt), form!, rt),
    '(postwalk f form) applies f to every sub-form, children first',
  ),
  prewalk: defn(
    [2, 2],
    ([f, form], rt) => prewalk('prewalk', called('prewalk', f!, rt), form!, rt),
    '(prewalk f form) applies f to every sub-form, parents first',
  ),
  'postwalk-replace': defn(
    [2, 2],
    ([smap, form], rt) => postwalk('postwalk-replace', replacer('postwalk-replace', smap!), form!, rt),
    '(postwalk-replace {old new} form) replaces every sub-form that is a key of the map',
  ),
  'prewalk-replace': defn(
    [2, 2],
    ([smap, form], rt) => prewalk('prewalk-replace', replacer('prewalk-replace', smap!), form!, rt),
    '(prewalk-replace {old new} form) replaces sub-forms, parents first',
  ),
  'keywordize-keys': defn(
    [1, 1],
    ([form], rt) => rekeyMaps('keywordize-keys', (k) => (typeof k === 'string' ? kw(k) : k), form!, rt),
    '(keywordize-keys m) string keys become keywords, in nested maps too',
  ),
  'stringify-keys': defn(
    [1, 1],
    ([form], rt) => rekeyMaps('stringify-keys', (k) => (k instanceof Keyword ? k.name : k), form!, rt),
    '(stringify-keys m) keyword keys become strings, in nested maps too',
  ),
  'tree-seq': defn(
    [3, 3],
    ([branch, children, root], rt) => {
      const b = called('tree-seq', branch!, rt);
      const c = called('tree-seq', children!, rt);
      return eagerList('tree-seq', rt, { [Symbol.iterator]: () => treeSeq(b, c, root!, 'tree-seq', rt) });
    },
    '(tree-seq branch? children root) depth-first seq of the nodes of a tree',
  ),
};
