/**
 * Java interop as models write it from Clojure (core/interop.ts, analyzer/interop.ts):
 * String methods are aliases of the core functions with Java's results (what Clojure 1.11
 * on the JVM gives for each program below), every other method is an analysis error
 * naming the core function to use, and a method call costs the fuel of a core call.
 */
import { describe, expect, it } from 'vitest';
import { run } from '../../src/lisp/index.ts';
import { prStr } from '../../src/lisp/printer/index.ts';

const value = async (source: string): Promise<string> => {
  const r = await run(source);
  if (r.status !== 'ok') throw new Error(r.status === 'error' ? `${r.error.code}: ${r.error.message}` : r.status);
  return prStr(r.value);
};

const failure = async (source: string) => {
  const r = await run(source);
  if (r.status !== 'error') throw new Error(`expected an error, got ${r.status}`);
  return r.error;
};

/** [program, printed value]: what Clojure 1.11 (JVM) gives. */
const CLOJURE: Array<[string, string]> = [
  // indexOf / lastIndexOf: -1 when not found, Java's clamping of the start index
  ['(.indexOf "hello" "ll")', '2'],
  ['(.indexOf "hello" "x")', '-1'],
  ['(.indexOf "hello" "l" 3)', '3'],
  ['(.indexOf "hello" "l" 4)', '-1'],
  ['(.indexOf "hello" "h" -5)', '0'],
  ['(.indexOf "hello" "")', '0'],
  ['(.indexOf "abc" "" 10)', '3'],
  ['(.indexOf "a-b" \\-)', '1'],
  ['(.lastIndexOf "hello" "l")', '3'],
  ['(.lastIndexOf "hello" "l" 2)', '2'],
  ['(.lastIndexOf "hello" "h" -1)', '-1'],
  ['(.lastIndexOf "hello" "")', '5'],
  ['(.lastIndexOf "" "")', '0'],
  // UTF-16 indices, as Java and subs count: the index works with subs
  ['(.indexOf "🍎alt" "alt")', '2'],
  ['(let [s "🍎x🍊x"] (subs s (.lastIndexOf s "x")))', '"x"'],
  ['(.length "🍎")', '2'],
  // Clojure's collections are java.util.Lists
  ['(.indexOf [1 2 3] 2)', '1'],
  ["(.indexOf '(1 2 3) 4)", '-1'],
  ['(.lastIndexOf [1 2 1] 1)', '2'],
  ['(.lastIndexOf [] "x")', '-1'],
  ['(.indexOf (range 10) 5)', '5'],
  ['(.contains [1 2] 2)', 'true'],
  ['(.contains #{1 2} 3)', 'false'],
  ['(.isEmpty [])', 'true'],
  // case, tests, trimming
  ['(.toUpperCase "abc")', '"ABC"'],
  ['(.toLowerCase "ÀBC")', '"àbc"'],
  ['(.startsWith "hello" "he")', 'true'],
  ['(.endsWith "hello" "x")', 'false'],
  ['(.contains "hello" "ell")', 'true'],
  ['(.trim "  a b \\n")', '"a b"'],
  ['(.trim "\\u3000a")', '"\u3000a"'],
  ['(.strip "\\u3000a ")', '"a"'],
  ['[(.stripLeading "  a ") (.stripTrailing "  a ")]', '["a " "  a"]'],
  ['[(.isBlank " ") (.isEmpty "") (.isEmpty " ")]', '[true true false]'],
  ['(.length "hello")', '5'],
  // substrings and characters
  ['(.substring "hello" 1)', '"ello"'],
  ['(.substring "hello" 1 3)', '"el"'],
  ['(.charAt "hello" 1)', '"e"'],
  // replacing: replace is literal, replaceAll/replaceFirst read a regex
  ['(.replace "a.b.c" "." "-")', '"a-b-c"'],
  ['(.replace "aaa" \\a \\b)', '"bbb"'],
  ['(.replaceAll "a1b22c" "\\\\d+" "#")', '"a#b#c"'],
  ['(.replaceAll "a1b22c" "(\\\\d+)" "<$1>")', '"a<1>b<22>c"'],
  ['(.replaceFirst "a1b22c" "\\\\d+" "#")', '"a#b22c"'],
  // split reads a regex and drops trailing empty strings, as String.split
  ['(vec (.split "a,b,,c,," ","))', '["a" "b" "" "c"]'],
  ['(vec (.split "a1b22c" "\\\\d+"))', '["a" "b" "c"]'],
  ['(vec (.split "a.b" "."))', '[]'],
  ['(vec (.split "a b  c" "\\\\s+" 2))', '["a" "b  c"]'],
  ['(count (.split "x|y" "\\\\|"))', '2'],
  // equality, comparison, concatenation, matching
  ['[(.equals "a" "a") (.equals "a" :a) (.equals [1 2] [1 2])]', '[true false true]'],
  [
    '[(.equalsIgnoreCase "HeLLo" "hello") (.equalsIgnoreCase "a" nil) (.equalsIgnoreCase "a" "ab")]',
    '[true false false]',
  ],
  ['(.compareTo "a" "c")', '-2'],
  ['(.concat "a" "b")', '"ab"'],
  ['[(.matches "123" "\\\\d+") (.matches "123a" "\\\\d+")]', '[true false]'],
  // the forms around a method call
  ['(map #(.toUpperCase %) ["a" "b"])', '("A" "B")'],
  ['(-> " Hi " .trim .toLowerCase)', '"hi"'],
  ['(. "abc" toUpperCase)', '"ABC"'],
  ['(. "abc" indexOf "c")', '2'],
  ['(. "abc" (indexOf "c"))', '2'],
  ['(.. " abc " trim (indexOf "c"))', '2'],
  ['(let [s "key=value"] [(subs s 0 (.indexOf s "=")) (subs s (inc (.indexOf s "=")))])', '["key" "value"]'],
  // String statics
  ['(String/join ", " ["a" "b"])', '"a, b"'],
  ['(String/format "%d-%s" 1 "x")', '"1-x"'],
  ['[(String/valueOf 5) (java.lang.String/valueOf :a)]', '["5" ":a"]'],
];

describe('String methods give what Clojure gives', () => {
  it.each(CLOJURE)('%s is %s', async (source, expected) => {
    expect(await value(source)).toBe(expected);
  });

  it('a regex value works where Java reads a regex string', async () => {
    expect(await value('[(vec (.split "a,b" #",")) (.replaceAll "a1" #"\\d" "#") (.matches "12" #"\\d+")]')).toBe(
      '[["a" "b"] "a#" true]',
    );
  });

  it('.substring clamps like subs (Java throws)', async () => {
    expect(await value('[(.substring "abc" 2 10) (.substring "abc" -1)]')).toBe('["c" "abc"]');
  });

  it('a function calling methods persists in the namespace and reads back', async () => {
    const { serializeNamespace, deserializeNamespace } = await import('../../src/lisp/index.ts');
    const first = await run('(defn initials [s] (apply str (map #(.charAt % 0) (.split (.trim s) " "))))');
    if (first.status !== 'ok') throw new Error('def failed');
    const saved = serializeNamespace(first.namespace);
    expect(saved.initials).toBe('(fn initials [s] (apply str (map #(.charAt % 0) (.split (.trim s) " "))))');
    const namespace = await deserializeNamespace(saved, { tools: [] });
    const again = await run('(initials " Ada Lovelace ")', { namespace });
    expect(again.status === 'ok' && prStr(again.value)).toBe('"AL"');
  });

  it('a local named like a method is called as the local', async () => {
    expect(await value('(let [.twice #(* 2 %)] (.twice 4))')).toBe('8');
  });
});

describe('errors', () => {
  it.each([
    ['(.toUpperCase 5)', 'type_error', '.toUpperCase: expected string, got number'],
    ['(.toUpperCase nil)', 'type_error', '.toUpperCase: expected string, got nil'],
    ['(.indexOf 123 "x")', 'type_error', '.indexOf: expected string, got number'],
    ['(.indexOf "abc" 1)', 'type_error', '.indexOf: expected string, got number'],
    ['(.indexOf [1 2] 1 0)', 'type_error', '.indexOf: expected string (a collection takes no start index), got vector'],
    ['(.startsWith "abc" nil)', 'type_error', '.startsWith: expected string, got nil'],
    ['(.substring "abc" 1.5)', 'type_error', '.substring: expected integer, got number'],
    ['(.charAt "abc" 3)', 'index_out_of_bounds', '.charAt: index 3 out of bounds for size 3'],
    ['(.equals nil "a")', 'type_error', '.equals: expected non-nil value, got nil'],
    ['(.split "a" "(")', 'regex_error', 'invalid regex #"(": missing closing ): ('],
    ['(.isEmpty nil)', 'type_error', '.isEmpty: expected string or collection, got nil'],
    ['(String/valueOf nil)', 'type_error', 'String/valueOf: expected non-nil value, got nil'],
  ])('%s is a %s: %s', async (source, code, message) => {
    const e = await failure(source);
    expect([e.code, e.message]).toEqual([code, message]);
  });

  it('a wrong receiver says what interop covers', async () => {
    expect((await failure('(.toUpperCase 5)')).hint).toBe(
      'Java interop covers java.lang.String methods; (str x) turns a value into a string',
    );
  });

  it('other methods fail before anything runs, naming the core function to use', async () => {
    for (const [source, message] of [
      ['(.format "%d" 1)', 'Java method .format is not supported: use format'],
      ['(.toString 5)', 'Java method .toString is not supported: use str'],
      ['(.getTime d)', 'Java method .getTime is not supported: use date/epoch-millis'],
      ['(.size [1 2])', 'Java method .size is not supported: use count'],
      ['(. date getTime)', 'Java method .getTime is not supported: use date/epoch-millis'],
    ]) {
      const r = await run(`(println "ran") ${source}`);
      expect(r.status === 'error' && [r.error.code, r.error.message, r.error.phase, r.prints.length]).toEqual([
        'unbound_var',
        message,
        'analyze',
        0,
      ]);
      expect(r.status === 'error' && r.error.hint).toMatch(
        /^Java interop covers String methods only: \.indexOf .*\.substring/,
      );
    }
  });

  it('every core function an unsupported method points to exists', async () => {
    const { METHOD_ALTERNATIVES } = await import('../../src/lisp/core/interop.ts');
    const { lookupCore } = await import('../../src/lisp/core/builtins.ts');
    const named = Object.values(METHOD_ALTERNATIVES)
      .filter((text) => !text.startsWith('('))
      .flatMap((text) => text.split(/,\s*| or /).map((part) => part.replace(/ \(.*\)$/, '')));
    expect(named.length).toBeGreaterThan(25);
    const missing = named.filter((n) => {
      const slash = n.indexOf('/');
      return slash < 0 ? !lookupCore(null, n) : !lookupCore(n.slice(0, slash), n.slice(slash + 1));
    });
    expect(missing).toEqual([]);
  });

  it('an unknown method names the String methods there are', async () => {
    const e = await failure('(let [s "x"]\n  (.frobnicate s))');
    expect([e.code, e.message, e.line, e.column]).toEqual([
      'unbound_var',
      'Unknown method .frobnicate: Java interop covers String methods only',
      2,
      3,
    ]);
    expect(e.hint).toMatch(
      /^String methods: \.indexOf \.lastIndexOf .* \.toUpperCase .*; otherwise use the core functions$/,
    );
  });

  it('host methods are not reachable', async () => {
    for (const m of ['constructor', '__proto__', 'hasOwnProperty', 'valueOf', 'toLocaleString', 'prototype']) {
      const e = await failure(`(.${m} "a")`);
      expect(e.code).toBe('unbound_var');
    }
  });

  it('arity is checked before anything runs, counting the arguments after the object', async () => {
    for (const [source, message] of [
      ['(.indexOf "a")', '.indexOf takes 1 to 2 arguments after the object, got 0'],
      ['(.indexOf "a" "b" 1 2)', '.indexOf takes 1 to 2 arguments after the object, got 3'],
      ['(.toUpperCase "a" "b")', '.toUpperCase takes 0 arguments after the object, got 1'],
      ['(.toUpperCase)', '.toUpperCase needs an object to call it on'],
    ]) {
      const e = await failure(source);
      expect([e.code, e.message, e.phase]).toEqual(['arity_error', message, 'analyze']);
      expect(e.hint).toMatch(/^usage: \(\./);
    }
  });

  it('a method passed as a value is undefined, with a hint to wrap it', async () => {
    const e = await failure('(map .toUpperCase ["a"])');
    expect([e.code, e.message, e.hint]).toEqual([
      'unbound_var',
      'Undefined variable: .toUpperCase',
      'a Java method is called, not passed: (.toUpperCase s ...), or #(.toUpperCase %) as a function',
    ]);
  });

  it('(. obj) without a method is an invalid form', async () => {
    expect((await failure('(. "a")')).code).toBe('invalid_form');
    expect((await failure('(. "a" 5)')).code).toBe('invalid_form');
  });
});

describe('fuel', () => {
  /** [method call, the core call it aliases]: same fuel, and the same outcome at every fuel limit. */
  const PAIRS: Array<[string, string]> = [
    ['(.toUpperCase "abc")', '(upper-case "abc")'],
    ['(let [s "hello"] (.startsWith s "he"))', '(let [s "hello"] (starts-with? s "he"))'],
    ['(.substring "hello" 1 3)', '(subs "hello" 1 3)'],
    ['(.replace (apply str (repeat 300 "a.")) "." "-")', '(replace (apply str (repeat 300 "a.")) "." "-")'],
    ['(.replaceAll (apply str (repeat 300 "a1")) #"\\d" "#")', '(replace (apply str (repeat 300 "a1")) #"\\d" "#")'],
    ['(.split (apply str (repeat 200 "a,")) #",")', '(str/split (apply str (repeat 200 "a,")) #",")'],
    ['(mapv #(.trim %) (repeat 50 " a "))', '(mapv #(str/trim %) (repeat 50 " a "))'],
  ];

  const outcome = async (source: string, fuel: number) => {
    const r = await run(source, { limits: { fuel } });
    return `${r.status === 'ok' ? `ok ${prStr(r.value)}` : r.status === 'error' ? r.error.code : r.status} used ${r.fuelUsed}`;
  };

  it.each(PAIRS)('%s costs what %s costs, at every fuel limit', async (method, core) => {
    const full = (await run(core)).fuelUsed;
    expect((await run(method)).fuelUsed).toBe(full);
    for (let fuel = 0; fuel <= full + 1; fuel += Math.max(1, Math.floor(full / 60))) {
      expect(await outcome(method, fuel), `fuel ${fuel}`).toBe(await outcome(core, fuel));
    }
  });

  it('a collection receiver is walked with one unit per item visited', async () => {
    const near = (await run('(.indexOf (vec (range 1000)) 1)')).fuelUsed;
    const far = (await run('(.indexOf (vec (range 1000)) 900)')).fuelUsed;
    expect(far - near).toBe(899);
    const r = await run('(.indexOf (range) -1)', { limits: { fuel: 5000 } });
    expect(r.status === 'error' && r.error.code).toBe('limit_exceeded');
  });

  it('method calls in a hot loop and a hot fn give what the core calls give (the generated-code paths leave them to the closures)', async () => {
    const loop = (f: string) => `(loop [i 0 n 0] (if (< i 300) (recur (inc i) (+ n ${f})) n))`;
    const fn = (f: string) => `(defn g [i] (if (< i 1) 0 (+ ${f} (g (dec i))))) (reduce + (map g (range 40)))`;
    for (const shape of [loop, fn]) {
      const a = await run(shape('(.length "ab")'));
      const b = await run(shape('(count "ab")'));
      expect(a.status === 'ok' && [prStr(a.value), a.fuelUsed]).toEqual(
        b.status === 'ok' && [prStr(b.value), b.fuelUsed],
      );
    }
  });
});
