/**
 * A workflow bundle kept on disk between processes. Bundling the workflow code takes about
 * 3.5 s of CPU (15-17 s at load 19 on 2 cores): each test file runs in its own process,
 * and every CLI command that reads a closed run replays its history here against the
 * workflow code (src/history/replay.ts), so without this each `navigator status ID` bundled.
 *
 * An entry is found by its inputs (the workflow and interceptor modules, the options, the
 * versions of the SDK and of this package) and holds the bundle and the files it was made
 * of: the sources its inline source map lists, each with its hash. It is used only when
 * every one of those files is unchanged, so an edit elsewhere (another module of src/, a
 * test) keeps it, and an edit of any file in the bundle makes a new one (written over the
 * old, to a temporary name and renamed: parallel processes never read half a bundle).
 * Dependencies are not hashed: the package lock (from the sources) or the installed
 * versions (the package) are in the key.
 *
 * Kept in node_modules/.cache when running from the repository's TypeScript, else in the
 * per-user cache folder ($NAVIGATOR_CACHE_DIR, $XDG_CACHE_HOME/navigator-on-temporal or
 * ~/.cache/navigator-on-temporal, then bundles/). `NAVIGATOR_BUNDLE_CACHE=0` turns it off.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { cacheDirOf } from '../machine/folders.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const FROM_SOURCES = fileURLToPath(import.meta.url).endsWith('.ts');

interface Entry {
  code: string;
  /** [path, sha-256] of every file of this package the bundle was made of */
  files: Array<[string, string]>;
}

/** Where bundles are kept: the repository's node_modules/.cache from the sources, else the per-user cache folder. */
export function bundleCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return FROM_SOURCES
    ? join(ROOT, 'node_modules', '.cache', 'navigator-on-temporal', 'bundles')
    : cacheDirOf('bundles', env);
}

/** The cached bundle for these inputs if none of its files changed, or the one `make` builds (then kept). */
export function cachedBundle(
  inputs: readonly string[],
  make: () => Promise<WorkflowBundleWithSourceMap>,
): Promise<WorkflowBundleWithSourceMap> {
  if (process.env.NAVIGATOR_BUNDLE_CACHE === '0') return make();
  return cachedBundleIn(bundleCacheDir(), ROOT, inputs, make);
}

/** {@link cachedBundle} in `dir`, for a bundle made of files under `root` (tests give their own). */
export async function cachedBundleIn(
  dir: string,
  root: string,
  inputs: readonly string[],
  make: () => Promise<WorkflowBundleWithSourceMap>,
): Promise<WorkflowBundleWithSourceMap> {
  const file = join(dir, `${entryKey(inputs)}.json`);
  const kept = readEntry(file);
  if (kept) return { code: kept.code, sourceMap: 'deprecated: this is no longer in use\n' };
  const bundle = await make();
  try {
    const entry: Entry = { code: bundle.code, files: madeOf(bundle.code, root).map((f) => [f, hashOf(f)]) };
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(tmp, JSON.stringify(entry));
    renameSync(tmp, file);
  } catch {
    // a cache that cannot be written (read-only home, full disk) only costs the next bundling
  }
  return bundle;
}

/** The entry in `file` when every file it was made of is unchanged. */
function readEntry(file: string): Entry | null {
  if (!existsSync(file)) return null;
  try {
    const entry = JSON.parse(readFileSync(file, 'utf8')) as Entry;
    if (typeof entry.code !== 'string' || !Array.isArray(entry.files) || entry.files.length === 0) return null;
    for (const [path, hash] of entry.files) if (!existsSync(path) || hashOf(path) !== hash) return null;
    return entry;
  } catch {
    return null; // unreadable: built again
  }
}

function entryKey(inputs: readonly string[]): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(inputs));
  // dependencies: the lock in the repository; installed, the versions of this package and the SDK
  const lock = join(ROOT, 'package-lock.json');
  if (FROM_SOURCES && existsSync(lock)) hash.update(readFileSync(lock));
  else
    hash.update(
      JSON.stringify([
        packageVersion(join(ROOT, 'package.json')),
        packageVersion(createRequire(import.meta.url).resolve('@temporalio/worker/package.json')),
      ]),
    );
  return hash.digest('hex').slice(0, 32);
}

function packageVersion(path: string): string {
  try {
    return String((JSON.parse(readFileSync(path, 'utf8')) as { version?: string }).version);
  } catch {
    return '?';
  }
}

const SOURCE_MAP = /^\/\/# sourceMappingURL=data:application\/json;(?:charset=utf-8;)?base64,([A-Za-z0-9+/=]+)\s*$/;

/**
 * The files of this package a bundle was made of (the sources its inline source map lists,
 * outside node_modules); throws when the bundle has no source map to tell.
 */
export function madeOf(code: string, root = ROOT): string[] {
  const map = SOURCE_MAP.exec(code.slice(code.lastIndexOf('//# sourceMappingURL=')));
  if (!map) throw new Error('the bundle has no inline source map');
  const sources = (JSON.parse(Buffer.from(map[1]!, 'base64').toString('utf8')) as { sources?: string[] }).sources ?? [];
  const mine = sources.filter(
    (s) => s.startsWith(root + sep) && !s.startsWith(join(root, 'node_modules') + sep) && existsSync(s),
  );
  if (mine.length === 0) throw new Error('the source map of the bundle names none of its files');
  return [...new Set(mine)].sort();
}

function hashOf(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}
