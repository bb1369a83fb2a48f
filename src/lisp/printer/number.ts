/**
 * Number printing, shared by `pr-str`, `str`, `println`, the mission log and errors.
 */

/**
 * A number as PTC-Lisp prints it, always readable back by the reader:
 * integral values without a decimal point (`5`, `-12`), others in the shortest form
 * that round-trips (`2.5`, `0.30000000000000004`), very large or small magnitudes in
 * Clojure's exponent style (`1.0E21`, `1.5E-7`), and `##Inf`, `##-Inf`, `##NaN`.
 * `-0` prints as `0`.
 */
export function formatNumber(n: number): string {
  if (Number.isInteger(n)) {
    if (n < 1e21 && n > -1e21) return n === 0 ? '0' : String(n);
    return exponentForm(String(n));
  }
  if (n !== n) return '##NaN';
  if (n === Infinity) return '##Inf';
  if (n === -Infinity) return '##-Inf';
  const s = String(n);
  return s.includes('e') ? exponentForm(s) : s;
}

/** `(str x)` of a number: like {@link formatNumber} but specials as Clojure's `str` gives them. */
export function strNumber(n: number): string {
  if (n !== n) return 'NaN';
  if (n === Infinity) return 'Infinity';
  if (n === -Infinity) return '-Infinity';
  return formatNumber(n);
}

/** JS `1e+21` / `1.5e-7` → Clojure `1.0E21` / `1.5E-7`. */
function exponentForm(js: string): string {
  const e = js.indexOf('e');
  const mantissa = js.slice(0, e);
  const exp = js.slice(e + 1);
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${exp.startsWith('+') ? exp.slice(1) : exp}`;
}
