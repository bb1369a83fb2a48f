/**
 * The reader's edges (src/history/reader.ts), on the dev server's fixture workflows, whose
 * code the reader's own bundle does not have: a closed run that this process cannot
 * replay is asked of a worker instead (a CLI older or newer than the workers), and with no
 * worker either the error says both; a running one's query carries the reader's deadline
 * and then names what the task queue's pollers say; DescribeTaskQueue lists the worker
 * while it polls and not once it has shut down (the embedded server lists only workers
 * that poll now).
 */
import { describe, expect, it } from 'vitest';
import { HistoryReplayError } from '../../src/history/replay.ts';
import { RunReader, WorkerUnavailableError } from '../../src/history/reader.ts';
import { testServerKind } from '../../src/devserver/testing.ts';
import { addSignal, counter, finishSignal } from '../devserver/fixtures/workflows.ts';
import { startWorkflow, useTestEnv } from '../devserver/helpers.ts';

const env = useTestEnv({ startWorker: false });

describe('RunReader', () => {
  it(
    'asks a worker for a closed run this process cannot replay; without one, says both; a running one fails at its deadline naming the queue',
    { timeout: 180_000 },
    async () => {
      const worker = await env.createWorker();
      const running = worker.run();
      const reader = new RunReader(env.client.workflow, { queryTimeoutMs: 2000 });

      const done = await startWorkflow(env, counter, { workflowId: `reader-done-${Date.now()}` });
      await done.signal(addSignal, 5);
      await done.signal(finishSignal);
      expect(await done.result()).toBe(5);
      const open = await startWorkflow(env, counter, { workflowId: `reader-open-${Date.now()}` });
      await open.signal(addSignal, 2);

      // the reader's bundle has the Navigator's workflows only: `counter` does not replay here
      await expect(reader.fromHistory(done.workflowId)).rejects.toThrow(HistoryReplayError);
      expect(await reader.read(done.workflowId, ['total'])).toMatchObject({ answers: [5], from: 'worker' });
      expect(await reader.read(open.workflowId, ['total'])).toMatchObject({ answers: [2], from: 'worker' });
      const seen = await reader.pollers(env.taskQueue);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((p) => p.identity !== '' && p.lastAccessTime !== null)).toBe(true);

      worker.shutdown();
      await running;
      if (testServerKind() !== 'temporal') expect(await reader.pollers(env.taskQueue)).toEqual([]);
      const closed = await reader.query(done.workflowId, 'total').catch((e: unknown) => e);
      expect(closed).toBeInstanceOf(HistoryReplayError);
      expect((closed as Error).message).toMatch(
        /this process's workflow code does not replay it .*; no worker answered a query of it either/s,
      );
      const unanswered = await reader.query(open.workflowId, 'total').catch((e: unknown) => e);
      expect(unanswered).toBeInstanceOf(WorkerUnavailableError);
      expect((unanswered as Error).message).toContain(
        `start one with \`navigator worker --task-queue ${env.taskQueue}\``,
      );
      expect(unanswered).toMatchObject({ workflowId: open.workflowId, taskQueue: env.taskQueue });
      if (testServerKind() !== 'temporal') expect(unanswered).toMatchObject({ polling: false, pollers: [] });
      await env.client.workflow.getHandle(open.workflowId).terminate('test done');
    },
  );
});
