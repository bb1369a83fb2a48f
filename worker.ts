/**
 * Starts a Navigator worker: `node --import tsx worker.ts` (or `navigator worker`).
 * Connection from Temporal's environment configuration (TEMPORAL_ADDRESS, ...), agents
 * from NAVIGATOR_AGENTS, task queue from NAVIGATOR_TASK_QUEUE (default `navigator`).
 */
import { resolveTarget, taskQueueFrom } from './src/temporal/connection.ts';
import { runWorker } from './src/worker/run.ts';

const target = resolveTarget();
const taskQueue = taskQueueFrom(undefined);
await runWorker({
  target,
  taskQueue,
  agentsModule: process.env.NAVIGATOR_AGENTS,
  onReady: (agents) =>
    console.log(
      `Navigator worker on ${target.address} (namespace ${target.namespace}, task queue ${taskQueue}) running agents: ${agents.join(', ')}`,
    ),
});
