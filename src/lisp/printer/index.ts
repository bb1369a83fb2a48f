/**
 * The printer: values and forms → text, as Clojure prints them.
 *
 * - {@link prStr}: `pr-str` (readable; `readData(prStr(v))` equals `v` for data)
 * - {@link valueSource}: source that evaluates to a value (lists as `(list ...)`)
 * - {@link prStrLimited}: `pr-str` cut to N characters without printing the rest
 * - {@link printStr} / {@link printlnText}: `print` / `println` (strings raw)
 * - {@link strOf}: `str` of one value
 * - {@link formatNumber}: the one number format
 * - {@link printForm}: source text of a reader form
 *
 * Decisions are documented in docs/language.md.
 * @module
 */
export {
  prStr,
  prStrLimited,
  valueSource,
  printStr,
  printlnText,
  strOf,
  quoteString,
  type PrintOptions,
} from './print.ts';
export { formatNumber, strNumber } from './number.ts';
export { printForm, charLiteral } from './form.ts';
