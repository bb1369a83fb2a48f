/**
 * Reader table tests. Decisions are in docs/language-reader-printer.md.
 */
import { describe, expect, it } from 'vitest';
import type { Form } from '../../src/lisp/form.ts';
import { PtcError } from '../../src/lisp/errors.ts';
import { read, readData, MAX_NESTING } from '../../src/lisp/reader/index.ts';
import { equals, kw, list, map, set, vec, isRegex, type Value } from '../../src/lisp/values.ts';
import { compileRegex, re2Of, translateJavaRegex } from '../../src/lisp/regex.ts';

/** A form without spans, compact, for table comparisons. */
function strip(f: Form): unknown {
  switch (f.kind) {
    case 'nil':
      return null;
    case 'bool':
    case 'number':
      return f.value;
    case 'string':
      return { str: f.value };
    case 'char':
      return { char: f.value };
    case 'keyword':
      return `:${f.value.fullName}`;
    case 'symbol':
      return f.ns === null ? `'${f.name}` : `'${f.ns}/${f.name}`;
    case 'regex':
      return { regex: f.source };
    case 'var':
      return { var: f.name };
    default:
      return { [f.kind]: f.items.map(strip) };
  }
}

const one = (src: string): unknown => {
  const forms = read(src);
  expect(forms).toHaveLength(1);
  return strip(forms[0]!);
};

function readError(src: string): PtcError {
  try {
    read(src);
  } catch (e) {
    expect(e).toBeInstanceOf(PtcError);
    const err = e as PtcError;
    expect(err.code).toBe('parse_error');
    expect(err.phase).toBe('read');
    return err;
  }
  throw new Error(`expected a parse error for ${src}`);
}

describe('reader: atoms', () => {
  it.each<[string, unknown]>([
    ['nil', null],
    ['true', true],
    ['false', false],
    ['nil?', "'nil?"],
    ['true?', "'true?"],
    ['42', 42],
    ['-7', -7],
    ['+5', 5],
    ['0', 0],
    ['-0', -0],
    ['1.5', 1.5],
    ['-0.25', -0.25],
    ['5.', 5],
    ['1e5', 100000],
    ['2E10', 2e10],
    ['1e-5', 1e-5],
    ['1.0E21', 1e21],
    ['1.5e+3', 1500],
    ['##Inf', Infinity],
    ['##-Inf', -Infinity],
    ['0x1F', 31],
    ['-0xff', -255],
    ['017', 15],
    ['2r1010', 10],
    ['36rZZ', 1295],
    ['42N', 42],
    ['1.5M', 1.5],
    ['3M', 3],
    ['2/4', 0.5],
    ['-1/2', -0.5],
    ['9007199254740993', 9007199254740992],
    ['"abc"', { str: 'abc' }],
    ['""', { str: '' }],
    ['"a\\nb\\tc\\rd"', { str: 'a\nb\tc\rd' }],
    ['"q\\"q\\\\"', { str: 'q"q\\' }],
    ['"\\b\\f"', { str: '\b\f' }],
    ['"\\u00e9\\u2603"', { str: 'é☃' }],
    ['"\\d+\\s\\."', { str: '\\d+\\s\\.' }],
    ['"multi\nline"', { str: 'multi\nline' }],
    ['"héllo 😀"', { str: 'héllo 😀' }],
    ['\\a', { char: 'a' }],
    ['\\r', { char: 'r' }],
    ['\\newline', { char: '\n' }],
    ['\\space', { char: ' ' }],
    ['\\tab', { char: '\t' }],
    ['\\return', { char: '\r' }],
    ['\\backspace', { char: '\b' }],
    ['\\formfeed', { char: '\f' }],
    ['\\u00e9', { char: 'é' }],
    ['\\o101', { char: 'A' }],
    ['\\(', { char: '(' }],
    ['\\"', { char: '"' }],
    ['\\\\', { char: '\\' }],
    ['\\😀', { char: '😀' }],
    ['\\u', { char: 'u' }],
    [':a', ':a'],
    [':->', ':->'],
    [':>=', ':>='],
    [':user-id', ':user-id'],
    [':a/b', ':a/b'],
    [':a.b/c-d', ':a.b/c-d'],
    ['foo', "'foo"],
    ['str/join', "'str/join"],
    ['clojure.string/join', "'clojure.string/join"],
    ['tool/get-user', "'tool/get-user"],
    ['data/x', "'data/x"],
    ['/', "'/"],
    ['clojure.core//', "'clojure.core//"],
    ['.method', "'.method"],
    ['Foo.', "'Foo."],
    ['.5', "'.5"],
    ['-', "'-"],
    ['+', "'+"],
    ['-a', "'-a"],
    ['->>', "'->>"],
    ['%', "'%"],
    ['%1', "'%1"],
    ['%&', "'%&"],
    ['&', "'&"],
    ['*1', "'*1"],
    ["a'b", "'a'b"],
    ['a#', "'a#"],
    ['<=', "'<="],
    ['#"\\d+"', { regex: '\\d+' }],
    ['#"a\\"b"', { regex: 'a\\"b' }],
    ['#"\\\\"', { regex: '\\\\' }],
    ['#"(?i)x\\sy"', { regex: '(?i)x\\sy' }],
    ["#'inc", { var: 'inc' }],
    ["#'str/join", { var: 'str/join' }],
  ])('%s', (src, expected) => {
    expect(one(src)).toEqual(expected);
  });

  it('##NaN is NaN', () => {
    const f = read('##NaN')[0]!;
    expect(f.kind).toBe('number');
    expect(Number.isNaN((f as { value: number }).value)).toBe(true);
  });
});

describe('reader: collections and dispatch', () => {
  it.each<[string, unknown]>([
    ['()', { list: [] }],
    ['(+ 1 2)', { list: ["'+", 1, 2] }],
    ['[1 [2 (3)]]', { vector: [1, { vector: [2, { list: [3] }] }] }],
    ['{:a 1, :b 2}', { map: [':a', 1, ':b', 2] }],
    ['{}', { map: [] }],
    ['#{1 2}', { set: [1, 2] }],
    ['#{}', { set: [] }],
    ['#(+ % 1)', { fnLiteral: ["'+", "'%", 1] }],
    ['#()', { fnLiteral: [] }],
    ['[1,2,,3]', { vector: [1, 2, 3] }],
    ['[:a; :b\n :c]', { vector: [':a', ':c'] }],
    ['[1 #_ 2 3]', { vector: [1, 3] }],
    ['[1 #_ 2]', { vector: [1] }],
    ['[1 #_#_ 2 3 4]', { vector: [1, 4] }],
    ['[1 #_ [2 (3)] 4]', { vector: [1, 4] }],
    ['[1 #_]', { vector: [1] }],
    ['{:a 1 #_ :b}', { map: [':a', 1] }],
    ['(f"a"[1]:k)', { list: ["'f", { str: 'a' }, { vector: [1] }, ':k'] }],
    ["[a'b]", { vector: ["'a'b"] }],
    ['[\\a\\b]', { vector: [{ char: 'a' }, { char: 'b' }] }],
    ['#{[1 2] {:a 1}}', { set: [{ vector: [1, 2] }, { map: [':a', 1] }] }],
    ['{[1] 2 nil 3}', { map: [{ vector: [1] }, 2, null, 3] }],
  ])('%s', (src, expected) => {
    expect(one(src)).toEqual(expected);
  });

  it('reads several top-level forms, comments and nothing', () => {
    expect(read('')).toEqual([]);
    expect(read('  ; only a comment\n,,')).toEqual([]);
    expect(read('(def x 1) ; c\n(inc x)').map(strip)).toEqual([{ list: ["'def", "'x", 1] }, { list: ["'inc", "'x"] }]);
    expect(read('#!shebang\n1').map(strip)).toEqual([1]);
    expect(read('1 #_ 2').map(strip)).toEqual([1]);
    expect(read('1 #_').map(strip)).toEqual([1]);
  });

  it('tolerates stray closers at top level (reference scenario 49)', () => {
    expect(read('(+ 1 2)))').map(strip)).toEqual([{ list: ["'+", 1, 2] }]);
    expect(read(')] (a) } (b)').map(strip)).toEqual([{ list: ["'a"] }, { list: ["'b"] }]);
  });
});

describe('reader: spans', () => {
  it('gives every form offset, length and 1-based line/col', () => {
    const [f] = read('  (foo\n   [:a "x\ny" 12])');
    expect(f!.span).toEqual({ offset: 2, length: 22, line: 1, col: 3 });
    const list = f as Extract<Form, { kind: 'list' }>;
    expect(list.items[0]!.span).toEqual({ offset: 3, length: 3, line: 1, col: 4 });
    const v = list.items[1] as Extract<Form, { kind: 'vector' }>;
    expect(v.span).toEqual({ offset: 10, length: 13, line: 2, col: 4 });
    expect(v.items.map((i) => i.span)).toEqual([
      { offset: 11, length: 2, line: 2, col: 5 },
      { offset: 14, length: 5, line: 2, col: 8 },
      { offset: 20, length: 2, line: 3, col: 4 },
    ]);
  });

  it('spans #() #{} #"" #\' and ##', () => {
    const forms = read('#(inc %) #{1}\n#"a" #\'x ##Inf');
    expect(forms.map((f) => f.span)).toEqual([
      { offset: 0, length: 8, line: 1, col: 1 },
      { offset: 9, length: 4, line: 1, col: 10 },
      { offset: 14, length: 4, line: 2, col: 1 },
      { offset: 19, length: 3, line: 2, col: 6 },
      { offset: 23, length: 5, line: 2, col: 10 },
    ]);
  });

  it('counts lines after \\newline characters and CRLF', () => {
    const forms = read('\\newline\r\n  x');
    expect(forms[1]!.span).toMatchObject({ line: 2, col: 3 });
  });
});

describe('reader: errors', () => {
  it.each<[string, string, number, number]>([
    ['(+ 1 2', "unclosed '(' opened at line 1, column 1", 1, 1],
    ['(a\n  [b {c', "unclosed '{' opened at line 2, column 6 (3 delimiters are unclosed; this is the innermost)", 2, 6],
    ['(let [x 1]\n  (inc x)', "unclosed '(' opened at line 1, column 1", 1, 1],
    ['#{1 2', "unclosed '#{' opened at line 1, column 1", 1, 1],
    ['(map #(inc %) xs', "unclosed '(' opened at line 1, column 1", 1, 1],
    ['#(inc %', "unclosed '#(' opened at line 1, column 1", 1, 1],
    ['(a ]', "mismatched ']': expected ')' to close '(' opened at line 1, column 1", 1, 4],
    ['[1 2)', "mismatched ')': expected ']' to close '[' opened at line 1, column 1", 1, 5],
    ['{:a 1)\n', "mismatched ')': expected '}' to close '{' opened at line 1, column 1", 1, 6],
    [
      '(f\n {:a 1 :b})',
      'map literal opened at line 2, column 2 has an odd number of forms (3): every key needs a value',
      2,
      2,
    ],
    ['{:a 1 :a 2}', 'duplicate key :a in map literal', 1, 7],
    ['#{1 2 1}', 'duplicate member 1 in set literal', 1, 7],
    ['{"a" 1 \\a 2}', 'duplicate key "a" in map literal', 1, 8],
    ['(str "abc)', 'unterminated string opened at line 1, column 6', 1, 6],
    ['#"abc', 'unterminated regex opened at line 1, column 1', 1, 1],
    ['"\\u12"', 'invalid unicode escape "\\\\u12\\"" in string: expected \\u followed by 4 hex digits', 1, 2],
    ['\n  "ok\n \\uZZZZ"', 'invalid unicode escape "\\\\uZZZZ" in string: expected \\u followed by 4 hex digits', 3, 2],
    ['1abc', 'invalid number: 1abc', 1, 1],
    ['08', 'invalid number: 08', 1, 1],
    ['1e', 'invalid number: 1e', 1, 1],
    ['1.2.3', 'invalid number: 1.2.3', 1, 1],
    ['0xZ', 'invalid number: 0xZ', 1, 1],
    ['1/0', 'invalid number: 1/0', 1, 1],
    ['[x ::foo]', 'auto-resolved keyword ::foo is not supported', 1, 4],
    [':', 'a keyword needs a name after the colon, e.g. :status', 1, 1],
    ['a/', 'invalid token: a/', 1, 1],
    ['/a', 'invalid token: /a', 1, 1],
    ['a/b/c', 'invalid token: a/b/c', 1, 1],
    ['foo:', 'invalid token: foo:', 1, 1],
    [':a/', 'invalid token: :a/', 1, 1],
    ['\\foo', 'unsupported character: \\foo', 1, 1],
    ['\\', 'end of input after \\: expected a character such as \\a or \\newline', 1, 1],
    ['#(+ % #(inc %))', 'nested #() are not allowed', 1, 7],
    ["#'1", "#' must be followed by a symbol, e.g. #'inc", 1, 1],
    ['##Foo', 'unknown symbolic value ##Foo: expected ##Inf, ##-Inf or ##NaN', 1, 1],
    ['#inst "2020"', 'unsupported reader syntax #inst', 1, 1],
    ['#?(:clj 1)', 'unsupported reader syntax #?', 1, 1],
    ['#:a{:b 1}', 'unsupported reader syntax #:a', 1, 1],
    ["(count ')", "quote (') must be followed by a form", 1, 8],
    ["'", "quote (') must be followed by a form", 1, 1],
    ['`(a)', 'syntax quote (`) is not supported', 1, 1],
    ['~a', 'unquote (~) is not supported', 1, 1],
    ['(inc @x)', 'deref (@) is not supported', 1, 6],
    ['^:private x', 'metadata (^) is not supported', 1, 1],
  ])('%s', (src, message, line, col) => {
    const err = readError(src);
    expect(err.message).toBe(message);
    expect([err.line, err.column]).toEqual([line, col]);
  });

  it('gives hints for quote, deref and nested #()', () => {
    expect(readError("'").hint).toMatch(/'\(1 2 3\)/);
    expect(read("'(1 2)")).toMatchObject([
      { kind: 'list', items: [{ kind: 'symbol', name: 'quote' }, { kind: 'list' }] },
    ]);
    expect(readError('@x').hint).toMatch(/no atoms/);
    expect(readError('#(a #(b))').hint).toMatch(/\(fn \[x\]/);
  });

  it('limits nesting depth without overflowing the host stack', () => {
    expect(read('['.repeat(MAX_NESTING) + ']'.repeat(MAX_NESTING))).toHaveLength(1);
    const err = readError('['.repeat(100_000));
    expect(err.message).toBe(`forms are nested more than ${MAX_NESTING} levels deep`);
  });

  it('never leaks host error text', () => {
    for (const src of ['(', ')', '"', '#', '\\', ':', '#"', '{1}', '##', '#_', "#'", '1/', '0x', '9r9']) {
      try {
        read(src);
      } catch (e) {
        expect(e).toBeInstanceOf(PtcError);
        expect((e as Error).message).not.toMatch(/\bundefined\b|TypeError|Cannot read/);
      }
    }
  });
});

describe('readData', () => {
  const cases: [string, Value][] = [
    ['nil', null],
    ['[1 "a" :k]', vec([1, 'a', kw('k')])],
    ['(1 2)', list([1, 2])],
    ['{:a {"b" #{1}}}', map([[kw('a'), map([['b', set([1])]])]])],
    ['\\x', 'x'],
    ['[]', vec()],
  ];
  it.each(cases)('%s', (src, expected) => {
    expect(equals(readData(src), expected)).toBe(true);
  });

  it('keeps map and set insertion order', () => {
    const m = readData('{:z 1 :a 2 :m 3}');
    expect([...(m as ReturnType<typeof map>).keys()]).toEqual([kw('z'), kw('a'), kw('m')]);
  });

  it('reads regexes as compiled Regex values', () => {
    const r = readData('#"\\d+"');
    expect(isRegex(r) && r.source).toBe('\\d+');
  });

  it.each([
    ['foo', 'symbols are not data: foo'],
    ['[1 str/join]', 'symbols are not data: str/join'],
    ['#(inc %)', '#(...) is not data'],
    ["#'x", "#'x is not data"],
    ['', 'expected one form, got none'],
    ['1 2', 'expected exactly one form, got more'],
  ])('rejects %s', (src, message) => {
    expect(() => readData(src)).toThrow(message);
  });
});

describe('compileRegex (used for #"..." literals)', () => {
  const matches = (src: string, text: string): boolean => re2Of(compileRegex(src, 1000)).matcher(text).find();
  it('compiles RE2 syntax and translates Java-only forms', () => {
    expect(matches('(?i)abc', 'xABCx')).toBe(true);
    expect(matches('\\d+\\Z', 'ab12')).toBe(true);
    expect(matches('a\\hb', 'a\tb')).toBe(true);
    expect(matches('[\\h]', ' ')).toBe(true);
    expect(matches('x\\Ry', 'x\r\ny')).toBe(true);
    expect(matches('a*+b', 'aaab')).toBe(true);
    expect(matches('a{2}+', 'aa')).toBe(true);
    expect(matches('\\Qa*+\\E', 'a*+')).toBe(true);
    expect(translateJavaRegex('[*+]')).toBe('[*+]');
  });
  it.each(['(?=a)b', '(?<!a)b', '(a)\\1'])('rejects %s with a hint', (src) => {
    try {
      compileRegex(src, 1000);
      expect.unreachable();
    } catch (e) {
      expect((e as PtcError).code).toBe('regex_error');
      expect((e as PtcError).message).toMatch(/^invalid regex #"/);
      expect((e as PtcError).hint).toMatch(/lookahead.*backreferences/);
    }
  });
  it('rejects broken patterns and too-long patterns', () => {
    expect(() => compileRegex('(a', 1000)).toThrow(/invalid regex #"\(a": missing closing \)/);
    try {
      compileRegex('a'.repeat(11), 10);
      expect.unreachable();
    } catch (e) {
      expect((e as PtcError).details).toEqual({ limit: 'regex' });
    }
  });
});
