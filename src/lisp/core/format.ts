/**
 * `format`: Java's `String.format` for the conversions programs use (`%s %d %f %e %g %x
 * %o %c %b %n %%`, with flags, width, precision and argument indices). Numbers round
 * half-up on their shortest decimal form, as Java does.
 */
import { PtcError } from '../errors.ts';
import { strOf } from '../printer/index.ts';
import type { Runtime, Value } from '../values.ts';
import { concat } from './concat.ts';
/** Digits and decimal exponent of |x| in shortest round-trip form: 1234.5 → ["12345", 3]. */
function decimalDigits(x: number): [bigint, number, number] {
  const [mant, exp] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mant.replace('.', '');
  return [BigInt(digits), digits.length, Number(exp)];
}

/** `d` scaled by 10^shift, rounded half up (Java's Formatter rounding). */
function scaleHalfUp(d: bigint, shift: number): bigint {
  if (shift >= 0) return d * 10n ** BigInt(shift);
  const div = 10n ** BigInt(-shift);
  const q = d / div;
  return (d % div) * 2n >= div ? q + 1n : q;
}

/** |x| with `prec` decimals, rounding the shortest decimal form half up: 1.005 → "1.01". */
export function fixedHalfUp(x: number, prec: number): string {
  const [d, len, exp] = decimalDigits(x);
  const n = scaleHalfUp(d, exp - len + 1 + prec)
    .toString()
    .padStart(prec + 1, '0');
  return prec === 0 ? n : `${n.slice(0, n.length - prec)}.${n.slice(n.length - prec)}`;
}

/** |x| in Java `%e` form: 1.234500e+03. */
function scientificHalfUp(x: number, prec: number, upper: boolean): string {
  const [d, len, digitsExp] = decimalDigits(x);
  let exp = d === 0n ? 0 : digitsExp;
  let n = scaleHalfUp(d, prec + 1 - len).toString();
  if (n.length > prec + 1) {
    n = n.slice(0, prec + 1);
    exp++;
  }
  const mant = prec === 0 ? n : `${n[0]}.${n.slice(1)}`;
  const e = `${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return `${mant}${upper ? 'E' : 'e'}${e}`;
}

/** Java `%g`: `prec` significant digits, fixed for 1e-4 <= |x| < 10^prec, else scientific. */
function generalHalfUp(x: number, prec: number, upper: boolean): string {
  const p = prec === 0 ? 1 : prec;
  if (x === 0) return fixedHalfUp(0, p - 1);
  const sci = scientificHalfUp(x, p - 1, upper);
  const exp = Number(sci.slice(sci.search(/[eE]/) + 1));
  return exp >= -4 && exp < p ? fixedHalfUp(x, p - 1 - exp) : sci;
}

function groupThousands(intPart: string): string {
  return intPart.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

interface Spec {
  flags: string;
  width: number | null;
  precision: number | null;
  conv: string;
}

function formatError(message: string, hint?: string): PtcError {
  return new PtcError('type_error', `format: ${message}`, undefined, hint);
}

/** Sign, grouping, padding of a formatted magnitude (Java's numeric flags). */
function signed(neg: boolean, magnitude: string, spec: Spec): string {
  const { flags } = spec;
  let body = magnitude;
  if (flags.includes(',')) {
    const dot = body.indexOf('.');
    body = dot < 0 ? groupThousands(body) : groupThousands(body.slice(0, dot)) + body.slice(dot);
  }
  const prefix = neg ? (flags.includes('(') ? '(' : '-') : flags.includes('+') ? '+' : flags.includes(' ') ? ' ' : '';
  const suffix = neg && flags.includes('(') ? ')' : '';
  if (flags.includes('0') && spec.width !== null) {
    body = body.padStart(spec.width - prefix.length - suffix.length, '0');
  }
  return prefix + body + suffix;
}

function formatNumberArg(spec: Spec, arg: Value): string {
  const { conv } = spec;
  if (typeof arg !== 'number') {
    throw formatError(`%${conv} needs a number, got ${arg === null ? 'nil' : strOf(arg)}`);
  }
  const lower = conv.toLowerCase();
  if (lower === 'd' || lower === 'x' || lower === 'o') {
    if (!Number.isInteger(arg)) {
      throw formatError(
        `%${conv} needs an integer, got ${arg}`,
        'use %.2f for decimals, or (long x) / (Math/round x) first',
      );
    }
    if (lower === 'd') return signed(arg < 0, Math.abs(arg).toString(), spec);
    const n = BigInt.asUintN(64, BigInt(arg));
    const digits = n.toString(lower === 'x' ? 16 : 8);
    const prefix = spec.flags.includes('#') ? (lower === 'x' ? '0x' : '0') : '';
    const text =
      prefix +
      (spec.flags.includes('0') && spec.width !== null ? digits.padStart(spec.width - prefix.length, '0') : digits);
    return conv === 'X' ? text.toUpperCase() : text;
  }
  if (Number.isNaN(arg)) return 'NaN';
  if (!Number.isFinite(arg)) return signed(arg < 0, 'Infinity', { ...spec, flags: spec.flags.replace('0', '') });
  const prec = spec.precision ?? 6;
  const neg = arg < 0 || Object.is(arg, -0);
  const upper = conv === conv.toUpperCase();
  const magnitude =
    lower === 'f'
      ? fixedHalfUp(arg, prec)
      : lower === 'e'
        ? scientificHalfUp(arg, prec, upper)
        : generalHalfUp(arg, prec, upper);
  return signed(neg, magnitude, spec);
}

function convert(spec: Spec, arg: Value): string {
  switch (spec.conv) {
    case 's':
    case 'S': {
      const s = arg === null ? 'null' : strOf(arg);
      const cut = spec.precision === null ? s : s.slice(0, spec.precision);
      return spec.conv === 'S' ? cut.toUpperCase() : cut;
    }
    case 'b':
    case 'B': {
      const s = String(arg !== null && arg !== false);
      return spec.conv === 'B' ? s.toUpperCase() : s;
    }
    case 'c':
    case 'C': {
      let s: string;
      if (typeof arg === 'string' && [...arg].length === 1) s = arg;
      else if (typeof arg === 'number' && Number.isInteger(arg) && arg >= 0 && arg <= 0x10ffff)
        s = String.fromCodePoint(arg);
      else throw formatError(`%c needs a character, got ${arg === null ? 'nil' : strOf(arg)}`);
      return spec.conv === 'C' ? s.toUpperCase() : s;
    }
    case 'd':
    case 'x':
    case 'X':
    case 'o':
    case 'f':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
      return formatNumberArg(spec, arg);
    default:
      throw formatError(`unknown conversion %${spec.conv}`, 'supported: %s %d %f %.2f %e %g %x %o %c %b %% %n');
  }
}

const SPEC = /%(?:(\d+)\$)?([-#+ 0,(]*)(\d+)?(?:\.(\d+))?([a-zA-Z%])/y;

/** Java's `String.format` as Clojure's `format` uses it, for the common conversions. */
export function format(fmt: string, args: Value[], rt: Runtime): string {
  const parts: string[] = [];
  let next = 0;
  let last = 0;
  for (let i = fmt.indexOf('%'); i >= 0; i = fmt.indexOf('%', last)) {
    parts.push(fmt.slice(last, i));
    SPEC.lastIndex = i;
    const m = SPEC.exec(fmt);
    if (!m)
      throw formatError(`bad format specifier at ${JSON.stringify(fmt.slice(i, i + 6))}`, 'write %% for a literal %');
    last = SPEC.lastIndex;
    const spec: Spec = {
      flags: m[2] ?? '',
      width: m[3] === undefined ? null : Number(m[3]),
      precision: m[4] === undefined ? null : Number(m[4]),
      conv: m[5]!,
    };
    if (spec.width !== null) rt.checkSize(spec.width);
    let text: string;
    if (spec.conv === '%') text = '%';
    else if (spec.conv === 'n') text = '\n';
    else {
      const index = m[1] === undefined ? next++ : Number(m[1]) - 1;
      if (index < 0 || index >= args.length) {
        throw formatError(`not enough arguments for ${m[0]} (got ${args.length})`);
      }
      text = convert(spec, args[index]!);
    }
    if (spec.width !== null && text.length < spec.width) {
      text = spec.flags.includes('-') ? text.padEnd(spec.width) : text.padStart(spec.width);
    }
    parts.push(text);
  }
  parts.push(fmt.slice(last));
  return concat(parts, rt);
}
