/**
 * Live streams watching the same thing share readings (src/console/shared-reads.ts), and a
 * stream is never given a reading that started before the time it names: a new page's
 * stream names the moment it connected, so it never sees what was read before the page.
 */
import { describe, expect, it } from 'vitest';
import { SharedReads } from '../../src/console/shared-reads.ts';
import { LiveStreams, createConsoleApp } from '../../src/console/server.ts';
import type { NavigatorClient } from '../../src/client/index.ts';

describe('SharedReads', () => {
  it('shares a reading started at or after the time asked for, running or done', async () => {
    let t = 0;
    let reads = 0;
    const shared = new SharedReads(256, () => t);
    const read = async () => ++reads;
    const [a, b] = await Promise.all([shared.get('inbox', 0, read), shared.get('inbox', 0, read)]); // the second joins the running one
    expect([a, b]).toEqual([
      { value: 1, startedAt: 0 },
      { value: 1, startedAt: 0 },
    ]);
    t = 400;
    expect(await shared.get('inbox', -100, read)).toEqual({ value: 1, startedAt: 0 }); // a stream polling again within the interval
    expect(await shared.get('mission:a', 0, read)).toEqual({ value: 2, startedAt: 400 }); // another key reads on its own
    expect(reads).toBe(2);
  });

  it('never gives a reading that started before the time asked for: a page connected after an action reads anew', async () => {
    let t = 0;
    let value = 'before the approval';
    const shared = new SharedReads(256, () => t);
    const read = async () => value;
    expect((await shared.get('mission:m', 0, read)).value).toBe('before the approval');
    // the approval lands, the page is rendered from it, and its stream connects at t = 10
    value = 'approved';
    t = 10;
    expect(await shared.get('mission:m', 10, read)).toEqual({ value: 'approved', startedAt: 10 });
  });

  it('does not keep a failed reading', async () => {
    let fail = true;
    const shared = new SharedReads(256, () => 0);
    const read = async () => {
      if (fail) throw new Error('query failed');
      return 'ok';
    };
    await expect(shared.get('k', 0, read)).rejects.toThrow('query failed');
    fail = false;
    expect((await shared.get('k', 0, read)).value).toBe('ok');
  });

  it('keeps the last `max` keys read', async () => {
    let reads = 0;
    const shared = new SharedReads(2, () => 0);
    const read = async () => ++reads;
    await shared.get('a', 0, read);
    await shared.get('b', 0, read);
    await shared.get('c', 0, read); // a dropped
    expect((await shared.get('c', 0, read)).value).toBe(3);
    expect((await shared.get('a', 0, read)).value).toBe(4);
  });
});

describe('live streams of one console', () => {
  /** Opens `n` inbox streams for `ms` on a console whose navigator only counts its list calls. */
  async function listCalls(n: number, ms: number): Promise<number> {
    let calls = 0;
    const navigator = { client: {}, list: async () => (calls++, []) } as unknown as NavigatorClient;
    const streams = new LiveStreams();
    const app = createConsoleApp({ navigator, user: 'ana', pollMs: 50, noAuth: true }, streams);
    const aborts = Array.from({ length: n }, () => new AbortController());
    const open = aborts.map(async (abort) => {
      const res = await app.request('http://localhost/live/inbox', { signal: abort.signal });
      const reader = res.body!.getReader();
      while (!(await reader.read().catch(() => ({ done: true }))).done);
    });
    await new Promise((resolve) => setTimeout(resolve, ms));
    for (const a of aborts) a.abort();
    await streams.stop();
    await Promise.allSettled(open);
    return calls;
  }

  it('three pages watching the inbox ask the cluster about as often as one', { timeout: 30_000 }, async () => {
    const one = await listCalls(1, 1000);
    const three = await listCalls(3, 1000);
    expect(one).toBeGreaterThan(4);
    // each reading lists missions and plans; unshared, three pages would make three times the calls
    expect(three).toBeLessThan(2 * one);
  });
});
