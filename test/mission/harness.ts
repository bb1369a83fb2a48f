/**
 * End-to-end harness for missions: one dev server and one workflow bundle per test file,
 * a real Navigator worker (in-process, or as a child process that tests may SIGKILL),
 * a real client, and helpers to wait for a mission to park and to audit it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { createTestEnv, type TestEnv, type TestEnvOptions } from '../../src/devserver/testing.ts';
import { type ActivityDeps, createActivities } from '../../src/activities/index.ts';
import type { AgentRegistry, RegisteredAgent } from '../../src/activities/agents.ts';
import { buildRegistry } from '../../src/worker/agents.ts';
import { workflowInterceptorModules, workflowsPath } from '../../src/worker/index.ts';
import { silentSpanSinks } from '../../src/telemetry/setup.ts';
import { auditMission, type AuditReport } from '../../src/audit/mission/audit.ts';
import type { MissionInput, StatusView } from '../../src/workflows/mission/contract.ts';
import { statusQuery } from '../../src/workflows/mission/messages.ts';

export interface MissionEnv {
  env: TestEnv;
  client: Client;
  taskQueue: string;
  /** starts an in-process worker with the example agents plus `extra` (and activity deps to override) */
  startWorker(extra?: RegisteredAgent[], deps?: Partial<ActivityDeps>): Promise<Worker>;
  /** starts `worker.ts` in a child process (SIGKILL-able) */
  spawnWorker(env?: Record<string, string>): ChildProcess;
  start(input: MissionInput, workflowId?: string): Promise<WorkflowHandle>;
  audit(workflowId: string): Promise<AuditReport>;
  /** SIGKILLs every worker process spawned so far */
  killWorkers(): Promise<void>;
  shutdown(): Promise<void>;
}

/** Fast failure detection for tests: heartbeat timeouts of a few seconds. */
export const testTimeouts = { heartbeatMs: 3000 };

export async function missionEnv(
  opts: Pick<TestEnvOptions, 'startServer' | 'dataConverter'> = {},
): Promise<MissionEnv> {
  const env = await createTestEnv({
    workflowsPath,
    workflowInterceptorModules,
    worker: { sinks: silentSpanSinks },
    startWorker: false,
    server: { searchAttributes: { NavigatorStatus: 'Keyword' } },
    ...opts,
  });
  const running: Array<{ worker: Worker; done: Promise<void> }> = [];
  const children: ChildProcess[] = [];
  let seq = 0;

  const registry = async (extra: RegisteredAgent[]): Promise<AgentRegistry> => {
    const base = new Map(await buildRegistry());
    for (const e of extra) base.set(e.agent.name, e);
    return base;
  };

  return {
    env,
    client: env.client,
    taskQueue: env.taskQueue,
    async startWorker(extra = [], deps = {}) {
      const activities = createActivities({
        agents: await registry(extra),
        client: env.client,
        heartbeatEveryMs: 500,
        ...deps,
      });
      const worker = await env.createWorker({ activities });
      running.push({ worker, done: worker.run() });
      return worker;
    },
    spawnWorker(extraEnv = {}) {
      const child = spawn(process.execPath, ['--import', 'tsx', join(process.cwd(), 'worker.ts')], {
        env: {
          ...process.env,
          TEMPORAL_ADDRESS: env.server.address,
          TEMPORAL_NAMESPACE: env.server.namespace,
          NAVIGATOR_TASK_QUEUE: env.taskQueue,
          ...extraEnv,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      return child;
    },
    async start(input, workflowId = `mission-${process.pid}-${++seq}`) {
      return env.client.workflow.start('navigatorMission', {
        taskQueue: env.taskQueue,
        workflowId,
        args: [{ ...input, options: { ...input.options, timeouts: { ...testTimeouts, ...input.options?.timeouts } } }],
      });
    },
    audit(workflowId) {
      return auditMission(env.client, workflowId, { workflowBundle: env.bundle, replayer: env.replayer });
    },
    async killWorkers() {
      const alive = children.filter((c) => c.exitCode === null && c.signalCode === null);
      await Promise.all(alive.map((c) => new Promise((r) => (c.once('exit', r), c.kill('SIGKILL')))));
    },
    async shutdown() {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      // Workers must be gone before the env closes the connection they hold.
      for (const r of running) if (r.worker.getState() === 'RUNNING') r.worker.shutdown();
      await Promise.allSettled(running.map((r) => r.done));
      await env.shutdown();
    },
  };
}

/** Polls the status query until `predicate` holds. */
export async function waitForStatus(
  handle: WorkflowHandle,
  predicate: (s: StatusView) => boolean,
  timeoutMs = 60_000,
): Promise<StatusView> {
  const deadline = Date.now() + timeoutMs;
  let last: StatusView | null = null;
  while (Date.now() < deadline) {
    last = await handle.query(statusQuery).catch(() => null);
    if (last && predicate(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`mission ${handle.workflowId} never reached the expected state; last: ${JSON.stringify(last)}`);
}

/** A fresh bank file for one test. */
export function freshBankFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'bank-')), 'bank.jsonl');
  process.env.WIRE_TRANSFER_BANK_FILE = file;
  return file;
}

/** Waits until `predicate` holds, polling. */
export async function eventually(predicate: () => boolean, timeoutMs = 60_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Reads until `ok` holds and returns that reading: for visibility (list, count, the status
 * search attribute), which a real server updates a moment after the change.
 */
export async function until<T>(
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  timeoutMs = 60_000,
  what = 'visibility to catch up',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; last reading: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
