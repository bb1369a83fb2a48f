/**
 * Wording of every reader error, in one place. Messages never carry an "Error:" prefix
 * and never contain host (JavaScript) text.
 */
import type { Span } from '../form.ts';
import { PtcError } from '../errors.ts';

const at = (s: Pick<Span, 'line' | 'col'>): string => `line ${s.line}, column ${s.col}`;

export const readerMessages = {
  unclosed: (open: string, opened: Span, total: number): string =>
    `unclosed '${open}' opened at ${at(opened)}` +
    (total > 1 ? ` (${total} delimiters are unclosed; this is the innermost)` : ''),
  mismatched: (closer: string, expected: string, open: string, opened: Span): string =>
    `mismatched '${closer}': expected '${expected}' to close '${open}' opened at ${at(opened)}`,
  oddMap: (count: number, opened: Span): string =>
    `map literal opened at ${at(opened)} has an odd number of forms (${count}): every key needs a value`,
  duplicateKey: (what: 'map' | 'set', key: string): string =>
    `duplicate ${what === 'map' ? 'key' : 'member'} ${key} in ${what} literal`,
  unterminatedString: (opened: Span): string => `unterminated string opened at ${at(opened)}`,
  unterminatedRegex: (opened: Span): string => `unterminated regex opened at ${at(opened)}`,
  badUnicodeEscape: (text: string): string =>
    `invalid unicode escape ${JSON.stringify(text)} in string: expected \\u followed by 4 hex digits`,
  invalidNumber: (text: string): string => `invalid number: ${text}`,
  invalidToken: (text: string): string => `invalid token: ${text}`,
  unsupportedChar: (text: string): string => `unsupported character: \\${text}`,
  eofAfterBackslash: 'end of input after \\: expected a character such as \\a or \\newline',
  autoKeyword: (text: string): string => `auto-resolved keyword ${text} is not supported`,
  emptyKeyword: 'a keyword needs a name after the colon, e.g. :status',
  nestedFnLiteral: 'nested #() are not allowed',
  varNeedsSymbol: "#' must be followed by a symbol, e.g. #'inc",
  unknownSymbolic: (text: string): string => `unknown symbolic value ##${text}: expected ##Inf, ##-Inf or ##NaN`,
  unsupportedDispatch: (text: string): string => `unsupported reader syntax ${text}`,
  quoteAlone: "quote (') must be followed by a form",
  syntaxQuote: 'syntax quote (`) is not supported',
  unquote: 'unquote (~) is not supported',
  deref: 'deref (@) is not supported',
  metadata: 'metadata (^) is not supported',
  tooDeep: (max: number): string => `forms are nested more than ${max} levels deep`,
  dataSymbol: (text: string): string => `symbols are not data: ${text}`,
  dataForm: (what: string): string => `${what} is not data`,
  dataEmpty: 'expected one form, got none',
  dataTrailing: 'expected exactly one form, got more',
} as const;

export const readerHints = {
  quote: "write the quoted data right after ', e.g. '(1 2 3)",
  syntaxQuote: 'PTC-Lisp has no macros: write the form directly',
  deref: 'PTC-Lisp has no atoms or refs: bind values with let, or accumulate with reduce/loop',
  metadata: 'remove the ^ annotation; type hints are not needed',
  nestedFnLiteral: 'write the inner function as (fn [x] ...)',
  autoKeyword: 'write the keyword with one colon, e.g. :status',
  unclosed: 'add the missing closing delimiter',
  oddMap: 'maps are written {:key value, :key2 value2}',
  unsupportedDispatch: 'supported # forms are #{...} sets, #"..." regexes, #(...) functions, #_ discard and #\'var',
  unsupportedChar:
    'characters are written \\a, \\newline, \\space, \\tab, \\return, \\backspace, \\formfeed or \\uXXXX',
} as const;

export const parseError = (message: string, span: Span, hint?: string): PtcError =>
  new PtcError('parse_error', message, span, hint, 'read');
