/**
 * MCP tools against a real MCP server (the official SDK's), over stdio and streamable
 * HTTP: schemas converted, classes from annotations, the idempotency key in `_meta`,
 * refusals, timeouts and a server that dies mid-call as errors the model sees, and an
 * agent whose tools come from MCP running a real pass.
 */
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  McpSchemaError,
  type McpServerSpec,
  type McpToolSet,
  inputSchemaOf,
  mcpTools,
  navigatorName,
  resultValue,
} from '../../src/mcp/index.ts';
import { defineAgent, runNavigator } from '../../src/navigator/index.ts';
import { listModel } from '../navigator/pass-helpers.ts';
import { startHttpServer } from './fixtures/server.ts';

const callsFile = join(mkdtempSync(join(tmpdir(), 'mcp-')), 'calls.jsonl');
const calls = () =>
  existsSync(callsFile)
    ? readFileSync(callsFile, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
const stdio: McpServerSpec = {
  command: process.execPath,
  args: ['--import', 'tsx', join(process.cwd(), 'test/mcp/fixtures/server.ts')],
  env: { MCP_CALLS_FILE: callsFile },
  name: 'test-stdio',
};
const ctx = (key: string) => ({ idempotencyKey: key, taskId: `task-${key}`, signal: new AbortController().signal });
const tool = (set: McpToolSet, name: string) => set.tools.find((t) => t.name === name)!;

describe('JSON Schema to zod', () => {
  it('converts an object schema and keeps its rules', () => {
    const s = inputSchemaOf('t', {
      type: 'object',
      properties: { id: { type: 'integer', minimum: 1 }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['id'],
    });
    expect(s.safeParse({ id: 2, tags: ['a'] }).success).toBe(true);
    expect(s.safeParse({ id: 0 }).error?.issues[0]?.message).toMatch(/>=1/);
    expect(s.safeParse({}).success).toBe(false);
  });

  it.each([
    [{ type: 'object', not: { required: ['a'] } }, /not is not supported/],
    [{ type: 'object', properties: { a: { $ref: 'https://example.com/a.json' } } }, /External \$ref/],
    [{ type: 'object', if: { required: ['a'] }, then: { required: ['b'] } }, /Conditional schemas/],
    ['nope', /not a JSON Schema object/],
  ])('refuses what zod cannot express, naming the tool: %j', (schema, why) => {
    expect(() => inputSchemaOf('files.write', schema)).toThrow(McpSchemaError);
    expect(() => inputSchemaOf('files.write', schema)).toThrow(why);
    expect(() => inputSchemaOf('files.write', schema)).toThrow(/MCP tool files\.write: its input schema/);
  });

  it("with onUnsupported: 'loose' accepts any object and warns", () => {
    const warnings: string[] = [];
    const s = inputSchemaOf(
      't',
      { type: 'object', not: { required: ['a'] } },
      { onUnsupported: 'loose', warn: (m) => warnings.push(m) },
    );
    expect(s.safeParse({ anything: 1 }).success).toBe(true);
    expect(warnings[0]).toMatch(/the server checks the arguments/);
  });

  it('makes MCP names valid tool names and maps results to data', () => {
    expect(navigatorName('orders.lookup')).toBe('orders_lookup');
    expect(navigatorName('9lives', 'crm')).toBe('crm_9lives');
    expect(navigatorName('2x')).toBe('_2x');
    expect(resultValue({ content: [{ type: 'text', text: '{"a":1}' }] })).toEqual({ a: 1 });
    expect(
      resultValue({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toBe('a\nb');
    expect(resultValue({ structuredContent: { x: 1 }, content: [] })).toEqual({ x: 1 });
    expect(resultValue({ content: [{ type: 'image', mimeType: 'image/png', data: 'AAAA' }] })).toEqual({
      type: 'image',
      mimeType: 'image/png',
      bytes: 3,
    });
  });
});

describe.each([
  ['stdio', async () => ({ spec: stdio, close: async (): Promise<void> => undefined })],
  [
    'streamable HTTP',
    async (): Promise<{ spec: McpServerSpec; close: () => Promise<void> }> => {
      process.env.MCP_CALLS_FILE = callsFile;
      const http = await startHttpServer();
      return { spec: { url: http.url, name: 'test-http' } as McpServerSpec, close: http.close };
    },
  ],
] as const)('MCP tools over %s', (_transport, serve) => {
  let set: McpToolSet;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const served = await serve();
    close = served.close;
    set = await mcpTools(served.spec, { timeoutMs: 2000, exclude: ['crash'] });
  }, 60_000);
  afterAll(async () => {
    await set?.close();
    await close?.();
  });

  it('lists the tools with valid names, schemas and classes from the annotations', () => {
    expect(set.names).toMatchObject({
      'orders.lookup': 'orders_lookup',
      send_note: 'send_note',
      delete_order: 'delete_order',
    });
    expect(tool(set, 'orders_lookup')).toMatchObject({
      sideEffect: 'read_only',
      destructive: false,
      description: 'Looks an order up.',
    });
    expect(tool(set, 'send_note')).toMatchObject({ sideEffect: 'external', destructive: false });
    expect(tool(set, 'delete_order')).toMatchObject({ sideEffect: 'external', destructive: true });
    expect(tool(set, 'orders_lookup').output).toBeDefined();
    expect(tool(set, 'send_note').input.safeParse({ to: 'not-an-email', text: 'x' }).success).toBe(false);
  });

  it('calls a read-only tool and an external one, the idempotency key in _meta', async () => {
    expect(await tool(set, 'orders_lookup').handler({ id: 4 }, ctx('k-read'))).toEqual({
      id: 4,
      total: 40,
      status: 'paid',
    });
    expect(await tool(set, 'send_note').handler({ to: 'a@example.com', text: 'hi' }, ctx('k-send'))).toBe(
      'sent to a@example.com',
    );
    const sent = calls()
      .filter((c) => c.name === 'send_note')
      .pop();
    expect(sent.meta).toMatchObject({ idempotencyKey: 'k-send', taskId: 'task-k-send' });
  });

  it('a tool answering isError is a refusal the model sees; a timeout is an error', async () => {
    await expect(tool(set, 'refuse').handler({}, ctx('k1'))).rejects.toThrow(
      /MCP tool refuse answered an error: quota exceeded for this account/,
    );
    await expect(tool(set, 'refuse').handler({}, ctx('k1'))).rejects.toMatchObject({ name: 'ToolRejected' });
    await expect(tool(set, 'slow').handler({ ms: 10_000 }, ctx('k2'))).rejects.toThrow(
      /tool slow: .*(timed out|Request timed out)/i,
    );
    // and the connection still works afterwards
    expect(await tool(set, 'orders_lookup').handler({ id: 1 }, ctx('k3'))).toMatchObject({ id: 1 });
  }, 30_000);
});

describe('a stdio server that dies mid-call', () => {
  it('fails that call clearly and reconnects on the next', async () => {
    const set = await mcpTools(stdio, { timeoutMs: 5000 });
    try {
      await expect(tool(set, 'crash').handler({}, ctx('c1'))).rejects.toThrow(/MCP server test-stdio, tool crash: /);
      expect(await tool(set, 'orders_lookup').handler({ id: 7 }, ctx('c2'))).toEqual({
        id: 7,
        total: 70,
        status: 'paid',
      });
    } finally {
      await set.close();
    }
  }, 30_000);

  it('an unreachable server is a clear error at once', async () => {
    await expect(mcpTools({ url: 'http://127.0.0.1:9/mcp', name: 'nowhere' })).rejects.toThrow(
      /cannot connect to MCP server nowhere/,
    );
  });
});

describe('an agent with MCP tools', () => {
  it('runs a pass: reads through MCP, sends a note in a task, returns', async () => {
    const set = await mcpTools(stdio, { include: ['orders.lookup', 'send_note'] });
    try {
      const agent = defineAgent({
        name: 'mcp-agent',
        prompt: 'Look order 3 up and send its total to ann@example.com.',
        input: z.object({}),
        output: z.object({ total: z.number() }),
        tools: set.tools,
      });
      const model = listModel([
        '(let [o (tool/orders_lookup {:id 3})] (task "note_order_3" (tool/send_note {:to "ann@example.com" :text (str "total " (:total o))})) (return {:total (:total o)}))',
      ]);
      const step = await runNavigator(agent, { input: {}, journal: [], model, runId: 'mcp-run' });
      expect(step.status).toBe('ok');
      expect(step.value).toEqual({ total: 30 });
      expect(step.journal.map(([k]) => k)).toEqual(['note_order_3']);
      const note = calls()
        .filter((c) => c.name === 'send_note')
        .pop();
      expect(note.args).toEqual({ to: 'ann@example.com', text: 'total 30' });
      expect(typeof note.meta.idempotencyKey).toBe('string');
      expect(model.requests[0]!.system + model.requests[0]!.messages[0]!.content).toContain('tool/orders_lookup');
    } finally {
      await set.close();
    }
  }, 60_000);
});
