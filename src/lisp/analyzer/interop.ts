/**
 * Java method calls: `(.method obj args...)`, and the `(. obj method args...)`,
 * `(. obj (method args...))` and `(.. obj m1 (m2 a))` forms, which are rewritten to it.
 * A supported method (core/interop.ts) becomes a plain core call, so it is evaluated,
 * charged and located like one; any other method is an `unbound_var` at analysis time
 * naming the core function to use.
 */
import type { Form, Span } from '../form.ts';
import { resolveMethod, unsupportedMethod } from '../core/interop.ts';
import type { Analyzer } from './analyzer.ts';
import type { Node } from './nodes.ts';
import { err, lst, sym } from './syntax.ts';

type ListForm = Extract<Form, { kind: 'list' }>;

/** `.foo` (not `.` or `..`): the head of a method call. */
export const isMethodName = (name: string): boolean => name.length > 1 && name[0] === '.' && name !== '..';

/** `(.method obj args...)`. */
export function methodCall(an: Analyzer, f: ListForm): Node {
  const head = f.items[0] as Extract<Form, { kind: 'symbol' }>;
  const method = head.name.slice(1);
  const core = resolveMethod(method);
  if (core === undefined) {
    const { message, hint } = unsupportedMethod(method);
    throw err('unbound_var', message, f.span, hint);
  }
  const n = f.items.length - 1;
  const [lo, hi] = core.arity;
  if (n < lo || n > hi) {
    const takes = (k: number) => `${k} argument${k === 1 ? '' : 's'}`;
    const expected = lo === hi ? takes(lo - 1) : `${lo - 1} to ${takes(hi - 1)}`;
    const message =
      n === 0
        ? `${head.name} needs an object to call it on`
        : `${head.name} takes ${expected} after the object, got ${n - 1}`;
    throw err('arity_error', message, f.span, `usage: ${core.doc}`);
  }
  const args = f.items.slice(1).map((x) => an.an(x, false));
  return { kind: 'callCore', name: head.name, core, args, span: f.span };
}

/** `(. obj method args...)` or `(. obj (method args...))` as `(.method obj args...)`. */
export function dotForm(an: Analyzer, f: ListForm): Node {
  const [, target, member, ...rest] = f.items;
  if (target === undefined || member === undefined)
    throw err(
      'invalid_form',
      '(. obj method args...) needs an object and a method',
      f.span,
      'write (.method obj args...)',
    );
  return methodCall(an, asMethodCall(target, member, rest, f.span));
}

/** `(.. obj m1 (m2 a) ...)`: each method called on the previous result. */
export function dotDotForm(an: Analyzer, f: ListForm): Node {
  const [, target, ...members] = f.items;
  if (target === undefined || members.length === 0)
    throw err('invalid_form', '(.. obj method ...) needs an object and a method', f.span, 'write (-> obj .m1 (.m2 a))');
  let call: Form = target;
  for (const m of members) call = asMethodCall(call, m, [], f.span);
  return methodCall(an, call as ListForm);
}

/** `target` `member` `rest` → `(.member target rest...)`; `member` may be `(m args...)`. */
function asMethodCall(target: Form, member: Form, rest: Form[], span: Span): ListForm {
  if (member.kind === 'symbol' && member.ns === null) {
    return lst([sym(`.${member.name}`, member.span), target, ...rest], span) as ListForm;
  }
  if (member.kind === 'list' && rest.length === 0) {
    const [m, ...args] = member.items;
    if (m?.kind === 'symbol' && m.ns === null)
      return lst([sym(`.${m.name}`, m.span), target, ...args], span) as ListForm;
  }
  throw err('invalid_form', 'the method of (. obj method) must be a name', member.span, 'write (.method obj args...)');
}
