/**
 * Refusing a doomed start (issue 41): before a mission or a plan starts, the client checks
 * its agent (and a mission's input) against what the workers of the task queue serve, and
 * refuses with a {@link StartRefused} naming the agents served and the nearest name.
 *
 * How the client knows, only through Temporal (worker and client may be on different
 * machines): each worker announces its agents when it starts, as a signal to the task
 * queue's registry workflow (src/workflows/agents-registry.ts); the client reads that
 * workflow's history, which needs no worker, and asks DescribeTaskQueue which workers poll.
 * The announcements of the workers polling now count; when none of them announced (older
 * workers, or none polls), the announcements kept count.
 *
 * When nothing can be checked, the start goes on with a warning rather than a refusal: no
 * registry (no worker of this version ever started on the queue) or no worker polling now
 * is what Temporal itself accepts (a workflow waits for its worker), and refusing then
 * would stop every deployment that starts work before its workers come up. A refusal is
 * only ever made on what workers said they serve.
 */
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import {
  type AgentsAnnouncement,
  type ServedAgent,
  AGENTS_REGISTRY_WORKFLOW,
  agentsRegistryId,
  announceAgentsSignal,
  keepAnnouncement,
} from '../workflows/agents-registry.ts';
import { POLLED_WITHIN_MS, type PollerSeen, readerOf } from '../history/reader.ts';
import { editDistance } from '../lisp/core/index.ts';
import { firstValue } from './decode.ts';

export type { AgentsAnnouncement, ServedAgent } from '../workflows/agents-registry.ts';

/** Why a start was refused before anything started. */
export type StartRefusedCode = 'unknown_agent' | 'invalid_input';

/**
 * A start refused before anything started: the agent is not served on the task queue
 * (`unknown_agent`), or the input does not fit the agent's input schema (`invalid_input`).
 */
export class StartRefused extends Error {
  override readonly name = 'StartRefused';
  constructor(
    message: string,
    readonly code: StartRefusedCode,
    readonly agent: string,
    readonly taskQueue: string,
    /** the agents the task queue's workers serve */
    readonly served: readonly string[],
    /** the served name nearest to `agent`, when one is near */
    readonly suggestion?: string,
    /** what the input schema refused, one line each */
    readonly problems: readonly string[] = [],
  ) {
    super(message);
  }
}

/** What the workers of a task queue said they serve, and which of them poll now. */
export interface ServedOnQueue {
  agents: ServedAgent[];
  /** the latest announcement counted */
  announcedAt: string;
  /** whether a worker polls the queue now (else the agents are as last announced) */
  polling: boolean;
}

/** The outcome of a check that did not refuse: `warning` when something could not be checked. */
export interface StartCheck {
  checked: boolean;
  warning?: string;
}

/** Announces `agents` as served by the worker `identity` on `taskQueue` (starting the registry when needed). */
export async function announceAgents(
  client: Client,
  taskQueue: string,
  identity: string,
  agents: ServedAgent[],
): Promise<void> {
  await client.workflow.signalWithStart(AGENTS_REGISTRY_WORKFLOW, {
    workflowId: agentsRegistryId(taskQueue),
    taskQueue,
    args: [{ announcements: [] }],
    signal: announceAgentsSignal,
    signalArgs: [{ identity, at: new Date().toISOString(), agents }],
    staticSummary: `Navigator: the agents served on task queue ${taskQueue}`,
  });
}

/** The agents served on `taskQueue`, or null when no worker announced any there. */
export async function servedAgents(client: Client, taskQueue: string): Promise<ServedOnQueue | null> {
  const [announcements, pollers] = await Promise.all([
    readAnnouncements(client, taskQueue),
    readerOf(client.workflow)
      .pollers(taskQueue)
      .catch((): PollerSeen[] => []),
  ]);
  if (!announcements.length) return null;
  const now = Date.now();
  const polling = new Set(
    pollers
      .filter((p) => !p.lastAccessTime || now - p.lastAccessTime.getTime() < POLLED_WITHIN_MS)
      .map((p) => p.identity),
  );
  const current = announcements.filter((a) => polling.has(a.identity));
  const counted = current.length ? current : announcements;
  const byName = new Map<string, ServedAgent>();
  for (const a of counted) for (const agent of a.agents) byName.set(agent.name, agent);
  return {
    agents: [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)),
    announcedAt: counted.at(-1)!.at,
    polling: polling.size > 0,
  };
}

/**
 * Checks a start of `agent` on `taskQueue`; `input` (a mission's) is checked against the
 * agent's input schema too. Throws {@link StartRefused}; returns a warning when it could
 * not check (see the module comment for why that starts anyway).
 */
export async function checkStart(
  client: Client,
  req: { taskQueue: string; agent: string; input?: unknown; what?: 'mission' | 'plan' },
): Promise<StartCheck> {
  const what = req.what ?? 'mission';
  const served = await servedAgents(client, req.taskQueue);
  if (!served) {
    return {
      checked: false,
      warning: `no worker has announced the agents it serves on task queue ${req.taskQueue} (none has started there, or they are older than this client): agent ${req.agent} was not checked, and the ${what} waits for a worker that runs it`,
    };
  }
  const names = served.agents.map((a) => a.name);
  const agent = served.agents.find((a) => a.name === req.agent);
  if (!agent) {
    const suggestion = nearest(req.agent, names);
    const hint = suggestion ? ` Did you mean ${suggestion}?` : '';
    const message = `no worker on task queue ${req.taskQueue} serves agent ${JSON.stringify(req.agent)}; nothing was started. The workers there serve: ${names.join(', ') || 'no agent'}.${hint}`;
    throw new StartRefused(message, 'unknown_agent', req.agent, req.taskQueue, names, suggestion);
  }
  if (req.input !== undefined && agent.input) {
    const problems = inputProblems(agent.input, req.input);
    if (problems.length)
      throw new StartRefused(
        `the input does not fit agent ${req.agent}; nothing was started: ${problems.join('; ')}`,
        'invalid_input',
        req.agent,
        req.taskQueue,
        names,
        undefined,
        problems,
      );
  }
  if (!served.polling)
    return {
      checked: true,
      warning: `no worker polls task queue ${req.taskQueue} now (agent ${req.agent} was served at ${served.announcedAt}): the ${what} waits until one starts`,
    };
  return { checked: true };
}

/** The served name nearest to `name` (a typo's distance), if any. */
export function nearest(name: string, names: readonly string[]): string | undefined {
  const max = Math.max(1, Math.min(3, Math.floor(name.length / 3)));
  let best: string | undefined;
  let bestD = max + 1;
  for (const n of names) {
    const d = n.toLowerCase() === name.toLowerCase() ? 0 : editDistance(name, n, max);
    if (d < bestD) [best, bestD] = [n, d];
  }
  return best;
}

/** What the JSON schema refuses in `input`, one line each (none when the schema cannot be read here: the worker checks it then). */
function inputProblems(schema: Record<string, unknown>, input: unknown): string[] {
  let parsed: ReturnType<z.ZodType['safeParse']>;
  try {
    parsed = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(input ?? {});
  } catch {
    return [];
  }
  if (parsed.success) return [];
  return parsed.error.issues.map((i) => `${i.path.length ? i.path.map(String).join('.') : '(input)'}: ${i.message}`);
}

/** The announcements the registry of `taskQueue` holds: its latest run's input, then its signals. */
async function readAnnouncements(client: Client, taskQueue: string): Promise<AgentsAnnouncement[]> {
  let events;
  try {
    events = (await client.workflow.getHandle(agentsRegistryId(taskQueue)).fetchHistory()).events ?? [];
  } catch (err) {
    if ((err as Error).name === 'WorkflowNotFoundError' || /not found/i.test((err as Error).message)) return [];
    throw err;
  }
  let kept: AgentsAnnouncement[] = [];
  for (const e of events) {
    const started = e.workflowExecutionStartedEventAttributes?.input?.payloads;
    if (started?.length)
      kept =
        ((await firstValue(client.options.loadedDataConverter, started)) as { announcements?: AgentsAnnouncement[] })
          .announcements ?? [];
    const signal = e.workflowExecutionSignaledEventAttributes;
    if (signal?.signalName === announceAgentsSignal.name && signal.input?.payloads?.length) {
      kept = keepAnnouncement(
        kept,
        (await firstValue(client.options.loadedDataConverter, signal.input.payloads)) as AgentsAnnouncement,
      );
    }
  }
  return kept;
}
