/**
 * Dev server figures, with the real SDK worker and client in this process:
 *  - median latency of a warm one-activity workflow (start → result);
 *  - workflows per second with 100 concurrent starts of the same workflow;
 *  - (suite `storage`) the `--db` write per workflow start as the kept state grows.
 * Both share the process (and the 2 cores) with the worker's sdk-core threads and
 * workflow sandbox, which is what bounds them; the server itself is a small share.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Engine } from '../src/devserver/engine.ts';
import { startWorkflowExecution, terminateWorkflowExecution } from '../src/devserver/lifecycle.ts';
import type { ServerState } from '../src/devserver/model.ts';
import { newNamespace } from '../src/devserver/namespaces.ts';
import { FileStore } from '../src/devserver/persistence.ts';
import { createTestEnv } from '../src/devserver/testing.ts';
import { hooks } from '../src/devserver/timeouts.ts';
import * as activities from '../test/devserver/fixtures/activities.ts';
import { hello } from '../test/devserver/fixtures/workflows.ts';
import { type BenchRow, medianMs } from './types.ts';

const workflowsPath = fileURLToPath(new URL('../test/devserver/fixtures/workflows.ts', import.meta.url));
const CONCURRENT = 100;

export async function benchDevServer(): Promise<BenchRow[]> {
  const env = await createTestEnv({ workflowsPath, activities, worker: { maxCachedWorkflows: 1000 } });
  try {
    const runOne = () =>
      env.client.workflow.execute(hello, { taskQueue: env.taskQueue, workflowId: randomUUID(), args: ['bench'] });
    const latency = await medianMs(runOne, 30, 5);
    const burst = () => Promise.all(Array.from({ length: CONCURRENT }, () => runOne()));
    const burstMs = await medianMs(burst, 3, 1);
    const perSecond = (CONCURRENT / burstMs) * 1000;
    return [
      { name: 'warm one-activity workflow, start → result', median_ms: latency, note: 'target < 40 ms' },
      {
        name: `${CONCURRENT} concurrent one-activity workflows`,
        median_ms: burstMs,
        note: `${perSecond.toFixed(0)} workflows/s (target > 100/s); worker, client and server share one process`,
      },
    ];
  } finally {
    await env.shutdown();
  }
}

// --- storage -------------------------------------------------------------------------

const STORED = [100, 1_000, 10_000];

function startRequest(workflowId: string) {
  // a small input payload, as a typical start carries
  const input = {
    payloads: [
      {
        metadata: { encoding: 'anNvbi9wbGFpbg==' },
        data: Buffer.from(JSON.stringify({ task: 'x'.repeat(200) })).toString('base64'),
      },
    ],
  };
  return {
    namespace: 'default',
    workflowId,
    workflowType: { name: 'bench' },
    taskQueue: { name: 'bench' },
    requestId: workflowId,
    input,
  };
}

/** A state holding `count` closed (terminated) workflows, made directly on an engine. */
function stateWithClosedWorkflows(count: number): ServerState {
  const state: ServerState = { namespaces: { default: newNamespace('default') }, runs: {}, chains: {} };
  const engine = new Engine(
    state,
    hooks(() => {}),
  );
  for (let i = 0; i < count; i++) {
    startWorkflowExecution(engine, startRequest(`closed-${i}`));
    terminateWorkflowExecution(engine, {
      namespace: 'default',
      workflowExecution: { workflowId: `closed-${i}` },
      reason: 'bench',
    });
  }
  engine.close();
  return state;
}

/** Lets the disk write back what set-up wrote, so that it does not delay the fsyncs timed next. */
function settleDisk(): void {
  try {
    execFileSync('sync');
  } catch {
    // no sync(1) here (Windows): the figures are only noisier
  }
}

/**
 * `--db` cost of one workflow start (start + the write that precedes its answer) with
 * 100, 1,000 and 10,000 closed workflows kept: the log store appends the new run and its
 * chain (with fsync); the baseline is the previous store, which rewrote the whole state
 * as one JSON file (without fsync). The server's own work is called directly, no gRPC.
 */
export async function benchDevServerStorage(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-storage-'));
  try {
    const states = STORED.map(stateWithClosedWorkflows);
    let n = 0;
    // All log-store figures first: the whole-file rewrites leave the disk busy writing
    // back hundreds of MB, which would slow the log store's fsyncs measured after them.
    const logged = [];
    for (const [i, state] of states.entries()) {
      const path = join(dir, `log-${i}.db`);
      const store = new FileStore(path);
      store.open(state); // no file yet: keeps `state`
      store.compact();
      const engine = new Engine(
        state,
        hooks((collection, key) => store.changed(collection, key)),
      );
      settleDisk();
      const ms = await medianMs(
        () => {
          startWorkflowExecution(engine, startRequest(`new-${n++}`));
          store.flush();
        },
        100,
        10,
      );
      logged.push({ ms, bytes: statSync(path).size });
      store.close();
      engine.close();
    }
    const rows: BenchRow[] = [];
    for (const [i, state] of states.entries()) {
      const path = join(dir, `whole-${i}.json`);
      const engine = new Engine(
        state,
        hooks(() => {}),
      );
      const whole = await medianMs(
        () => {
          startWorkflowExecution(engine, startRequest(`new-${n++}`));
          writeFileSync(`${path}.tmp`, JSON.stringify({ format: 'navigator-devserver/1', state }));
          renameSync(`${path}.tmp`, path);
        },
        STORED[i]! >= 10_000 ? 10 : 30,
        2,
      );
      engine.close();
      const { ms, bytes } = logged[i]!;
      rows.push({
        name: `start + write, ${STORED[i]!.toLocaleString('en')} closed workflows kept`,
        median_ms: ms,
        baseline_ms: whole,
        ratio: ms / whole,
        note: `log store (fsync) vs whole-file rewrite (no fsync); db ${(bytes / 1e6).toFixed(1)} MB`,
      });
    }
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
