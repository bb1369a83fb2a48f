/**
 * Regex compilation. Patterns are compiled with re2js, a linear-time engine, so no
 * pattern can make matching hang. The few Java/Clojure constructs RE2 lacks but that
 * have a safe equivalent are translated first (see {@link translateJavaRegex}); the
 * rest (lookaround, backreferences) are a `regex_error` with a hint.
 */
import { RE2JS } from 're2js';
import { PtcError, limitExceeded } from './errors.ts';
import { Regex } from './values.ts';
import { BoundedCache } from './bounded-cache.ts';

const H_SPACE = ' \\t\\x{A0}\\x{1680}\\x{180E}\\x{2000}-\\x{200A}\\x{202F}\\x{205F}\\x{3000}';
const LINEBREAK = '(?:\\r\\n|[\\n\\x0B\\f\\r\\x{85}\\x{2028}\\x{2029}])';

/**
 * Rewrites Java-only syntax into RE2 syntax with the same meaning:
 * `\Z` → `\z`, `\h` / `\H` → horizontal-space class, `\R` → any line break,
 * possessive quantifiers `x*+ x++ x?+ x{n}+` → greedy ones (RE2 never backtracks, so
 * they match the same text in all but contrived cases). Everything else is unchanged.
 */
export function translateJavaRegex(src: string): string {
  if (!/\\[ZhHR]|[*+?}]\+/.test(src)) return src;
  let out = '';
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === '\\' && i + 1 < src.length) {
      const e = src[i + 1]!;
      i++;
      if (e === 'Z' && !inClass) out += '\\z';
      else if (e === 'h') out += inClass ? H_SPACE : `[${H_SPACE}]`;
      else if (e === 'H' && !inClass) out += `[^${H_SPACE}]`;
      else if (e === 'R' && !inClass) out += LINEBREAK;
      else if (e === 'Q') {
        // \Q...\E quotes literally; copy untouched
        const end = src.indexOf('\\E', i + 1);
        const stop = end < 0 ? src.length : end + 2;
        out += src.slice(i - 1, stop);
        i = stop - 1;
      } else out += c + e;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      // a ']' right after '[' or '[^' is literal
      if (src[i + 1] === '^') out += src[++i];
      if (src[i + 1] === ']') out += src[++i];
      continue;
    }
    const quantifierEnd = c === '*' || c === '+' || c === '?' || (c === '}' && /\{\d+(,\d*)?$/.test(out));
    if (quantifierEnd && src[i + 1] === '+') {
      // possessive quantifier: keep the greedy quantifier, drop the '+'
      out += c;
      i++;
      continue;
    }
    out += c;
  }
  return out;
}

const UNSUPPORTED_HINT =
  'lookahead (?= (?!, lookbehind (?<= (?<! and backreferences \\1 are not supported (regexes run in linear time); ' +
  'match more broadly and filter, or use several regexes';

/**
 * Compiles `source` (as written between `#"` and `"`, or given to `re-pattern`).
 * @throws PtcError `limit_exceeded` (limit `regex`) when longer than `maxLength`;
 *   `regex_error` when the pattern is invalid or uses unsupported syntax
 */
export function compileRegex(source: string, maxLength: number): Regex {
  if (source.length > maxLength) {
    throw limitExceeded('regex', `regex pattern is ${source.length} characters long; the limit is ${maxLength}`);
  }
  try {
    return new Regex(source, compiledPattern(source));
  } catch (e) {
    const raw = e instanceof Error ? e.message : '';
    const detail = raw.replace(/^error parsing regexp:\s*/, '').replace(/`/g, '');
    const unsupported = /\(\?<?[=!]|\\[1-9]|\\k<|invalid named capture|unsupported Perl syntax/.test(raw + source);
    return throwRegexError(source, detail || 'invalid pattern', unsupported ? UNSUPPORTED_HINT : undefined);
  }
}

/**
 * re2js patterns by source. A program is analysed anew on every run, and compiling a
 * pattern costs more than a typical search with it (about 100 µs for
 * `order-(\d+) total (\d+)\.(\d+)`); a compiled pattern holds no per-search state, so
 * every run can share it.
 */
const patterns = new BoundedCache<RE2JS>(1000);

function compiledPattern(source: string): RE2JS {
  return patterns.get(source, () => RE2JS.compile(translateJavaRegex(source)));
}

function throwRegexError(source: string, detail: string, hint?: string): never {
  throw new PtcError('regex_error', `invalid regex #"${source}": ${detail}`, undefined, hint);
}

/** The re2js matcher of a compiled {@link Regex}. */
export const re2Of = (r: Regex): RE2JS => r.compiled as RE2JS;
