/**
 * The per-thread namespace cache offers an entry only when reading it again would give
 * the same value: same mission, limits and tools, same source, and nothing it mentions
 * came, went or changed; bounded by missions and characters.
 */
import { describe, expect, it } from 'vitest';
import { deserializeNamespace } from '../../src/lisp/index.ts';
import { NamespaceCache, readingContext } from '../../src/sandbox/namespace-cache.ts';

const CTX = readingContext({ fuel: 1000 }, ['lookup']);
const REC = {
  threshold: '40',
  users: '[{:age 50} {:age 20}]',
  'senior?': '(fn senior? [u] (>= (:age u) threshold))',
  'by-ten': '(partial + 10)',
};

async function kept(
  rec: Record<string, string> = REC,
  mission = 'm1',
  cache = new NamespaceCache(),
): Promise<NamespaceCache> {
  cache.keep(mission, CTX, rec, await deserializeNamespace(rec));
  return cache;
}

describe('NamespaceCache', () => {
  it('offers every entry, as read, for the same record of the same mission', async () => {
    const read = await deserializeNamespace(REC);
    const cache = new NamespaceCache();
    cache.keep('m1', CTX, REC, read);
    const hit = cache.reusable('m1', CTX, { ...REC });
    expect([...hit.keys()]).toEqual(Object.keys(REC));
    for (const [name, v] of hit) expect(v).toBe(read.get(name));
  });

  it('reads a changed entry again, and the entries whose source names it', async () => {
    const cache = await kept();
    const hit = cache.reusable('m1', CTX, { ...REC, threshold: '10' });
    expect([...hit.keys()]).toEqual(['users', 'by-ten']);
  });

  it('reads dependants of dependants again', async () => {
    const rec = { a: '1', b: '(partial + a)', c: '(partial b 2)', d: '3' };
    const cache = await kept(rec);
    expect([...cache.reusable('m1', CTX, { ...rec, a: '2' }).keys()]).toEqual(['d']);
  });

  it('keeps entries when a name they do not mention comes, and reads again those that mention it', async () => {
    const cache = await kept();
    expect([...cache.reusable('m1', CTX, { ...REC, picked: '[1 2]' }).keys()]).toEqual(Object.keys(REC));
    // `age` appears in senior?'s source and in users' (as a keyword: the check is textual, so cautious)
    expect([...cache.reusable('m1', CTX, { ...REC, age: '1' }).keys()]).toEqual(['threshold', 'by-ten']);
  });

  it('reads everything again when a core name comes or goes (analysis may resolve it anew)', async () => {
    const cache = await kept();
    expect(cache.reusable('m1', CTX, { ...REC, count: '(fn [x] 0)' }).size).toBe(0);
  });

  it('reads everything again when the order, the limits or the tools differ', async () => {
    const cache = await kept();
    const [first, ...rest] = Object.entries(REC);
    expect(cache.reusable('m1', CTX, Object.fromEntries([...rest, first!])).size).toBe(0);
    expect(cache.reusable('m1', readingContext({ fuel: 999 }, ['lookup']), REC).size).toBe(0);
    expect(cache.reusable('m1', readingContext({ fuel: 1000 }, []), REC).size).toBe(0);
    expect(cache.reusable('m1', CTX, REC).size).toBe(4);
  });

  it('never offers one mission the entries of another, even for the same source', async () => {
    const cache = await kept(REC, 'mission-a');
    expect(cache.reusable('mission-b', CTX, REC).size).toBe(0);
    cache.keep('mission-b', CTX, { threshold: '7' }, await deserializeNamespace({ threshold: '7' }));
    expect(cache.reusable('mission-a', CTX, REC).get('threshold')).toBe(40);
    expect(cache.reusable('mission-b', CTX, { threshold: '7' }).get('threshold')).toBe(7);
  });

  it('keeps at most maxMissions namespaces, the least recently used dropped first', async () => {
    const cache = new NamespaceCache(2, 1_000_000);
    await kept(REC, 'a', cache);
    await kept(REC, 'b', cache);
    cache.reusable('a', CTX, REC);
    await kept(REC, 'c', cache);
    expect([cache.has('a'), cache.has('b'), cache.has('c')]).toEqual([true, false, true]);
    expect(cache.stats().missions).toBe(2);
  });

  it('keeps at most maxChars characters of source, and never a record bigger than that', async () => {
    const size = Object.values(REC).reduce((n, s) => n + s.length, 0);
    const cache = new NamespaceCache(16, size * 2);
    await kept(REC, 'a', cache);
    await kept(REC, 'b', cache);
    expect(cache.stats()).toEqual({ missions: 2, chars: size * 2 });
    await kept(REC, 'c', cache);
    expect([cache.has('a'), cache.has('b'), cache.has('c')]).toEqual([false, true, true]);
    const big = { data: `"${'x'.repeat(size * 3)}"` };
    await kept(big, 'big', cache);
    expect(cache.has('big')).toBe(false);
    expect(cache.stats()).toEqual({ missions: 2, chars: size * 2 });
  });

  it('forgets a mission whose new record is not kept', async () => {
    const cache = new NamespaceCache(16, 100);
    await kept(REC, 'a', cache);
    await kept({ data: `"${'x'.repeat(200)}"` }, 'a', cache);
    expect(cache.reusable('a', CTX, REC).size).toBe(0);
    expect(cache.stats()).toEqual({ missions: 0, chars: 0 });
  });
});
