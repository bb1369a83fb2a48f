/**
 * The String methods (core/interop.ts) against java.lang.String itself: each program's
 * value printed with `str` is compared with what the same call gives in Java (the JDK on
 * the PATH, one `java Cases.java` run), which is what the program gives in Clojure on the
 * JVM. Java literals write non-ASCII text as \u escapes so the source encoding cannot
 * matter. Skipped without a `java`.
 */
import { describe, expect, it } from 'vitest';
import { hasJava, javaDifferences } from './helpers/java.ts';

/** [PTC-Lisp program, Java expression giving the same value]. */
const CASES: Array<[string, string]> = [
  ['(.indexOf "hello" "ll")', '"hello".indexOf("ll")'],
  ['(.indexOf "hello" "x")', '"hello".indexOf("x")'],
  ['(.indexOf "hello" "l" 3)', '"hello".indexOf("l", 3)'],
  ['(.indexOf "hello" "l" 9)', '"hello".indexOf("l", 9)'],
  ['(.indexOf "hello" "h" -5)', '"hello".indexOf("h", -5)'],
  ['(.indexOf "abc" "" 10)', '"abc".indexOf("", 10)'],
  ['(.indexOf "\u{1F34E}alt" "alt")', '"\\uD83C\\uDF4Ealt".indexOf("alt")'],
  [
    '(.indexOf "\u{1F34E}\u{1F34A}\u{1F34B}fruit" "fruit")',
    '"\\uD83C\\uDF4E\\uD83C\\uDF4A\\uD83C\\uDF4Bfruit".indexOf("fruit")',
  ],
  ['(.lastIndexOf "hello" "l")', '"hello".lastIndexOf("l")'],
  ['(.lastIndexOf "hello" "l" 2)', '"hello".lastIndexOf("l", 2)'],
  ['(.lastIndexOf "hello" "l" 99)', '"hello".lastIndexOf("l", 99)'],
  ['(.lastIndexOf "hello" "h" -1)', '"hello".lastIndexOf("h", -1)'],
  ['(.lastIndexOf "hello" "")', '"hello".lastIndexOf("")'],
  ['(.lastIndexOf "" "")', '"".lastIndexOf("")'],
  ['(.lastIndexOf "alt\u{1F34E}alt" "alt")', '"alt\\uD83C\\uDF4Ealt".lastIndexOf("alt")'],
  ['(.contains "hello" "ell")', '"hello".contains("ell")'],
  ['(.contains "hello" "")', '"hello".contains("")'],
  ['(.startsWith "hello" "")', '"hello".startsWith("")'],
  ['(.endsWith "hello" "lo")', '"hello".endsWith("lo")'],
  ['(.toUpperCase "stra\\u00dfe")', '"stra\\u00dfe".toUpperCase()'],
  ['(.length (.toLowerCase "\\u0130"))', '"\\u0130".toLowerCase().length()'],
  ['(.toLowerCase "MiXeD 42")', '"MiXeD 42".toLowerCase()'],
  ['(.trim "\\u0000 a\\tb \\u001f")', '"\\u0000 a\\tb \\u001f".trim()'],
  ['(.length (.trim "\\u00a0a\\u3000"))', '"\\u00a0a\\u3000".trim().length()'],
  ['(.strip "\\u2003a\\u3000")', '"\\u2003a\\u3000".strip()'],
  ['(.stripLeading "  a  ")', '"  a  ".stripLeading()'],
  ['(.stripTrailing "  a  ")', '"  a  ".stripTrailing()'],
  ['(.isBlank "\\u2003\\t")', '"\\u2003\\t".isBlank()'],
  ['(.isEmpty "")', '"".isEmpty()'],
  ['(.length "\u{1F34E}")', '"\\uD83C\\uDF4E".length()'],
  ['(.substring "hello" 1 3)', '"hello".substring(1, 3)'],
  ['(.substring "hello" 5)', '"hello".substring(5)'],
  ['(.charAt "hello" 4)', '"hello".charAt(4)'],
  ['(.replace "aaa" "aa" "b")', '"aaa".replace("aa", "b")'],
  ['(.replace "abc" "" "-")', '"abc".replace("", "-")'],
  ['(.replace "a.b.c" \\. \\-)', "\"a.b.c\".replace('.', '-')"],
  ['(.replaceAll "a1b22c" "\\\\d+" "#")', '"a1b22c".replaceAll("\\\\d+", "#")'],
  ['(.replaceAll "John Smith" "(\\\\w+) (\\\\w+)" "$2, $1")', '"John Smith".replaceAll("(\\\\w+) (\\\\w+)", "$2, $1")'],
  ['(.replaceAll "a.b" "\\\\." "\\\\$")', '"a.b".replaceAll("\\\\.", "\\\\$")'],
  ['(.replaceFirst "aaa" "a" "b")', '"aaa".replaceFirst("a", "b")'],
  ['(str/join "|" (.split "a,b,,c,," ","))', 'String.join("|", "a,b,,c,,".split(","))'],
  ['(str/join "|" (.split ",a,b" ","))', 'String.join("|", ",a,b".split(","))'],
  ['(str/join "|" (.split "abc" ""))', 'String.join("|", "abc".split(""))'],
  ['(str/join "|" (.split "a b  c" "\\\\s+" 2))', 'String.join("|", "a b  c".split("\\\\s+", 2))'],
  ['(str/join "|" (.split "a,b,," "," -1))', 'String.join("|", "a,b,,".split(",", -1))'],
  ['(count (.split "" ","))', '"".split(",").length'],
  ['(count (.split "a.b" "."))', '"a.b".split(".").length'],
  ['(str/join "|" (.split "x1y22z" "\\\\d"))', 'String.join("|", "x1y22z".split("\\\\d"))'],
  ['(.matches "abc" "[a-c]+")', '"abc".matches("[a-c]+")'],
  ['(.matches "abcd" "[a-c]+")', '"abcd".matches("[a-c]+")'],
  ['(.equals "a" "a")', '"a".equals("a")'],
  ['(.equalsIgnoreCase "HeLLo" "hEllO")', '"HeLLo".equalsIgnoreCase("hEllO")'],
  ['(.equalsIgnoreCase "\\u01c5" "\\u01c6")', '"\\u01c5".equalsIgnoreCase("\\u01c6")'],
  ['(.equalsIgnoreCase "stra\\u00dfe" "STRASSE")', '"stra\\u00dfe".equalsIgnoreCase("STRASSE")'],
  ['(.compareTo "apple" "banana")', '"apple".compareTo("banana")'],
  ['(.compareTo "a" "abc")', '"a".compareTo("abc")'],
  ['(.concat "a" "")', '"a".concat("")'],
  ['(.indexOf [1 2 3] 2)', 'java.util.List.of(1, 2, 3).indexOf(2)'],
  ['(.lastIndexOf [1 2 1] 1)', 'java.util.List.of(1, 2, 1).lastIndexOf(1)'],
  ['(.contains [1 2] 3)', 'java.util.List.of(1, 2).contains(3)'],
  ['(String/join "-" ["a" "b"])', 'String.join("-", java.util.List.of("a", "b"))'],
  ['(String/format "%05.1f|%-4s|" 3.14159 "ab")', 'String.format("%05.1f|%-4s|", 3.14159, "ab")'],
  ['(String/valueOf true)', 'String.valueOf(true)'],
];

describe.skipIf(!hasJava)('String methods against java.lang.String', () => {
  it('give what Java gives for every case', async () => {
    const differ = await javaDifferences(CASES, []);
    expect(differ, differ.join('\n')).toEqual([]);
  });
});
