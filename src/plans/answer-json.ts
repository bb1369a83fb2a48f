/**
 * The one JSON object in a model's answer: the whole answer, a ```json (or bare ```)
 * fenced block, or the outermost `{...}` inside prose. Messages say what was wrong.
 */
export type Extracted = { ok: true; value: unknown } | { ok: false; message: string };

const FENCE = /```(?:json|JSON)?\s*\n([\s\S]*?)```/;

export function extractJson(text: string): Extracted {
  const trimmed = text.trim();
  const fenced = FENCE.exec(trimmed)?.[1];
  const candidate = fenced ?? outermostObject(trimmed);
  if (candidate === null) return { ok: false, message: 'the answer has no JSON object' };
  try {
    return { ok: true, value: JSON.parse(candidate) };
  } catch (err) {
    return { ok: false, message: `the answer's JSON does not parse: ${(err as Error).message}` };
  }
}

/** From the first `{` to the last `}`: prose before and after is ignored. */
function outermostObject(text: string): string | null {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  return start >= 0 && end > start ? text.slice(start, end + 1) : null;
}
