/**
 * Getting the program out of an LLM answer. In order of preference: fenced blocks tagged
 * `clojure` or `lisp`; fenced blocks with any tag whose content starts with `(`;
 * `<clojure>`/`<lisp>` tags; the whole answer when it starts with `(`. Exactly one block
 * must be found at the first level that finds any. The chosen code is cleaned of
 * invisible characters and typographic quotes.
 *
 * Error messages carry no "Error:" prefix: the feedback adds exactly one.
 */

export type Extraction =
  { ok: true; code: string } | { ok: false; reason: 'no_code' | 'multiple_blocks'; message: string };

const NO_CODE =
  'No valid PTC-Lisp code found in your answer. Reply with exactly one ```clojure code block ' +
  'containing the whole program (or a bare s-expression and nothing else).';

const multiple = (n: number): string =>
  `Your answer has ${n} code blocks. Send exactly ONE \`\`\`clojure block and put all of the program in it.`;

interface Fence {
  tag: string;
  body: string;
}

/** Fenced blocks; an unterminated last block runs to the end of the answer. */
function fences(text: string): Fence[] {
  const out: Fence[] = [];
  const open = /^[ \t]*(`{3,}|~{3,})[ \t]*([A-Za-z0-9_+.-]*)[^\n]*\n/gm;
  let m: RegExpExecArray | null;
  while ((m = open.exec(text))) {
    const marker = m[1]!;
    const tag = m[2]!.toLowerCase();
    const start = m.index + m[0].length;
    // closed by the same fence marker on its own line, or by </clojure> for clojure blocks
    const closeRe = new RegExp(
      `^[ \\t]*${marker[0] === '`' ? '`' : '~'}{${marker.length},}[ \\t]*$|</(?:clojure|lisp)>`,
      'gm',
    );
    closeRe.lastIndex = start;
    const close = closeRe.exec(text);
    const end = close ? close.index : text.length;
    out.push({ tag, body: text.slice(start, end) });
    open.lastIndex = close ? close.index + close[0].length : text.length;
  }
  return out;
}

function xmlBlocks(text: string): string[] {
  return [...text.matchAll(/<(clojure|lisp)>([\s\S]*?)<\/\1>/gi)].map((m) => m[2]!);
}

/** Removes invisible characters and, when safe, turns typographic quotes into ASCII. */
export function sanitize(code: string): string {
  let s = code
    .replace(/\uFEFF|\u200B|\u200C|\u200D|\u2060|\u00AD/g, '')
    .replace(/[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g, ' ');
  s = s.replace(/[\u2018\u2019]/g, "'");
  // curly double quotes are delimiters only when the program has no straight ones;
  // otherwise they are text inside strings and stay as they are
  if (!s.includes('"')) s = s.replace(/[\u201C\u201D]/g, '"');
  return s.trim();
}

/** Extracts the one program in an answer (reference §6.4, without doubled prefixes). */
export function extractCode(answer: string): Extraction {
  const text = answer.replace(/\r\n?/g, '\n');
  const choose = (bodies: string[]): Extraction | undefined => {
    if (bodies.length === 1) {
      const code = sanitize(bodies[0]!);
      return code ? { ok: true, code } : { ok: false, reason: 'no_code', message: NO_CODE };
    }
    if (bodies.length > 1) return { ok: false, reason: 'multiple_blocks', message: multiple(bodies.length) };
    return undefined;
  };
  const all = fences(text);
  return (
    choose(all.filter((f) => f.tag === 'clojure' || f.tag === 'lisp' || f.tag === 'clj').map((f) => f.body)) ??
    choose(all.filter((f) => f.body.trim().startsWith('(')).map((f) => f.body)) ??
    choose(xmlBlocks(text)) ??
    (all.length === 0 && text.trim().startsWith('(') ? choose([text]) : undefined) ?? {
      ok: false,
      reason: 'no_code',
      message: NO_CODE,
    }
  );
}

/** The assistant message kept in the conversation: the program alone, fenced. */
export const fencedProgram = (code: string): string => `\`\`\`clojure\n${code}\n\`\`\``;
