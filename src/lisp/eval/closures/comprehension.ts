/** `for` and `doseq` clauses: bindings, `:let`, `:when`, `:while` (compiled by compile.ts's `compileForClause`). */
import { PtcError } from '../../errors.ts';
import { type Value, seqable, typeName } from '../../values.ts';
import type { Evaluator } from '../index.ts';
import { destructure } from '../destructure.ts';
import type { Span } from '../../form.ts';
import { type CBinding, type CPattern, type Code, bindAll } from './code.ts';

/** A compiled `for`/`doseq` clause. */
export type CForClause =
  | { kind: 'bind'; pattern: CPattern; coll: Code; span: Span }
  | { kind: 'let'; bindings: CBinding[] }
  | { kind: 'when'; test: Code }
  | { kind: 'while'; test: Code };

export function forClause(
  ev: Evaluator,
  clauses: CForClause[],
  ci: number,
  body: Code,
  out: Value[] | null,
  f: Value[],
): boolean {
  if (ci === clauses.length) {
    const v = body(f, ev);
    if (out) {
      out.push(v);
      if (out.length > ev.maxCollectionSize) ev.checkSize(out.length);
    }
    return true;
  }
  const c = clauses[ci]!;
  switch (c.kind) {
    case 'bind': {
      const coll = c.coll(f, ev);
      const it = seqable(coll);
      if (!it)
        throw new PtcError(
          'type_error',
          `${out ? 'for' : 'doseq'}: expected a collection, got ${typeName(coll)}`,
          c.span,
        );
      for (const x of it) {
        ev.tick();
        if (c.pattern.kind === 'bind') f[c.pattern.slot] = x;
        else destructure(c.pattern, x, f, ev);
        if (!forClause(ev, clauses, ci + 1, body, out, f)) break;
      }
      return true;
    }
    case 'let':
      bindAll(c.bindings, f, ev);
      return forClause(ev, clauses, ci + 1, body, out, f);
    case 'when': {
      const t = c.test(f, ev);
      return t !== null && t !== false ? forClause(ev, clauses, ci + 1, body, out, f) : true;
    }
    case 'while': {
      const t = c.test(f, ev);
      return t !== null && t !== false ? forClause(ev, clauses, ci + 1, body, out, f) : false;
    }
  }
}
