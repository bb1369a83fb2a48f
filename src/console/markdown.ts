/**
 * The little markdown that model-written text uses (summaries, descriptions): paragraphs,
 * `- ` lists, `code`, **bold**, *emphasis* and http(s) links. Safe by construction: the
 * text is escaped first and only these tags are made from the escaped text, so `<script>`
 * stays text and a `javascript:` link stays text.
 */
import { type Fragment, raw } from './html.ts';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text made safe to put into HTML as text. */
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** One line's inline markup, on escaped text. */
function inline(escaped: string): string {
  const codes: string[] = [];
  // code spans first, kept aside so nothing inside them is formatted
  let out = escaped.replace(/`([^`]+)`/g, (_m, c: string) => `\u0000${codes.push(`<code>${c}</code>`) - 1}\u0000`);
  out = out
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/(^|[^*\w])\*([^*\s][^*]*)\*/g, '$1<em>$2</em>')
    .replace(/\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g, '<a href="$2" rel="noopener noreferrer">$1</a>');
  return out.replace(/\u0000(\d+)\u0000/g, (_m, i: string) => codes[Number(i)]!);
}

/** `text` as HTML: blocks separated by blank lines; a block of `- ` lines is a list. */
export function markdown(text: string): Fragment {
  const blocks = text
    .replace(/\r\n/g, '\n')
    .trim()
    .split(/\n{2,}/)
    .filter(Boolean);
  const html = blocks.map((block) => {
    const lines = block.split('\n');
    if (lines.every((l) => /^\s*[-*] /.test(l)))
      return `<ul>${lines.map((l) => `<li>${inline(escapeHtml(l.replace(/^\s*[-*] /, '')))}</li>`).join('')}</ul>`;
    const heading = /^(#{1,6}) (.*)$/.exec(lines[0]!);
    if (heading && lines.length === 1) return `<p><strong>${inline(escapeHtml(heading[2]!))}</strong></p>`;
    return `<p>${lines.map((l) => inline(escapeHtml(l))).join('<br />')}</p>`;
  });
  return raw(`<div class="md">${html.join('')}</div>`) as Fragment;
}

/** One line of markdown without the paragraph around it (a description in a card or a row). */
export const inlineMarkdown = (text: string): Fragment => raw(inline(escapeHtml(text))) as Fragment;
