/**
 * Typed PTC-Lisp errors. Every failure of a program is a {@link PtcError} with a stable
 * `code`, a message without any "Error:" prefix (the prompt adds exactly one), the span
 * of the form that caused it, and a hint where one helps.
 */
import type { Span } from './form.ts';

export const ERROR_CODES = [
  // reading
  'parse_error',
  // analysis (all before anything runs)
  'invalid_form',
  'invalid_arity',
  'invalid_placeholder',
  'invalid_where_form',
  'invalid_where_operator',
  'invalid_cond_form',
  'unbound_var',
  'unknown_tool',
  'unknown_namespace',
  'cannot_shadow_builtin',
  // running
  'type_error',
  'arity_error',
  'arithmetic_error',
  'not_callable',
  'destructure_error',
  'index_out_of_bounds',
  'regex_error',
  'invalid_tool_args',
  'tool_error',
  /** a `(throw ...)` no `catch` caught; `details` has `message`, `data` (ex-message, ex-data) */
  'uncaught_exception',
  'tool_call_limit_exceeded',
  'pmap_error',
  'pcalls_error',
  'limit_exceeded',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Phase in which an error was raised. */
export type Phase = 'read' | 'analyze' | 'eval';

/** Which limit a `limit_exceeded` error names. */
export type LimitName = 'fuel' | 'timeout' | 'depth' | 'collection_size' | 'output' | 'regex' | 'loop' | 'memory';

export class PtcError extends Error {
  override readonly name = 'PtcError';

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly span?: Span,
    readonly hint?: string,
    readonly phase: Phase = 'eval',
    /** extra data specific to the code, e.g. `{limit: 'fuel'}` or zod issues */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }

  get line(): number | undefined {
    return this.span?.line;
  }

  get column(): number | undefined {
    return this.span?.col;
  }

  /** A copy located at `span` if this error has no location yet. */
  withSpan(span: Span | undefined): PtcError {
    if (this.span || !span) return this;
    return new PtcError(this.code, this.message, span, this.hint, this.phase, this.details);
  }

  /** `type_error: message (line L, column C)`: the one-line form used by the CLI. */
  toLine(): string {
    const at = this.span ? ` (line ${this.span.line}, column ${this.span.col})` : '';
    return `${this.code}: ${this.message}${at}`;
  }

  toJSON(): { type: ErrorCode; message: string; line: number | null; column: number | null; hint: string | null } {
    return {
      type: this.code,
      message: this.message,
      line: this.span?.line ?? null,
      column: this.span?.col ?? null,
      hint: this.hint ?? null,
    };
  }
}

export const limitExceeded = (limit: LimitName, message: string, span?: Span): PtcError =>
  new PtcError('limit_exceeded', message, span, undefined, 'eval', { limit });

export const typeError = (message: string, hint?: string): PtcError =>
  new PtcError('type_error', message, undefined, hint);
