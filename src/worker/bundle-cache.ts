/**
 * A workflow bundle kept on disk between test processes. Each test file runs in its own
 * process and bundled the same workflow code again (about 3.5 s of CPU each, some sixty
 * times per `npm test`). The key covers every input of the bundle: the TypeScript under
 * src/, the files beside the workflows and interceptor modules (test fixtures), the
 * package lock (the SDK's version) and the options; anything else changed means a new
 * key. Written to a temporary name and renamed, so parallel processes never read half a
 * bundle. Only when running from the repository's TypeScript; `NAVIGATOR_BUNDLE_CACHE=0` turns it off.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DIR = join(ROOT, 'node_modules', '.cache', 'navigator-on-temporal', 'bundles');
const FROM_SOURCES = fileURLToPath(import.meta.url).endsWith('.ts');

/** The cached bundle for these inputs, or the one `make` builds (then kept). */
export async function cachedBundle(inputs: readonly string[], make: () => Promise<WorkflowBundleWithSourceMap>): Promise<WorkflowBundleWithSourceMap> {
  // only from this repository's sources (tests, benches); an installed package bundles as always
  if (process.env.NAVIGATOR_BUNDLE_CACHE === '0' || !FROM_SOURCES) return make();
  const file = join(DIR, `${bundleKey(inputs)}.json`);
  if (existsSync(file)) {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as WorkflowBundleWithSourceMap;
    } catch {
      // unreadable: build it again below
    }
  }
  const bundle = await make();
  mkdirSync(DIR, { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, JSON.stringify({ code: bundle.code, sourceMap: bundle.sourceMap }));
  renameSync(tmp, file);
  return bundle;
}

function bundleKey(inputs: readonly string[]): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(inputs));
  const dirs = new Set([join(ROOT, 'src'), ...inputs.filter((p) => p.startsWith('/')).map((p) => dirname(p))]);
  for (const dir of [...dirs].sort()) for (const f of filesUnder(dir)) hash.update(f).update(readFileSync(f));
  const lock = join(ROOT, 'package-lock.json');
  if (existsSync(lock)) hash.update(readFileSync(lock));
  return hash.digest('hex').slice(0, 32);
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (name === 'node_modules') continue;
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else if (/\.(ts|js|mjs|cjs|json)$/.test(name)) out.push(path);
  }
  return out;
}
