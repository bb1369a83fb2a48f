/**
 * A worker process killed with SIGKILL loses nothing: its started and sticky tasks time
 * out on the server and another worker finishes the run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { addSignal, busyCounter, counter, finishSignal, slowHello, totalQuery } from './fixtures/workflows.ts';
import {
  ACTIVITY,
  eventsOfType,
  expectEventTypes,
  fetchAndReplay,
  FIRST_TASK,
  startWorkflow,
  untilWorkflowTaskStarted,
  useTestEnv,
  WORKFLOW_TASK,
} from './helpers.ts';

const workerScript = fileURLToPath(new URL('./fixtures/worker-process.ts', import.meta.url));
const env = useTestEnv({ startWorker: false });
let codePath: string;

beforeAll(() => {
  codePath = join(mkdtempSync(join(tmpdir(), 'devserver-kill-')), 'workflows.js');
  writeFileSync(codePath, env.bundle.code);
});

/** Spawns a worker process and resolves once it prints `marker`. */
function spawnWorker(
  taskQueue: string,
  extraEnv: Record<string, string> = {},
): { child: ChildProcess; output: (marker: string) => Promise<void> } {
  const child = spawn(process.execPath, ['--import', 'tsx', workerScript, env.server.address, taskQueue, codePath], {
    env: { ...process.env, ...extraEnv },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let seen = '';
  const waiters: Array<() => void> = [];
  child.stdout!.on('data', (chunk: Buffer) => {
    seen += chunk.toString();
    for (const w of waiters.splice(0)) w();
  });
  const output = (marker: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => (seen.includes(marker) ? resolve() : waiters.push(check));
      child.once('exit', (code) => reject(new Error(`worker exited (${code}) before printing ${marker}`)));
      check();
    });
  return { child, output };
}

function kill(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

async function runWorkerUntil<T>(taskQueue: string, fn: () => Promise<T>): Promise<T> {
  const worker = await env.createWorker({ taskQueue });
  return worker.runUntil(fn);
}

describe('SIGKILL of a worker process', () => {
  it('mid-activity: the activity times out and another worker retries it and finishes', async () => {
    const taskQueue = `kill-activity-${randomUUID()}`;
    const { child, output } = spawnWorker(taskQueue, { HANG_ACTIVITIES: '1' });
    await output('WORKER_READY');
    const handle = await startWorkflow(env, slowHello, {
      taskQueue,
      workflowId: 'kill-activity-1',
      args: ['survivor'],
    });
    await output('ACTIVITY_STARTED');
    await kill(child);
    const result = await runWorkerUntil(taskQueue, () => handle.result());
    expect(result).toBe('Hello, survivor!');
    const history = await fetchAndReplay(env, handle);
    expectEventTypes(history, [
      ...FIRST_TASK,
      ...ACTIVITY,
      'WorkflowTaskScheduled',
      'WorkflowTaskTimedOut',
      ...WORKFLOW_TASK,
      'WorkflowExecutionCompleted',
    ]);
    const started = eventsOfType(history, 'ActivityTaskStarted')[0]!.activityTaskStartedEventAttributes!;
    expect(started.attempt).toBe(2);
    expect(started.lastFailure?.timeoutFailureInfo).toBeTruthy();
  });

  it('mid-workflow-task: the task times out and another worker replays and finishes', async () => {
    const taskQueue = `kill-wft-${randomUUID()}`;
    const { child, output } = spawnWorker(taskQueue);
    await output('WORKER_READY');
    const handle = await startWorkflow(env, busyCounter, {
      taskQueue,
      workflowId: 'kill-wft-1',
      args: [4_000_000],
      workflowTaskTimeout: '3s',
    });
    await untilWorkflowTaskStarted(handle);
    await kill(child);
    await handle.signal(finishSignal);
    const result = await runWorkerUntil(taskQueue, () => handle.result());
    expect(result).toBe(0);
    expectEventTypes(await fetchAndReplay(env, handle), [
      'WorkflowExecutionStarted',
      'WorkflowTaskScheduled',
      'WorkflowTaskStarted',
      'WorkflowTaskTimedOut',
      'WorkflowExecutionSignaled',
      ...WORKFLOW_TASK,
      'WorkflowExecutionCompleted',
    ]);
  });

  it("a query after the kill is answered by the next worker, not left on the killed worker's sticky queue", async () => {
    // the SDK's default sticky timeout (10 s), longer than the query deadline below: a caller
    // that gives up first must not leave the run sticky to a queue nobody polls (issue 44:
    // every later query of the run went there, and none was answered)
    const taskQueue = `kill-query-${randomUUID()}`;
    const { child, output } = spawnWorker(taskQueue, { STICKY_TIMEOUT: '10s' });
    await output('WORKER_READY');
    const handle = await startWorkflow(env, counter, { taskQueue, workflowId: 'kill-query-1' });
    await handle.signal(addSignal, 1);
    expect(await handle.query(totalQuery)).toBe(1);
    await kill(child);
    const answered = await runWorkerUntil(taskQueue, async () => {
      for (let attempt = 1; attempt <= 30; attempt++) {
        const total = await env.client.connection
          .withDeadline(Date.now() + 2000, () => handle.query(totalQuery))
          .catch(() => null);
        if (total !== null) return { total, attempt };
      }
      return null;
    });
    expect(answered?.total).toBe(1);
    await runWorkerUntil(taskQueue, async () => {
      await handle.signal(finishSignal);
      expect(await handle.result()).toBe(1);
    });
  });
});
