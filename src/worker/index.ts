/**
 * A Navigator worker: the mission workflow plus its activities, for a set of agents.
 */
import type { Client } from '@temporalio/client';
import { NativeConnection, Worker, bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import type { AgentRegistry } from '../activities/agents.ts';
import { createActivities } from '../activities/index.ts';

export const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

export interface NavigatorWorkerOptions {
  connection: NativeConnection;
  /** used by the pass activity to read the journal by query */
  client: Client;
  namespace: string;
  taskQueue: string;
  agents: AgentRegistry;
  /** prebuilt bundle (tests build it once per file); default: bundle from source */
  workflowBundle?: WorkflowBundle;
  /** how often a running pass heartbeats */
  heartbeatEveryMs?: number;
  identity?: string;
}

/** Bundles the workflow code once; reuse the result for several workers. */
export function bundleMissionWorkflows(): Promise<WorkflowBundle> {
  return bundleWorkflowCode({ workflowsPath, logger: quietLogger });
}

export function createNavigatorWorker(opts: NavigatorWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    ...(opts.workflowBundle ? { workflowBundle: opts.workflowBundle } : { workflowsPath }),
    activities: createActivities({ agents: opts.agents, client: opts.client, heartbeatEveryMs: opts.heartbeatEveryMs }),
    // A pass's heartbeat details say what it does (`navigator run`/`watch` show them): send
    // them every 5 s at most, not every 24 s (the SDK's 80% of a 30 s heartbeat timeout).
    maxHeartbeatThrottleInterval: '5 seconds',
    ...(opts.identity ? { identity: opts.identity } : {}),
  });
}

const noop = () => undefined;
/** webpack's progress chatter is noise for CLI users; errors still surface as exceptions */
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };
