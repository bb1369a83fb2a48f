import { describe, expect, it } from 'vitest';
import { fixedHalfUp } from '../../src/lisp/core/format.ts';
import { FakeRuntime, ev, evError, pr } from './helpers/fake-runtime-b.ts';

/** [source, printed value]: what Clojure 1.11 gives for the same program. */
const clojureAgreement: Array<[string, string]> = [
  // str and printing to strings
  ['(str)', '""'],
  ['(str "a" 1 :k nil true)', '"a1:ktrue"'],
  ['(str [1 "a" :b])', '"[1 \\"a\\" :b]"'],
  ['(str {:a 1})', '"{:a 1}"'],
  ['(str nil)', '""'],
  ['(str 1.5)', '"1.5"'],
  ['(str \\a \\b)', '"ab"'],
  ['(pr-str "a" [:b "c"])', '"\\"a\\" [:b \\"c\\"]"'],
  ['(pr-str nil)', '"nil"'],
  ['(pr-str)', '""'],
  ['(prn-str 1 "a")', '"1 \\"a\\"\\n"'],
  ['(print-str "a" ["b"] 1)', '"a [b] 1"'],
  ['(println-str "a" 1)', '"a 1\\n"'],
  // subs, name, keyword
  ['(subs "hello" 1)', '"ello"'],
  ['(subs "hello" 1 3)', '"el"'],
  ['(subs "hello" 5)', '""'],
  ['(name :a)', '"a"'],
  ['(name :user/id)', '"id"'],
  ['(name "s")', '"s"'],
  ['(namespace :user/id)', '"user"'],
  ['(namespace :id)', 'nil'],
  ['(keyword "a")', ':a'],
  ['(keyword "ns" "a")', ':ns/a'],
  ['(keyword :a)', ':a'],
  ['(keyword nil)', 'nil'],
  ['(char 97)', '"a"'],
  // format
  ['(format "%s-%s" "a" :b)', '"a-:b"'],
  ['(format "%s" nil)', '"null"'],
  ['(format "%s" [1 "a"])', '"[1 \\"a\\"]"'],
  ['(format "%d items" 3)', '"3 items"'],
  ['(format "%5d|%-5d|%05d" 42 42 42)', '"   42|42   |00042"'],
  ['(format "%.2f" 3.14159)', '"3.14"'],
  ['(format "%.2f" 1.005)', '"1.01"'],
  ['(format "%.1f" 0.35)', '"0.4"'],
  ['(format "%.0f" 2.5)', '"3"'],
  ['(format "%f" 1.5)', '"1.500000"'],
  ['(format "%8.3f|" -3.14159)', '"  -3.142|"'],
  ['(format "%08.3f" -3.14159)', '"-003.142"'],
  ['(format "%,d" 1234567)', '"1,234,567"'],
  ['(format "%,.2f" 1234567.891)', '"1,234,567.89"'],
  ['(format "%+d %+d" 5 -5)', '"+5 -5"'],
  ['(format "%(d" -5)', '"(5)"'],
  ['(format "%x %X %o" 255 255 8)', '"ff FF 10"'],
  ['(format "%#x" 255)', '"0xff"'],
  ['(format "%x" -1)', '"ffffffffffffffff"'],
  ['(format "%e" 12345.678)', '"1.234568e+04"'],
  ['(format "%.2E" 0.000123)', '"1.23E-04"'],
  ['(format "%g" 0.0001234)', '"0.000123400"'],
  ['(format "%g" 1234567.0)', '"1.23457e+06"'],
  ['(format "%-6s|" "ab")', '"ab    |"'],
  ['(format "%6s|" "ab")', '"    ab|"'],
  ['(format "%.2s" "abcdef")', '"ab"'],
  ['(format "%S" "abc")', '"ABC"'],
  ['(format "%c%c" \\a 98)', '"ab"'],
  ['(format "%b %b %b" nil false 0)', '"false false true"'],
  ['(format "100%%")', '"100%"'],
  ['(format "a%nb")', '"a\\nb"'],
  ['(format "%2$s %1$s" "a" "b")', '"b a"'],
  ['(format "%s" "x" "extra")', '"x"'],
  ['(format "%.3f" ##NaN)', '"NaN"'],
  ['(format "%.1f" ##-Inf)', '"-Infinity"'],
  // clojure.string
  ['(clojure.string/join ", " [1 2 3])', '"1, 2, 3"'],
  ['(str/join [1 2 3])', '"123"'],
  ['(str/join "," [1 nil 2])', '"1,,2"'],
  ['(str/join "," nil)', '""'],
  ['(str/join "-" "abc")', '"a-b-c"'],
  ['(str/split "a,b,,c" #",")', '["a" "b" "" "c"]'],
  ['(str/split "a,b,c,," #",")', '["a" "b" "c"]'],
  ['(str/split ",a" #",")', '["" "a"]'],
  ['(str/split "," #",")', '[]'],
  ['(str/split "" #",")', '[""]'],
  ['(str/split "abc" #"")', '["a" "b" "c"]'],
  ['(str/split " a  b " #"\\s+")', '["" "a" "b"]'],
  ['(str/split "a,b,c" #"," 2)', '["a" "b,c"]'],
  ['(str/split "a,b,c,," #"," -1)', '["a" "b" "c" "" ""]'],
  ['(str/split-lines "a\\nb\\r\\nc\\n\\n")', '["a" "b" "c"]'],
  ['(str/split-lines "")', '[""]'],
  ['(str/trim "  a b \\t\\n")', '"a b"'],
  ['(str/triml "  a ")', '"a "'],
  ['(str/trimr "  a ")', '"  a"'],
  ['(str/trim-newline "a\\r\\n\\n")', '"a"'],
  ['(str/trim-newline "a \\n")', '"a "'],
  ['(str/blank? "  ")', 'true'],
  ['(str/blank? nil)', 'true'],
  ['(str/blank? "")', 'true'],
  ['(str/blank? " a")', 'false'],
  ['(str/upper-case "abc")', '"ABC"'],
  ['(str/lower-case "ABC")', '"abc"'],
  ['(str/upper-case :a)', '":A"'],
  ['(str/capitalize "hELLO")', '"Hello"'],
  ['(str/capitalize "")', '""'],
  ['(str/starts-with? "hello" "he")', 'true'],
  ['(str/ends-with? "hello" "lo")', 'true'],
  ['(str/includes? "hello" "ell")', 'true'],
  ['(str/includes? "hello" \\z)', 'false'],
  ['(str/index-of "abcb" "b")', '1'],
  ['(str/index-of "abcb" "b" 2)', '3'],
  ['(str/index-of "abc" "z")', 'nil'],
  ['(str/index-of "abc" "")', '0'],
  ['(str/last-index-of "abcb" "b")', '3'],
  ['(str/last-index-of "abcb" "b" 2)', '1'],
  ['(str/last-index-of "abc" "")', '3'],
  ['(str/replace "a.b.c" "." "-")', '"a-b-c"'],
  ['(str/replace "aaa" "a" "$1")', '"$1$1$1"'],
  ['(str/replace "a1b22" #"\\d+" "#")', '"a#b#"'],
  ['(str/replace "john smith" #"(\\w+) (\\w+)" "$2, $1")', '"smith, john"'],
  ['(str/replace "a1b2" #"\\d" (fn [m] (str "<" m ">")))', '"a<1>b<2>"'],
  ['(str/replace "k=v" #"(\\w)=(\\w)" (fn [m] (str (nth m 2) "=" (nth m 1))))', '"v=k"'],
  ['(str/replace "cost" #"cost" "\\$5")', '"$5"'],
  ['(str/replace "ab" #"x*" "-")', '"-a-b-"'],
  ['(str/replace "abc" "" "-")', '"-a-b-c-"'],
  ['(str/replace "2024-01-15" #"(?<y>\\d+)-(?<m>\\d+)-(?<d>\\d+)" "${d}/${m}/${y}")', '"15/01/2024"'],
  ['(str/replace-first "aXbX" "X" "y")', '"aybX"'],
  ['(str/replace-first "a1b2" #"\\d" "#")', '"a#b2"'],
  ['(str/reverse "abc")', '"cba"'],
  ['(str/escape "a<b>" {\\< "&lt;" \\> "&gt;"})', '"a&lt;b&gt;"'],
  ['(str/re-quote-replacement "$1\\\\")', '"\\\\$1\\\\\\\\"'],
  ['(str/replace "x" #"x" (str/re-quote-replacement "$1"))', '"$1"'],
  // core replace (collection substitution) and reverse stay Clojure's
  ['(replace {1 :a 2 :b} [1 2 3])', '[:a :b 3]'],
  ['(replace [:zero :one] [0 1 5])', '[:zero :one 5]'],
  ['(replace {1 :a} (quote (1 2)))', '(:a 2)'],
  // parsing
  ['(parse-long "42")', '42'],
  ['(parse-long "+42")', '42'],
  ['(parse-long "-7")', '-7'],
  ['(parse-long "4.2")', 'nil'],
  ['(parse-long " 42")', 'nil'],
  ['(parse-long "")', 'nil'],
  ['(parse-double "1.5")', '1.5'],
  ['(parse-double "1e3")', '1000'],
  ['(parse-double ".5")', '0.5'],
  ['(parse-double "Infinity")', '##Inf'],
  ['(parse-double "NaN")', '##NaN'],
  ['(parse-double "abc")', 'nil'],
  ['(parse-boolean "true")', 'true'],
  ['(parse-boolean "false")', 'false'],
  ['(parse-boolean "yes")', 'nil'],
];

describe('strings: Clojure agreement', () => {
  it.each(clojureAgreement)('%s → %s', (src, expected) => {
    expect(pr(src)).toBe(expected);
  });
});

describe('strings: reference extensions and our decisions', () => {
  it.each([
    // bare clojure.string names (reference)
    ['(join ", " ["a" "b"])', '"a, b"'],
    ['(split "a b" " ")', '["a" "b"]'],
    ['(split "a.b" ".")', '["a" "b"]'],
    ['(upcase "a")', '"A"'],
    ['(downcase "A")', '"a"'],
    ['(trim " x ")', '"x"'],
    ['(includes? "abc" "b")', 'true'],
    // bare replace on a string is the string replace; str/reverse vs reverse
    ['(replace "a-b" "-" "+")', '"a+b"'],
    ['(replace "a1" #"\\d" "#")', '"a#"'],
    ['(reverse "abc")', '("c" "b" "a")'],
    ['(clojure.string/reverse "abc")', '"cba"'],
    // subs clamps where Clojure throws
    ['(subs "hello" -2 2)', '"he"'],
    ['(subs "hello" 2 99)', '"llo"'],
    ['(subs "hello" 4 2)', '""'],
    ['(subs "hello" 9)', '""'],
    // parse-* on non-strings give nil (Clojure throws)
    ['(parse-long nil)', 'nil'],
    ['(parse-int "12")', '12'],
    ['(parse-double 5)', 'nil'],
    // a function replacement may return any value: it is str'd
    ['(str/replace "a1" #"\\d" (fn [m] (inc (parse-long m))))', '"a2"'],
    ['(str/replace "a-b" "-" (fn [m] (str "[" m "]")))', '"a[-]b"'],
    // format: %d accepts integral numbers, %f any number
    ['(format "%d" 3.0)', '"3"'],
    ['(format "%.2f" 3)', '"3.00"'],
    // astral characters: str/reverse keeps surrogate pairs together
    ['(str/reverse "a😀b")', '"b😀a"'],
  ])('%s → %s', (src, expected) => {
    expect(pr(src)).toBe(expected);
  });

  it('rounds %f half up on the shortest decimal form, as Java does', () => {
    expect(fixedHalfUp(0.125, 2)).toBe('0.13');
    expect(fixedHalfUp(2.675, 2)).toBe('2.68');
    expect(fixedHalfUp(0.0006, 3)).toBe('0.001');
    expect(fixedHalfUp(0.0004, 3)).toBe('0.000');
    expect(fixedHalfUp(9.999, 2)).toBe('10.00');
    expect(fixedHalfUp(1e21, 1)).toBe('1000000000000000000000.0');
    expect(fixedHalfUp(0, 2)).toBe('0.00');
  });
});

describe('strings: output', () => {
  it('println, print, prn and pr each add one line and return nil', () => {
    const rt = new FakeRuntime();
    expect(ev('(println "count:" 42 ["a" :b] nil)', rt)).toBe(null);
    expect(ev('(print "x\\n")', rt)).toBe(null);
    expect(ev('(prn "a" 1)', rt)).toBe(null);
    expect(ev('(pr [:x "y"])', rt)).toBe(null);
    expect(ev('(println)', rt)).toBe(null);
    expect(rt.printed).toEqual(['count: 42 [a :b] nil', 'x', '"a" 1', '[:x "y"]', '']);
  });
});

describe('strings: errors and limits', () => {
  it.each([
    ['(subs nil 1)', 'type_error', 'subs: expected string, got nil'],
    ['(subs "abc" 1.5)', 'type_error', 'subs: expected integer, got number'],
    ['(str/upper-case nil)', 'type_error', 'upper-case: expected string, got nil'],
    ['(str/split "a" 1)', 'type_error', 'split: expected regex or string separator, got number'],
    ['(str/trim 5)', 'type_error', 'trim: expected string, got number'],
    ['(name 5)', 'type_error', 'name: expected keyword, symbol or string, got number'],
    ['(format "%d" 2.5)', 'type_error', 'format: %d needs an integer, got 2.5'],
    ['(format "%d" "a")', 'type_error', 'format: %d needs a number, got a'],
    ['(format "%s %s" 1)', 'type_error', 'format: not enough arguments for %s (got 1)'],
    ['(format "%q" 1)', 'type_error', 'format: unknown conversion %q'],
    ['(format "50%")', 'type_error', 'format: bad format specifier at "%"'],
    ['(str/replace "a" #"a" "$2")', 'regex_error', 'replace: no group 2'],
    ['(str/replace "a" #"a" "$")', 'regex_error', 'replace: illegal group reference: group index is missing'],
    ['(replace 1 [1])', 'type_error', 'replace: expected map, got number'],
  ])('%s is %s', (src, code, message) => {
    const e = evError(src);
    expect(e.code).toBe(code);
    expect(e.message).toBe(message);
  });

  it('bounds the strings it builds by the collection-size limit', () => {
    const rt = new FakeRuntime({ maxCollectionSize: 100 });
    expect(evError('(format "%1000000000d" 1)', rt).code).toBe('limit_exceeded');
    expect(evError('(str/join (range 1000))', new FakeRuntime({ maxCollectionSize: 100 })).code).toBe('limit_exceeded');
    const big = 'x'.repeat(60);
    expect(evError(`(str "${big}" "${big}")`, new FakeRuntime({ maxCollectionSize: 100 })).details).toEqual({
      limit: 'collection_size',
    });
  });
});
