/**
 * Agreement with Clojure, measured: a corpus of programs of the kind models write is run
 * by PTC-Lisp and by nbb (SCI on ClojureScript, a dev dependency) and the printed values
 * compared. ClojureScript is the right reference for PTC-Lisp's one number type: like us
 * it has only doubles (`(/ 10 4)` is 2.5, `(str 1.0)` is "1"). The few places where we
 * differ on purpose are listed in DIFFERENT with the reason (docs/language.md); any
 * other disagreement fails the test with both answers.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/lisp/index.ts';
import { prStr } from '../../src/lisp/printer/index.ts';

const CORPUS: string[] = [
  // sequences
  '(map inc [1 2 3])',
  '(filter odd? (range 10))',
  '(remove nil? [1 nil 2 nil 3])',
  '(reduce + 0 (range 101))',
  '(reduce (fn [acc x] (assoc acc x (* x x))) {} [1 2 3])',
  '(take 3 (iterate #(* 2 %) 1))',
  '(take-while #(< % 5) (range 10))',
  '(drop-while #(< % 5) (range 8))',
  '(partition 2 [1 2 3 4 5])',
  '(partition-all 2 [1 2 3 4 5])',
  '(partition-by odd? [1 3 2 4 5])',
  '(interleave [1 2 3] [:a :b :c])',
  '(interpose ", " ["a" "b" "c"])',
  '(mapcat (fn [x] [x x]) [1 2])',
  '(keep #(when (odd? %) (* % 10)) (range 6))',
  '(distinct [1 2 1 3 2])',
  '(dedupe [1 1 2 2 1])',
  '(flatten [1 [2 [3 4]] [[5]]])',
  '(frequencies ["a" "b" "a" "c" "a"])',
  '(group-by count ["a" "bb" "cc" "d"])',
  '(sort [3 1 2])',
  '(sort > [3 1 2])',
  '(sort-by :age [{:age 30} {:age 20} {:age 25}])',
  '(sort-by :age > [{:age 30} {:age 20} {:age 25}])',
  '(sort-by (juxt :a :b) [{:a 2 :b 1} {:a 1 :b 2} {:a 1 :b 1}])',
  '(reverse [1 2 3])',
  '(concat [1 2] [3] nil [4])',
  '(into [] (map inc) [1 2 3])',
  '(into [] (comp (filter odd?) (map inc)) (range 10))',
  '(into #{} (comp (map :tag) (remove nil?)) [{:tag :a} {} {:tag :b} {:tag :a}])',
  '(into [] (comp (take 3) (map str)) (range))',
  '(into [] (comp (partition-all 2) (map vec)) (range 5))',
  '(into [] (dedupe) [1 1 2 2 1])',
  '(into [] (distinct) [1 2 1 3])',
  '(transduce (map :price) + 0 [{:price 2} {:price 3}])',
  '(transduce (filter even?) + (range 10))',
  '(transduce (map inc) conj [] [1 2])',
  '(sequence (map inc) [1 2 3])',
  '(sequence (comp (mapcat identity) (drop 1)) [[1 2] [3]])',
  '(sequence [])',
  '(into {} (map (juxt :id :name)) [{:id 1 :name "a"}])',
  '(into [] (keep #(when (pos? %) %)) [-1 2 0 3])',
  '(into [] (interpose :x) [1 2 3])',
  '(into [] (map-indexed vector) [:a :b])',
  '(into [] (take-while pos?) [2 1 0 3])',
  '(into [] (comp (map inc) (filter even?) (take 2)) (range))',
  '(into #{} [1 2 2 3])',
  '(into {} [[:a 1] [:b 2]])',
  '(vec (range 5))',
  '(set [3 1 3])',
  '(first [])',
  '(rest [1])',
  '(next [1])',
  '(last [1 2 3])',
  '(butlast [1 2 3])',
  '(second [1 2 3])',
  '(nth [1 2 3] 1)',
  '(nth [1 2 3] 5 :none)',
  '(count nil)',
  '(empty? [])',
  '(not-empty [])',
  '(seq [])',
  '(some even? [1 3 4])',
  '(some #{:b} [:a :b])',
  '(every? pos? [1 2 3])',
  '(not-any? neg? [1 2])',
  '(apply max [3 7 2])',
  '(apply str (map inc [1 2]))',
  '(max-key count "ab" "abc" "a")',
  '(min-key :n {:n 3} {:n 1})',
  '(repeat 3 :x)',
  '(range 0 10 3)',
  '(range 5 0 -2)',
  '(zipmap [:a :b] [1 2])',
  '(map-indexed vector [:a :b])',
  '(reductions + [1 2 3 4])',
  '(split-at 2 [1 2 3 4])',
  '(split-with odd? [1 3 2 5])',
  '(take-last 2 [1 2 3])',
  '(drop-last [1 2 3])',
  '(nthrest [1 2 3 4] 2)',
  '(cons 0 [1 2])',
  '(conj [1 2] 3)',
  '(conj (list 1 2) 0)',
  '(peek [1 2 3])',
  '(pop [1 2 3])',
  '(subvec [1 2 3 4] 1 3)',
  '(for [x [1 2 3] :when (odd? x)] (* x 10))',
  '(for [x [1 2] y [:a :b]] [x y])',
  '(for [x (range 4) :let [y (* x x)] :while (< y 5)] y)',
  // maps
  '(assoc {:a 1} :b 2)',
  '(dissoc {:a 1 :b 2} :a)',
  '(update {:a 1} :a inc)',
  '(update {:a 1} :b (fnil inc 0))',
  '(update-in {:a {:b 1}} [:a :b] + 10)',
  '(assoc-in {} [:a :b] 1)',
  '(get-in {:a {:b [10 20]}} [:a :b 1])',
  '(get {:a 1} :z :default)',
  '(merge {:a 1 :b 2} {:b 3 :c 4})',
  '(merge-with + {:a 1 :b 2} {:a 10})',
  '(select-keys {:a 1 :b 2 :c 3} [:a :c])',
  '(keys {:a 1 :b 2})',
  '(vals {:a 1 :b 2})',
  '(contains? {:a nil} :a)',
  '(find {:a 1} :a)',
  '(reduce-kv (fn [m k v] (assoc m k (* 2 v))) {} {:a 1 :b 2})',
  '(update-vals {:a 1 :b 2} inc)',
  '(update-keys {:a 1} name)',
  '(into {} (map (fn [[k v]] [v k]) {:a 1 :b 2}))',
  '(:b {:a 1 :b 2})',
  '({:a 1} :a)',
  '(map :name [{:name "x"} {:name "y"}])',
  '(filter (comp even? :n) [{:n 1} {:n 2}])',
  '(group-by :dept [{:dept "a" :n 1} {:dept "b" :n 2} {:dept "a" :n 3}])',
  // sets
  '(clojure.set/union #{1 2} #{2 3})',
  '(clojure.set/intersection #{1 2 3} #{2 3 4})',
  '(clojure.set/difference #{1 2 3} #{2})',
  '(contains? #{1 2} 2)',
  '(disj #{1 2 3} 2)',
  '(conj #{1} 2)',
  // strings
  '(str "a" 1 :b nil 2.5)',
  '(str/join ", " [1 2 3])',
  '(str/split "a,b,,c" #",")',
  '(str/upper-case "abc")',
  '(str/lower-case "ABC")',
  '(str/capitalize "hello world")',
  '(str/trim "  x  ")',
  '(str/triml "  x ")',
  '(str/blank? "  ")',
  '(str/includes? "hello" "ell")',
  '(str/starts-with? "hello" "he")',
  '(str/ends-with? "hello" "lo")',
  '(str/replace "a-b-c" "-" "+")',
  '(str/replace "a1b22c" #"\\d+" "#")',
  '(str/reverse "abc")',
  '(subs "hello" 1 3)',
  '(count "hello")',
  '(str/split-lines "a\\nb")',
  '(str/index-of "hello" "l")',
  '(re-find #"\\d+" "abc123def45")',
  '(re-seq #"\\d+" "a1b22c333")',
  '(re-matches #"(\\w+)@(\\w+)\\.com" "ann@example.com")',
  '(re-find #"(\\d+)-(\\d+)" "10-20")',
  '(name :foo)',
  '(keyword "bar")',
  '(pr-str [1 "a" :b nil])',
  '(seq "ab")',
  '(first "ab")',
  '(apply str (reverse "abc"))',
  // numbers (ClojureScript: doubles only, like PTC-Lisp)
  '(/ 10 4)',
  '(/ 10 2)',
  '(* 1.0 2)',
  '(quot 17 5)',
  '(rem -7 2)',
  '(mod -7 2)',
  '(inc 1.5)',
  '(+ 0.1 0.2)',
  '(max 1 2.5)',
  '(abs -3)',
  '(= 1 1.0)',
  '(== 1 1.0)',
  '(compare 1 2)',
  '(parse-long "42")',
  '(parse-double "2.5")',
  '(int 3.7)',
  '(Math/round 2.5)',
  '(Math/floor 2.7)',
  '(Math/pow 2 10)',
  '(even? 4)',
  '(zero? 0)',
  // printing and edge values
  '(str 0.1 " " 1e21 " " 1.5e-7 " " -0.0)',
  '(pr-str "a\\"b\\\\c\\nd")',
  '(pr-str :ns/kw)',
  '(pr-str [nil true false])',
  '(pr-str (list))',
  '(pr-str {})',
  '(pr-str #{})',
  '(str nil)',
  '(str [1 "a"])',
  '(str {:a "x"})',
  '(/ 1 3)',
  '(* 1e308 10)',
  '(- (* 1e308 10) (* 1e308 10))',
  '(Math/sqrt 16)',
  '(format "%d items, %.2f total" 3 4.5)',
  '(pr-str (range 3))',
  '(pr-str (map inc []))',
  '(pr-str (lazy-seq [1 2]))',
  '(pr-str (first {:a 1}))',
  '(vector? (first {:a 1}))',
  '(map? (into {} []))',
  '(= [1 2] (list 1 2))',
  '(= {:a [1]} {:a (list 1)})',
  '(hash-map :a 1)',
  '(sorted-map :b 2 :a 1)',
  '(sort-by - [1 3 2])',
  '(sort (comparator >) [1 3 2])',
  '(group-by even? [])',
  '(frequencies [])',
  '(reduce + [])',
  '(reduce max [3])',
  '(apply + 1 2 [3 4])',
  '(merge nil {:a 1})',
  '(assoc nil :a 1)',
  '(get nil :a)',
  '(conj nil 1)',
  '(into nil [1 2])',
  '(count {:a 1 :b 2})',
  '(nth (list 1 2 3) 2)',
  '(keys {})',
  '(vals nil)',
  '(first nil)',
  '(last [])',
  '(str/join [1 2 3])',
  '(str/split "a b  c" #" +")',
  '(str/split "a=b=c" #"=" 2)',
  '(str/replace "Hello World" #"o" (fn [m] (str/upper-case m)))',
  '(str/replace "2024-01-15" #"(\d+)-(\d+)-(\d+)" "$3/$2/$1")',
  '(re-seq #"(\w)(\d)" "a1 b2")',
  '(boolean (re-find #"^\d+$" "123"))',
  '(mapv (fn [[k v]] (str (name k) "=" v)) {:a 1 :b 2})',
  '(->> {:a 3 :b 1 :c 2} (sort-by val) (map key))',
  '(->> [{:n "x" :s 3} {:n "y" :s 9}] (apply max-key :s) :n)',
  '(update-in {:a [1 2 3]} [:a 1] * 10)',
  '(assoc [1 2 3] 1 :x)',
  '(get [1 2 3] 5)',
  '(contains? [1 2 3] 1)',
  '(some (fn [[k v]] (when (> v 1) k)) {:a 1 :b 2})',
  '(let [{:strs [a b]} {"a" 1 "b" 2}] (+ a b))',
  '(let [[_ & rest] "abc"] (apply str rest))',
  '(loop [[x & xs] [1 2 3] acc 0] (if x (recur xs (+ acc x)) acc))',
  '(doall (map #(* % %) [1 2]))',
  '(count (filter #(re-find #"a" %) ["a" "b" "ab"]))',
  '(zero? (count []))',
  '(int "5")',
  // control flow, functions, destructuring
  '(let [[a b & more] [1 2 3 4]] [a b more])',
  '(let [{:keys [x y] :or {y 5}} {:x 1}] (+ x y))',
  '(let [{a :a [b c] :bs} {:a 1 :bs [2 3]}] [a b c])',
  '(loop [i 0 acc []] (if (< i 3) (recur (inc i) (conj acc i)) acc))',
  '(cond (< 5 3) :a (> 5 3) :b :else :c)',
  '(case 2 1 :one 2 :two :other)',
  '(condp = 3 1 :one 3 :three :none)',
  '(if-let [x (first [])] x :empty)',
  '(when-let [x (first [1])] (* x 10))',
  '(if-some [x false] [:some x] :none)',
  '(-> 5 (+ 3) (* 2))',
  '(->> (range 10) (filter even?) (map #(* % %)) (reduce +))',
  '(as-> 5 x (+ x 1) (* x 2))',
  '(some-> {:a {:b 1}} :a :b inc)',
  '(cond-> [] true (conj 1) false (conj 2))',
  '((comp inc #(* 2 %)) 5)',
  '((partial + 10) 5)',
  '((juxt first last) [1 2 3])',
  '((fnil + 0) nil 5)',
  '((complement even?) 3)',
  '(identity 7)',
  '(do (defn sq [x] (* x x)) (map sq [1 2 3]))',
  '(do (defn fact [n] (if (<= n 1) 1 (* n (fact (dec n))))) (fact 10))',
  '(letfn [(ev? [n] (if (zero? n) true (od? (dec n)))) (od? [n] (if (zero? n) false (ev? (dec n))))] (ev? 10))',
  '(try (throw (ex-info "boom" {:code 7})) (catch :default e [(ex-message e) (ex-data e)]))',
  '(let [m {:a 1}] (if (contains? m :a) "yes" "no"))',
  '(not= 1 2)',
  '(and 1 nil 2)',
  '(or nil false 3)',
  '(nil? nil)',
  '(boolean 0)',
];

/**
 * Programs where PTC-Lisp differs from ClojureScript on purpose (docs/language.md), each
 * with what it prints here and why; they are checked to give exactly that.
 */
const DIFFERENT: Record<string, { ours: string; why: string }> = {
  '(str 0.1 " " 1e21 " " 1.5e-7 " " -0.0)': { ours: '"0.1 1.0E21 1.5E-7 0"', why: 'doubles print as Clojure on the JVM prints them (ClojureScript: 1e+21)' },
  '(format "%d items, %.2f total" 3 4.5)': { ours: '"3 items, 4.50 total"', why: 'format is Clojure (JVM); ClojureScript has none' },
  '(pr-str (lazy-seq [1 2]))': { ours: 'error: unbound_var', why: 'lazy-seq is a macro and PTC-Lisp has none; every sequence function is lazy already' },
  '(int "5")': { ours: '53', why: 'characters are 1-character strings, so this is (int \\5) = 53 as in Clojure (ClojureScript parses the string)' },
  '(try (throw (ex-info "boom" {:code 7})) (catch :default e [(ex-message e) (ex-data e)]))': { ours: '["boom" {:code 7}]', why: 'ClojureScript needs :default; we accept it too (and Exception/ExceptionInfo)' },
};

function nbbPath(): string | undefined {
  const local = join(process.cwd(), 'node_modules/.bin/nbb');
  return existsSync(local) ? local : undefined;
}

/** Every program's printed value (or `error: ...`) from one nbb process. */
function nbbValues(programs: string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'agreement-'));
  const file = join(dir, 'corpus.cljs');
  // load-string: a program that does not analyse is an error of its own, not of the file
  const lines = programs.map((p) => `(out (try (pr-str (load-string ${JSON.stringify(`(do ${p})`)})) (catch :default e (str "error: " (ex-message e)))))`);
  writeFileSync(file, [`(require '[clojure.string :as str] '[clojure.set])`, `(defn out [s] (println (js/JSON.stringify s)))`, ...lines].join('\n'));
  const r = spawnSync(nbbPath()!, [file], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`nbb failed: ${r.stderr}`);
  return r.stdout.trim().split('\n').map((l) => JSON.parse(l) as string);
}

async function ours(program: string): Promise<string> {
  const r = await run(program);
  if (r.status === 'ok') return prStr(r.value);
  return r.status === 'error' ? `error: ${r.error.code}` : r.status;
}

describe.skipIf(!nbbPath())('agreement with ClojureScript (nbb)', () => {
  it('prints the same value for every program of the corpus, except the listed differences', async () => {
    const reference = nbbValues(CORPUS);
    expect(reference).toHaveLength(CORPUS.length);
    const disagreements: string[] = [];
    let agree = 0;
    for (let i = 0; i < CORPUS.length; i++) {
      const program = CORPUS[i]!;
      const mine = await ours(program);
      const known = DIFFERENT[program];
      if (known) {
        if (!mine.startsWith(known.ours)) disagreements.push(`${program}\n  listed as ${known.ours}, now ${mine}`);
        continue;
      }
      if (mine === reference[i]) agree++;
      else disagreements.push(`${program}\n  ours: ${mine}\n  nbb:  ${reference[i]}`);
    }
    console.log(`agreement with ClojureScript: ${agree} of ${CORPUS.length - Object.keys(DIFFERENT).length} programs (${Object.keys(DIFFERENT).length} listed differences)`);
    expect(disagreements, disagreements.join('\n')).toEqual([]);
  }, 180_000);
});
