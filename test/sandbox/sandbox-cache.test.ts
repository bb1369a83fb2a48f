/**
 * What the sandbox keeps between programs changes no result: a mission's next program
 * takes the namespace entries its thread read before (and only its own), entries the
 * program left alone come back as the very values sent (as in-process), the host reads a
 * mission's results once, a thread stopped
 * from outside takes its cache with it and the next program reads everything again, and
 * a tool's arguments are validated on the host once per program.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Namespace, RunOptions, RunResult } from '../../src/lisp/api.ts';
import { deserializeNamespace, run } from '../../src/lisp/index.ts';
import { prStr } from '../../src/lisp/printer/index.ts';
import type { ToolDef } from '../../src/lisp/tools.ts';
import { closeSandboxes, runSandboxed, sandboxStats } from '../../src/sandbox/index.ts';

afterAll(() => closeSandboxes());

const NS = {
  threshold: '40',
  users: '[{:name "ann" :age 50} {:name "bo" :age 20} {:name "cy" :age 45}]',
  'senior?': '(fn senior? [u] (>= (:age u) threshold))',
  'names-of': '(let [k :name] (fn names-of [us] (mapv k us)))',
};
const PROGRAM = '(def seniors (filter senior? users)) (names-of seniors)';

/** The namespace as the pass reads it before each program: new values every time. */
const fresh = (rec: Record<string, string> = NS): Promise<Namespace> => deserializeNamespace(rec);

function comparable(r: RunResult): unknown {
  return {
    status: r.status,
    value: r.status === 'ok' || r.status === 'fail' ? prStr(r.value) : r.status === 'error' ? r.error.message : null,
    namespace: [...r.namespace].map(([k, v]) => [k, prStr(v)]),
  };
}

/** Runs in the sandbox and in-process; returns the sandbox's result and the entries its thread reused. */
async function both(source: string, opts: () => Promise<RunOptions>): Promise<{ result: RunResult; reused: number }> {
  const before = sandboxStats().entriesReused;
  const result = await runSandboxed(source, await opts());
  const reused = sandboxStats().entriesReused - before;
  expect(comparable(result)).toEqual(comparable(await run(source, await opts())));
  return { result, reused };
}

describe('namespaces kept per thread', () => {
  it("a mission's next program takes the entries its thread read before", async () => {
    const opts = async (): Promise<RunOptions> => ({ namespace: await fresh(), runId: 'mission-hit' });
    const first = await both(PROGRAM, opts);
    expect(first.reused).toBe(0);
    const second = await both(PROGRAM, opts);
    expect(second.reused).toBe(4);
    expect(second.result.status === 'ok' && prStr(second.result.value)).toBe('["ann" "cy"]');
  });

  it('entries the program left alone come back as the very values sent, as in-process', async () => {
    const namespace = await fresh();
    const sandboxed = await runSandboxed('(def threshold 30) (count users)', { namespace, runId: 'mission-identity' });
    const inProcess = await run('(def threshold 30) (count users)', { namespace });
    for (const name of ['users', 'senior?', 'names-of']) {
      expect(sandboxed.namespace.get(name)).toBe(namespace.get(name));
      expect(inProcess.namespace.get(name)).toBe(namespace.get(name));
    }
    expect(sandboxed.namespace.get('threshold')).toBe(30);
    expect([...sandboxed.namespace.keys()]).toEqual([...inProcess.namespace.keys()]);
  });

  it('a changed entry is read again, with the entries that name it', async () => {
    await both(PROGRAM, async () => ({ namespace: await fresh(), runId: 'mission-change' }));
    const changed = await both(PROGRAM, async () => ({
      namespace: await fresh({ ...NS, threshold: '18' }),
      runId: 'mission-change',
    }));
    // threshold and senior? (which names it) are read again; users and names-of are taken
    expect(changed.reused).toBe(2);
    expect(changed.result.status === 'ok' && prStr(changed.result.value)).toBe('["ann" "bo" "cy"]');
  });

  it('one mission never sees the namespace another kept', async () => {
    await both('(+ x 1)', async () => ({ namespace: await fresh({ x: '1' }), runId: 'mission-a' }));
    const b = await both('(+ x 1)', async () => ({ namespace: await fresh({ x: '1' }), runId: 'mission-b' }));
    expect(b.reused).toBe(0);
    const other = await both('(+ x 1)', async () => ({ namespace: await fresh({ x: '2' }), runId: 'mission-b' }));
    expect(other.result.status === 'ok' && other.result.value).toBe(3);
    const none = await both('(+ x 1)', async () => ({ runId: 'mission-b' }));
    expect(none.result.status === 'error' && none.result.error.code).toBe('unbound_var');
    const again = await both('(+ x 1)', async () => ({ namespace: await fresh({ x: '1' }), runId: 'mission-a' }));
    expect(again.reused).toBe(1);
  });

  it('a thread stopped from outside loses its cache, and nothing else', async () => {
    const opts = async (): Promise<RunOptions> => ({ namespace: await fresh(), runId: 'mission-killed' });
    await both(PROGRAM, opts);
    const namespace = await fresh();
    const stopped = await runSandboxed(
      '(def seniors []) (loop [i 0] (recur (inc i)))',
      { namespace, runId: 'mission-killed', limits: { fuel: 1e13, timeoutMs: 60_000 } },
      { hardLimitMs: 1000 },
    );
    expect(stopped.status === 'error' && stopped.error.code).toBe('limit_exceeded');
    expect([...stopped.namespace]).toEqual([...namespace]);
    const after = await both(PROGRAM, opts);
    expect(after.reused).toBe(0);
    expect(after.result.status === 'ok' && prStr(after.result.value)).toBe('["ann" "cy"]');
  });

  it('an entry defined again to the same source comes back as the value sent', async () => {
    const namespace = await fresh();
    const { result } = await both(`(defn senior? [u] (>= (:age u) threshold)) (def threshold 41) 1`, async () => ({
      namespace,
      runId: 'mission-same-source',
    }));
    expect(result.namespace.get('senior?')).toBe(namespace.get('senior?'));
    expect(result.namespace.get('threshold')).toBe(41);
  });

  it('the host reads a result once per mission: a pass defining a helper again takes the value it read', async () => {
    const helper = '(defn twice [x] (* 2 x)) (twice 21)';
    const first = await both(helper, async () => ({ runId: 'mission-host' }));
    const before = sandboxStats().resultEntriesReused;
    // a new pass of the same mission: empty namespace, the same helper and value
    const again = await both(helper, async () => ({ runId: 'mission-host' }));
    expect(sandboxStats().resultEntriesReused - before).toBe(2);
    expect(again.result.namespace.get('twice')).toBe(first.result.namespace.get('twice'));
    // another mission reads its own
    const other = await both(helper, async () => ({ runId: 'mission-host-other' }));
    expect(sandboxStats().resultEntriesReused - before).toBe(2);
    expect(other.result.namespace.get('twice')).not.toBe(first.result.namespace.get('twice'));
    // changed: read again; the value, 42 again and naming nothing, is taken
    const changed = await both('(defn twice [x] (+ x x)) (twice 21)', async () => ({ runId: 'mission-host' }));
    expect(sandboxStats().resultEntriesReused - before).toBe(3);
    expect(changed.result.namespace.get('twice')).not.toBe(first.result.namespace.get('twice'));
  });

  it('programs without a run id keep nothing', async () => {
    await both(PROGRAM, async () => ({ namespace: await fresh() }));
    const second = await both(PROGRAM, async () => ({ namespace: await fresh() }));
    expect(second.reused).toBe(0);
  });
});

describe('tool validation', () => {
  it('asks the host once per program and distinct arguments, though the program re-runs after each call', async () => {
    let checks = 0;
    const input = z.object({ id: z.number() }).refine(() => ++checks > 0);
    const tools: ToolDef[] = [
      {
        name: 'lookup',
        description: 'a read',
        input,
        sideEffect: 'read_only',
        handler: async ({ id }: { id: number }) => ({ score: id * 3 }),
      },
    ];
    const source = '(task "scores" (mapv #(:score (tool/lookup {:id %})) [1 2 3]))';
    const opts = (): RunOptions => ({ tools, journal: new Map(), runId: 'mission-tools' });
    const inProcess = await run(source, opts());
    const inProcessChecks = checks;
    checks = 0;
    const sandboxed = await runSandboxed(source, opts());
    expect(comparable(sandboxed)).toEqual(comparable(inProcess));
    expect([...sandboxed.journal!]).toEqual([...inProcess.journal!]);
    // in-process: 1 + 2 + 3 + 3 checks over the four runs; sandboxed: one validation per
    // call, and the handler's own parse on the host
    expect([inProcessChecks, checks]).toEqual([9, 6]);
  });

  it('a handler gets the arguments parsed as in-process, a schema with transforms applied once', async () => {
    const seen: unknown[] = [];
    const input = z.object({ name: z.string().transform((s) => s.length), tags: z.array(z.string()).default([]) });
    const tools: ToolDef[] = [
      {
        name: 'measure',
        description: 'measures',
        input,
        sideEffect: 'read_only',
        handler: async (args: unknown) => (seen.push(args), { ok: true }),
      },
    ];
    const source = '[(tool/measure {:name "abcd"}) (tool/measure {:name "xy" :tags ["t"]})]';
    const inProcess = await run(source, { tools, runId: 'mission-transform' });
    const handled = seen.splice(0);
    const sandboxed = await runSandboxed(source, { tools, runId: 'mission-transform' });
    expect(comparable(sandboxed)).toEqual(comparable(inProcess));
    expect(sandboxed.status).toBe('ok');
    expect(seen).toEqual(handled);
    expect(seen).toEqual([
      { name: 4, tags: [] },
      { name: 2, tags: ['t'] },
    ]);
  });
});
