/**
 * The syntax of the visibility query language ("List Filter"): its types, a hand-written
 * tokenizer and a recursive-descent parser. What a parsed query means (matching, sorting)
 * is in visibility-query.ts.
 *
 * Grammar (keywords case-insensitive; field names case-sensitive):
 *
 *   query     := [ orExpr ] [ ORDER BY orderItem { "," orderItem } ] EOF
 *   orExpr    := andExpr { OR andExpr }
 *   andExpr   := notExpr { AND notExpr }
 *   notExpr   := NOT notExpr | primary
 *   primary   := "(" orExpr ")" | predicate
 *   predicate := field ( cmpOp value
 *                      | [NOT] STARTS_WITH value
 *                      | [NOT] IN "(" value { "," value } ")"
 *                      | [NOT] BETWEEN value AND value
 *                      | IS [NOT] NULL )
 *   cmpOp     := "=" | "!=" | "<>" | "<" | "<=" | ">" | ">="
 *   field     := identifier | `back-quoted name`
 *   value     := 'string' | "string" | number | TRUE | FALSE
 *   orderItem := field [ ASC | DESC ]
 *
 */
// ---------------------------------------------------------------------------------------------
// Public types

export type SearchAttributeType = 'Keyword' | 'Text' | 'Int' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList';

export interface VisibilityRecord {
  workflowId: string;
  runId: string;
  workflowType: string;
  /** 'Running','Completed','Failed','Canceled','Terminated','ContinuedAsNew','TimedOut' */
  status: string;
  /** ms since epoch */
  startTime: number;
  closeTime?: number;
  executionTime?: number;
  taskQueue?: string;
  /** custom keyword/text/int/bool/double/datetime values; keyword lists as string arrays */
  searchAttributes: Record<string, unknown>;
}

export class VisibilityQueryError extends Error {
  /** 0-based character offset into the query where the problem was found, when known */
  readonly position: number | undefined;
  constructor(message: string, position?: number) {
    super(position === undefined ? message : `${message} at position ${position}`);
    this.name = 'VisibilityQueryError';
    this.position = position;
  }
}

export type VisibilityLiteral =
  | { type: 'string'; value: string; position: number }
  | { type: 'number'; value: number; raw: string; position: number }
  | { type: 'bool'; value: boolean; position: number };

export interface FieldRef {
  name: string;
  position: number;
}

export type ComparisonOperator = '=' | '!=' | '<' | '<=' | '>' | '>=';

export type VisibilityExpr =
  | { kind: 'and'; operands: VisibilityExpr[] }
  | { kind: 'or'; operands: VisibilityExpr[] }
  | { kind: 'not'; operand: VisibilityExpr }
  | { kind: 'compare'; field: FieldRef; op: ComparisonOperator; value: VisibilityLiteral }
  | { kind: 'startsWith'; field: FieldRef; value: VisibilityLiteral; negated: boolean }
  | { kind: 'in'; field: FieldRef; values: VisibilityLiteral[]; negated: boolean }
  | { kind: 'between'; field: FieldRef; low: VisibilityLiteral; high: VisibilityLiteral; negated: boolean }
  | { kind: 'isNull'; field: FieldRef; negated: boolean };

export interface OrderByItem {
  field: FieldRef;
  direction: 'ASC' | 'DESC';
}

export interface VisibilityQuery {
  /** the query text as given */
  source: string;
  /** null = match everything */
  filter: VisibilityExpr | null;
  /** empty = default order (see {@link sortRecords}) */
  orderBy: OrderByItem[];
}

// ---------------------------------------------------------------------------------------------
// Tokenizer

type TokenKind = 'ident' | 'quotedIdent' | 'string' | 'number' | 'op' | 'lparen' | 'rparen' | 'comma' | 'eof';

interface Token {
  kind: TokenKind;
  /** identifier name, string contents, number text, or operator */
  text: string;
  /** source slice, for error messages */
  raw: string;
  position: number;
}

const KEYWORDS = new Set([
  'AND',
  'OR',
  'NOT',
  'IN',
  'BETWEEN',
  'IS',
  'NULL',
  'STARTS_WITH',
  'ORDER',
  'BY',
  'ASC',
  'DESC',
  'TRUE',
  'FALSE',
]);

const OPERATOR_CHARS = '=!<>';

export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const start = i;
    if (c === '(' || c === ')' || c === ',') {
      tokens.push({ kind: c === '(' ? 'lparen' : c === ')' ? 'rparen' : 'comma', text: c, raw: c, position: start });
      i++;
    } else if (c === "'" || c === '"') {
      let value = '';
      i++;
      for (;;) {
        if (i >= n) throw new VisibilityQueryError(`unterminated string literal starting with ${c}`, start);
        const d = src[i]!;
        if (d === '\\') {
          if (i + 1 >= n) throw new VisibilityQueryError(`unterminated string literal starting with ${c}`, start);
          const e = src[i + 1]!;
          value += e === 'n' ? '\n' : e === 't' ? '\t' : e === 'r' ? '\r' : e === '0' ? '\0' : e;
          i += 2;
        } else if (d === c) {
          if (src[i + 1] === c) {
            // SQL-style doubled quote
            value += c;
            i += 2;
          } else {
            i++;
            break;
          }
        } else {
          value += d;
          i++;
        }
      }
      tokens.push({ kind: 'string', text: value, raw: src.slice(start, i), position: start });
    } else if (c === '`') {
      const end = src.indexOf('`', i + 1);
      if (end < 0) throw new VisibilityQueryError('unterminated back-quoted name', start);
      const name = src.slice(i + 1, end);
      if (name === '') throw new VisibilityQueryError('empty back-quoted name', start);
      i = end + 1;
      tokens.push({ kind: 'quotedIdent', text: name, raw: src.slice(start, i), position: start });
    } else if (/[0-9]/.test(c) || ((c === '-' || c === '+' || c === '.') && /[0-9.]/.test(src[i + 1] ?? ''))) {
      const m = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/.exec(src.slice(i));
      if (!m) throw new VisibilityQueryError(`malformed number '${src.slice(i, i + 10)}'`, start);
      i += m[0].length;
      if (i < n && /[A-Za-z_]/.test(src[i]!)) {
        const m2 = /^[A-Za-z0-9_]*/.exec(src.slice(i))!;
        throw new VisibilityQueryError(`malformed number '${m[0]}${m2[0]}'`, start);
      }
      tokens.push({ kind: 'number', text: m[0], raw: m[0], position: start });
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i))!;
      i += m[0].length;
      tokens.push({ kind: 'ident', text: m[0], raw: m[0], position: start });
    } else if (OPERATOR_CHARS.includes(c)) {
      let j = i;
      while (j < n && OPERATOR_CHARS.includes(src[j]!)) j++;
      const op = src.slice(i, j);
      if (!['=', '!=', '<>', '<', '<=', '>', '>='].includes(op)) {
        throw new VisibilityQueryError(`unknown operator '${op}'`, start);
      }
      i = j;
      tokens.push({ kind: 'op', text: op === '<>' ? '!=' : op, raw: op, position: start });
    } else {
      throw new VisibilityQueryError(`unexpected character '${c}'`, start);
    }
  }
  tokens.push({ kind: 'eof', text: '', raw: '', position: n });
  return tokens;
}

// ---------------------------------------------------------------------------------------------
// Parser

function describe(t: Token): string {
  if (t.kind === 'eof') return 'end of query';
  if (t.kind === 'string') return `string ${t.raw}`;
  return `'${t.raw}'`;
}

export class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.i]!;
  }
  private next(): Token {
    const t = this.tokens[this.i]!;
    if (t.kind !== 'eof') this.i++;
    return t;
  }
  private isKeyword(word: string, t: Token = this.peek()): boolean {
    return t.kind === 'ident' && t.text.toUpperCase() === word;
  }
  private acceptKeyword(word: string): Token | undefined {
    return this.isKeyword(word) ? this.next() : undefined;
  }
  private fail(expected: string, t: Token = this.peek()): never {
    const prev = this.i > 0 ? this.tokens[this.i - 1] : undefined;
    const after = prev && t.kind === 'eof' ? ` after ${describe(prev)}` : '';
    throw new VisibilityQueryError(`expected ${expected} but found ${describe(t)}${after}`, t.position);
  }
  private expectKeyword(word: string): Token {
    return this.acceptKeyword(word) ?? this.fail(word);
  }

  parseQuery(source: string): VisibilityQuery {
    let filter: VisibilityExpr | null = null;
    if (this.peek().kind !== 'eof' && !this.isKeyword('ORDER')) filter = this.parseOr();
    const orderBy: OrderByItem[] = [];
    if (this.acceptKeyword('ORDER')) {
      this.expectKeyword('BY');
      do {
        const field = this.parseField();
        let direction: 'ASC' | 'DESC' = 'ASC';
        if (this.acceptKeyword('DESC')) direction = 'DESC';
        else this.acceptKeyword('ASC');
        orderBy.push({ field, direction });
      } while (this.peek().kind === 'comma' && this.next());
    }
    const t = this.peek();
    if (t.kind !== 'eof') {
      const expected = orderBy.length ? "',' or end of query" : 'AND, OR, ORDER BY or end of query';
      if (t.kind === 'rparen') throw new VisibilityQueryError(`unbalanced ')'`, t.position);
      this.fail(expected);
    }
    return { source, filter, orderBy };
  }

  private parseOr(): VisibilityExpr {
    const operands = [this.parseAnd()];
    while (this.acceptKeyword('OR')) operands.push(this.parseAnd());
    return operands.length === 1 ? operands[0]! : { kind: 'or', operands };
  }

  private parseAnd(): VisibilityExpr {
    const operands = [this.parseNot()];
    while (this.acceptKeyword('AND')) operands.push(this.parseNot());
    return operands.length === 1 ? operands[0]! : { kind: 'and', operands };
  }

  private parseNot(): VisibilityExpr {
    if (this.acceptKeyword('NOT')) return { kind: 'not', operand: this.parseNot() };
    return this.parsePrimary();
  }

  private parsePrimary(): VisibilityExpr {
    const t = this.peek();
    if (t.kind === 'lparen') {
      this.next();
      const e = this.parseOr();
      if (this.peek().kind !== 'rparen') this.fail(`')' to close '(' at position ${t.position}`);
      this.next();
      return e;
    }
    return this.parsePredicate();
  }

  private parseField(): FieldRef {
    const t = this.peek();
    if (t.kind === 'quotedIdent' || (t.kind === 'ident' && !KEYWORDS.has(t.text.toUpperCase()))) {
      this.next();
      return { name: t.text, position: t.position };
    }
    if (t.kind === 'ident') this.fail(`a field name (quote it with backticks if it is named like a keyword)`);
    return this.fail(`a field name`);
  }

  private parsePredicate(): VisibilityExpr {
    const t = this.peek();
    if (!(t.kind === 'quotedIdent' || (t.kind === 'ident' && !KEYWORDS.has(t.text.toUpperCase())))) {
      this.fail(`a field name or '('`);
    }
    const field = this.parseField();
    const op = this.peek();
    if (op.kind === 'op') {
      this.next();
      return { kind: 'compare', field, op: op.text as ComparisonOperator, value: this.parseValue() };
    }
    if (this.acceptKeyword('IS')) {
      const negated = !!this.acceptKeyword('NOT');
      this.expectKeyword('NULL');
      return { kind: 'isNull', field, negated };
    }
    const negated = !!this.acceptKeyword('NOT');
    if (this.acceptKeyword('STARTS_WITH')) return { kind: 'startsWith', field, value: this.parseValue(), negated };
    if (this.acceptKeyword('IN')) {
      if (this.peek().kind !== 'lparen') this.fail(`'(' after IN`);
      this.next();
      const values = [this.parseValue()];
      while (this.peek().kind === 'comma') {
        this.next();
        values.push(this.parseValue());
      }
      if (this.peek().kind !== 'rparen') this.fail(`',' or ')' in IN list`);
      this.next();
      return { kind: 'in', field, values, negated };
    }
    if (this.acceptKeyword('BETWEEN')) {
      const low = this.parseValue();
      this.expectKeyword('AND');
      const high = this.parseValue();
      return { kind: 'between', field, low, high, negated };
    }
    const after = negated ? 'STARTS_WITH, IN or BETWEEN after NOT' : `an operator after field '${field.name}'`;
    if (op.kind === 'ident' && !negated && !KEYWORDS.has(op.text.toUpperCase())) {
      throw new VisibilityQueryError(`unknown operator '${op.text}'`, op.position);
    }
    return this.fail(after);
  }

  private parseValue(): VisibilityLiteral {
    const t = this.peek();
    if (t.kind === 'string') {
      this.next();
      return { type: 'string', value: t.text, position: t.position };
    }
    if (t.kind === 'number') {
      this.next();
      return { type: 'number', value: Number(t.text), raw: t.text, position: t.position };
    }
    if (this.isKeyword('TRUE') || this.isKeyword('FALSE')) {
      this.next();
      return { type: 'bool', value: t.text.toUpperCase() === 'TRUE', position: t.position };
    }
    return this.fail(`a value (string, number, true or false)`);
  }
}
