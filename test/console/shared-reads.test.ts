/** Live streams watching the same thing share one reading per interval (src/console/shared-reads.ts). */
import { describe, expect, it } from 'vitest';
import { SharedReads } from '../../src/console/shared-reads.ts';

describe('SharedReads', () => {
  it('shares a reading younger than the interval, running or done, and reads again after it', async () => {
    let t = 0;
    let reads = 0;
    const shared = new SharedReads(256, () => t);
    const read = async () => ++reads;
    const first = shared.get('inbox', 500, read);
    expect(shared.get('inbox', 500, read)).toBe(first); // still running: the same promise
    expect(await first).toBe(1);
    t = 499;
    expect(await shared.get('inbox', 500, read)).toBe(1);
    t = 500;
    expect(await shared.get('inbox', 500, read)).toBe(2);
    expect(await shared.get('mission:a', 500, read)).toBe(3); // another key reads on its own
    expect(reads).toBe(3);
  });

  it('does not keep a failed reading', async () => {
    let fail = true;
    const shared = new SharedReads(256, () => 0);
    const read = async () => {
      if (fail) throw new Error('query failed');
      return 'ok';
    };
    await expect(shared.get('k', 500, read)).rejects.toThrow('query failed');
    fail = false;
    expect(await shared.get('k', 500, read)).toBe('ok');
  });

  it('keeps the last `max` keys read', async () => {
    let reads = 0;
    const shared = new SharedReads(2, () => 0);
    const read = async () => ++reads;
    await shared.get('a', 500, read);
    await shared.get('b', 500, read);
    await shared.get('c', 500, read); // a dropped
    expect(await shared.get('c', 500, read)).toBe(3);
    expect(await shared.get('a', 500, read)).toBe(4);
  });
});
