/**
 * The agents the workers of a task queue serve, as they announce them (issue 41). One
 * workflow per task queue, `navigator-agents-<queue>`, which each worker signals with its
 * agents when it starts (signalWithStart). A client reads it from history before it starts
 * a mission or a plan, with no worker needed (src/client/served-agents.ts): a mistyped
 * agent is refused before anything starts, even when worker and client are on different
 * machines, since what they share is Temporal.
 *
 * The workflow only holds announcements (the latest per worker identity, the last
 * {@link KEEP}) and continues as new, carrying them, before its history grows long.
 */
import { condition, continueAsNew, defineSignal, setHandler, workflowInfo } from '@temporalio/workflow';

/** One agent as a worker serves it: its name, its description, its input's JSON schema. */
export interface ServedAgent {
  name: string;
  description?: string;
  /** the JSON schema of its input, when it has one */
  input?: Record<string, unknown>;
}

/** What one worker said it serves, and when. */
export interface AgentsAnnouncement {
  /** the worker's identity, as DescribeTaskQueue lists it among the pollers */
  identity: string;
  /** ISO time of the announcement */
  at: string;
  agents: ServedAgent[];
}

export interface AgentsRegistryInput {
  announcements: AgentsAnnouncement[];
}

export const AGENTS_REGISTRY_WORKFLOW = 'navigatorAgents';
export const announceAgentsSignal = defineSignal<[AgentsAnnouncement]>('announceAgents');

/** The registry workflow's id for a task queue. */
export const agentsRegistryId = (taskQueue: string): string => `navigator-agents-${taskQueue}`;

/** Announcements kept: workers restart with new identities (pid@host), the old ones go. */
const KEEP = 16;
/** A worker start adds about four events: continue as new well before history gets long. */
const MAX_EVENTS = 2000;

/** Keeps `next`, replacing an earlier announcement of the same worker, and the last KEEP. */
export function keepAnnouncement(kept: readonly AgentsAnnouncement[], next: AgentsAnnouncement): AgentsAnnouncement[] {
  return [...kept.filter((a) => a.identity !== next.identity), next].slice(-KEEP);
}

export async function navigatorAgents(input: AgentsRegistryInput): Promise<void> {
  let kept = input.announcements ?? [];
  setHandler(announceAgentsSignal, (a) => {
    kept = keepAnnouncement(kept, a);
  });
  await condition(() => workflowInfo().historyLength > MAX_EVENTS || workflowInfo().continueAsNewSuggested);
  await continueAsNew<typeof navigatorAgents>({ announcements: kept });
}
