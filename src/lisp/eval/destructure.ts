/** Binding patterns (vector and map destructuring) applied to a value at run time. */
import { PtcError } from '../errors.ts';
import { mapGet } from '../lookup.ts';
import {
  LazySeq,
  PList,
  type PMap,
  type Value,
  isMap,
  isSequential,
  isVector,
  map as pmap,
  seqable,
  typeName,
  vec,
  isLazySeq,
  isPList,
} from '../values.ts';
import type { Evaluator } from './index.ts';
import { MISSING } from './signals.ts';
import type { CPattern } from './closures/code.ts';

export function destructure(p: CPattern, v: Value, f: Value[], ev: Evaluator): void {
  switch (p.kind) {
    case 'bind':
      f[p.slot] = v;
      return;
    case 'seq': {
      if (p.as >= 0) f[p.as] = v;
      const items = p.items;
      if (v === null) {
        for (const it of items) destructure(it, null, f, ev);
        if (p.rest) destructure(p.rest, null, f, ev);
        return;
      }
      if (isVector(v) || isPList(v)) {
        const list = isVector(v) ? v : v.items;
        for (let i = 0; i < items.length; i++) destructure(items[i]!, i < list.size ? list.get(i)! : null, f, ev);
        if (p.rest) destructure(p.rest, list.size > items.length ? new PList(list.slice(items.length)) : null, f, ev);
        return;
      }
      if (typeof v === 'string' || isLazySeq(v)) {
        const all = typeof v === 'string' ? Array.from(v) : null;
        const at = (i: number): Value => {
          if (all) return i < all.length ? all[i]! : null;
          const x = (v as LazySeq).nth(i);
          return x === LazySeq.END ? null : x;
        };
        for (let i = 0; i < items.length; i++) destructure(items[i]!, at(i), f, ev);
        if (p.rest) {
          let rest: Value = null;
          if (all) rest = all.length > items.length ? new PList(vec(all.slice(items.length))) : null;
          else {
            const lz = v as LazySeq;
            const start = items.length;
            if (lz.nth(start) !== LazySeq.END) rest = new LazySeq((i) => lz.nth(start + i));
          }
          destructure(p.rest, rest, f, ev);
        }
        return;
      }
      throw new PtcError(
        'destructure_error',
        `cannot destructure a ${typeName(v)} with a vector pattern`,
        p.span,
        isMap(v) ? 'use a map pattern {:keys [a b]} for maps' : undefined,
      );
    }
    case 'map': {
      let m: PMap | null = null;
      if (isMap(v)) m = v;
      else if (v !== null && isSequential(v)) {
        const xs = Array.from(seqable(v)!);
        if (xs.length === 1 && isMap(xs[0]!)) m = xs[0] as PMap;
        else {
          const entries: [Value, Value][] = [];
          for (let i = 0; i < xs.length; i += 2) entries.push([xs[i]!, xs[i + 1] ?? null]);
          m = pmap(entries);
        }
      } else if (v !== null) {
        throw new PtcError('destructure_error', `cannot destructure a ${typeName(v)} with a map pattern`, p.span);
      }
      if (p.as >= 0) f[p.as] = v;
      for (const e of p.entries) {
        let x = m === null ? MISSING : mapGet(m, e.key, MISSING);
        if (x === MISSING) x = e.default ? e.default(f, ev) : null;
        destructure(e.pattern, x, f, ev);
      }
      return;
    }
  }
}
