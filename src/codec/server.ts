/**
 * A codec server, as the Temporal UI and the `temporal` CLI use one
 * (`--codec-endpoint`): POST /encode and /decode take and return
 * `{"payloads": [{"metadata": {"k": "BASE64"}, "data": "BASE64"}]}`, so the UI shows
 * decrypted payloads while history itself stays encrypted. CORS answers the UI's origin
 * only; an optional Authorization header value is checked in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';

export interface CodecServerOptions {
  codec: PayloadCodec;
  /** @default 8888 (0 picks a free port) */
  port?: number;
  /** @default 127.0.0.1 */
  host?: string;
  /** the Temporal UI's origin, e.g. http://localhost:8233: CORS answers it (and only it) */
  origin?: string;
  /** the exact Authorization header every request must carry */
  authorization?: string;
  /** largest request body @default 16 MiB */
  maxBodyBytes?: number;
}

export interface CodecServer {
  url: string;
  close(): Promise<void>;
}

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

const fromJson = (p: JsonPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))])),
  data: new Uint8Array(Buffer.from(p.data ?? '', 'base64')),
});

const toJson = (p: Payload): JsonPayload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')])),
  data: Buffer.from(p.data ?? []).toString('base64'),
});

const digest = (s: string) => createHash('sha256').update(s).digest();

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function readBody(req: IncomingMessage, max: number): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) throw new HttpError(413, `request body over ${max} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parsePayloads(body: string): Payload[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new HttpError(400, 'body is not JSON');
  }
  const list = (parsed as { payloads?: unknown } | null)?.payloads;
  if (!Array.isArray(list)) throw new HttpError(400, 'body must be {"payloads": [...]}');
  return list.map((p) => fromJson(p as JsonPayload));
}

export async function startCodecServer(opts: CodecServerOptions): Promise<CodecServer> {
  const max = opts.maxBodyBytes ?? 16 * 1024 * 1024;
  const expected = opts.authorization === undefined ? null : digest(opts.authorization);

  const cors = (res: ServerResponse, origin: string | undefined) => {
    if (!opts.origin || origin !== opts.origin) return;
    res.setHeader('access-control-allow-origin', opts.origin);
    res.setHeader('access-control-allow-credentials', 'true');
    res.setHeader('access-control-allow-methods', 'POST, OPTIONS');
    res.setHeader('access-control-allow-headers', 'content-type, x-namespace, authorization');
    res.setHeader('vary', 'origin');
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    cors(res, req.headers.origin);
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || (path !== '/encode' && path !== '/decode')) throw new HttpError(404, 'POST /encode or /decode');
    if (expected && !timingSafeEqual(digest(req.headers.authorization ?? ''), expected)) throw new HttpError(401, 'missing or wrong Authorization header');
    const payloads = parsePayloads(await readBody(req, max));
    const out = path === '/encode' ? await opts.codec.encode(payloads) : await opts.codec.decode(payloads);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ payloads: out.map(toJson) }));
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      const status = err instanceof HttpError ? err.status : 500;
      if (!res.headersSent) res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: err.message }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 8888, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
