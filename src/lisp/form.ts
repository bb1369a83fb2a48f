/**
 * Forms: what the reader produces and the analyzer consumes. Every form carries the
 * span of source text it was read from, so every later error can point at it.
 */
import type { Keyword } from './values.ts';

/** Where a form was read from. `line` and `col` are 1-based; `offset` is 0-based. */
export interface Span {
  offset: number;
  length: number;
  line: number;
  col: number;
}

export type Form =
  | { kind: 'nil'; span: Span }
  | { kind: 'bool'; value: boolean; span: Span }
  | { kind: 'number'; value: number; span: Span }
  | { kind: 'string'; value: string; span: Span }
  /** `\a`, `\newline`: a character; its value is a 1-character string */
  | { kind: 'char'; value: string; span: Span }
  | { kind: 'keyword'; value: Keyword; span: Span }
  /** `ns` is null for plain symbols, `"tool"` for `tool/x`, `"str"` for `str/join` */
  | { kind: 'symbol'; ns: string | null; name: string; span: Span }
  | { kind: 'list'; items: Form[]; span: Span }
  | { kind: 'vector'; items: Form[]; span: Span }
  /** items alternate key, value (the reader guarantees an even count) */
  | { kind: 'map'; items: Form[]; span: Span }
  | { kind: 'set'; items: Form[]; span: Span }
  /** `#"..."`: `source` is the pattern text exactly as written */
  | { kind: 'regex'; source: string; span: Span }
  /** `#(...)`: `items` are the forms inside the parentheses */
  | { kind: 'fnLiteral'; items: Form[]; span: Span }
  /** `#'name` */
  | { kind: 'var'; name: string; span: Span };

export type FormKind = Form['kind'];
