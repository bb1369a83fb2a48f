/**
 * A Navigator worker: the mission workflow plus its activities, for a set of agents.
 */
import type { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { configuredDataConverter, offloadOf } from '../codec/load.ts';
import { resultRecording } from '../activities/recording.ts';
import { NativeConnection, Worker, bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import type { AgentRegistry, RegisteredAgent } from '../navigator/registry.ts';
import { createActivities } from '../activities/index.ts';
import type { Agent } from '../navigator/index.ts';
import { agentsOfModule } from './agents.ts';
import { workflowPreloadModules, workflowsPath } from '../workflows/path.ts';
import {
  type Telemetry,
  silentSpanSinks,
  telemetry as telemetryFromEnv,
  workflowInterceptorModules,
} from '../telemetry/setup.ts';
import { cachedBundle } from '../workflows/bundle-cache.ts';
import { type ServedAgent, announceAgents } from '../client/served-agents.ts';
import { jsonSchemaOf } from '../navigator/index.ts';

export { workflowsPath };
export { buildRegistry, loadAgentModule } from './agents.ts';
export type { AgentRegistry, RegisteredAgent } from '../navigator/registry.ts';

export interface NavigatorWorkerOptions {
  connection: NativeConnection;
  /** used by the pass activity to read the journal by query */
  client: Client;
  /** @default 'default' */
  namespace?: string;
  taskQueue: string;
  /** agents (each with its own `model`), `{agent, model}` entries, or a registry by name */
  agents: AgentRegistry | ReadonlyArray<Agent | RegisteredAgent>;
  /** prebuilt bundle from {@link bundleMissionWorkflows} (tests build it once per file) @default bundled now */
  workflowBundle?: WorkflowBundle;
  /** how often a running pass heartbeats */
  heartbeatEveryMs?: number;
  /** payload codecs etc. @default the process's codec (NAVIGATOR_CODEC), if any */
  dataConverter?: DataConverter;
  identity?: string;
  /** OpenTelemetry plugins @default from OTEL_* (off when nothing is set); null: off */
  telemetry?: Telemetry | null;
  /**
   * announce the agents this worker serves on its task queue, so that clients refuse a
   * start of an agent no worker serves (src/client/served-agents.ts) @default true
   */
  announceAgents?: boolean;
}

/**
 * Bundles the workflow code once; reuse the result for several workers. The bundle always
 * carries the tracing workflow interceptors (see src/telemetry/setup.ts), whether tracing
 * is on or not: a bundle of your own must list {@link workflowInterceptorModules} too, and
 * should preload {@link workflowPreloadModules} (`preloadModules`: without it each waiting
 * mission costs more memory the more missions a worker caches; it runs the same).
 */
export function bundleMissionWorkflows(): Promise<WorkflowBundle> {
  const make = () =>
    bundleWorkflowCode({
      workflowsPath,
      workflowInterceptorModules: [...workflowInterceptorModules],
      preloadModules: [...workflowPreloadModules],
      logger: quietLogger,
    });
  // from the repository's sources, kept between processes (src/workflows/bundle-cache.ts)
  return cachedBundle([workflowsPath, ...workflowInterceptorModules, ...workflowPreloadModules], make);
}

export { workflowInterceptorModules, workflowPreloadModules };
export {
  setupTelemetry,
  useTelemetry,
  telemetryWanted,
  type Telemetry,
  type TelemetryOptions,
} from '../telemetry/setup.ts';

export async function createNavigatorWorker(opts: NavigatorWorkerOptions): Promise<Worker> {
  const dataConverter = opts.dataConverter ?? (await configuredDataConverter());
  const t = opts.telemetry === undefined ? telemetryFromEnv() : opts.telemetry;
  const workflowBundle = opts.workflowBundle ?? (await bundleMissionWorkflows());
  const agents = registryOf(opts.agents);
  const worker = await Worker.create({
    // on: the plugin adds the interceptors and the span sink; off: the sink drops the spans
    ...(t ? { plugins: t.plugins } : { sinks: silentSpanSinks }),
    workflowBundle,
    ...(dataConverter ? { dataConverter } : {}),
    connection: opts.connection,
    namespace: opts.namespace ?? 'default',
    taskQueue: opts.taskQueue,
    // the claim check among the worker's codecs: activities store large answers ahead with it
    activities: createActivities({
      agents,
      client: opts.client,
      heartbeatEveryMs: opts.heartbeatEveryMs,
      recording: resultRecording(offloadOf(dataConverter)),
    }),
    // Heartbeats reach Temporal at most every 0.75 s (the SDK would wait 80% of the 5 s
    // heartbeat timeout): a pass's heartbeat details (the program as the model writes it,
    // its tool calls: the mission page and `navigator watch` show them) arrive within about
    // a second. An activity that heartbeats less often (every 2 s) sends no more than that.
    maxHeartbeatThrottleInterval: HEARTBEAT_THROTTLE,
    // a workflow whose worker died moves to another worker after 3 s, not the SDK's 10 s
    stickyQueueScheduleToStartTimeout: '3 seconds',
    ...(opts.identity ? { identity: opts.identity } : {}),
  });
  if (opts.announceAgents !== false) {
    // a worker that cannot announce still runs: clients then start its agents unchecked, with a warning
    await announceAgents(opts.client, opts.taskQueue, worker.options.identity, servedOf(agents)).catch((err: Error) =>
      process.emitWarning(
        `navigator worker: could not announce its agents on task queue ${opts.taskQueue}: ${err.message}`,
      ),
    );
  }
  return worker;
}

/** How often, at most, a Navigator worker's activities heartbeat (see createNavigatorWorker). */
export const HEARTBEAT_THROTTLE = '750 milliseconds';

/** What a worker announces of its agents: name, description, the input's JSON schema. */
export function servedOf(agents: AgentRegistry): ServedAgent[] {
  return [...agents.values()].map(({ agent }) => {
    let input: Record<string, unknown> | undefined;
    try {
      input = jsonSchemaOf(agent.input) as Record<string, unknown>;
    } catch {
      // a schema JSON Schema cannot say (a transform): the worker checks the input itself
    }
    return {
      name: agent.name,
      ...(agent.description ? { description: agent.description } : {}),
      ...(input ? { input } : {}),
    };
  });
}

/** A registry by agent name from what the caller gave. */
export function registryOf(agents: NavigatorWorkerOptions['agents']): AgentRegistry {
  if (agents instanceof Map) return agents;
  const entries = agentsOfModule(
    [...(agents as ReadonlyArray<Agent | RegisteredAgent>)],
    'createNavigatorWorker agents',
  );
  return new Map(entries.map((e) => [e.agent.name, e]));
}

const noop = () => undefined;
/** webpack's progress chatter is noise for CLI users; errors still surface as exceptions */
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };
