/**
 * The user message sent after each turn: what the program printed, the stored symbols,
 * the turn line and the progress checklist; or the error with exactly one `Error:`
 * prefix; or the problems of a rejected return value.
 */
import type { Json } from '../../lisp/tools.ts';
import { cut, ednOfJson } from '../../lisp/printer/edn.ts';
import type { ChecklistStep } from '../checklist.ts';
import { type Summaries, renderProgress } from './progress.ts';

/**
 * Characters of printed output shown back to the model. Several KB: a listing of a few
 * dozen records fits (512 made a model spend turns re-printing rows that were cut).
 */
export const FEEDBACK_PRINT_CHARS = 4096;
/** The line that closes a cut output: what was left out and how to see it. */
export const PRINTS_TRUNCATED = 'print fewer rows or fewer fields to see the rest';

export interface TurnCounts {
  /** the turn the model is about to take, 1-based */
  next: number;
  maxTurns: number;
  retryTurns: number;
}

/** Tells the model where it stands: turns left, last turn warnings, retries. */
export function turnLine({ next, maxTurns, retryTurns }: TurnCounts): string {
  const workLeft = maxTurns - next + 1;
  if (workLeft <= 0) {
    const k = next - maxTurns;
    if (k >= retryTurns) {
      return `⚠ FINAL RETRY (retry ${k} of ${retryTurns}): this program must end with (return ...) or (fail ...).`;
    }
    const left = retryTurns - k + 1;
    return `Turn ${next}: retry ${k} of ${retryTurns} (${left} ${left === 1 ? 'retry' : 'retries'} remaining). Fix the problem and return.`;
  }
  if (workLeft === 1) {
    const retries =
      retryTurns > 0
        ? ` If the returned value is rejected, you get ${retryTurns} more ${retryTurns === 1 ? 'attempt' : 'attempts'} to correct it.`
        : '';
    return `⚠ FINAL WORK TURN (turn ${next} of ${maxTurns}): this program must end with (return ...) or (fail ...).${retries}`;
  }
  if (retryTurns > 0) return `Turn ${next} (${workLeft} work turns + ${retryTurns} retry turns remaining)`;
  if (workLeft === 2) {
    return `Turn ${next} of ${maxTurns} (2 remaining). After this one, the next turn is your LAST: prepare your return.`;
  }
  return `Turn ${next} of ${maxTurns} (${workLeft} remaining)`;
}

/**
 * Printed lines, at most {@link FEEDBACK_PRINT_CHARS} characters, cut along the structure:
 * whole lines first; a line too long for what is left is cut after its last whole element
 * (a closing `}`, `]` or `"` followed by a space, else a space). The cut says how many
 * lines and characters were left out.
 */
export function renderPrints(prints: readonly string[], limit = FEEDBACK_PRINT_CHARS): string {
  const text = prints.join('\n');
  if (text.length <= limit) return text;
  const lines = text.split('\n');
  const kept: string[] = [];
  let used = 0;
  let i = 0;
  for (; i < lines.length; i++) {
    const need = lines[i]!.length + (kept.length ? 1 : 0);
    if (used + need > limit) break;
    kept.push(lines[i]!);
    used += need;
  }
  let partial = '';
  const room = limit - used - (kept.length ? 1 : 0);
  if (i < lines.length && room > 80) {
    const line = lines[i]!;
    const at = elementBoundary(line, room);
    partial = `${line.slice(0, at)} …(${line.length - at} more characters of this line)`;
    kept.push(partial);
    i++;
  }
  const omittedLines = lines.length - i;
  const omittedChars = lines.slice(i).reduce((a, l) => a + l.length + 1, 0);
  const what = [
    omittedLines ? `${omittedLines} more ${omittedLines === 1 ? 'line' : 'lines'} (${omittedChars} characters)` : '',
    partial ? 'the rest of the last line' : '',
  ]
    .filter(Boolean)
    .join(' and ');
  return `${kept.join('\n')}\n[output cut at ${limit} characters: ${what} not shown; ${PRINTS_TRUNCATED}]`;
}

/** Where to cut `line` at most `max` characters in: after the last whole element, else at a space. */
function elementBoundary(line: string, max: number): number {
  const head = line.slice(0, max);
  for (let j = head.length - 1; j > 0; j--) if (head[j] === ' ' && '}]")'.includes(head[j - 1]!)) return j;
  const space = head.lastIndexOf(' ');
  return space > max / 2 ? space : max;
}

export interface NormalFeedback extends TurnCounts {
  prints: readonly string[];
  /** names bound with def/defn so far */
  stored: readonly string[];
  checklist: readonly ChecklistStep[];
  summaries?: Summaries | null;
}

/** Feedback after a program that ended without return, fail or error. */
export function normalFeedback(f: NormalFeedback): string {
  const parts = [f.prints.length ? renderPrints(f.prints) : '(no output)'];
  if (f.maxTurns > 1 && f.stored.length) parts.push(`Stored (access as symbols): ${[...f.stored].sort().join(', ')}`);
  parts.push(turnLine(f));
  const progress = renderProgress(f.checklist, f.summaries);
  if (progress) parts.push(progress);
  return parts.join('\n\n');
}

/** What the feedback needs of an error (a PtcError fits, as does its toJSON()). */
export interface ErrorLike {
  /** `type_error`, ...; absent for answer-level problems such as a missing code block */
  type?: string;
  code?: string;
  message: string;
  line?: number | null;
  column?: number | null;
  hint?: string | null;
}

/** `Error: type_error: message (line 2, column 5)` plus a hint line: one prefix only. */
export function renderError(e: ErrorLike): string {
  const type = e.type ?? e.code;
  const message = e.message.replace(/^(?:\s*error:\s*)+/i, '');
  const at = e.line != null ? ` (line ${e.line}${e.column != null ? `, column ${e.column}` : ''})` : '';
  const head = `Error: ${type ? `${type}: ` : ''}${message}${at}`;
  return e.hint ? `${head}\nHint: ${e.hint}` : head;
}

export interface ErrorFeedback extends TurnCounts {
  error: ErrorLike;
  /** output printed before the error */
  prints?: readonly string[];
}

/** Feedback after a failed program or an answer without usable code. No checklist. */
export function errorFeedback(f: ErrorFeedback): string {
  const parts = [renderError(f.error)];
  if (f.prints?.length) parts.push(`Output before the error:\n${renderPrints(f.prints)}`);
  parts.push(turnLine(f));
  return parts.join('\n\n');
}

export interface ReturnFeedback extends TurnCounts {
  /** the expected output type, as rendered in the first message */
  expected: string;
  received: Json;
  /** `path: message` lines */
  problems: readonly string[];
}

/** Feedback after `(return v)` with a value the output schema rejects. */
export function returnFeedback(f: ReturnFeedback): string {
  return [
    [
      'Error: invalid_return: the returned value does not match the expected output.',
      `Expected: ${f.expected}`,
      `Received: ${cut(ednOfJson(f.received), 200)}`,
      'Problems:',
      ...f.problems.map((p) => `- ${p}`),
      'Fix the value and call (return ...) again.',
    ].join('\n'),
    turnLine(f),
  ].join('\n\n');
}
