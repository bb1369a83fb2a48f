/**
 * Arithmetic, comparison and bit operations. Numbers are JS doubles (see
 * docs/language.md): integral results print without `.0`, `(/ 10 4)` is 2.5, and
 * division by zero is an `arithmetic_error` for `/`, `quot`, `rem` and `mod` alike.
 *
 * Tables: {@link mathFns} (bare core names), {@link javaMathFns} (`Math/...`,
 * `Integer/...`, ...: Java static methods LLMs write from Clojure habit) and
 * {@link mathConstants} (`Math/PI`, `Double/NaN`, ...), which are values, not functions.
 */
import { PtcError } from '../errors.ts';
import { type Value, equals, typeName } from '../values.ts';
import { argError, arithmeticError, expectInteger, expectNumber } from './args.ts';
import { type CoreFn, type CoreTable, VARIADIC, defn, fixedArity } from './registry.ts';

/** `-0` becomes `0`: Clojure longs have no negative zero, and most of our numbers are longs. */
const clean = (x: number): number => (x === 0 ? 0 : x);

const nums = (fn: string, args: Value[]): number[] => args.map((a) => expectNumber(fn, a));

function divide(fn: string, a: number, b: number): number {
  if (b === 0) throw arithmeticError(fn, 'divide by zero');
  return a / b;
}

/** Clojure `quot`: truncating division. */
export function quot(a: number, b: number): number {
  return clean(Math.trunc(divide('quot', a, b)));
}

/** Clojure `rem`: remainder with the sign of the dividend. */
export function rem(a: number, b: number): number {
  if (b === 0) throw arithmeticError('rem', 'divide by zero');
  return clean(a % b);
}

/** Clojure `mod`: remainder with the sign of the divisor (floored). */
export function mod(a: number, b: number): number {
  if (b === 0) throw arithmeticError('mod', 'divide by zero');
  const m = a % b;
  return clean(m !== 0 && m < 0 !== b < 0 ? m + b : m);
}

/** Rounds half away from zero to `digits` decimals (reference `round`). */
function roundHalfAway(x: number, digits: number): number {
  if (!Number.isFinite(x)) return x;
  if (digits === 0) return clean(Math.sign(x) * Math.round(Math.abs(x)));
  // Decimal-string rounding so that (round 1.005 2) is 1.01, as written.
  const r = Number(`${Math.round(Number(`${Math.abs(x)}e${digits}`))}e-${digits}`);
  return clean(Math.sign(x) * r);
}

/** `int`/`long`: truncate toward zero; a 1-character string gives its char code, as `(int \a)`. */
function toInteger(fn: string, v: Value): number {
  if (typeof v === 'string' && v.length === 1) return v.charCodeAt(0);
  const x = expectNumber(fn, v);
  if (!Number.isFinite(x)) throw arithmeticError(fn, `cannot convert ${x} to an integer`);
  return clean(Math.trunc(x));
}

/** Variadic comparison chain: `(< a b c)` is `a < b and b < c`. Numbers only, like Clojure. */
function chain(fn: string, test: (a: number, b: number) => boolean) {
  return (args: Value[]): boolean => {
    const xs = args.map((a) =>
      typeof a === 'number'
        ? a
        : (() => {
            throw argError(fn, 'number', a, `${fn} compares numbers only; use compare for strings and other values`);
          })(),
    );
    for (let i = 0; i + 1 < xs.length; i++) if (!test(xs[i]!, xs[i + 1]!)) return false;
    return true;
  };
}

/**
 * A variadic arithmetic or comparison function with its two-argument form: `op` on two
 * numbers, the general `fn` for anything else (so the same values and errors). Used
 * where the function is a value called with two arguments, `(reduce + xs)`, `(sort < xs)`.
 */
function numeric2(core: CoreFn, op: (a: number, b: number) => Value): CoreFn {
  const fn = core.fn;
  return { ...core, call2: (a, b, rt) => (typeof a === 'number' && typeof b === 'number' ? op(a, b) : fn([a, b], rt)) };
}

// ---------------------------------------------------------------- bits (64-bit, as Clojure longs)

const toLong = (fn: string, v: Value): bigint => BigInt.asIntN(64, BigInt(expectInteger(fn, v)));
const fromLong = (x: bigint): number => clean(Number(BigInt.asIntN(64, x)));

function bitFold(fn: string, op: (a: bigint, b: bigint) => bigint) {
  return (args: Value[]): number => fromLong(args.map((a) => toLong(fn, a)).reduce(op));
}

function shiftAmount(fn: string, v: Value): bigint {
  return BigInt(expectInteger(fn, v) & 63);
}

// ---------------------------------------------------------------- the tables

export const mathFns: CoreTable = {
  // ;; arithmetic
  // (+ nil) and (* nil) are nil, as in Clojure (its one-argument arity is a cast to
  // Number), so `(filter + [0 nil])` and `(some + [nil 1])` work as there
  '+': numeric2(
    defn(
      [0, VARIADIC],
      (args) => (args.length === 1 && args[0] === null ? null : clean(nums('+', args).reduce((a, b) => a + b, 0))),
      'sum of the arguments; (+) is 0, (+ nil) is nil',
    ),
    (a, b) => clean(a + b),
  ),
  '-': numeric2(
    defn(
      [1, VARIADIC],
      (args) => {
        const xs = nums('-', args);
        return clean(xs.length === 1 ? -xs[0]! : xs.slice(1).reduce((a, b) => a - b, xs[0]!));
      },
      '(- x) negates; (- x y z) subtracts left to right',
    ),
    (a, b) => clean(a - b),
  ),
  '*': numeric2(
    defn(
      [0, VARIADIC],
      (args) => (args.length === 1 && args[0] === null ? null : clean(nums('*', args).reduce((a, b) => a * b, 1))),
      'product; (*) is 1, (* nil) is nil',
    ),
    (a, b) => clean(a * b),
  ),
  '/': defn(
    [1, VARIADIC],
    (args) => {
      const xs = nums('/', args);
      return clean(xs.length === 1 ? divide('/', 1, xs[0]!) : xs.slice(1).reduce((a, b) => divide('/', a, b), xs[0]!));
    },
    '(/ 10 4) is 2.5; (/ x) is 1/x; dividing by zero is an error',
  ),
  // fixed-arity forms (no argument array per call): these are the hot calls of numeric loops
  quot: fixedArity(
    [2, 2],
    { call2: (a, b) => quot(expectNumber('quot', a), expectNumber('quot', b)) },
    'integer division, truncated toward zero',
  ),
  rem: fixedArity(
    [2, 2],
    { call2: (a, b) => rem(expectNumber('rem', a), expectNumber('rem', b)) },
    'remainder, sign of the dividend',
  ),
  mod: fixedArity(
    [2, 2],
    { call2: (a, b) => mod(expectNumber('mod', a), expectNumber('mod', b)) },
    'modulus, sign of the divisor: (mod -7 2) is 1',
  ),
  inc: fixedArity([1, 1], { call1: (x) => expectNumber('inc', x) + 1 }, 'x + 1'),
  dec: fixedArity([1, 1], { call1: (x) => expectNumber('dec', x) - 1 }, 'x - 1'),
  abs: fixedArity([1, 1], { call1: (x) => Math.abs(expectNumber('abs', x)) }, 'absolute value'),
  max: {
    ...defn(
      [1, VARIADIC],
      (args) => (args.length === 1 ? args[0]! : nums('max', args).reduce((a, b) => Math.max(a, b))),
      'largest argument: (max 1 5 3) is 5; for a collection use (apply max xs)',
    ),
    call2: (a, b) => Math.max(expectNumber('max', a), expectNumber('max', b)),
  },
  min: {
    ...defn(
      [1, VARIADIC],
      (args) => (args.length === 1 ? args[0]! : nums('min', args).reduce((a, b) => Math.min(a, b))),
      'smallest argument; for a collection use (apply min xs)',
    ),
    call2: (a, b) => Math.min(expectNumber('min', a), expectNumber('min', b)),
  },

  // ;; rounding and conversion
  floor: defn([1, 1], ([x]) => clean(Math.floor(expectNumber('floor', x!))), 'largest integer <= x'),
  ceil: defn([1, 1], ([x]) => clean(Math.ceil(expectNumber('ceil', x!))), 'smallest integer >= x'),
  round: defn(
    [1, 2],
    ([x, d]) => roundHalfAway(expectNumber('round', x!), d === undefined ? 0 : Math.max(0, expectInteger('round', d))),
    '(round 2.5) is 3 (half away from zero); (round x 2) keeps 2 decimals',
  ),
  trunc: defn([1, 1], ([x]) => clean(Math.trunc(expectNumber('trunc', x!))), 'drops the fractional part'),
  int: defn([1, 1], ([x]) => toInteger('int', x!), 'truncates to an integer: (int 3.9) is 3; (int \\a) is 97'),
  long: defn([1, 1], ([x]) => toInteger('long', x!), 'same as int'),
  double: defn([1, 1], ([x]) => expectNumber('double', x!), 'the number itself (every number is a double)'),
  float: defn([1, 1], ([x]) => expectNumber('float', x!), 'the number itself'),
  num: defn([1, 1], ([x]) => expectNumber('num', x!), 'the number itself'),
  sqrt: defn([1, 1], ([x]) => Math.sqrt(expectNumber('sqrt', x!)), 'square root (NaN for negatives)'),
  pow: defn([2, 2], ([x, y]) => Math.pow(expectNumber('pow', x!), expectNumber('pow', y!)), '(pow 2 10) is 1024'),
  exp: defn([1, 1], ([x]) => Math.exp(expectNumber('exp', x!)), 'e^x'),
  log: defn([1, 1], ([x]) => Math.log(expectNumber('log', x!)), 'natural logarithm'),
  log10: defn([1, 1], ([x]) => Math.log10(expectNumber('log10', x!)), 'base-10 logarithm'),
  signum: defn([1, 1], ([x]) => clean(Math.sign(expectNumber('signum', x!))), '-1, 0 or 1'),

  // ;; comparison
  '=': defn(
    [1, VARIADIC],
    (args) => args.every((a, i) => i === 0 || equals(args[i - 1]!, a)),
    "structural equality, variadic: (= 1 1.0) is true, (= [1 2] '(1 2)) is true",
  ),
  'not=': defn([1, VARIADIC], (args) => !args.every((a, i) => i === 0 || equals(args[i - 1]!, a)), '(not (= ...))'),
  '==': defn(
    [1, VARIADIC],
    chain('==', (a, b) => a === b),
    'numeric equality',
  ),
  '<': numeric2(
    defn(
      [1, VARIADIC],
      chain('<', (a, b) => a < b),
      '(< a b c): strictly increasing numbers',
    ),
    (a, b) => a < b,
  ),
  '>': numeric2(
    defn(
      [1, VARIADIC],
      chain('>', (a, b) => a > b),
      'strictly decreasing numbers',
    ),
    (a, b) => a > b,
  ),
  '<=': numeric2(
    defn(
      [1, VARIADIC],
      chain('<=', (a, b) => a <= b),
      'non-decreasing numbers',
    ),
    (a, b) => a <= b,
  ),
  '>=': numeric2(
    defn(
      [1, VARIADIC],
      chain('>=', (a, b) => a >= b),
      'non-increasing numbers',
    ),
    (a, b) => a >= b,
  ),

  // ;; number predicates
  'zero?': fixedArity([1, 1], { call1: (x) => x === 0 }, 'x is 0 (false for non-numbers)'),
  'pos?': fixedArity([1, 1], { call1: (x) => typeof x === 'number' && x > 0 }, 'x > 0 (false for non-numbers)'),
  'neg?': fixedArity([1, 1], { call1: (x) => typeof x === 'number' && x < 0 }, 'x < 0 (false for non-numbers)'),
  'even?': fixedArity(
    [1, 1],
    { call1: (x) => expectInteger('even?', x) % 2 === 0 },
    'even integer (error for non-integers)',
  ),
  'odd?': fixedArity(
    [1, 1],
    { call1: (x) => expectInteger('odd?', x) % 2 !== 0 },
    'odd integer (error for non-integers)',
  ),
  'NaN?': defn([1, 1], ([x]) => Number.isNaN(expectNumber('NaN?', x!)), 'x is ##NaN'),
  'infinite?': defn(
    [1, 1],
    ([x]) => !Number.isFinite(expectNumber('infinite?', x!)) && !Number.isNaN(x),
    'x is ##Inf or ##-Inf',
  ),

  // ;; bits (64-bit integers)
  'bit-and': defn(
    [2, VARIADIC],
    bitFold('bit-and', (a, b) => a & b),
    'bitwise and',
  ),
  'bit-or': defn(
    [2, VARIADIC],
    bitFold('bit-or', (a, b) => a | b),
    'bitwise or',
  ),
  'bit-xor': defn(
    [2, VARIADIC],
    bitFold('bit-xor', (a, b) => a ^ b),
    'bitwise xor',
  ),
  'bit-not': defn([1, 1], ([x]) => fromLong(~toLong('bit-not', x!)), 'bitwise complement'),
  'bit-shift-left': defn(
    [2, 2],
    ([x, n]) => fromLong(toLong('bit-shift-left', x!) << shiftAmount('bit-shift-left', n!)),
    '(bit-shift-left 1 10) is 1024',
  ),
  'bit-shift-right': defn(
    [2, 2],
    ([x, n]) => fromLong(toLong('bit-shift-right', x!) >> shiftAmount('bit-shift-right', n!)),
    'arithmetic shift right',
  ),
};

// ---------------------------------------------------------------- Java statics

/** Java's `Math.round`: half up (toward positive infinity). */
const javaRound = (x: number): number => (Number.isFinite(x) ? clean(Math.floor(x + 0.5)) : x);

const unary = (fn: string, f: (x: number) => number) => defn([1, 1], ([x]) => clean(f(expectNumber(fn, x!))));

function javaParse(fn: string, pattern: RegExp, v: Value): number {
  if (typeof v === 'string' && pattern.test(v)) return Number(v.trim().replace(/[fFdD]$/, ''));
  throw new PtcError(
    'type_error',
    typeof v === 'string' ? `${fn}: not a number: ${JSON.stringify(v)}` : `${fn}: expected string, got ${typeName(v)}`,
    undefined,
    'parse-long and parse-double return nil instead of failing',
  );
}

const INTEGER_TEXT = /^[+-]?\d+$/;
/** What Java's `Double.parseDouble` accepts, hex forms aside. */
export const DOUBLE_TEXT = /^\s*[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?)\s*$/;

/**
 * `Math/...` and friends, resolved by namespace (see `core/index.ts`). Java's
 * `Math/round` rounds half up, unlike the bare `round`, which rounds half away from zero.
 */
export const javaMathFns: Record<string, CoreTable> = {
  Math: {
    abs: unary('Math/abs', Math.abs),
    floor: unary('Math/floor', Math.floor),
    ceil: unary('Math/ceil', Math.ceil),
    round: unary('Math/round', javaRound),
    rint: unary('Math/rint', (x) => {
      const r = Math.round(x);
      return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
    }),
    sqrt: unary('Math/sqrt', Math.sqrt),
    cbrt: unary('Math/cbrt', Math.cbrt),
    exp: unary('Math/exp', Math.exp),
    log: unary('Math/log', Math.log),
    log10: unary('Math/log10', Math.log10),
    signum: unary('Math/signum', Math.sign),
    sin: unary('Math/sin', Math.sin),
    cos: unary('Math/cos', Math.cos),
    tan: unary('Math/tan', Math.tan),
    asin: unary('Math/asin', Math.asin),
    acos: unary('Math/acos', Math.acos),
    atan: unary('Math/atan', Math.atan),
    toRadians: unary('Math/toRadians', (x) => (x * Math.PI) / 180),
    toDegrees: unary('Math/toDegrees', (x) => (x * 180) / Math.PI),
    pow: defn([2, 2], ([x, y]) => Math.pow(expectNumber('Math/pow', x!), expectNumber('Math/pow', y!))),
    atan2: defn([2, 2], ([y, x]) => Math.atan2(expectNumber('Math/atan2', y!), expectNumber('Math/atan2', x!))),
    hypot: defn([2, 2], ([x, y]) => Math.hypot(expectNumber('Math/hypot', x!), expectNumber('Math/hypot', y!))),
    max: defn([2, 2], ([x, y]) => Math.max(expectNumber('Math/max', x!), expectNumber('Math/max', y!))),
    min: defn([2, 2], ([x, y]) => Math.min(expectNumber('Math/min', x!), expectNumber('Math/min', y!))),
    floorDiv: defn([2, 2], ([x, y]) => {
      const a = expectInteger('Math/floorDiv', x!);
      return clean(Math.floor(divide('Math/floorDiv', a, expectInteger('Math/floorDiv', y!))));
    }),
    floorMod: defn([2, 2], ([x, y]) => mod(expectInteger('Math/floorMod', x!), expectInteger('Math/floorMod', y!))),
  },
  Integer: {
    parseInt: defn([1, 1], ([s]) => javaParse('Integer/parseInt', INTEGER_TEXT, s!)),
  },
  Long: {
    parseLong: defn([1, 1], ([s]) => javaParse('Long/parseLong', INTEGER_TEXT, s!)),
  },
  Double: {
    parseDouble: defn([1, 1], ([s]) => javaParse('Double/parseDouble', DOUBLE_TEXT, s!)),
    isNaN: defn([1, 1], ([x]) => Number.isNaN(expectNumber('Double/isNaN', x!))),
    isInfinite: defn([1, 1], ([x]) => Math.abs(expectNumber('Double/isInfinite', x!)) === Infinity),
  },
};

/**
 * Constants the evaluator resolves as values, by their qualified spelling. `Long/MAX_VALUE`
 * is the nearest double (2^63), as every number is a double.
 */
export const mathConstants: Record<string, Value> = {
  'Math/PI': Math.PI,
  'Math/E': Math.E,
  'Double/POSITIVE_INFINITY': Infinity,
  'Double/NEGATIVE_INFINITY': -Infinity,
  'Double/NaN': NaN,
  'Double/MAX_VALUE': Number.MAX_VALUE,
  'Double/MIN_VALUE': Number.MIN_VALUE,
  'Long/MAX_VALUE': 2 ** 63,
  'Long/MIN_VALUE': -(2 ** 63),
  'Integer/MAX_VALUE': 2 ** 31 - 1,
  'Integer/MIN_VALUE': -(2 ** 31),
};
