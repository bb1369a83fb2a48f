/**
 * Running a worker until SIGINT/SIGTERM (the Temporal runtime turns those signals into
 * a graceful shutdown: running activities finish or are cancelled, polls stop).
 */
import { connectClient, connectWorker, type TemporalTarget } from '../temporal/connection.ts';
import { buildRegistry } from './agents.ts';
import { bundleMissionWorkflows, createNavigatorWorker } from './index.ts';

export interface RunWorkerOptions {
  target: TemporalTarget;
  taskQueue: string;
  agentsModule?: string;
  /** called once the worker polls, with the agent names it runs */
  onReady?: (agents: string[]) => void;
}

export async function runWorker(opts: RunWorkerOptions): Promise<void> {
  const agents = await buildRegistry(opts.agentsModule);
  const connection = await connectWorker(opts.target);
  const { client, close } = await connectClient(opts.target);
  try {
    const worker = await createNavigatorWorker({
      connection,
      client,
      namespace: opts.target.namespace,
      taskQueue: opts.taskQueue,
      agents,
      workflowBundle: await bundleMissionWorkflows(),
    });
    opts.onReady?.([...agents.keys()]);
    await worker.run();
  } finally {
    await close();
    await connection.close();
  }
}
