/**
 * Words both people-facing readers (the CLI and the console) show for a plan, kept here
 * so that neither imports the other and the two say the same thing.
 */
import type { Json, Step } from '../../plans/schema.ts';
import { expressionNames } from '../../plans/expressions.ts';
import { askIsComputed } from '../../plans/references.ts';

/** An expression on one line, its control characters (newlines, terminal escapes) written out. */
export const expressionText = (source: string): string =>
  source
    .replace(/\r?\n\s*/g, ' ')
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The question a resolved computed question put to the person (its `resolved` text), if the step recorded one. */
export function resolvedQuestion(step: Pick<Step, 'ask' | 'resolved'>): { question: string; schema: Json } | null {
  const r = step.resolved;
  if (
    !step.ask ||
    !askIsComputed(step) ||
    r === null ||
    typeof r !== 'object' ||
    Array.isArray(r) ||
    typeof r.question !== 'string'
  )
    return null;
  return { question: r.question, schema: r.schema ?? step.ask.schema };
}

/**
 * A question step's text: as written; for `{"$expr": ...}`, the text it computed once the
 * step ran (the step's `resolved`), else `computed from STEPS: EXPR` (the steps it reads).
 */
export function questionText(step: Pick<Step, 'ask' | 'resolved' | 'dependsOn'>): string {
  const q = step.ask?.question;
  if (q === undefined) return '';
  const resolved = resolvedQuestion(step);
  if (resolved) return resolved.question;
  if (typeof q === 'string') return q;
  const reads = [...expressionNames(q.$expr).steps];
  const from = reads.length ? reads : step.dependsOn;
  return `computed${from.length ? ` from ${from.join(', ')}` : ''}: ${expressionText(q.$expr)}`;
}
