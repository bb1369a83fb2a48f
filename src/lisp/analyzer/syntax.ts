/**
 * What the analyzer parts share about forms: the special-form names, the error helper,
 * small form builders and tests, and the rewrites of threading macros.
 */
import type { Form, Span } from '../form.ts';
import { PtcError, type ErrorCode } from '../errors.ts';
import { printForm } from '../printer/index.ts';
import { literalToValue } from '../reader/data.ts';
import type { Value } from '../values.ts';

/** Special forms: resolved here, never values. */
export const SPECIAL_FORMS: ReadonlySet<string> = new Set([
  'do',
  'let',
  'if',
  'if-not',
  'when',
  'when-not',
  'if-let',
  'when-let',
  'if-some',
  'when-some',
  'cond',
  'case',
  'condp',
  'and',
  'or',
  'fn',
  'defn',
  'defn-',
  'def',
  'defonce',
  'letfn',
  'loop',
  'recur',
  'for',
  'doseq',
  'dotimes',
  '->',
  '->>',
  'some->',
  'some->>',
  'cond->',
  'cond->>',
  'as->',
  'where',
  'all-of',
  'any-of',
  'none-of',
  'pmap',
  'pcalls',
  'return',
  'fail',
  'task',
  'step-done',
  'task-reset',
  'try',
  'throw',
  'quote',
  'comment',
  'declare',
  '.',
  'fn*',
  'let*',
  'loop*',
  'var',
]);

export const WHERE_OPS = new Set(['=', 'not=', '>', '<', '>=', '<=', 'includes', 'in']);
export const PLACEHOLDER = /^%(\d+|&)?$/;

export const err = (code: ErrorCode, message: string, span: Span | undefined, hint?: string): PtcError =>
  new PtcError(code, message, span, hint, 'analyze');

export const sym = (name: string, span: Span): Form => ({ kind: 'symbol', ns: null, name, span });
export const lst = (items: Form[], span: Span): Form => ({ kind: 'list', items, span });
export const vecf = (items: Form[], span: Span): Form => ({ kind: 'vector', items, span });
export const isSym = (f: Form | undefined, name?: string): f is Extract<Form, { kind: 'symbol' }> =>
  f !== undefined && f.kind === 'symbol' && f.ns === null && (name === undefined || f.name === name);

/** The value of a literal form, or undefined when the form is (or contains) code. */
export const literalValue = (f: Form): Value | undefined => literalToValue(f, () => undefined);

export const describeForm = (f: Form): string => {
  const s = printForm(f);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

/** Names defined by top-level `def`/`defn`/`defonce` forms (also inside top-level `do`). */
export function collectDefs(f: Form, out: Set<string>): void {
  if (f.kind !== 'list' || !isSym(f.items[0])) return;
  const head = f.items[0].name;
  if (head === 'do') f.items.slice(1).forEach((x) => collectDefs(x, out));
  else if ((head === 'def' || head === 'defn' || head === 'defn-' || head === 'defonce') && isSym(f.items[1]))
    out.add(f.items[1].name);
}

export function threadStep(acc: Form, step: Form, first: boolean): Form {
  if (step.kind === 'list' && step.items.length > 0) {
    const [h, ...rest] = step.items;
    return { kind: 'list', items: first ? [h!, acc, ...rest] : [h!, ...rest, acc], span: step.span };
  }
  return { kind: 'list', items: [step, acc], span: step.span };
}
