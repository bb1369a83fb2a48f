/**
 * Navigator tools from an MCP server's tools: names made valid for `tool/NAME`, argument
 * schemas converted to zod, side-effect classes from the MCP annotations (overridable),
 * and calls that carry the idempotency key in `_meta`. Whatever goes wrong in a call (the
 * server refuses, a timeout, a dropped connection) becomes an error the model sees.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Json, SideEffectClass } from '../lisp/tools.ts';
import { type NavigatorTool, ToolRejected, defineTool } from '../navigator/tool.ts';
import { McpConnection, type McpServerSpec } from './connection.ts';
import { type Unsupported, inputSchemaOf, outputSchemaOf } from './json-schema.ts';

export interface McpToolsOptions {
  /** prefix of every tool name: `prefix_name` */
  prefix?: string;
  /** side-effect class per MCP tool name, over the one read from its annotations */
  sideEffects?: Record<string, SideEffectClass>;
  /** destructive per MCP tool name, over `destructiveHint` */
  destructive?: Record<string, boolean>;
  /** only these MCP tools */
  include?: string[];
  exclude?: string[];
  /** per call @default 60000 */
  timeoutMs?: number;
  /** what to do with input schemas zod cannot express @default 'error' */
  onUnsupported?: Unsupported;
  /** where conversion warnings go @default console.warn */
  warn?: (message: string) => void;
}

export interface McpToolSet {
  tools: NavigatorTool[];
  /** MCP tool name → Navigator tool name */
  names: Record<string, string>;
  close(): Promise<void>;
}

interface ListedTool {
  name: string;
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; title?: string };
}

/** A valid `tool/NAME` for an MCP tool name: other characters become `_`. */
export function navigatorName(mcpName: string, prefix?: string): string {
  let name = (prefix ? `${prefix}_${mcpName}` : mcpName).replace(/[^A-Za-z0-9_-]/g, '_');
  if (!/^[A-Za-z_]/.test(name)) name = `_${name}`;
  return name;
}

/** The side-effect class an MCP tool's annotations imply: read-only reads, everything else is external. */
export function classOf(t: ListedTool): { sideEffect: SideEffectClass; destructive: boolean } {
  if (t.annotations?.readOnlyHint === true) return { sideEffect: 'read_only', destructive: false };
  return { sideEffect: 'external', destructive: t.annotations?.destructiveHint === true };
}

/** Connects to an MCP server, lists its tools and returns them as Navigator tools. */
export async function mcpTools(server: McpServerSpec, opts: McpToolsOptions = {}): Promise<McpToolSet> {
  const connection = new McpConnection(server);
  const warn = opts.warn ?? ((m: string) => console.warn(m));
  try {
    const client = await connection.connect();
    const listed = await listAll(client);
    const wanted = listed.filter(
      (t) => (!opts.include || opts.include.includes(t.name)) && !opts.exclude?.includes(t.name),
    );
    const names: Record<string, string> = {};
    const taken = new Map<string, string>();
    const tools = wanted.map((t) => {
      const name = navigatorName(t.name, opts.prefix);
      const clash = taken.get(name);
      if (clash)
        throw new Error(
          `MCP tools ${clash} and ${t.name} of ${connection.name} both become tool/${name}; use include/exclude or a prefix`,
        );
      taken.set(name, t.name);
      names[t.name] = name;
      return toolOf(t, name, connection, opts, warn);
    });
    return { tools, names, close: () => connection.close() };
  } catch (err) {
    await connection.close();
    throw err;
  }
}

async function listAll(client: Client): Promise<ListedTool[]> {
  const out: ListedTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    out.push(...(page.tools as ListedTool[]));
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

function toolOf(
  t: ListedTool,
  name: string,
  connection: McpConnection,
  opts: McpToolsOptions,
  warn: (m: string) => void,
): NavigatorTool {
  const implied = classOf(t);
  const output = outputSchemaOf(t.name, t.outputSchema, warn);
  return defineTool({
    name,
    description: (t.description ?? t.annotations?.title ?? `MCP tool ${t.name}`).trim() || `MCP tool ${t.name}`,
    input: inputSchemaOf(t.name, t.inputSchema ?? { type: 'object' }, { onUnsupported: opts.onUnsupported, warn }),
    ...(output ? { output } : {}),
    sideEffect: opts.sideEffects?.[t.name] ?? implied.sideEffect,
    destructive: opts.destructive?.[t.name] ?? implied.destructive,
    handler: (args, ctx) => call(connection, t.name, args as Record<string, unknown>, ctx, opts.timeoutMs ?? 60_000),
  });
}

async function call(
  connection: McpConnection,
  tool: string,
  args: Record<string, unknown>,
  ctx: { idempotencyKey: string; taskId: string | null; signal?: AbortSignal },
  timeoutMs: number,
): Promise<Json> {
  let result: Awaited<ReturnType<Client['callTool']>>;
  try {
    const client = await connection.connect();
    result = await client.callTool(
      { name: tool, arguments: args, _meta: { idempotencyKey: ctx.idempotencyKey, taskId: ctx.taskId } },
      undefined,
      {
        timeout: timeoutMs,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      },
    );
  } catch (err) {
    // the connection may be broken: the next call opens a new one
    await connection.reset();
    throw new Error(`MCP server ${connection.name}, tool ${tool}: ${(err as Error).message}`, { cause: err });
  }
  const value = resultValue(result as { structuredContent?: unknown; content?: unknown });
  if (result.isError)
    throw new ToolRejected(
      `MCP tool ${tool} answered an error: ${typeof value === 'string' ? value : JSON.stringify(value)}`,
    );
  return value;
}

type ContentItem = {
  type: string;
  text?: string;
  mimeType?: string;
  data?: string;
  uri?: string;
  resource?: { uri?: string; text?: string; mimeType?: string };
};

/** The result as data: `structuredContent` when given, else the content items (text JSON-parsed when it is JSON). */
export function resultValue(result: { structuredContent?: unknown; content?: unknown }): Json {
  if (result.structuredContent !== undefined && result.structuredContent !== null)
    return result.structuredContent as Json;
  const items = (Array.isArray(result.content) ? result.content : []) as ContentItem[];
  const values = items.map(itemValue);
  if (values.length === 0) return null;
  if (values.length === 1) return values[0]!;
  if (values.every((v) => typeof v === 'string')) return (values as string[]).join('\n');
  return values;
}

function itemValue(item: ContentItem): Json {
  switch (item.type) {
    case 'text': {
      const text = item.text ?? '';
      try {
        return JSON.parse(text) as Json;
      } catch {
        return text;
      }
    }
    case 'image':
    case 'audio':
      return {
        type: item.type,
        mimeType: item.mimeType ?? null,
        bytes: Math.floor(((item.data ?? '').length * 3) / 4),
      };
    case 'resource':
      return {
        type: 'resource',
        uri: item.resource?.uri ?? null,
        ...(item.resource?.text !== undefined ? { text: item.resource.text } : {}),
      };
    case 'resource_link':
      return { type: 'resource_link', uri: item.uri ?? null };
    default:
      return { type: item.type };
  }
}
