/**
 * `--db FILE` storage: the append-only log (round trip, deletes, torn writes, compaction,
 * the old whole-file format), the engine's marks reaching it, and a server killed with
 * SIGKILL while workflows are being started keeping every start it answered.
 */
import { Client, Connection } from '@temporalio/client';
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/devserver/engine.ts';
import { startWorkflowExecution, terminateWorkflowExecution } from '../../src/devserver/lifecycle.ts';
import type { ServerState } from '../../src/devserver/model.ts';
import { newNamespace } from '../../src/devserver/namespaces.ts';
import { FileStore } from '../../src/devserver/persistence.ts';
import { sweepRetention } from '../../src/devserver/retention.ts';
import { hooks } from '../../src/devserver/timeouts.ts';

const dir = mkdtempSync(join(tmpdir(), 'devserver-storage-'));
let files = 0;
const newFile = () => join(dir, `state-${++files}.db`);

/** State with an extra top-level map, as a later ServerState may have. */
type TestState = ServerState & { extras: Record<string, unknown> };

function emptyState(): TestState {
  return { namespaces: {}, runs: {}, chains: {}, extras: {} };
}

/** What a fresh store loads from `path`. */
function reload(path: string): TestState {
  return new FileStore(path).open(emptyState()) as TestState;
}

function lines(path: string): string[] {
  return readFileSync(path, 'utf8').split('\n').filter(Boolean);
}

/** A store on a new file holding a namespace, a run, its chain and an extra entry. */
function populated(): { path: string; store: FileStore; state: TestState } {
  const path = newFile();
  const store = new FileStore(path);
  const state = store.open(emptyState()) as TestState;
  state.namespaces.default = newNamespace('default');
  state.runs['default|wf|r1'] = { workflowId: 'wf', note: 'línea\nwith newline' } as never;
  state.chains['default|wf'] = ['r1'];
  state.extras.nightly = { cron: '0 0 * * *' };
  store.changed('namespaces', 'default');
  store.changed('runs', 'default|wf|r1');
  store.changed('chains', 'default|wf');
  store.changed('extras', 'nightly');
  store.flush();
  return { path, store, state };
}

describe('log store', () => {
  it('round-trips every top-level map, the ones it was never told about included', () => {
    const { path, state, store } = populated();
    expect(reload(path)).toEqual(state);
    store.close();
  });

  it('appends only the changed entries, each write ending with a commit', () => {
    const { path, state, store } = populated();
    const before = lines(path).length;
    (state.runs['default|wf|r1'] as unknown as Record<string, unknown>).note = 'changed';
    store.changed('runs', 'default|wf|r1');
    store.flush();
    const added = lines(path)
      .slice(before)
      .map((l) => JSON.parse(l));
    expect(added).toEqual([
      { c: 'runs', k: 'default|wf|r1', v: { workflowId: 'wf', note: 'changed' } },
      { commit: expect.any(Number) },
    ]);
    store.flush(); // nothing marked: nothing written
    expect(lines(path).length).toBe(before + 2);
    expect(reload(path)).toEqual(state);
    store.close();
  });

  it('lets the calls of one event-loop turn wait for one shared write', async () => {
    const { path, state, store } = populated();
    const commits = () => lines(path).filter((l) => l.startsWith('{"commit"')).length;
    const before = commits();
    expect(store.persisted()).toBeUndefined(); // nothing pending
    state.chains['default|a'] = ['1'];
    store.changed('chains', 'default|a');
    const first = store.persisted();
    state.chains['default|b'] = ['2'];
    store.changed('chains', 'default|b');
    const second = store.persisted();
    expect(commits()).toBe(before); // not written yet: at the end of this turn
    await Promise.all([first, second]);
    expect(commits()).toBe(before + 1);
    expect(reload(path)).toEqual(state);
    expect(store.persisted()).toBeUndefined();
    store.close();
  });

  it('writes deletes, whole maps and whole states', () => {
    const { path, state, store } = populated();
    delete state.runs['default|wf|r1'];
    delete state.chains['default|wf'];
    store.changed('runs', 'default|wf|r1');
    store.changed('chains', 'default|wf');
    store.flush();
    expect(
      lines(path)
        .slice(-3, -1)
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { c: 'runs', k: 'default|wf|r1', v: null },
      { c: 'chains', k: 'default|wf', v: null },
    ]);
    expect(reload(path)).toEqual(state);

    state.extras = { weekly: { cron: '0 0 * * 0' } };
    store.changed('extras');
    store.flush();
    expect(reload(path)).toEqual(state);

    state.namespaces.other = newNamespace('other');
    store.changed();
    store.flush();
    expect(reload(path)).toEqual(state);
    store.close();
  });

  it('ignores a torn last line and an uncommitted write, and appends after them cleanly', () => {
    const { path, state, store } = populated();
    store.close();
    const committed = readFileSync(path, 'utf8');
    // a write killed after its first record, in the middle of its second line
    appendFileSync(
      path,
      `${JSON.stringify({ c: 'runs', k: 'default|wf|r2', v: { workflowId: 'wf' } })}\n{"c":"chains","k":"def`,
    );
    expect(reload(path)).toEqual(state);

    const again = new FileStore(path);
    const restored = again.open(emptyState()) as TestState;
    restored.chains['default|wf'] = ['r1', 'r3'];
    again.changed('chains', 'default|wf');
    again.flush();
    again.close();
    expect(readFileSync(path, 'utf8').startsWith(committed)).toBe(true);
    expect(reload(path)).toEqual({ ...state, chains: { 'default|wf': ['r1', 'r3'] } });
  });

  it('refuses a file with a bad line before its end, or of another format', () => {
    const { path, store } = populated();
    store.close();
    const [header, ...rest] = lines(path);
    writeFileSync(path, `${[header, '{"c":"runs","k', ...rest].join('\n')}\n`);
    expect(() => reload(path)).toThrow(/corrupt/);
    const other = newFile();
    writeFileSync(other, '{"format":"something-else"}\n');
    expect(() => reload(other)).toThrow(/not a navigator dev server database/);
  });

  it('compacts a log grown past four times its last snapshot into one line per entry', () => {
    const { path, state, store } = populated();
    const big = 'x'.repeat(100_000);
    let shrank = false;
    for (let i = 0; i < 60; i++) {
      state.extras.nightly = { cron: '0 0 * * *', big, i };
      store.changed('extras', 'nightly');
      const size = statSync(path).size;
      store.flush();
      if (statSync(path).size < size) shrank = true;
      expect(reload(path)).toEqual(state);
    }
    expect(shrank).toBe(true);
    expect(statSync(path).size).toBeLessThan(5 * 1024 * 1024);
    store.close();
  });

  it('loads a file of the old whole-state format and rewrites it as a log', () => {
    const path = newFile();
    const old = {
      namespaces: { default: newNamespace('default') },
      runs: { 'default|a|1': { workflowId: 'a' } },
      chains: { 'default|a': ['1'] },
    };
    writeFileSync(path, JSON.stringify({ format: 'navigator-devserver/1', state: old }));
    const store = new FileStore(path);
    expect(store.open(emptyState())).toEqual({ ...old, extras: {} });
    store.flush();
    expect(JSON.parse(lines(path)[0]!)).toEqual({ format: 'navigator-devserver/2' });
    expect(reload(path)).toEqual({ ...old, extras: {} });
    store.close();
  });
});

describe('engine marks', () => {
  it('persist starts, closes and retention deletes without a whole-state write', () => {
    const path = newFile();
    const store = new FileStore(path);
    const state = store.open(emptyState());
    state.namespaces.default = newNamespace('default');
    store.compact();
    const engine = new Engine(
      state,
      hooks((collection, key) => store.changed(collection, key)),
    );
    const start = (workflowId: string) =>
      startWorkflowExecution(engine, {
        namespace: 'default',
        workflowId,
        workflowType: { name: 'w' },
        taskQueue: { name: 'q' },
        requestId: workflowId,
      });
    for (const id of ['a', 'b']) start(id);
    store.flush();
    terminateWorkflowExecution(engine, {
      namespace: 'default',
      workflowExecution: { workflowId: 'a' },
      reason: 'test',
    });
    store.flush();
    expect(reload(path)).toEqual({ ...state, extras: {} });

    const before = lines(path).length;
    expect(sweepRetention(engine, Date.now() + 2 * 86_400_000)).toBe(1);
    store.flush();
    const written = lines(path)
      .slice(before)
      .map((l) => JSON.parse(l) as { c?: string; v?: unknown });
    expect(written.filter((r) => r.c).map((r) => [r.c, r.v])).toEqual([
      ['runs', null],
      ['chains', null],
    ]);
    const loaded = reload(path);
    expect(Object.keys(loaded.chains)).toEqual(['default|b']);
    expect(loaded).toEqual({ ...state, extras: {} });
    engine.close();
    store.close();
  });
});

// --- a real `navigator dev --db` killed with SIGKILL -----------------------------------

const cli = fileURLToPath(new URL('../../bin/navigator.mjs', import.meta.url));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** `navigator dev --db FILE` in a child process, once it listens. */
async function spawnDev(db: string): Promise<{ child: ChildProcess; address: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [cli, 'dev', '--no-worker', '--port', String(port), '--db', db], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const address = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`navigator dev exited (${code}) before listening`)));
  });
  return { child, address };
}

function kill(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

describe('navigator dev --db killed with SIGKILL', () => {
  it('keeps every workflow whose start it answered', async () => {
    const db = newFile();
    const first = await spawnDev(db);
    // No retries: once the server is gone, starts in flight fail at once.
    const connection = await Connection.connect({ address: first.address, interceptors: [] });
    const client = new Client({ connection });
    const acknowledged: string[] = [];
    let stop = false;
    let counter = 0;
    let killing: Promise<void> | undefined;
    const inFlight: Array<Promise<unknown>> = [];
    // Eight clients start workflows back to back; the server is killed while they do.
    const loop = async () => {
      while (!stop) {
        const workflowId = `crash-${++counter}`;
        const started = client.workflow.start('neverRuns', { taskQueue: 'no-worker', workflowId });
        inFlight.push(started.catch(() => undefined));
        try {
          await started;
        } catch {
          return; // the server is gone: this start may or may not have happened
        }
        acknowledged.push(workflowId); // answered, even if the answer arrives after the kill
        if (acknowledged.length === 60 && !killing) {
          stop = true;
          killing = kill(first.child, 'SIGKILL');
        }
      }
    };
    const loops = Array.from({ length: 8 }, loop);
    await new Promise<void>((resolve) => {
      const wait = () => (killing ? resolve() : setTimeout(wait, 5));
      wait();
    });
    await killing;
    await Promise.all([...loops, ...inFlight]);
    await connection.close();
    expect(acknowledged.length).toBeGreaterThanOrEqual(60);

    const second = await spawnDev(db);
    const again = await Connection.connect({ address: second.address });
    try {
      const client2 = new Client({ connection: again });
      for (const workflowId of acknowledged) {
        const description = await client2.workflow.getHandle(workflowId).describe();
        expect(description.status.name).toBe('RUNNING');
      }
    } finally {
      await again.close();
      await kill(second.child, 'SIGTERM');
    }
  });
});
