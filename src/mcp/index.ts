/**
 * Tools from MCP servers, for Navigator agents:
 *
 * ```ts
 * import { mcpTools } from 'navigator-on-temporal';
 *
 * const files = await mcpTools({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/data'] });
 * const crm = await mcpTools({ url: 'https://crm.example/mcp', headers: { authorization: `Bearer ${token}` } }, { prefix: 'crm' });
 * export default defineAgent({ ..., tools: [...files.tools, ...crm.tools] });
 * ```
 *
 * `readOnlyHint` tools are `read_only`; the others `external` (their own Temporal activity,
 * at most once per task), `destructiveHint` ones also `destructive` (plan steps wait for
 * approval). The idempotency key reaches the server in the request's `_meta`.
 *
 * @module
 */
export { type McpServerSpec, serverName } from './connection.ts';
export { McpSchemaError, inputSchemaOf, outputSchemaOf } from './json-schema.ts';
export { type McpToolSet, type McpToolsOptions, classOf, mcpTools, navigatorName, resultValue } from './tools.ts';
