/**
 * One connection to an MCP server, shared by its tools: over stdio (a command the client
 * starts) or streamable HTTP (a URL). Opened on first use; a connection that drops (the
 * server exited, the network failed) is opened again by the next call.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export type McpServerSpec =
  | { command: string; args?: string[]; env?: Record<string, string>; cwd?: string; name?: string }
  | { url: string; headers?: Record<string, string>; name?: string };

/** How the server is named in errors: `name`, else the command or the URL. */
export const serverName = (spec: McpServerSpec): string =>
  spec.name ?? ('url' in spec ? spec.url : [spec.command, ...(spec.args ?? [])].join(' '));

export class McpConnection {
  private client: Promise<Client> | null = null;
  /** which connection is current: a late close of an old one must not drop a new one */
  private generation = 0;

  constructor(readonly spec: McpServerSpec) {}

  get name(): string {
    return serverName(this.spec);
  }

  /** The connected client, connecting (again) if needed. */
  connect(): Promise<Client> {
    this.client ??= this.open().catch((err: Error) => {
      this.client = null;
      throw new Error(`cannot connect to MCP server ${this.name}: ${err.message}`);
    });
    return this.client;
  }

  /** Forgets the connection after a failure, so the next call opens a new one. */
  async reset(): Promise<void> {
    const old = this.client;
    this.client = null;
    await old?.then((c) => c.close()).catch(() => undefined);
  }

  close(): Promise<void> {
    return this.reset();
  }

  private async open(): Promise<Client> {
    const generation = ++this.generation;
    const client = new Client({ name: 'navigator-on-temporal', version: '1.0.0' });
    const transport =
      'url' in this.spec
        ? new StreamableHTTPClientTransport(new URL(this.spec.url), {
            requestInit: { headers: this.spec.headers ?? {} },
          })
        : new StdioClientTransport({
            command: this.spec.command,
            args: this.spec.args ?? [],
            env: { ...(process.env as Record<string, string>), ...this.spec.env },
            ...(this.spec.cwd ? { cwd: this.spec.cwd } : {}),
            stderr: 'ignore',
          });
    client.onclose = () => {
      // the server went away: the next call reconnects
      if (this.generation === generation) this.client = null;
    };
    await client.connect(transport);
    return client;
  }
}
