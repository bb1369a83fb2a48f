/**
 * The PTC-Lisp reader: source text → {@link Form}s with spans.
 *
 * One pass over the char codes with an explicit stack of open collections (no
 * recursion, so deeply nested input cannot overflow the host stack). Tokens are
 * classified by their first character; only rare forms (hex, radix, ratio numbers)
 * take a slower path. Lexical syntax follows Clojure; the differences are listed in
 * docs/language.md.
 */
import type { Form, Span } from '../form.ts';
import { Keyword } from '../values.ts';
import { parseError, readerHints as H, readerMessages as M } from './messages.ts';
import { checkDuplicates } from './duplicates.ts';
import { MINUS, PLUS, isDigit, parseNumber } from './numbers.ts';

/** Collections nested deeper than this are a parse error (protects later phases). */
export const MAX_NESTING = 1000;

// ---------------------------------------------------------------- character classes

const WS = 1; // whitespace (incl. comma)
const DELIM = 2; // ends a token: whitespace or a terminating macro character
const DIGIT = 4;

const CLASS = new Uint8Array(128);
for (const c of [' ', '\t', '\n', '\r', ',', '\f', '\v']) CLASS[c.charCodeAt(0)] = WS | DELIM;
for (const c of '";@^`~()[]{}\\') CLASS[c.charCodeAt(0)] = DELIM;
for (let c = 48; c <= 57; c++) CLASS[c] = DIGIT;

const isDelim = (c: number): boolean => c < 128 && (CLASS[c]! & DELIM) !== 0;

const LPAREN = 40;
const RPAREN = 41;
const LBRACKET = 91;
const RBRACKET = 93;
const LBRACE = 123;
const RBRACE = 125;
const DQUOTE = 34;
const HASH = 35;
const SEMI = 59;
const COLON = 58;
const BACKSLASH = 92;
const NEWLINE = 10;

// ---------------------------------------------------------------- frames

type CollKind = 'list' | 'vector' | 'map' | 'set' | 'fnLiteral';

interface Frame {
  /** `quote`: a `'` waiting for the one form it quotes */
  kind: CollKind | 'top' | 'quote';
  items: Form[];
  /** span of the opening delimiter (length filled in on close) */
  open: Span;
  /** pending `#_` discards in this collection */
  discard: number;
}

const OPENER: Record<CollKind, string> = { list: '(', vector: '[', map: '{', set: '#{', fnLiteral: '#(' };
const CLOSER: Record<CollKind, number> = {
  list: RPAREN,
  vector: RBRACKET,
  map: RBRACE,
  set: RBRACE,
  fnLiteral: RPAREN,
};

const CHAR_NAMES: Record<string, string> = {
  newline: '\n',
  space: ' ',
  tab: '\t',
  return: '\r',
  backspace: '\b',
  formfeed: '\f',
};

// ---------------------------------------------------------------- the reader

class Reader {
  private pos = 0;
  private line = 1;
  private lineStart = 0;
  private readonly stack: Frame[] = [];
  private fnDepth = 0;

  constructor(private readonly src: string) {}

  read(): Form[] {
    const src = this.src;
    const len = src.length;
    const top: Frame = { kind: 'top', items: [], open: this.spanAt(0), discard: 0 };
    const stack = this.stack;
    stack.push(top);
    for (;;) {
      this.skipSpace();
      if (this.pos >= len) break;
      const c = src.charCodeAt(this.pos);
      switch (c) {
        case LPAREN:
          this.push('list', 1);
          break;
        case LBRACKET:
          this.push('vector', 1);
          break;
        case LBRACE:
          this.push('map', 1);
          break;
        case RPAREN:
        case RBRACKET:
        case RBRACE:
          this.close(c);
          break;
        case DQUOTE:
          this.emit(this.readString());
          break;
        case BACKSLASH:
          this.emit(this.readChar());
          break;
        case HASH:
          this.dispatch();
          break;
        case 39: // '
          this.stack.push({ kind: 'quote', items: [], open: this.spanAt(this.pos, 1), discard: 0 });
          this.pos++;
          break;
        case 96: // `
          throw parseError(M.syntaxQuote, this.spanAt(this.pos, 1), H.syntaxQuote);
        case 126: // ~
          throw parseError(M.unquote, this.spanAt(this.pos, 1), H.syntaxQuote);
        case 64: // @
          throw parseError(M.deref, this.spanAt(this.pos, 1), H.deref);
        case 94: // ^
          throw parseError(M.metadata, this.spanAt(this.pos, 1), H.metadata);
        default:
          this.emit(this.readAtom());
      }
    }
    if (stack.length > 1) {
      const inner = stack[stack.length - 1]!;
      if (inner.kind === 'quote') throw parseError(M.quoteAlone, inner.open, H.quote);
      const kind = inner.kind as CollKind;
      throw parseError(M.unclosed(OPENER[kind], inner.open, stack.length - 1), inner.open, H.unclosed);
    }
    return top.items;
  }

  // ------------------------------------------------------------ positions

  private spanAt(offset: number, length = 0): Span {
    return { offset, length, line: this.line, col: offset - this.lineStart + 1 };
  }

  /** Span for an offset on an earlier line (used only for errors inside strings). */
  private locate(offset: number, length = 0): Span {
    let line = 1;
    let lineStart = 0;
    for (let i = 0; i < offset; i++) {
      if (this.src.charCodeAt(i) === NEWLINE) {
        line++;
        lineStart = i + 1;
      }
    }
    return { offset, length, line, col: offset - lineStart + 1 };
  }

  private skipSpace(): void {
    const src = this.src;
    const len = src.length;
    let pos = this.pos;
    while (pos < len) {
      const c = src.charCodeAt(pos);
      if (c === NEWLINE) {
        pos++;
        this.line++;
        this.lineStart = pos;
      } else if (c < 128 && (CLASS[c]! & WS) !== 0) {
        pos++;
      } else if (c === SEMI) {
        while (pos < len && src.charCodeAt(pos) !== NEWLINE) pos++;
      } else if (c === HASH && src.charCodeAt(pos + 1) === 33 /* #! */) {
        while (pos < len && src.charCodeAt(pos) !== NEWLINE) pos++;
      } else {
        break;
      }
    }
    this.pos = pos;
  }

  // ------------------------------------------------------------ collections

  private push(kind: CollKind, openLen: number): void {
    if (this.stack.length > MAX_NESTING) throw parseError(M.tooDeep(MAX_NESTING), this.spanAt(this.pos, openLen));
    if (kind === 'fnLiteral') {
      if (this.fnDepth > 0) throw parseError(M.nestedFnLiteral, this.spanAt(this.pos, 2), H.nestedFnLiteral);
      this.fnDepth++;
    }
    this.stack.push({ kind, items: [], open: this.spanAt(this.pos, openLen), discard: 0 });
    this.pos += openLen;
  }

  private close(c: number): void {
    const stack = this.stack;
    const frame = stack[stack.length - 1]!;
    if (frame.kind === 'top') {
      // stray closers between or after top-level forms are tolerated
      this.pos++;
      return;
    }
    if (frame.kind === 'quote') throw parseError(M.quoteAlone, frame.open, H.quote);
    const kind = frame.kind;
    if (CLOSER[kind] !== c) {
      const closer = String.fromCharCode(c);
      const expected = String.fromCharCode(CLOSER[kind]);
      throw parseError(M.mismatched(closer, expected, OPENER[kind], frame.open), this.spanAt(this.pos, 1), H.unclosed);
    }
    stack.pop();
    this.pos++;
    const open = frame.open;
    const span: Span = { offset: open.offset, length: this.pos - open.offset, line: open.line, col: open.col };
    const items = frame.items;
    let form: Form;
    switch (kind) {
      case 'list':
        form = { kind: 'list', items, span };
        break;
      case 'vector':
        form = { kind: 'vector', items, span };
        break;
      case 'map':
        if (items.length % 2 !== 0) throw parseError(M.oddMap(items.length, open), span, H.oddMap);
        if (items.length > 2) checkDuplicates(items, 'map', span);
        form = { kind: 'map', items, span };
        break;
      case 'set':
        if (items.length > 1) checkDuplicates(items, 'set', span);
        form = { kind: 'set', items, span };
        break;
      case 'fnLiteral':
        this.fnDepth--;
        form = { kind: 'fnLiteral', items, span };
        break;
    }
    this.emit(form);
  }

  private emit(form: Form): void {
    const frame = this.stack[this.stack.length - 1]!;
    if (frame.discard > 0) return void frame.discard--;
    if (frame.kind !== 'quote') return void frame.items.push(form);
    // 'x reads as (quote x)
    this.stack.pop();
    const open = frame.open;
    const span: Span = {
      offset: open.offset,
      length: form.span.offset + form.span.length - open.offset,
      line: open.line,
      col: open.col,
    };
    this.emit({ kind: 'list', items: [{ kind: 'symbol', ns: null, name: 'quote', span: open }, form], span });
  }

  // ------------------------------------------------------------ # dispatch

  private dispatch(): void {
    const src = this.src;
    const start = this.pos;
    const next = src.charCodeAt(start + 1);
    switch (next) {
      case LBRACE:
        this.push('set', 2);
        return;
      case LPAREN:
        this.push('fnLiteral', 2);
        return;
      case DQUOTE:
        this.emit(this.readRegex());
        return;
      case 95: // #_
        this.stack[this.stack.length - 1]!.discard++;
        this.pos += 2;
        return;
      case 39: {
        // #'name
        const span = this.spanAt(start);
        this.pos += 2;
        this.skipSpace();
        const form = this.pos < src.length && !isDelim(src.charCodeAt(this.pos)) ? this.readAtom() : undefined;
        if (!form || form.kind !== 'symbol') throw parseError(M.varNeedsSymbol, span);
        span.length = this.pos - start;
        this.emit({ kind: 'var', name: form.ns === null ? form.name : `${form.ns}/${form.name}`, span });
        return;
      }
      case HASH: {
        // ##Inf ##-Inf ##NaN
        const span = this.spanAt(start);
        const end = this.tokenEnd(start + 2);
        const text = src.slice(start + 2, end);
        const value = text === 'Inf' ? Infinity : text === '-Inf' ? -Infinity : text === 'NaN' ? NaN : undefined;
        span.length = end - start;
        if (value === undefined) throw parseError(M.unknownSymbolic(text), span);
        this.pos = end;
        this.emit({ kind: 'number', value, span });
        return;
      }
      default: {
        const end = Math.min(this.tokenEnd(start + 1), start + 20);
        const text = src.slice(start, Math.max(end, Math.min(start + 2, src.length)));
        throw parseError(M.unsupportedDispatch(text), this.spanAt(start, text.length), H.unsupportedDispatch);
      }
    }
  }

  // ------------------------------------------------------------ atoms

  private tokenEnd(from: number): number {
    const src = this.src;
    const len = src.length;
    let i = from;
    while (i < len && !isDelim(src.charCodeAt(i))) i++;
    return i;
  }

  /** A number, keyword, symbol, nil, true or false starting at `pos`. */
  private readAtom(): Form {
    const src = this.src;
    const start = this.pos;
    const end = this.tokenEnd(start);
    this.pos = end;
    const span = this.spanAt(start, end - start);
    const c = src.charCodeAt(start);
    if (isDigit(c) || ((c === PLUS || c === MINUS) && end - start > 1 && isDigit(src.charCodeAt(start + 1)))) {
      const value = parseNumber(src, start, end);
      if (value === undefined) throw parseError(M.invalidNumber(src.slice(start, end)), span);
      return { kind: 'number', value, span };
    }
    const text = src.slice(start, end);
    if (c === COLON) return { kind: 'keyword', value: keywordOf(text, span), span };
    switch (text) {
      case 'nil':
        return { kind: 'nil', span };
      case 'true':
        return { kind: 'bool', value: true, span };
      case 'false':
        return { kind: 'bool', value: false, span };
    }
    const slash = text.indexOf('/');
    if (slash < 0 || text === '/') {
      if (text.charCodeAt(text.length - 1) === COLON || text.includes('::'))
        throw parseError(M.invalidToken(text), span);
      return { kind: 'symbol', ns: null, name: text, span };
    }
    const ns = text.slice(0, slash);
    const name = text.slice(slash + 1);
    if (!validNsName(ns, name)) throw parseError(M.invalidToken(text), span);
    return { kind: 'symbol', ns, name, span };
  }

  private readString(): Form {
    const src = this.src;
    const len = src.length;
    const start = this.pos;
    const startLine = this.line;
    const startCol = start - this.lineStart + 1;
    let i = start + 1;
    let out = '';
    let chunk = i;
    for (;;) {
      if (i >= len) {
        const opened: Span = { offset: start, length: 1, line: startLine, col: startCol };
        throw parseError(M.unterminatedString(opened), opened);
      }
      const c = src.charCodeAt(i);
      if (c === DQUOTE) break;
      if (c === NEWLINE) {
        this.line++;
        this.lineStart = i + 1;
        i++;
      } else if (c === BACKSLASH) {
        out += src.slice(chunk, i);
        const e = src.charCodeAt(i + 1);
        let rep: string | undefined;
        let skip = 2;
        switch (e) {
          case 110: rep = '\n'; break; // prettier-ignore
          case 116: rep = '\t'; break; // prettier-ignore
          case 114: rep = '\r'; break; // prettier-ignore
          case 98: rep = '\b'; break; // prettier-ignore
          case 102: rep = '\f'; break; // prettier-ignore
          case 34: rep = '"'; break; // prettier-ignore
          case BACKSLASH: rep = '\\'; break; // prettier-ignore
          case 117: {
            // \uXXXX
            const hex = src.slice(i + 2, i + 6);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
              throw parseError(M.badUnicodeEscape(src.slice(i, Math.min(i + 6, len))), this.locate(i, 2));
            }
            rep = String.fromCharCode(parseInt(hex, 16));
            skip = 6;
            break;
          }
        }
        if (rep === undefined) {
          // unknown escape: kept verbatim (the backslash too), so "\d+" stays a regex
          chunk = i;
          i++;
          if (i < len && src.charCodeAt(i) !== NEWLINE) i++;
        } else {
          out += rep;
          i += skip;
          chunk = i;
        }
      } else {
        i++;
      }
    }
    out += src.slice(chunk, i);
    this.pos = i + 1;
    const span: Span = { offset: start, length: this.pos - start, line: startLine, col: startCol };
    return { kind: 'string', value: out, span };
  }

  private readRegex(): Form {
    const src = this.src;
    const len = src.length;
    const start = this.pos;
    const startLine = this.line;
    const startCol = start - this.lineStart + 1;
    let i = start + 2;
    for (;;) {
      if (i >= len) {
        const opened: Span = { offset: start, length: 2, line: startLine, col: startCol };
        throw parseError(M.unterminatedRegex(opened), opened);
      }
      const c = src.charCodeAt(i);
      if (c === DQUOTE) break;
      if (c === BACKSLASH && i + 1 < len) {
        if (src.charCodeAt(i + 1) === NEWLINE) {
          this.line++;
          this.lineStart = i + 2;
        }
        i += 2;
        continue;
      }
      if (c === NEWLINE) {
        this.line++;
        this.lineStart = i + 1;
      }
      i++;
    }
    this.pos = i + 1;
    const span: Span = { offset: start, length: this.pos - start, line: startLine, col: startCol };
    return { kind: 'regex', source: src.slice(start + 2, i), span };
  }

  private readChar(): Form {
    const src = this.src;
    const start = this.pos;
    if (start + 1 >= src.length) throw parseError(M.eofAfterBackslash, this.spanAt(start, 1));
    // the first character is taken even if it is a delimiter: \( \space-less \"
    const first = src.codePointAt(start + 1)!;
    const firstLen = first > 0xffff ? 2 : 1;
    const end = this.tokenEnd(start + 1 + firstLen);
    this.pos = end;
    const span = this.spanAt(start, end - start);
    const token = src.slice(start + 1, end);
    if (token.length === firstLen) {
      if (first === NEWLINE) {
        this.line++;
        this.lineStart = start + 2;
      }
      return { kind: 'char', value: token, span };
    }
    const named = CHAR_NAMES[token];
    if (named !== undefined && Object.hasOwn(CHAR_NAMES, token)) return { kind: 'char', value: named, span };
    if (token.length === 5 && token[0] === 'u' && /^[0-9a-fA-F]{4}$/.test(token.slice(1))) {
      return { kind: 'char', value: String.fromCharCode(parseInt(token.slice(1), 16)), span };
    }
    if (token.length >= 2 && token.length <= 4 && token[0] === 'o' && /^[0-7]+$/.test(token.slice(1))) {
      const code = parseInt(token.slice(1), 8);
      if (code <= 0o377) return { kind: 'char', value: String.fromCharCode(code), span };
    }
    throw parseError(M.unsupportedChar(token), span, H.unsupportedChar);
  }
}

// ---------------------------------------------------------------- token helpers

function keywordOf(text: string, span: Span): Keyword {
  if (text.length === 1) throw parseError(M.emptyKeyword, span);
  if (text.charCodeAt(1) === COLON) throw parseError(M.autoKeyword(text), span, H.autoKeyword);
  const body = text.slice(1);
  if (body.charCodeAt(body.length - 1) === COLON || body.includes('::')) throw parseError(M.invalidToken(text), span);
  const slash = body.indexOf('/');
  if (slash >= 0 && body !== '/' && !validNsName(body.slice(0, slash), body.slice(slash + 1))) {
    throw parseError(M.invalidToken(text), span);
  }
  return Keyword.intern(body);
}

/** `ns/name`: both non-empty, the name has no further slash (except `ns//`). */
function validNsName(ns: string, name: string): boolean {
  if (ns.length === 0 || name.length === 0) return false;
  if (name === '/') return true;
  if (name.includes('/')) return false;
  return name.charCodeAt(name.length - 1) !== COLON && !name.includes('::') && !ns.includes('::');
}

/**
 * Reads every top-level form of `source`.
 * @throws PtcError `parse_error` (phase `read`) located at the offending text
 */
export function read(source: string): Form[] {
  return new Reader(source).read();
}
