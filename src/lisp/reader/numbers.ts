/** Clojure number literals as JS doubles (the reader's slow path for numbers). */

export const PLUS = 43;
export const MINUS = 45;
export const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/**
 * Clojure number syntax: `42 -7 +5 017 (octal) 0x1F 2r1010 42N 1.5 1. 1e5 1.0E-3 1.5M 2/3`.
 * All become JS doubles. Returns undefined for an invalid number.
 */
export function parseNumber(src: string, start: number, end: number): number | undefined {
  let i = start;
  let sign = 1;
  const c0 = src.charCodeAt(i);
  if (c0 === PLUS || c0 === MINUS) {
    if (c0 === MINUS) sign = -1;
    i++;
  }
  const intStart = i;
  let acc = 0;
  while (i < end) {
    const d = src.charCodeAt(i);
    if (d < 48 || d > 57) break;
    acc = acc * 10 + (d - 48);
    i++;
  }
  const intEnd = i;
  // fast path: a plain decimal integer that fits exactly in a double
  if (i === end && intEnd - intStart < 16 && (src.charCodeAt(intStart) !== 48 || intEnd - intStart === 1)) {
    return sign * acc;
  }
  if (i === end || (i === end - 1 && src.charCodeAt(i) === 78) /* N */) {
    const digits = src.slice(intStart, intEnd);
    if (digits.length > 1 && digits.charCodeAt(0) === 48) {
      // leading zero: octal, as in Clojure
      return /^[0-7]+$/.test(digits) ? sign * parseInt(digits, 8) : undefined;
    }
    return sign * Number(digits);
  }
  const c = src.charCodeAt(i);
  const rest = src.slice(i + 1, end);
  // hex
  if ((c === 120 || c === 88) && intEnd - intStart === 1 && src.charCodeAt(intStart) === 48) {
    const hex = rest.endsWith('N') ? rest.slice(0, -1) : rest;
    return /^[0-9a-fA-F]+$/.test(hex) ? sign * parseInt(hex, 16) : undefined;
  }
  // radix: 2r1010, 36rZZ
  if (c === 114 || c === 82) {
    const radix = Number(src.slice(intStart, intEnd));
    if (radix < 2 || radix > 36 || rest.length === 0) return undefined;
    for (const ch of rest.toLowerCase()) {
      const d = parseInt(ch, 36);
      if (Number.isNaN(d) || d >= radix) return undefined;
    }
    return sign * parseInt(rest, radix);
  }
  // ratio: 2/3 → 0.666...
  if (c === 47) {
    if (!/^[0-9]+$/.test(rest)) return undefined;
    const den = Number(rest);
    if (den === 0) return undefined;
    return (sign * Number(src.slice(intStart, intEnd))) / den;
  }
  // float: digits (. digits*)? ([eE] [+-]? digits+)? M?
  if (c === 46 /* . */) {
    i++;
    while (i < end && isDigit(src.charCodeAt(i))) i++;
  }
  let j = i;
  if (j < end && (src.charCodeAt(j) === 101 || src.charCodeAt(j) === 69)) {
    j++;
    if (j < end && (src.charCodeAt(j) === PLUS || src.charCodeAt(j) === MINUS)) j++;
    const expStart = j;
    while (j < end && isDigit(src.charCodeAt(j))) j++;
    if (j === expStart) return undefined;
    i = j;
  }
  const numEnd = i;
  if (i < end && src.charCodeAt(i) === 77 /* M */) i++;
  if (i !== end) return undefined;
  return sign * Number(src.slice(intStart, numEnd));
}
