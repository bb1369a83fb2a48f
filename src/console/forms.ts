/**
 * A step's args as a form made from its tool's input schema (via JSON Schema): a text
 * field per string, a number field with its bounds, a list for an enum, yes/no for a
 * boolean, JSON for arrays, objects and anything else; a `$step` reference, an expression
 * (`{"$expr": ...}`) or a plan parameter (`{"$param": ...}`) is shown as such and kept as
 * written. Each field's name carries its kind
 * (`f:number:amount`) so the POST is read back without the schema; the plan's validator
 * (the workflow's update) is the one judge of the values, so the form does not block
 * them in the browser (`novalidate`) and its refusal is shown with its message.
 */
import { z } from 'zod';
import type { Json } from '../workflows/mission/contract.ts';
import { computedOf } from '../plans/references.ts';
import { type Fragment, html, pretty } from './html.ts';

type Kind = 'string' | 'text' | 'number' | 'integer' | 'boolean' | 'enum' | 'json' | 'ref' | 'expr' | 'param';
interface Prop {
  type?: string;
  enum?: Json[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  description?: string;
}

/** The JSON Schema properties of a tool's input, or null when it has none usable here. */
function propertiesOf(schema: z.ZodObject): { props: Record<string, Prop>; required: Set<string> } | null {
  try {
    const js = z.toJSONSchema(schema, { unrepresentable: 'any' }) as {
      properties?: Record<string, Prop>;
      required?: string[];
    };
    return js.properties ? { props: js.properties, required: new Set(js.required ?? []) } : null;
  } catch {
    return null;
  }
}

/** A string that names another step's result (`$read.content`) or is an expression. */
const isReference = (v: Json | undefined) => typeof v === 'string' && v.startsWith('$');

function kindOf(p: Prop, value: Json | undefined): Kind {
  if (isReference(value)) return 'ref';
  const computed = computedOf(value);
  if (computed) return computed.kind;
  if (p.enum && p.enum.every((e) => typeof e === 'string')) return 'enum';
  if (p.type === 'string') return typeof value === 'string' && value.includes('\n') ? 'text' : 'string';
  if (p.type === 'number' || p.type === 'integer' || p.type === 'boolean') return p.type;
  return 'json';
}

/** What a field that is not a plain value holds, said next to it. */
const KEPT = {
  ref: 'a reference to another step’s result, kept as written',
  json: 'JSON, or a $ reference to another step’s result',
  expr: 'an expression (PTC-Lisp) worked out when the step runs, kept as written',
  param: 'the plan parameter of this name',
} as const;

function bounds(p: Prop): string {
  const low = p.minimum ?? p.exclusiveMinimum;
  const high = p.maximum ?? p.exclusiveMaximum;
  if (low !== undefined && high !== undefined) return `from ${low} to ${high}`;
  if (low !== undefined) return p.exclusiveMinimum !== undefined ? `more than ${low}` : `at least ${low}`;
  if (high !== undefined) return p.exclusiveMaximum !== undefined ? `less than ${high}` : `at most ${high}`;
  return '';
}

function field(
  key: string,
  p: Prop,
  value: Json | undefined,
  required: boolean,
  problem?: string,
  idPrefix = '',
): Fragment {
  const kind = kindOf(p, value);
  const name = `f:${kind === 'text' ? 'string' : kind}:${key}`;
  // the same args form once per step on one page: each field's id is its form's own
  const id = `${idPrefix}${name}`;
  // a refused value is named next to its field, and the field points at it for a screen reader
  const invalid = problem ? html` aria-invalid="true" aria-describedby="problem-${name}"` : '';
  const hint = [
    p.description,
    KEPT[kind as keyof typeof KEPT] ?? '',
    kind === 'number' || kind === 'integer' ? bounds(p) : '',
    required ? '' : 'optional',
  ]
    .filter(Boolean)
    .join('; ');
  const label = html`<label for="${id}">${key}</label>${hint ? html` <small>(${hint})</small>` : ''}`;
  const computed = computedOf(value);
  const shown =
    value === undefined
      ? ''
      : typeof value === 'string'
        ? value
        : computed
          ? computed.kind === 'expr'
            ? computed.source
            : computed.name
          : JSON.stringify(value);
  const input = (() => {
    switch (kind) {
      case 'enum':
        return html`<select id="${id}" name="${name}"${invalid}>${required ? '' : html`<option value=""></option>`}${(p.enum as string[]).map((e) => html`<option value="${e}" ${e === value ? 'selected' : ''}>${e}</option>`)}</select>`;
      case 'boolean':
        return html`<select id="${id}" name="${name}"${invalid}>${required ? '' : html`<option value=""></option>`}<option value="true" ${value === true ? 'selected' : ''}>yes</option><option value="false" ${value === false ? 'selected' : ''}>no</option></select>`;
      case 'number':
      case 'integer':
        return html`<input id="${id}" name="${name}"${invalid} type="number" inputmode="${kind === 'integer' ? 'numeric' : 'decimal'}" step="${kind === 'integer' ? '1' : 'any'}" value="${shown}" />`;
      case 'text':
        return html`<textarea id="${id}" name="${name}"${invalid} rows="5">${shown}</textarea>`;
      case 'json':
        return html`<textarea id="${id}" name="${name}"${invalid} rows="2">${value === undefined ? '' : pretty(value)}</textarea>`;
      default:
        return html`<input id="${id}" name="${name}"${invalid} value="${shown}" ${kind in KEPT ? html`class="ref"` : ''} />`;
    }
  })();
  return html`<p class="field">${label}<br />${input}${problem ? html`<br /><span class="field-problem" id="problem-${name}">${problem}</span>` : ''}</p>`;
}

/**
 * The fields for `args` under `schema`, or null when the schema says nothing usable (JSON
 * stays the way); `problems` (by top-level key) are shown next to their fields.
 */
export function argsFields(
  schema: z.ZodObject | undefined,
  args: Json,
  problems: Readonly<Record<string, string>> = {},
  idPrefix = '',
): Fragment | null {
  const described = schema ? propertiesOf(schema) : null;
  if (!described || !args || typeof args !== 'object' || Array.isArray(args)) return null;
  const keys = [...new Set([...Object.keys(described.props), ...Object.keys(args)])];
  return html`${keys.map((k) => field(k, described.props[k] ?? {}, (args as Record<string, Json>)[k], described.required.has(k), problems[k], idPrefix))}`;
}

/** The args a generated form sent; an empty field is left out. Throws with a precise message for a value that is not what its field takes. */
export function argsFromForm(form: Record<string, unknown>): Record<string, Json> {
  const read = readFields(form);
  const [key, problem] = Object.entries(read.problems)[0] ?? [];
  if (key !== undefined) throw new Error(`${key}: ${problem}`);
  return read.args;
}

/**
 * The args a generated form sent, and for each field whose text is not what it takes
 * (a number field sent `abc`, a JSON field bad JSON) its problem; `typed` keeps every
 * field as sent, so a refused form shows what was typed.
 */
export function readFields(form: Record<string, unknown>): {
  args: Record<string, Json>;
  typed: Record<string, Json>;
  problems: Record<string, string>;
} {
  const args: Record<string, Json> = {};
  const typed: Record<string, Json> = {};
  const problems: Record<string, string> = {};
  for (const [name, raw] of Object.entries(form)) {
    const m = /^f:(\w+):(.+)$/.exec(name);
    if (!m || typeof raw !== 'string' || raw.trim() === '') continue;
    const [, kind, key] = m as unknown as [string, Kind, string];
    try {
      args[key] = typed[key] = fieldValue(kind, key, raw);
    } catch (err) {
      typed[key] = raw;
      problems[key] = (err as Error).message.replace(`${key}: `, '');
    }
  }
  return { args, typed, problems };
}

function fieldValue(kind: Kind, key: string, raw: string): Json {
  switch (kind) {
    case 'number':
    case 'integer': {
      const n = Number(raw);
      if (!Number.isFinite(n)) throw new Error(`${key}: ${JSON.stringify(raw)} is not a number`);
      return n;
    }
    case 'boolean':
      return raw === 'true';
    case 'expr':
      return { $expr: raw };
    case 'param':
      return { $param: raw };
    case 'json':
      // a reference needs no JSON quotes (the plan's own `$read.content`)
      if (raw.trim().startsWith('$')) return raw.trim();
      try {
        return JSON.parse(raw) as Json;
      } catch (err) {
        throw new Error(`${key}: not JSON: ${(err as Error).message}`, { cause: err });
      }
    default:
      return raw;
  }
}
