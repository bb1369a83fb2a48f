/**
 * MCP tools describe their arguments in JSON Schema; Navigator tools take zod. zod's own
 * converter does the work; this module makes its failures precise (which tool, which
 * part) and makes the result an object schema, as every Navigator tool input is.
 */
import { z } from 'zod';

export class McpSchemaError extends Error {
  override readonly name = 'McpSchemaError';
}

export type Unsupported = 'error' | 'loose';

/**
 * The zod schema of a tool's `inputSchema`. What zod cannot express (`not`, `if/then`,
 * external `$ref`, ...) is an error naming the tool, or with `onUnsupported: 'loose'` any
 * JSON object (the server still checks), reported through `warn`.
 */
export function inputSchemaOf(
  tool: string,
  schema: unknown,
  opts: { onUnsupported?: Unsupported; warn?: (message: string) => void } = {},
): z.ZodObject {
  const converted = convert(tool, 'input', schema, opts);
  if (converted instanceof z.ZodObject) return converted;
  // an object described another way (a record, a union of objects): checked as a whole
  return z.looseObject({}).superRefine((value, ctx) => {
    const r = converted.safeParse(value);
    if (!r.success)
      for (const issue of r.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  });
}

/** The zod schema of a tool's `outputSchema`, or undefined when absent or not convertible. */
export function outputSchemaOf(tool: string, schema: unknown, warn?: (message: string) => void): z.ZodType | undefined {
  if (schema === undefined || schema === null) return undefined;
  try {
    return convert(tool, 'output', schema, { onUnsupported: 'error' });
  } catch (err) {
    warn?.(`${(err as Error).message}; the model sees the result's shape from its first call instead`);
    return undefined;
  }
}

/**
 * The zod schema of a JSON Schema object (zod's converter; also used for plan
 * parameters).
 * @throws Error with zod's reason when the schema cannot be expressed in zod
 */
export function zodOfJsonSchema(schema: Record<string, unknown>): z.ZodType {
  return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
}

function convert(
  tool: string,
  which: 'input' | 'output',
  schema: unknown,
  opts: { onUnsupported?: Unsupported; warn?: (message: string) => void },
): z.ZodType {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new McpSchemaError(`MCP tool ${tool}: its ${which} schema is not a JSON Schema object`);
  }
  try {
    return zodOfJsonSchema(schema as Record<string, unknown>);
  } catch (err) {
    const message = `MCP tool ${tool}: its ${which} schema cannot be converted to zod: ${(err as Error).message}`;
    if (opts.onUnsupported !== 'loose')
      throw new McpSchemaError(
        `${message} (pass onUnsupported: 'loose' to accept any JSON object and let the server check)`,
      );
    opts.warn?.(`${message}; any JSON object is accepted, the server checks the arguments`);
    return z.looseObject({});
  }
}
