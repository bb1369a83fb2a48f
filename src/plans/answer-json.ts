/**
 * The one JSON value in a model's answer, shared by the planner and the recovery answer:
 * the whole answer when it is JSON, else the first ```json (or bare ```) fenced block,
 * else the first `{...}` object in the prose around it. When nothing parses, the message
 * says where: `invalid JSON at position N (line L, column C): <what was found>`, the
 * position counted in the whole answer, so the model can find its mistake.
 */
export type Extracted = { ok: true; value: unknown } | { ok: false; message: string };

export const NO_JSON = 'the answer has no JSON object';

/** A fenced block: its language tag, then its text up to the closing fence. */
const FENCE = /```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n([\s\S]*?)```/g;

interface Candidate {
  /** offset of `text` in the whole answer */
  at: number;
  text: string;
}

export function extractJson(answer: string): Extracted {
  const whole = tryParse(answer);
  if (whole.ok) return whole;
  const fenced = fencedJson(answer);
  if (fenced) return parseOrExplain(answer, fenced);
  const objects = objectsIn(answer);
  if (objects.length === 0) return { ok: false, message: NO_JSON };
  for (const candidate of objects) {
    const parsed = tryParse(candidate.text);
    if (parsed.ok) return parsed;
  }
  // None parses: the longest one is the object the model meant to write.
  const meant = objects.reduce((a, b) => (b.text.length > a.text.length ? b : a));
  return parseOrExplain(answer, meant);
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false; error: Error } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, error: err as Error };
  }
}

function parseOrExplain(answer: string, candidate: Candidate): Extracted {
  const parsed = tryParse(candidate.text);
  if (parsed.ok) return parsed;
  const where = syntaxError(candidate.text);
  if (!where) return { ok: false, message: `the answer's JSON does not parse: ${parsed.error.message}` };
  const pos = candidate.at + where.at;
  const before = answer.slice(0, pos).split('\n');
  const line = before.length;
  const column = before[before.length - 1]!.length + 1;
  return {
    ok: false,
    message: `the answer's JSON does not parse: invalid JSON at position ${pos} (line ${line}, column ${column}): ${where.reason}`,
  };
}

/** The first fenced block tagged json, or bare and starting like JSON. */
function fencedJson(answer: string): Candidate | null {
  for (const m of answer.matchAll(FENCE)) {
    const lang = m[1]!.toLowerCase();
    const body = m[2]!;
    const header = m[0].length - body.length - 3;
    if (lang === 'json' || (lang === '' && /^\s*[[{]/.test(body))) return { at: m.index + header, text: body };
  }
  return null;
}

/** Every top-level `{...}` in the text (strings inside it respected); an unclosed one runs to the end. */
function objectsIn(text: string): Candidate[] {
  const found: Candidate[] = [];
  let i = text.indexOf('{');
  while (i >= 0) {
    const end = closingBrace(text, i);
    found.push({ at: i, text: text.slice(i, end) });
    i = text.indexOf('{', end);
  }
  return found;
}

/** The offset just after the `}` closing the object that opens at `start` (or the text's end). */
function closingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
  }
  return text.length;
}

class SyntaxStop {
  constructor(
    readonly at: number,
    readonly reason: string,
  ) {}
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = '"\\/bfnrt';

/**
 * Where JSON.parse gave up and why, from a small scanner of the JSON grammar (V8's own
 * messages do not always carry a position).
 */
export function syntaxError(src: string): { at: number; reason: string } | null {
  let i = 0;
  const found = () => (i >= src.length ? 'the end of the text' : JSON.stringify(src[i]));
  const fail = (reason: string): never => {
    throw new SyntaxStop(i, reason);
  };
  const ws = () => {
    while (i < src.length && ' \t\n\r'.includes(src[i]!)) i++;
  };
  const string = () => {
    i++;
    for (;;) {
      if (i >= src.length) fail('the string is not closed');
      const c = src[i]!;
      if (c === '"') return void i++;
      if (c === '\\') {
        const e = src[i + 1];
        if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(src.slice(i + 2, i + 6))) i += 6;
        else if (e !== undefined && e !== 'u' && ESCAPES.includes(e)) i += 2;
        else fail(`invalid escape in a string (use \\" \\\\ \\n \\t or \\uXXXX)`);
      } else if (c < ' ') fail('a raw control character (a newline or tab) inside a string; write it as \\n or \\t');
      else i++;
    }
  };
  const value = (): void => {
    ws();
    const c = src[i];
    if (c === '{') {
      i++;
      ws();
      if (src[i] === '}') return void i++;
      for (;;) {
        ws();
        if (src[i] !== '"') fail(`expected a property name in double quotes, found ${found()}`);
        string();
        ws();
        if (src[i] !== ':') fail(`expected ":" after the property name, found ${found()}`);
        i++;
        value();
        ws();
        if (src[i] === ',') i++;
        else if (src[i] === '}') return void i++;
        else fail(`expected "," or "}" after a property value, found ${found()}`);
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (src[i] === ']') return void i++;
      for (;;) {
        value();
        ws();
        if (src[i] === ',') i++;
        else if (src[i] === ']') return void i++;
        else fail(`expected "," or "]" after an array element, found ${found()}`);
      }
    }
    if (c === '"') return string();
    for (const literal of ['true', 'false', 'null']) if (src.startsWith(literal, i)) return void (i += literal.length);
    NUMBER.lastIndex = i;
    if (c !== undefined && /[-\d]/.test(c) && NUMBER.test(src)) return void (i = NUMBER.lastIndex);
    fail(`expected a value, found ${found()}`);
  };
  try {
    value();
    ws();
    if (i < src.length) fail(`unexpected ${found()} after the JSON value`);
    return null;
  } catch (err) {
    if (err instanceof SyntaxStop) return { at: err.at, reason: err.reason };
    return null; // nesting too deep for the scanner: the caller falls back to JSON.parse's message
  }
}
