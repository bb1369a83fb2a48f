/**
 * The reader: PTC-Lisp source text → {@link Form}s, each with its {@link Span}.
 *
 * - {@link read}: every top-level form of a program (stray top-level closers are
 *   tolerated; everything else malformed is a `parse_error` with line and column).
 * - {@link readData}: one form read as a data value (the inverse of `prStr`).
 *
 * Lexical decisions are documented in docs/language.md.
 * @module
 */
export { read, MAX_NESTING } from './reader.ts';
export { readData, formToValue, type ReadDataOptions } from './data.ts';
