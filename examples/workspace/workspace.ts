/**
 * A sandboxed file workspace: a directory (WORKSPACE_DIR, default `.navigator/workspace`)
 * that tools read and write by relative path. Paths that escape it (`..`, absolute paths,
 * symlinks pointing outside) are refused. Changes are applied once per idempotency key:
 * `.navigator-ops.jsonl` in the root records each applied change, and a change whose key
 * is already there returns the recorded result without touching the files again (a
 * retried or redelivered step is applied once).
 */
import {
  type Stats,
  appendFileSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export const OPS_FILE = '.navigator-ops.jsonl';
export const SEED_CONFIG = { name: 'demo-app', version: '1.4.2' };
/** Where create_tag keeps tags: one JSON file per tag (a stand-in for a repository's tag refs). */
export const TAGS_DIR = '.tags';

/** The project files a release touches, as first seeded. */
export const SEED_FILES: Readonly<Record<string, string>> = {
  'config.json': JSON.stringify(SEED_CONFIG, null, 2) + '\n',
  'README.md': '# demo-app\n\nA small app whose config the workspace agent maintains.\n',
  'package.json': JSON.stringify({ name: 'demo-app', version: '1.4.2', private: true }, null, 2) + '\n',
  'src/version.ts': "export const VERSION = '1.4.2';\n",
  'CHANGELOG.md': '# Changelog\n\n## 1.4.2\n\n- Settings move to config.json.\n',
};

export interface OpRecord {
  key: string;
  operation: 'write_file' | 'copy_file' | 'create_tag';
  args: { [k: string]: Json };
  outcome: 'applied' | 'deduplicated';
  result: Json;
  at: string;
}

export class WorkspaceError extends Error {
  override readonly name = 'WorkspaceError';
}

/** The workspace root, created and seeded on first use. */
export function workspaceRoot(): string {
  const root = resolve(process.env.WORKSPACE_DIR || join('.navigator', 'workspace'));
  if (!existsSync(root)) mkdirSync(root, { recursive: true });
  if (readdirSync(root).length === 0) {
    for (const [path, content] of Object.entries(SEED_FILES)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content);
    }
  }
  return root;
}

/** An absolute path inside the root, or a WorkspaceError naming the escape. */
export function inside(root: string, path: string): string {
  if (typeof path !== 'string' || path === '') throw new WorkspaceError('path must be a non-empty relative path');
  if (isAbsolute(path))
    throw new WorkspaceError(`${path}: absolute paths are not allowed; use a path relative to the workspace`);
  const target = resolve(root, path);
  const rel = relative(root, target);
  if (rel === '') throw new WorkspaceError(`${path}: is the workspace itself, not a file in it`);
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel))
    throw new WorkspaceError(`${path}: escapes the workspace`);
  if (rel.split(sep)[0] === OPS_FILE) throw new WorkspaceError(`${path}: is the workspace's operation log`);
  if (rel.split(sep)[0] === TAGS_DIR)
    throw new WorkspaceError(`${path}: is where the workspace keeps its tags (create_tag makes them)`);
  // A symlink (the file itself, or a directory on the way) may point outside; a dangling
  // one would make a write create its target wherever it points.
  const existing = nearestExisting(target);
  let real: string;
  try {
    real = realpathSync(existing);
  } catch {
    throw new WorkspaceError(`${path}: leads through a symbolic link that points nowhere`);
  }
  if (!within(realpathSync(root), real))
    throw new WorkspaceError(`${path}: leads outside the workspace through a symbolic link`);
  return target;
}

const within = (root: string, real: string): boolean => real === root || real.startsWith(root + sep);

/** The path itself or its nearest ancestor that exists (a dangling symlink counts as existing). */
function nearestExisting(path: string): string {
  let p = path;
  while (!lstatOrNull(p)) p = dirname(p);
  return p;
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

function linkedFileInside(realRoot: string, link: string): boolean {
  try {
    const real = realpathSync(link);
    return within(realRoot, real) && statSync(real).isFile();
  } catch {
    return false;
  }
}

/** Every record of the operation log, in order: applied changes and deduplicated repeats. */
export function readOps(root = workspaceRoot()): OpRecord[] {
  const file = join(root, OPS_FILE);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as OpRecord);
}

/** The changes actually made (a repeated key is logged as `deduplicated`, not applied again). */
export function appliedOps(root = workspaceRoot()): OpRecord[] {
  return readOps(root).filter((r) => r.outcome === 'applied');
}

/** Applies a change once per key; a repeated key returns the first result. */
function once(
  root: string,
  key: string,
  operation: OpRecord['operation'],
  args: OpRecord['args'],
  apply: () => Json,
): Json {
  if (typeof key !== 'string' || key === '')
    throw new WorkspaceError(`${operation}: a change needs an idempotency key`);
  const first = readOps(root).find((r) => r.key === key && r.outcome === 'applied');
  const record = (outcome: OpRecord['outcome'], result: Json) =>
    appendFileSync(
      join(root, OPS_FILE),
      JSON.stringify({ key, operation, args, outcome, result, at: new Date().toISOString() }) + '\n',
    );
  if (first) {
    record('deduplicated', first.result);
    return first.result;
  }
  const result = apply();
  record('applied', result);
  return result;
}

/** One check of the project's test suite. */
export interface TestOutcome {
  name: string;
  ok: boolean;
  message?: string;
}

/**
 * The project's test suite: package.json is valid and has a version, src/version.ts
 * exports that version, CHANGELOG.md has an entry for it.
 */
function projectTests(root: string): TestOutcome[] {
  const read = (path: string): string | null =>
    existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : null;
  let version: string | null = null;
  const pkg = read('package.json');
  const outcomes: TestOutcome[] = [];
  const check = (name: string, message: string | null) =>
    outcomes.push(message === null ? { name, ok: true } : { name, ok: false, message });
  try {
    const parsed = pkg === null ? null : (JSON.parse(pkg) as { version?: unknown });
    version = typeof parsed?.version === 'string' ? parsed.version : null;
    check(
      'package.json has a version',
      pkg === null ? 'package.json is missing' : version === null ? 'package.json has no "version" string' : null,
    );
  } catch (err) {
    check('package.json has a version', `package.json is not JSON: ${(err as Error).message}`);
  }
  const exported = /export const VERSION = ['"]([^'"]*)['"]/.exec(read('src/version.ts') ?? '')?.[1] ?? null;
  check(
    'src/version.ts matches package.json',
    exported === version
      ? null
      : `src/version.ts exports ${exported === null ? 'no VERSION' : JSON.stringify(exported)}, package.json has ${JSON.stringify(version)}`,
  );
  const changelog = read('CHANGELOG.md') ?? '';
  check(
    'CHANGELOG.md has an entry for the version',
    version !== null && changelog.split('\n').includes(`## ${version}`)
      ? null
      : `CHANGELOG.md has no "## ${version}" entry`,
  );
  return outcomes;
}

export const workspace = {
  /** Runs the project's tests (reads only). */
  test(): { passed: number; failed: number; tests: TestOutcome[] } {
    const tests = projectTests(workspaceRoot());
    const failed = tests.filter((t) => !t.ok).length;
    return { passed: tests.length - failed, failed, tests };
  },

  /** Creates a release tag of the project's current version, once per key; an existing tag is refused. */
  tag(name: string, message: string, key: string): Json {
    const root = workspaceRoot();
    if (!/^[A-Za-z0-9._-]+$/.test(name))
      throw new WorkspaceError(`${name}: a tag name is letters, digits, '.', '_' and '-'`);
    const file = join(root, TAGS_DIR, `${name}.json`);
    return once(root, key, 'create_tag', { name, message }, () => {
      if (existsSync(file)) throw new WorkspaceError(`tag ${name} already exists`);
      const version =
        (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: string }).version ?? null;
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify({ tag: name, message, version }, null, 2) + '\n');
      return { tag: name, version };
    });
  },

  /** The tags created so far. */
  tags(): Array<{ tag: string; message: string; version: string | null }> {
    const dir = join(workspaceRoot(), TAGS_DIR);
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .sort()
      .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')));
  },

  read(path: string): { path: string; content: string } {
    const file = inside(workspaceRoot(), path);
    if (!existsSync(file) || !statSync(file).isFile()) throw new WorkspaceError(`${path}: no such file`);
    return { path, content: readFileSync(file, 'utf8') };
  },

  list(dir = '.'): { files: string[] } {
    const root = workspaceRoot();
    const base = dir === '.' || dir === '' ? root : inside(root, dir);
    if (!existsSync(base) || !statSync(base).isDirectory()) throw new WorkspaceError(`${dir}: no such directory`);
    const files: string[] = [];
    const realRoot = realpathSync(root);
    // Symbolic links are listed only when they lead to a file inside; linked directories
    // are not followed (they could lead outside, or in circles).
    const walk = (d: string) => {
      for (const name of readdirSync(d).sort()) {
        const full = join(d, name);
        const rel = relative(root, full);
        if (rel === OPS_FILE || rel === TAGS_DIR) continue;
        const stat = lstatSync(full);
        if (stat.isDirectory()) walk(full);
        else if (stat.isFile() || (stat.isSymbolicLink() && linkedFileInside(realRoot, full)))
          files.push(rel.split(sep).join('/'));
      }
    };
    walk(base);
    return { files };
  },

  write(path: string, content: string, key: string): Json {
    const root = workspaceRoot();
    const file = inside(root, path);
    if (existsSync(file) && statSync(file).isDirectory()) throw new WorkspaceError(`${path}: is a directory`);
    return once(root, key, 'write_file', { path, content }, () => {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
      return { path, bytes: Buffer.byteLength(content) };
    });
  },

  copy(from: string, to: string, key: string): Json {
    const root = workspaceRoot();
    const source = inside(root, from);
    const target = inside(root, to);
    if (!existsSync(source) || !statSync(source).isFile()) throw new WorkspaceError(`${from}: no such file`);
    if (existsSync(target) && statSync(target).isDirectory()) throw new WorkspaceError(`${to}: is a directory`);
    return once(root, key, 'copy_file', { from, to }, () => {
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(source, target);
      return { from, to, bytes: statSync(target).size };
    });
  },
};
