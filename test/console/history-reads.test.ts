/** What the console keeps of a workflow's reads: per point of its history (run and length), bounded, failures dropped. */
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { HistoryReads } from '../../src/console/history-reads.ts';

/** A client whose describe answers with each workflow's current run and history length, counting the calls. */
function fakeClient(histories: Map<string, { runId: string; historyLength: number }>): {
  client: Client;
  describes: () => number;
} {
  let describes = 0;
  const client = {
    workflow: {
      getHandle: (id: string) => ({
        describe: async () => {
          describes++;
          const h = histories.get(id);
          if (!h) throw new Error(`workflow ${id} not found`);
          return { workflowId: id, ...h, searchAttributes: {} };
        },
      }),
    },
  } as unknown as Client;
  return { client, describes: () => describes };
}

describe('HistoryReads', () => {
  it('reads a part once per point of history: again when the history grew or a new run began', async () => {
    const histories = new Map([['m', { runId: 'r1', historyLength: 10 }]]);
    const reads = new HistoryReads(fakeClient(histories).client);
    let loads = 0;
    const status = async () => `status ${++loads}`;
    expect(await (await reads.at('m')).get('status', status)).toBe('status 1');
    expect(await (await reads.at('m')).get('status', status)).toBe('status 1');
    // another part of the same point is its own read
    expect(await (await reads.at('m')).get('journal', async () => 'journal')).toBe('journal');
    histories.set('m', { runId: 'r1', historyLength: 12 });
    expect(await (await reads.at('m')).get('status', status)).toBe('status 2');
    histories.set('m', { runId: 'r2', historyLength: 12 });
    expect(await (await reads.at('m')).get('status', status)).toBe('status 3');
    expect(loads).toBe(3);
  });

  it('shares a read in flight, and keeps no failed read', async () => {
    const reads = new HistoryReads(fakeClient(new Map([['m', { runId: 'r', historyLength: 3 }]])).client);
    let loads = 0;
    let fail = true;
    const flaky = async () => {
      loads++;
      if (fail) throw new Error('no worker answered');
      return 'ok';
    };
    const at = await reads.at('m');
    const [a, b] = await Promise.allSettled([at.get('status', flaky), at.get('status', flaky)]);
    expect([a.status, b.status, loads]).toEqual(['rejected', 'rejected', 1]);
    fail = false;
    expect(await (await reads.at('m')).get('status', flaky)).toBe('ok');
    expect(loads).toBe(2);
  });

  it('keeps the last `max` workflows used, and says what describe said', async () => {
    const histories = new Map(['a', 'b', 'c'].map((id) => [id, { runId: `run-${id}`, historyLength: 1 }]));
    const reads = new HistoryReads(fakeClient(histories).client, 2);
    const loaded: string[] = [];
    const read = async (id: string) => (await reads.at(id)).get('status', async () => (loaded.push(id), id));
    await read('a');
    await read('b');
    await read('a'); // a is now the most recently used
    await read('c'); // b goes
    await read('a');
    await read('b');
    expect(loaded).toEqual(['a', 'b', 'c', 'b']);
    expect((await reads.at('c')).description.runId).toBe('run-c');
    await expect(reads.at('gone')).rejects.toThrow('workflow gone not found');
  });
});
