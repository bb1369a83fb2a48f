/**
 * A Navigator worker: the mission workflow plus its activities, for a set of agents.
 */
import type { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { configuredDataConverter } from '../codec/load.ts';
import { NativeConnection, Worker, bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import type { AgentRegistry, RegisteredAgent } from '../activities/agents.ts';
import { createActivities } from '../activities/index.ts';
import type { Agent } from '../navigator/index.ts';
import { agentsOfModule } from './agents.ts';
import { workflowsPath } from './workflows-path.ts';

export { workflowsPath };
export { buildRegistry, loadAgentModule } from './agents.ts';
export type { AgentRegistry, RegisteredAgent } from '../activities/agents.ts';

export interface NavigatorWorkerOptions {
  connection: NativeConnection;
  /** used by the pass activity to read the journal by query */
  client: Client;
  /** @default 'default' */
  namespace?: string;
  taskQueue: string;
  /** agents (each with its own `model`), `{agent, model}` entries, or a registry by name */
  agents: AgentRegistry | ReadonlyArray<Agent | RegisteredAgent>;
  /** prebuilt bundle (tests build it once per file); default: bundle from source */
  workflowBundle?: WorkflowBundle;
  /** how often a running pass heartbeats */
  heartbeatEveryMs?: number;
  /** payload codecs etc. @default the process's codec (NAVIGATOR_CODEC), if any */
  dataConverter?: DataConverter;
  identity?: string;
}

/** Bundles the workflow code once; reuse the result for several workers. */
export function bundleMissionWorkflows(): Promise<WorkflowBundle> {
  return bundleWorkflowCode({ workflowsPath, logger: quietLogger });
}

export async function createNavigatorWorker(opts: NavigatorWorkerOptions): Promise<Worker> {
  const dataConverter = opts.dataConverter ?? (await configuredDataConverter());
  return Worker.create({
    ...(dataConverter ? { dataConverter } : {}),
    connection: opts.connection,
    namespace: opts.namespace ?? 'default',
    taskQueue: opts.taskQueue,
    ...(opts.workflowBundle ? { workflowBundle: opts.workflowBundle } : { workflowsPath }),
    activities: createActivities({ agents: registryOf(opts.agents), client: opts.client, heartbeatEveryMs: opts.heartbeatEveryMs }),
    // A pass's heartbeat details say what it does (`navigator run`/`watch` show them): send
    // them every 5 s at most, not every 24 s (the SDK's 80% of a 30 s heartbeat timeout).
    maxHeartbeatThrottleInterval: '5 seconds',
    ...(opts.identity ? { identity: opts.identity } : {}),
  });
}

/** A registry by agent name from what the caller gave. */
export function registryOf(agents: NavigatorWorkerOptions['agents']): AgentRegistry {
  if (agents instanceof Map) return agents;
  const entries = agentsOfModule([...(agents as ReadonlyArray<Agent | RegisteredAgent>)], 'createNavigatorWorker agents');
  return new Map(entries.map((e) => [e.agent.name, e]));
}

const noop = () => undefined;
/** webpack's progress chatter is noise for CLI users; errors still surface as exceptions */
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };
