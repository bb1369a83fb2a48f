import { describe, expect, it } from 'vitest';
import { extractCode, fencedProgram, sanitize } from '../../src/navigator/index.ts';

const ok = (code: string) => ({ ok: true, code });

describe('extractCode', () => {
  it.each([
    ['a clojure block', 'Here:\n```clojure\n(+ 1 2)\n```\nDone.', ok('(+ 1 2)')],
    ['a lisp block', '```lisp\n(return 1)\n```', ok('(return 1)')],
    ['CRLF line ends', '```clojure\r\n(def x 1)\r\n(return x)\r\n```', ok('(def x 1)\n(return x)')],
    ['a clojure block closed by </clojure>', '```clojure\n(+ 1 2)\n</clojure>', ok('(+ 1 2)')],
    ['an unterminated last block', 'Sure.\n```clojure\n(return 1)', ok('(return 1)')],
    ['a block with another tag starting with (', '```python\n(return 2)\n```', ok('(return 2)')],
    [
      'a clojure block preferred over other blocks',
      '```json\n{"a": 1}\n```\n```clojure\n(return 3)\n```',
      ok('(return 3)'),
    ],
    ['an untagged block', '```\n(println "hi")\n```', ok('(println "hi")')],
    ['xml tags', 'Answer: <clojure>(return 4)</clojure>', ok('(return 4)')],
    ['a bare s-expression', '  (return {:a 1})  ', ok('(return {:a 1})')],
    ['a tilde fence', '~~~clojure\n(return 5)\n~~~', ok('(return 5)')],
    [
      'a fence with backticks inside a string',
      '```clojure\n(println "use ``` fences")\n```',
      ok('(println "use ``` fences")'),
    ],
  ])('takes %s', (_name, answer, expected) => {
    expect(extractCode(answer)).toEqual(expected);
  });

  it('refuses two code blocks, saying exactly ONE', () => {
    const r = extractCode('```clojure\n(def a 1)\n```\nthen\n```clojure\n(return a)\n```');
    expect(r).toEqual({
      ok: false,
      reason: 'multiple_blocks',
      message: 'Your answer has 2 code blocks. Send exactly ONE ```clojure block and put all of the program in it.',
    });
  });

  it.each([['I cannot do that.'], ['```json\n{"a": 1}\n```'], ['```clojure\n\n```'], ['']])(
    'finds no code in %j',
    (answer) => {
      const r = extractCode(answer);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.reason).toBe('no_code');
        expect(r.message).toMatch(/^No valid PTC-Lisp code found/);
        expect(r.message).not.toMatch(/Error:/);
      }
    },
  );
});

describe('sanitize', () => {
  it('removes invisible characters and turns odd spaces into spaces', () => {
    expect(sanitize('\uFEFF(+ 1\u00A02)\u200B')).toBe('(+ 1 2)');
  });

  it('turns curly quotes into ASCII only when they delimit strings', () => {
    expect(sanitize('(println \u201Chi\u201D)')).toBe('(println "hi")');
    expect(sanitize('(println "she said \u201Chi\u201D")')).toBe('(println "she said \u201Chi\u201D")');
  });

  it('keeps #_ for the reader', () => {
    expect(sanitize('(do #_(tool/x {}) 1)')).toBe('(do #_(tool/x {}) 1)');
  });
});

it('fences a program for the conversation', () => {
  expect(fencedProgram('(return 1)')).toBe('```clojure\n(return 1)\n```');
});
