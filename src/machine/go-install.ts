/**
 * Real servers the project runs as they are released (the Temporal CLI's `temporal server
 * start-dev`, Versity Gateway as an S3 server) are Go modules: prebuilt binaries cannot
 * always be downloaded, so each is built from the Go module proxy with `go install`,
 * pinned to one version, into a per-machine cache outside any clone, once per machine.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export class GoMissingError extends Error {
  constructor() {
    super(
      `Go is not installed (no 'go' on the PATH): building the Temporal CLI (and Versity Gateway, an S3 server for the real-server lane) needs Go 1.25 or newer. ` +
        `Install Go, or put a 'temporal' binary on the PATH, or set NAVIGATOR_TEMPORAL_CLI (NAVIGATOR_VERSITYGW) to one.`,
    );
    this.name = 'GoMissingError';
  }
}

export function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface GoInstall {
  /** e.g. github.com/temporalio/cli/cmd/temporal */
  module: string;
  version: string;
  /** the binary's name, which `go install` gives the last path element of the module */
  binary: string;
  /** the cache folder it goes to */
  dir: string;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

/**
 * Builds `module@version` into `dir` unless it is there already; returns the binary's path.
 * The build goes to a fresh folder first and is moved into place whole, so an interrupted
 * build never leaves a half-written binary where a finder looks.
 */
export function goInstallCached(spec: GoInstall): string {
  const env = spec.env ?? process.env;
  const target = join(spec.dir, spec.binary);
  if (executable(target)) return target;
  const go = spawnSync('go', ['version'], { encoding: 'utf8', env });
  if (go.error || go.status !== 0) throw new GoMissingError();
  mkdirSync(spec.dir, { recursive: true });
  const staging = mkdtempSync(join(spec.dir, 'build-'));
  try {
    spec.log?.(`building ${spec.module}@${spec.version} with ${go.stdout.trim()} (a few minutes, once per machine)`);
    const build = spawnSync('go', ['install', `${spec.module}@${spec.version}`], {
      env: { ...env, GOBIN: staging, CGO_ENABLED: '0' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (build.status !== 0)
      throw new Error(`go install ${spec.module}@${spec.version} failed (exit ${build.status ?? build.signal})`);
    renameSync(join(staging, spec.binary), target);
    return target;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
