/**
 * A codec server, as the Temporal UI and the `temporal` CLI use one
 * (`--codec-endpoint`): POST /encode and /decode take and return
 * `{"payloads": [{"metadata": {"k": "BASE64"}, "data": "BASE64"}]}`, so the UI shows
 * decrypted payloads while history itself stays encrypted.
 *
 * It decrypts whatever it is sent, so it must not be open: every request is authorized,
 * by the exact `Authorization` header given (`--authorization`, for `temporal
 * --codec-auth`) or by the server's secret, as `Authorization: Bearer SECRET` or as the
 * first segment of the path (`/SECRET/decode`: the endpoint to give the Temporal UI, which
 * sends no header of its own; the codec protocol looks only at the last segment). With
 * neither, a secret is generated (loopback only). Serving without authorization needs
 * `noAuth` and loopback. Requests addressed to another Host name than the server's get
 * 421 (no DNS rebinding), and CORS answers the UI's origin only.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { allowedHostNames, generateSecret, hostAllowed, isLoopbackName, sameSecret, secretProblem } from './secrets.ts';

export interface CodecServerOptions {
  codec: PayloadCodec;
  /** @default 8888 (0 picks a free port) */
  port?: number;
  /** @default 127.0.0.1 */
  host?: string;
  /** the Temporal UI's origin, e.g. http://localhost:8233: CORS answers it (and only it) */
  origin?: string;
  /** the exact Authorization header every request may carry instead of the secret (e.g. `Bearer T`, for `temporal --codec-auth`) */
  authorization?: string;
  /** the server's secret (`Authorization: Bearer SECRET` or the endpoint `URL/SECRET`); generated when neither it nor `authorization` is given, on loopback */
  secret?: string;
  /** serve without any authorization: only on loopback, for a machine only you use */
  noAuth?: boolean;
  /** Host names it answers besides loopback and the machine's own (a reverse proxy's name) */
  allowedHosts?: readonly string[];
  /** largest request body @default 16 MiB */
  maxBodyBytes?: number;
}

export interface CodecServer {
  url: string;
  /** the codec endpoint for the Temporal UI: `url/SECRET` with a secret, else `url` */
  endpoint: string;
  /** the secret requests carry (given or generated); null without one */
  secret: string | null;
  /** whether `secret` was generated here (then print it once: nobody else knows it) */
  generated: boolean;
  close(): Promise<void>;
}

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

const fromJson = (p: JsonPayload): Payload => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))]),
  ),
  data: new Uint8Array(Buffer.from(p.data ?? '', 'base64')),
});

const toJson = (p: Payload): JsonPayload => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')]),
  ),
  data: Buffer.from(p.data ?? []).toString('base64'),
});

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

/** The authorization a server started with `opts` checks; throws when it would be open beyond loopback or a given secret is weak. */
export function codecAuthorization(opts: Pick<CodecServerOptions, 'host' | 'authorization' | 'secret' | 'noAuth'>): {
  authorization: string | null;
  secret: string | null;
  generated: boolean;
} {
  const host = opts.host ?? '127.0.0.1';
  const given = opts.authorization !== undefined || opts.secret !== undefined;
  if (opts.noAuth && given)
    throw new Error('give either --no-auth or an authorization (--authorization, --secret), not both');
  if (opts.noAuth && !isLoopbackName(host)) {
    throw new Error(
      `the codec server binds to ${host}, reachable from other machines, and would decrypt every payload for anyone: --no-auth is only for 127.0.0.1; give --authorization or --secret`,
    );
  }
  if (opts.noAuth) return { authorization: null, secret: null, generated: false };
  if (opts.authorization !== undefined) {
    const problem = secretProblem(
      credentialOf(opts.authorization),
      'the credential of --authorization (NAVIGATOR_CODEC_AUTHORIZATION)',
      '--authorization "Bearer $CODEC_TOKEN"',
    );
    if (problem) throw new Error(problem);
  }
  if (opts.secret !== undefined) {
    const problem = secretProblem(
      opts.secret,
      'the codec secret (--secret or NAVIGATOR_CODEC_SECRET)',
      '--secret "$CODEC_SECRET"',
    );
    if (problem) throw new Error(problem);
  }
  if (given) return { authorization: opts.authorization ?? null, secret: opts.secret ?? null, generated: false };
  if (!isLoopbackName(host)) {
    throw new Error(
      `the codec server binds to ${host}, reachable from other machines, and would decrypt every payload for anyone: give --authorization VALUE or --secret SECRET (or NAVIGATOR_CODEC_AUTHORIZATION / NAVIGATOR_CODEC_SECRET)`,
    );
  }
  return { authorization: null, secret: generateSecret(), generated: true };
}

/** The credential of an Authorization value: `Bearer X` → X; `Bearer ` alone (its variable unset) → ''. */
function credentialOf(authorization: string): string {
  const value = authorization.trim();
  const m = /^\S+\s+(\S.*)$/.exec(value);
  if (m) return m[1]!;
  return /^(bearer|basic|token|digest)$/i.test(value) ? '' : value;
}

/** `/decode`, `/SECRET/decode` (and /encode): the operation and the path's secret, or null for any other path. */
function route(url: string | undefined): { op: 'encode' | 'decode'; pathSecret: string | undefined } | null {
  const m = /^(?:\/([^/]+))?\/(encode|decode)$/.exec((url ?? '').split('?')[0]!);
  return m ? { op: m[2] as 'encode' | 'decode', pathSecret: m[1] === undefined ? undefined : decoded(m[1]) } : null;
}

const decoded = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

export async function startCodecServer(opts: CodecServerOptions): Promise<CodecServer> {
  const max = opts.maxBodyBytes ?? 16 * 1024 * 1024;
  const host = opts.host ?? '127.0.0.1';
  const auth = codecAuthorization(opts);
  const hosts = allowedHostNames(host, opts.allowedHosts);

  const authorized = (req: IncomingMessage, pathSecret: string | undefined): boolean => {
    if (auth.authorization === null && auth.secret === null) return true;
    const header = req.headers.authorization;
    const bearer = header?.replace(/^Bearer\s+/i, '');
    // every comparison is made, so the time does not say which one failed
    const byHeader = auth.authorization !== null && sameSecret(header ?? '', auth.authorization);
    const byBearer = auth.secret !== null && sameSecret(bearer ?? '', auth.secret);
    const byPath = auth.secret !== null && sameSecret(pathSecret ?? '', auth.secret);
    return byHeader || byBearer || byPath;
  };

  const cors = (res: ServerResponse, origin: string | undefined) => {
    if (!opts.origin || origin !== opts.origin) return;
    res.setHeader('access-control-allow-origin', opts.origin);
    res.setHeader('access-control-allow-credentials', 'true');
    res.setHeader('access-control-allow-methods', 'POST, OPTIONS');
    res.setHeader('access-control-allow-headers', 'content-type, x-namespace, authorization');
    res.setHeader('vary', 'origin');
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!hostAllowed(req.headers.host, hosts))
      throw new HttpError(
        421,
        `this codec server does not answer for ${req.headers.host ?? 'a request without Host'} (give --allow-host NAME for a name of yours)`,
      );
    cors(res, req.headers.origin);
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    const r = route(req.url);
    if (req.method !== 'POST' || !r) throw new HttpError(404, 'POST /encode or /decode');
    if (!authorized(req, r.pathSecret))
      throw new HttpError(
        401,
        'missing or wrong authorization: give the Authorization header, or use the endpoint with the secret (URL/SECRET)',
      );
    const payloads = parsePayloads(await readBody(req, max));
    const out = r.op === 'encode' ? await opts.codec.encode(payloads) : await opts.codec.decode(payloads);
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
    server.listen(opts.port ?? 8888, host, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const url = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  return {
    url,
    endpoint: auth.secret === null ? url : `${url}/${encodeURIComponent(auth.secret)}`,
    secret: auth.secret,
    generated: auth.generated,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
