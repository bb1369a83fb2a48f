/**
 * The workflow bundle cache (src/devserver/bundle-cache.ts): an entry is used while every
 * file its source map names is unchanged, whatever else changes, and made again when one
 * of them changes; a bundle without a source map to tell is not kept.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cachedBundleIn, madeOf } from '../../src/workflows/bundle-cache.ts';

/** Bundle code whose inline source map names `sources`, as webpack's does. */
function codeOf(text: string, sources: string[]): string {
  const map = Buffer.from(JSON.stringify({ version: 3, sources, mappings: '' })).toString('base64');
  return `${text}\n//# sourceMappingURL=data:application/json;charset=utf-8;base64,${map}\n`;
}

describe('bundle cache', () => {
  it('keeps a bundle while the files it was made of are unchanged, and makes it again when one changes', async () => {
    const root = mkdtempSync(join(tmpdir(), 'bundle-root-'));
    const dir = mkdtempSync(join(tmpdir(), 'bundle-cache-'));
    const [a, b, other] = ['a.ts', 'b.ts', 'other.ts'].map((f) => join(root, f)) as [string, string, string];
    for (const f of [a, b, other]) writeFileSync(f, `// ${f}`);
    let made = 0;
    const make = async () => ({
      code: codeOf(`bundle ${++made}`, [a, b, join(root, 'node_modules', 'dep.js'), '/elsewhere/lib.ts']),
      sourceMap: '',
    });
    const get = () => cachedBundleIn(dir, root, [a], make);

    expect((await get()).code).toContain('bundle 1');
    expect((await get()).code).toContain('bundle 1');
    writeFileSync(other, '// changed, not in the bundle');
    expect((await get()).code).toContain('bundle 1');
    writeFileSync(b, '// changed');
    expect((await get()).code).toContain('bundle 2');
    expect((await get()).code).toContain('bundle 2');
    // other inputs are another entry
    expect((await cachedBundleIn(dir, root, [a, b], make)).code).toContain('bundle 3');
    expect(made).toBe(3);
  });

  it('names only the files under the root, outside node_modules; a bundle without a source map is made each time', async () => {
    const root = mkdtempSync(join(tmpdir(), 'bundle-root-'));
    const a = join(root, 'a.ts');
    writeFileSync(a, '');
    expect(madeOf(codeOf('x', [a, join(root, 'node_modules', 'dep.js'), join(root, 'gone.ts')]), root)).toEqual([a]);
    expect(() => madeOf('no map', root)).toThrow('no inline source map');
    const dir = mkdtempSync(join(tmpdir(), 'bundle-cache-'));
    let made = 0;
    const make = async () => ({ code: `plain ${++made}`, sourceMap: '' });
    await cachedBundleIn(dir, root, [a], make);
    await cachedBundleIn(dir, root, [a], make);
    expect(made).toBe(2);
  });
});
