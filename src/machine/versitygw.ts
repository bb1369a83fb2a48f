/**
 * Versity Gateway (github.com/versity/versitygw, Apache-2.0): a real S3 server over a
 * folder, for the tests and benchmarks of the S3 payload store (s3-store.ts), and for a user
 * who wants an S3 endpoint on one machine. It is a Go module, built from the Go module proxy
 * with `go install`, pinned, into the same per-machine cache as the Temporal CLI
 * (src/temporal/cli-server.ts), and started as a child process on a free port.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { cacheDirOf } from './folders.ts';
import { freePort } from './free-port.ts';
import { executable, goInstallCached } from './go-install.ts';

export const VERSITYGW_VERSION = 'v1.8.0';
export const VERSITYGW_MODULE = 'github.com/versity/versitygw/cmd/versitygw';

/** `$NAVIGATOR_CACHE_DIR` or `$XDG_CACHE_HOME/navigator-on-temporal` or `~/.cache/navigator-on-temporal`, then `versitygw-<version>`. */
export function versityGwCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return cacheDirOf(`versitygw-${VERSITYGW_VERSION}`, env);
}

/** `$NAVIGATOR_VERSITYGW` if set (it must exist), else the cached pinned build; null when there is none. */
export function findVersityGw(env: NodeJS.ProcessEnv = process.env): string | null {
  const explicit = env.NAVIGATOR_VERSITYGW;
  if (explicit) {
    if (!executable(explicit)) throw new Error(`NAVIGATOR_VERSITYGW=${explicit} is not an executable file`);
    return explicit;
  }
  const cached = join(versityGwCacheDir(env), 'versitygw');
  return executable(cached) ? cached : null;
}

/** Builds the pinned gateway into the cache unless it is there (built elsewhere, moved in whole); returns its path. */
export function buildVersityGw(opts: { env?: NodeJS.ProcessEnv; log?: (line: string) => void } = {}): string {
  return (
    findVersityGw(opts.env) ??
    goInstallCached({
      module: VERSITYGW_MODULE,
      version: VERSITYGW_VERSION,
      binary: 'versitygw',
      dir: versityGwCacheDir(opts.env),
      env: opts.env,
      log: opts.log,
    })
  );
}

export interface VersityGwOptions {
  /** the folder it serves (a bucket is a folder in it); a temporary one, removed on stop, without it */
  dir?: string;
  accessKey?: string;
  secretKey?: string;
  /** the binary (default: found, else built) */
  binary?: string;
  /** @default 30 s */
  startTimeoutMs?: number;
}

export interface VersityGw {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  accessKey: string;
  secretKey: string;
  dir: string;
  process: ChildProcess;
  /** an S3 client for this gateway (path style, its credentials) */
  client(): S3Client;
  /** creates a bucket (CreateBucket); resolves to its name */
  createBucket(name: string): Promise<string>;
  stop(): Promise<void>;
}

/** The gateway ended before it answered (most likely the free port was taken in between). */
class ExitedDuringStartUp extends Error {}

/**
 * Starts `versitygw --access A --secret S --port 127.0.0.1:<free port> --health /health
 * posix <dir>` and resolves once its health endpoint answers. Started again on another free
 * port (three times in all) when it exits during start-up. Killed with this process.
 */
export async function startVersityGw(options: VersityGwOptions = {}): Promise<VersityGw> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (e) {
      if (!(e instanceof ExitedDuringStartUp) || attempt >= 3) throw e;
    }
  }
}

async function startOnce(options: VersityGwOptions): Promise<VersityGw> {
  const binary = options.binary ?? buildVersityGw();
  const accessKey = options.accessKey ?? 'navigator';
  const secretKey = options.secretKey ?? randomBytes(12).toString('hex');
  const temporary = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'navigator-versitygw-'));
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const args = [
    '--access',
    accessKey,
    '--secret',
    secretKey,
    '--port',
    `127.0.0.1:${port}`,
    '--health',
    '/health',
    '--quiet',
    'posix',
    dir,
  ];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    if (temporary) rmSync(dir, { recursive: true, force: true });
  };
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilAnswering(endpoint, exited, options.startTimeoutMs ?? 30_000);
  } catch (e) {
    await stop();
    const message = `${binary} ${args.join(' ').replace(secretKey, '***')}: ${(e as Error).message}\n${output.trim()}`;
    throw e instanceof ExitedDuringStartUp ? new ExitedDuringStartUp(message) : new Error(message);
  }
  const client = () =>
    new S3Client({
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: accessKey, secretAccessKey: secretKey },
    });
  const createBucket = async (name: string) => {
    const c = client();
    try {
      await c.send(new CreateBucketCommand({ Bucket: name }));
    } finally {
      c.destroy();
    }
    return name;
  };
  return { endpoint, accessKey, secretKey, dir, process: child, client, createBucket, stop };
}

/** Polls its health endpoint (`--health /health`) until it answers 200, or the child exits. */
async function waitUntilAnswering(endpoint: string, exited: Promise<void>, timeoutMs: number): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (!gone && Date.now() < deadline) {
    try {
      const res = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(1000) });
      if (res.ok) return;
      last = `GET /health: HTTP ${res.status}`;
    } catch (e) {
      last = (e as Error).message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  if (gone) throw new ExitedDuringStartUp('the gateway exited during start-up');
  throw new Error(`not answering after ${timeoutMs} ms (${last})`);
}
