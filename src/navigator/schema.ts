/**
 * zod schemas rendered for the model: compact type signatures in PTC-Lisp notation
 * (`{:recipient string, :amount number, :memo string?}`) and example values, both via
 * zod's JSON Schema export so every zod construct the export knows is covered.
 */
import { z } from 'zod';
import type { Json } from '../lisp/tools.ts';
import { ednOfJson, ednString } from '../lisp/printer/edn.ts';

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema | false;
  prefixItems?: JsonSchema[];
  enum?: Json[];
  const?: Json;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  description?: string;
  examples?: Json[];
  default?: Json;
  format?: string;
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  definitions?: Record<string, JsonSchema>;
};

/** JSON Schema of what a caller may pass (`io: 'input'`: defaults make keys optional). */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchema {
  return z.toJSONSchema(schema, { io, unrepresentable: 'any', reused: 'inline', cycles: 'ref' }) as JsonSchema;
}

const keyword = (k: string): string => (/^[A-Za-z_*+!?<>=-][A-Za-z0-9_*+!?<>=.-]*$/.test(k) ? `:${k}` : ednString(k));

/** The nullable member of a `[T, null]` type, if that is what `s` is. */
function withoutNull(s: JsonSchema): JsonSchema | undefined {
  if (Array.isArray(s.type) && s.type.includes('null') && s.type.length === 2) {
    return { ...s, type: s.type.find((t) => t !== 'null') };
  }
  const alts = s.anyOf ?? s.oneOf;
  if (alts && alts.length === 2) {
    const i = alts.findIndex((a) => a.type === 'null');
    if (i >= 0) return alts[1 - i];
  }
  return undefined;
}

/** Compact type text of a JSON Schema node. */
export function typeText(s: JsonSchema | boolean | undefined, root?: JsonSchema, depth = 0): string {
  if (s === undefined || s === true) return 'any';
  if (s === false) return 'nothing';
  if (depth > 6) return '...';
  if (s.$ref) {
    const name = s.$ref.split('/').pop()!;
    const target = root?.$defs?.[name] ?? root?.definitions?.[name];
    return s.$ref === '#' ? 'self' : target ? typeText(target, root, depth + 1) : name;
  }
  if (s.const !== undefined) return ednOfJson(s.const);
  if (s.enum) return s.enum.map((v) => ednOfJson(v)).join(' | ');
  const nonNull = withoutNull(s);
  if (nonNull) return `${typeText(nonNull, root, depth)}?`;
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return alts.map((a) => typeText(a, root, depth + 1)).join(' | ');
  if (s.allOf) return s.allOf.map((a) => typeText(a, root, depth + 1)).join(' & ');
  if (Array.isArray(s.type)) return s.type.map((t) => typeText({ ...s, type: t }, root, depth)).join(' | ');
  switch (s.type) {
    case 'string':
      return s.format ? `string (${s.format})` : 'string';
    case 'number':
      return 'number';
    case 'integer':
      return 'integer';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'nil';
    case 'array':
      if (s.prefixItems) return `[${s.prefixItems.map((p) => typeText(p, root, depth + 1)).join(' ')}]`;
      return `[${typeText(s.items === false ? undefined : s.items, root, depth + 1)}]`;
    case 'object': {
      const props = Object.entries(s.properties ?? {});
      const required = new Set(s.required ?? []);
      const parts = props.map(([k, p]) => `${keyword(k)} ${typeText(p, root, depth + 1)}${required.has(k) ? '' : '?'}`);
      const extra = s.additionalProperties;
      if (extra && extra !== true && !props.length) return `{string ${typeText(extra, root, depth + 1)}}`;
      if (!props.length) return 'map';
      return `{${parts.join(', ')}}`;
    }
    default:
      return 'any';
  }
}

/** The compact type of a zod schema. */
export const zodTypeText = (schema: z.ZodType, io: 'input' | 'output' = 'input'): string => {
  const js = jsonSchemaOf(schema, io);
  return typeText(js, js);
};

/** Field descriptions of an object schema, as `[key, description]` pairs. */
export function fieldDescriptions(schema: z.ZodType): Array<[string, string]> {
  const js = jsonSchemaOf(schema);
  return Object.entries(js.properties ?? {}).flatMap(([k, p]) => (p.description ? [[k, p.description]] : []));
}

/**
 * Descriptions of a result's fields, at any depth (inside lists and nullable parts too),
 * as `[path, description]`: `[':amount', 'in EUR']`, `[':items :price', 'VAT included']`;
 * a description of the whole value has the path ''.
 */
export function resultFieldDescriptions(schema: z.ZodType): Array<[string, string]> {
  const root = jsonSchemaOf(schema, 'output');
  const out: Array<[string, string]> = [];
  const seen = new Set<JsonSchema>();
  const walk = (s: JsonSchema | boolean | undefined, path: string[], depth: number): void => {
    if (!s || s === true || depth > 6 || seen.has(s)) return;
    seen.add(s);
    if (s.description && !(path.length === 0 && depth > 0)) out.push([path.join(' '), s.description]);
    if (s.$ref) {
      const target = root.$defs?.[s.$ref.split('/').pop()!];
      if (target) walk(target, path, depth + 1);
    }
    for (const alt of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) walk(alt, path, depth + 1);
    if (s.items) walk(s.items, path, depth + 1);
    for (const [k, p] of Object.entries(s.properties ?? {})) walk(p, [...path, keyword(k)], depth + 1);
    if (s.additionalProperties && s.additionalProperties !== true)
      walk(s.additionalProperties, [...path, '<key>'], depth + 1);
  };
  walk(root, [], 0);
  return out;
}

/** A plausible example value for a schema: its examples, default, enum, else by type. */
export function exampleValue(s: JsonSchema | boolean | undefined, root?: JsonSchema, key?: string, depth = 0): Json {
  if (s === undefined || s === true || s === false || depth > 6) return null;
  if (s.examples?.length) return s.examples[0]!;
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return s.enum[0]!;
  if (s.$ref) {
    const target = root?.$defs?.[s.$ref.split('/').pop()!];
    return target ? exampleValue(target, root, key, depth + 1) : null;
  }
  const nonNull = withoutNull(s);
  if (nonNull) return exampleValue(nonNull, root, key, depth);
  const alts = s.anyOf ?? s.oneOf;
  if (alts?.length) return exampleValue(alts[0], root, key, depth + 1);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string':
      return s.format === 'date-time' ? '2025-01-31T12:00:00Z' : s.format === 'date' ? '2025-01-31' : (key ?? 'text');
    case 'number':
      return 1.5;
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      if (s.prefixItems) return s.prefixItems.map((p) => exampleValue(p, root, undefined, depth + 1));
      return [exampleValue(s.items === false ? undefined : s.items, root, key, depth + 1)];
    case 'object': {
      const required = new Set(s.required ?? []);
      const out: Record<string, Json> = {};
      for (const [k, p] of Object.entries(s.properties ?? {})) {
        if (required.has(k)) out[k] = exampleValue(p, root, k, depth + 1);
      }
      return out;
    }
    default:
      return null;
  }
}

/** Example value of a zod schema (required keys only). */
export const zodExample = (schema: z.ZodType, io: 'input' | 'output' = 'input'): Json => {
  const js = jsonSchemaOf(schema, io);
  return exampleValue(js, js);
};
