/**
 * The PTC-Lisp language reference of the system prompt: our own compact text. Core
 * function names are listed by area; {@link languageReference} can be given the names the
 * interpreter really defines, and then lists only those.
 */
import { FEEDBACK_PRINT_CHARS } from './feedback.ts';

/** Core functions by area, as the model sees them. */
export const CORE_AREAS: ReadonlyArray<readonly [area: string, names: readonly string[]]> = [
  [
    'sequences',
    [
      'map',
      'mapv',
      'map-indexed',
      'mapcat',
      'filter',
      'filterv',
      'remove',
      'keep',
      'reduce',
      'reduce-kv',
      'first',
      'second',
      'last',
      'rest',
      'next',
      'nth',
      'take',
      'drop',
      'take-while',
      'drop-while',
      'take-last',
      'drop-last',
      'butlast',
      'concat',
      'conj',
      'cons',
      'into',
      'reverse',
      'sort',
      'sort-by',
      'distinct',
      'distinct-by',
      'dedupe',
      'flatten',
      'partition',
      'partition-all',
      'partition-by',
      'group-by',
      'frequencies',
      'interleave',
      'interpose',
      'zipmap',
      'range',
      'repeat',
      'iterate',
      'count',
      'empty?',
      'not-empty',
      'seq',
      'some',
      'every?',
      'not-any?',
      'find',
      'vec',
      'vector',
      'list',
      'set',
      'subvec',
      'peek',
      'pop',
    ],
  ],
  ['aggregates', ['sum', 'avg', 'sum-by', 'avg-by', 'min-by', 'max-by', 'pluck', 'max', 'min', 'max-key', 'min-key']],
  [
    'maps',
    [
      'get',
      'get-in',
      'assoc',
      'assoc-in',
      'update',
      'update-in',
      'dissoc',
      'merge',
      'merge-with',
      'select-keys',
      'keys',
      'vals',
      'contains?',
      'update-vals',
      'update-keys',
      'key',
      'val',
    ],
  ],
  ['sets', ['union', 'intersection', 'difference', 'disj']],
  [
    'strings',
    [
      'str',
      'pr-str',
      'format',
      'subs',
      'name',
      'keyword',
      'str/join',
      'str/split',
      'str/split-lines',
      'str/trim',
      'str/replace',
      'str/upper-case',
      'str/lower-case',
      'str/starts-with?',
      'str/ends-with?',
      'str/includes?',
      'str/index-of',
      'str/blank?',
      'parse-long',
      'parse-double',
    ],
  ],
  [
    'dates (ISO strings)',
    [
      'date/parse',
      'date/format',
      'date/days-between',
      'date/hours-between',
      'date/months-between',
      'date/plus-days',
      'date/minus-days',
      'date/plus-months',
      'date/plus-hours',
      'date/day-of-week',
      'date/before?',
      'date/after?',
      'date/compare',
      'date/year',
      'date/month',
      'date/day',
      'date/date',
      'date/instant',
    ],
  ],
  ['regex', ['re-pattern', 're-find', 're-matches', 're-seq', 'extract', 'extract-int']],
  [
    'numbers',
    [
      '+',
      '-',
      '*',
      '/',
      'quot',
      'rem',
      'mod',
      'inc',
      'dec',
      'abs',
      'round',
      'floor',
      'ceil',
      'sqrt',
      'pow',
      '=',
      'not=',
      '<',
      '>',
      '<=',
      '>=',
      'compare',
    ],
  ],
  [
    'predicates',
    [
      'nil?',
      'some?',
      'true?',
      'false?',
      'number?',
      'string?',
      'keyword?',
      'map?',
      'vector?',
      'set?',
      'coll?',
      'fn?',
      'zero?',
      'pos?',
      'neg?',
      'even?',
      'odd?',
      'not',
    ],
  ],
  [
    'functions',
    [
      'identity',
      'constantly',
      'partial',
      'comp',
      'complement',
      'juxt',
      'fnil',
      'apply',
      'where',
      'all-of',
      'any-of',
      'none-of',
    ],
  ],
  ['parallel', ['pmap', 'pcalls']],
  ['output', ['println', 'prn']],
];

export interface LanguageOptions {
  /** names the interpreter defines; when given, others are left out of the list */
  defined?: ReadonlySet<string>;
}

function functionList(opts: LanguageOptions): string {
  return CORE_AREAS.map(([area, names]) => {
    const shown = opts.defined ? names.filter((n) => opts.defined!.has(n)) : names;
    return shown.length ? `- ${area}: ${shown.join(' ')}` : '';
  })
    .filter(Boolean)
    .join('\n');
}

export function languageReference(opts: LanguageOptions = {}): string {
  return `You complete a mission by writing programs in PTC-Lisp, a small sandboxed subset of Clojure. Each turn you send one program; it runs, and unless it ended the mission the next message shows what it printed.

## One program, one turn
Every turn is a call to you, the model: it costs time and money. Finish the mission in as few turns as you can, ideally one. One program can read, decide, act and return: call the read tools, compute with their results, make the changes (each in a task) and end with (return ...), all in the same program.
- The tools' arguments and results are described in the first message: write code against that shape instead of printing data to look at it first. Handle in the code what the data may hold (empty lists, nil fields, several matches, boundary dates) and what a call may do (a refusal, a person's denial: catch it where it is expected).
- Print only what you cannot decide in code, and then print everything you need in one go.
- A program that has done the work ends with (return ...): a later turn that only returns values costs another call.

## PTC-Lisp
Clojure syntax, and a program that is valid Clojure means what it means in Clojure. Values: nil, true, false, numbers (one number type: (/ 10 4) is 2.5, (/ 10 2) is 5), "strings", :keywords, [vectors], (lists), {:maps "and" :keys}, #{sets}, functions, #"regexes". Collections are immutable; maps and sets keep insertion order.
Key lookup is flexible: (:id m), (get m :id) and (get m "id") find the key whether it is :id or "id".
Dates are ISO strings ("2024-03-15", "2024-03-15T09:30:00Z") used with the date/ functions: (date/days-between (:due inv) data/today) counts days overdue, (date/format d "yyyy-MM") gives the month. There is no clock: today's date comes from data or a tool.

Forms: do, let, if, if-not, when, when-not, if-let, when-let, cond, case, condp, and, or, fn, #(+ % 1), defn, def, defonce, letfn, loop/recur, for, doseq, ->, ->>, some->, cond->, as->. Destructuring: [a b & more], {:keys [a b] :or {b 0} :as m}.
Errors: (try (task "pay_1" (tool/pay {...})) (catch Exception e (ex-message e))) catches a failed tool call, one a person refused, or any runtime error; (throw (ex-info "why" {:k v})) raises one.
A tool call the service refuses, or a person denies, throws: (ex-message e) is then their reason alone, in their words, and (ex-data e) is {:type :tool_error :tool "pay" :class :rejected} (:denied when a person refused it, :failed for other failures). Catch it where the mission says what to do then.
Not available: atoms, eval, files, network, other host interop. Tools are the only way to reach the outside world.
Java String methods work as aliases of the string functions: (.indexOf s "x"), (.toUpperCase s), (.split s ","), (.substring s 1 3).

Core functions:
${functionList(opts)}

## Data, tools and memory
- data/NAME reads an input value listed under "## Data".
- (tool/NAME {:arg value}) calls a tool with one map of arguments; a tool without arguments is called as (tool/NAME). The tools are listed in the first message. Arguments are checked against the tool's schema before it runs. JSON results become maps with string keys: read them with (:key r) or (get r "key").
- def and defn bindings stay available in later turns of this pass. A new pass (after a decision arrives, or when the mission resumes) starts without them: what must last goes in the journal, through tasks. *1, *2 and *3 are the values of your last three programs.
- Only println output is shown to you, up to ${FEEDBACK_PRINT_CHARS} characters a turn (whole lines first; a cut says what was left out); the value of the last expression is not.
- println writes strings without quotes, also inside collections: {"name" "a, b"} prints as {name a, b}. Use (prn x) to see strings quoted and keys as they are.

## The journal: one task per side effect
- Wrap every call that changes something in a task: (task "charge_order_42" (tool/charge_card {:order 42})).
- The first time a task id is seen, its body runs and the value is recorded in the journal. Reusing an id returns the cached result without running the body: in this program, in later turns and when the mission is resumed days later. This is what makes retries safe.
- Use semantic ids naming the action and its subject ("send_invoice_acme_2025_01", not "step_1"). Build them from data with str: (task (str "refund_" order-id) ...).
- One task per side effect: never two side effects in one task, never a task inside another.
- Tasks already done are listed under "## Mission Log" in this prompt. Trust them and do not redo their work.
- (task-reset "id") forgets a recorded task so that it runs again. Use it only when the recorded result is wrong.
- (step-done "id" "summary") marks a plan step as done in the progress checklist. It counts once the program ends without an error, also when it returns or waits for a decision; the next pass shows the step ticked. A program that ends in an error keeps no step-done.
- Reading with a read-only tool needs no task.

## Ending
- (return value) ends the mission with a result that must match the expected output.
- (fail {:reason :some-reason :message "why"}) ends it as failed. Use it when the mission cannot be completed.
- A program that ends without return or fail continues the mission in the next turn.

## Your answer
Reply with exactly one \`\`\`clojure code block containing the whole program. Do not write other code blocks.`;
}
