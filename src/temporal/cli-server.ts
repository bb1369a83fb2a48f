/**
 * The real Temporal server, as the Temporal CLI's `temporal server start-dev` runs it
 * (SQLite, the Temporal UI): finding or building the pinned CLI, and starting it as a
 * child process that speaks the same gRPC API as a production cluster.
 *
 * The CLI is a Go module. Prebuilt binaries cannot always be downloaded, so it is built
 * from the Go module proxy with `go install`, pinned to one version, into a per-machine
 * cache outside any clone (it builds once per machine).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type Long from 'long';
import type { DevServer, DevServerOptions } from './server.ts';
import { cacheDirOf } from '../machine/folders.ts';
import { freePort } from '../machine/free-port.ts';
import { GoMissingError, executable, goInstallCached } from '../machine/go-install.ts';

export { GoMissingError };
import { delimiter, join } from 'node:path';

/**
 * The pinned Temporal CLI. v1.5.1 (Temporal server 1.29.1, UI 2.42.1) is the newest release
 * the Go module proxy builds: later ones replace a nested `cliext` module by a local path,
 * which `go install` refuses and the proxy does not serve.
 */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';

/** Where the pinned CLI is cached: `$NAVIGATOR_CACHE_DIR` or `$XDG_CACHE_HOME` or `~/.cache`. */
export function temporalCliCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return cacheDirOf(`temporal-cli-${TEMPORAL_CLI_VERSION}`, env);
}

function onPath(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && executable(join(dir, name))) return join(dir, name);
  }
  return null;
}

/**
 * The `temporal` binary to run: `$NAVIGATOR_TEMPORAL_CLI` if set (it must exist), else the
 * cached pinned build, else a `temporal` on the PATH; null when there is none.
 */
export function findTemporalCli(env: NodeJS.ProcessEnv = process.env): string | null {
  const explicit = env.NAVIGATOR_TEMPORAL_CLI;
  if (explicit) {
    if (!executable(explicit)) throw new Error(`NAVIGATOR_TEMPORAL_CLI=${explicit} is not an executable file`);
    return explicit;
  }
  const cached = join(temporalCliCacheDir(env), 'temporal');
  if (executable(cached)) return cached;
  return onPath('temporal', env);
}

/**
 * Builds the pinned CLI into the cache unless it is there already; returns its path. The
 * build goes to a fresh directory first and is moved into place whole, so an interrupted
 * build never leaves a half-written binary where `findTemporalCli` looks.
 */
export function buildTemporalCli(opts: { env?: NodeJS.ProcessEnv; log?: (line: string) => void } = {}): string {
  return goInstallCached({
    module: TEMPORAL_CLI_MODULE,
    version: TEMPORAL_CLI_VERSION,
    binary: 'temporal',
    dir: temporalCliCacheDir(opts.env),
    env: opts.env,
    log: opts.log,
  });
}

export interface TemporalCliServerOptions {
  /** the `temporal` binary (default: {@link findTemporalCli}) */
  binary?: string;
  /** gRPC port; 0 picks a free one. @default 7233 */
  port?: number;
  /** @default '127.0.0.1' */
  ip?: string;
  /** Temporal UI port (0 picks a free one); null runs headless. @default port + 1000 */
  uiPort?: number | null;
  /** SQLite file that keeps state across restarts; in memory without it */
  db?: string;
  /** @default 'default' */
  namespace?: string;
  /** custom search attributes registered at start: name → type (Keyword, Text, Int, ...) */
  searchAttributes?: Record<string, string>;
  /** `--dynamic-config-value KEY=JSON` pairs */
  dynamicConfig?: Record<string, unknown>;
  /** the Temporal UI's codec endpoint (`--ui-codec-endpoint`) */
  uiCodecEndpoint?: string;
  /** @default 'error' */
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /** how long to wait for the server to answer. @default 60 s */
  startTimeoutMs?: number;
}

export interface TemporalCliServer {
  /** `ip:port` for Connection.connect / NativeConnection.connect */
  address: string;
  namespace: string;
  /** the Temporal UI, or null when headless */
  uiUrl: string | null;
  process: ChildProcess;
  shutdown(): Promise<void>;
}

function startDevArgs(
  o: Required<Pick<TemporalCliServerOptions, 'ip' | 'namespace' | 'logLevel'>> & TemporalCliServerOptions,
  port: number,
  uiPort: number | null,
): string[] {
  const args = [
    'server',
    'start-dev',
    '--ip',
    o.ip,
    '--port',
    String(port),
    '--namespace',
    o.namespace,
    '--log-level',
    o.logLevel,
  ];
  args.push(...(uiPort === null ? ['--headless'] : ['--ui-port', String(uiPort)]));
  if (o.db) args.push('--db-filename', o.db);
  if (o.uiCodecEndpoint) args.push('--ui-codec-endpoint', o.uiCodecEndpoint);
  for (const [name, type] of Object.entries(o.searchAttributes ?? {}))
    args.push('--search-attribute', `${name}=${type}`);
  for (const [key, value] of Object.entries(o.dynamicConfig ?? {}))
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  return args;
}

/**
 * Starts `temporal server start-dev` and resolves once its frontend answers for the
 * namespace. The child is killed if this process exits first.
 *
 * With `port: 0` the ports are picked free and released before the server binds them, so
 * another process (a test file starting its own server at the same moment) can take one
 * first, and the server exits during start-up: then it is started again on other free
 * ports, up to three times in all. `pickPort` picks them (tests give a taken one).
 */
export async function startTemporalCliServer(
  options: TemporalCliServerOptions = {},
  pickPort: (ip: string) => Promise<number> = freePort,
): Promise<TemporalCliServer> {
  const attempts = options.port === 0 ? 3 : 1;
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options, pickPort);
    } catch (e) {
      if (!(e instanceof ExitedDuringStartUp) || attempt >= attempts) throw e;
    }
  }
}

/** The server process ended before it answered (a port taken, a bad flag, a crash). */
class ExitedDuringStartUp extends Error {}

/** What a child printed: all of it up to 8,000 characters, else its beginning (where a Go panic says why) and its end. */
function outputKeeper(): { keep: (chunk: Buffer) => void; text: () => string } {
  const HALF = 4000;
  let head = '';
  let tail = '';
  let total = 0;
  return {
    keep: (chunk) => {
      const text = chunk.toString();
      total += text.length;
      if (head.length < HALF) head += text.slice(0, HALF - head.length);
      tail = (tail + text).slice(-2 * HALF);
    },
    text: () => (total <= 2 * HALF ? tail : `${head}\n…\n${tail.slice(-HALF)}`),
  };
}

async function startOnce(
  options: TemporalCliServerOptions,
  pickPort: (ip: string) => Promise<number>,
): Promise<TemporalCliServer> {
  const binary = options.binary ?? requireTemporalCli();
  const ip = options.ip ?? '127.0.0.1';
  const namespace = options.namespace ?? 'default';
  const port = options.port === 0 ? await pickPort(ip) : (options.port ?? 7233);
  const uiPort =
    options.uiPort === null
      ? null
      : options.uiPort === 0 || (options.uiPort === undefined && options.port === 0)
        ? await pickPort(ip)
        : (options.uiPort ?? port + 1000);
  const args = startDevArgs({ ...options, ip, namespace, logLevel: options.logLevel ?? 'error' }, port, uiPort);
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = outputKeeper();
  child.stdout!.on('data', output.keep);
  child.stderr!.on('data', output.keep);
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const address = `${ip}:${port}`;
  const shutdown = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitUntilServing(
      address,
      namespace,
      Object.keys(options.searchAttributes ?? {}),
      exited,
      options.startTimeoutMs ?? 60_000,
    );
  } catch (e) {
    await shutdown();
    const message = `${binary} ${args.join(' ')}: ${(e as Error).message}\n${output.text().trim()}`;
    throw e instanceof ExitedDuringStartUp ? new ExitedDuringStartUp(message) : new Error(message);
  }
  return { address, namespace, uiUrl: uiPort === null ? null : `http://${ip}:${uiPort}`, process: child, shutdown };
}

/** Polls until the namespace is described and lists the search attributes, or the child exits. */
async function waitUntilServing(
  address: string,
  namespace: string,
  attributes: string[],
  exited: Promise<void>,
  timeoutMs: number,
): Promise<void> {
  const { Connection } = await import('@temporalio/client');
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (!gone && Date.now() < deadline) {
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        const described = await connection.workflowService.describeNamespace({ namespace });
        const custom = Object.keys(await customSearchAttributes(connection, namespace));
        if (described.namespaceInfo && attributes.every((a) => custom.includes(a))) return;
        last = `search attributes not registered yet (${custom.join(', ') || 'none'})`;
      } finally {
        await connection.close();
      }
    } catch (e) {
      last = (e as Error).message;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  if (gone) throw new ExitedDuringStartUp('the server exited during start-up');
  throw new Error(`not serving after ${timeoutMs} ms (${last})`);
}

async function customSearchAttributes(
  connection: import('@temporalio/client').Connection,
  namespace: string,
): Promise<Record<string, unknown>> {
  const listed = await connection.operatorService.listSearchAttributes({ namespace });
  return (listed.customAttributes ?? {}) as Record<string, unknown>;
}

/** The binary, or a clear error naming every way to get one. */
export function requireTemporalCli(env: NodeJS.ProcessEnv = process.env): string {
  const found = findTemporalCli(env);
  if (found) return found;
  throw new Error(
    `the real Temporal server needs the Temporal CLI: run 'npm run temporal:build' in a clone of navigator-on-temporal ` +
      `(or 'GOBIN=${temporalCliCacheDir(env)} go install ${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}'), ` +
      `put 'temporal' on the PATH, or set NAVIGATOR_TEMPORAL_CLI`,
  );
}

/** Sets the namespace's retention (start-dev creates namespaces with one day). */
export async function setRetention(
  server: Pick<TemporalCliServer, 'address' | 'namespace'>,
  days: number,
): Promise<void> {
  if (days === 1) return;
  if (days * 24 < 1)
    throw new Error(
      `a Temporal server keeps closed workflows at least one hour: a retention of ${days} days is too short (1/24 = 0.0417 days is the least)`,
    );
  const { Connection } = await import('@temporalio/client');
  const connection = await Connection.connect({ address: server.address });
  try {
    // protobufjs encodes a plain number for an int64 field
    const seconds = Math.round(days * 86_400);
    await connection.workflowService.updateNamespace({
      namespace: server.namespace,
      config: { workflowExecutionRetentionTtl: { seconds: seconds as unknown as Long } },
    });
  } finally {
    await connection.close();
  }
}

/**
 * The real server behind the embedded server's options ({@link DevServerOptions}), so that
 * a test environment runs unchanged on either: headless, on a free port unless one is given.
 */
export async function startTemporalDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const server = await startTemporalCliServer({
    port: options.port ?? 0,
    ip: options.ip,
    uiPort: null,
    db: options.db,
    namespace: options.namespace,
    searchAttributes: options.searchAttributes,
  });
  await setRetention(server, options.retentionDays ?? 1);
  return { address: server.address, namespace: server.namespace, shutdown: server.shutdown };
}
