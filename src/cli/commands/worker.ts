/** `navigator worker`: run a Navigator worker until interrupted. */
import { Command } from 'commander';
import { action } from '../errors.ts';

interface WorkerFlags {
  agents?: string;
  taskQueue?: string;
}

export const workerCommand = new Command('worker')
  .description('run a Navigator worker (connection from TEMPORAL_ADDRESS etc., default 127.0.0.1:7233)')
  .option('--agents <module>', 'module whose default export holds your agents (or NAVIGATOR_AGENTS)')
  .option('--task-queue <name>', 'task queue (or NAVIGATOR_TASK_QUEUE)', undefined)
  .action(
    action(async (flags: WorkerFlags) => {
      const { resolveTarget, taskQueueFrom } = await import('../../temporal/connection.ts');
      const { runWorker } = await import('../../worker/run.ts');
      await (await import('../worker-log.ts')).installWorkerLog();
      const target = resolveTarget();
      const taskQueue = taskQueueFrom(flags.taskQueue);
      await runWorker({
        target,
        taskQueue,
        agentsModule: flags.agents ?? process.env.NAVIGATOR_AGENTS,
        onReady: (agents) =>
          console.log(
            `Navigator worker on ${target.address} (namespace ${target.namespace}, task queue ${taskQueue}) running agents: ${agents.join(', ')}`,
          ),
      });
    }),
  );
