/**
 * Restarting a mission from its journal: a mission that failed, was cancelled or
 * terminated, or ran out of budget starts again as a new workflow seeded with the old
 * one's journal, summaries and ledger, under the same logical run id, so its completed
 * tasks are cache hits and no external effect runs again (same idempotency keys; the
 * ledger answers completed effects). The new mission records where it came from.
 */
import type { Client } from '@temporalio/client';
import { decodeFirst, fetchChain } from '../../history/fetch.ts';
import { reconstruct } from '../../history/rebuild.ts';
import type {
  CarriedState,
  Json,
  JournalEntries,
  LedgerEntry,
  MissionInput,
} from '../../workflows/mission/contract.ts';
import * as m from '../../workflows/mission/messages.ts';
import { MISSION_WORKFLOW, MissionHandle, MissionRejected } from './client.ts';
import { answerOf, readerOf } from '../../history/reader.ts';

export interface ResumeOptions {
  /** the new workflow's id @default `<old id>-resumed-<random>` */
  id?: string;
  /** over the old mission's options: fresh budgets, more passes, ... */
  options?: Record<string, unknown>;
  /** @default the old mission's task queue */
  taskQueue?: string;
}

/** What a closed mission left: its journal, summaries and ledger (read from the workflow, or rebuilt from history). */
interface Remains {
  journal: JournalEntries;
  summaries: Record<string, string>;
  ledger: LedgerEntry[];
  from: 'workflow' | 'history';
}

export async function resumeMission(client: Client, id: string, opts: ResumeOptions = {}): Promise<MissionHandle> {
  const old = client.workflow.getHandle(id);
  const d = await old.describe();
  if (d.type !== MISSION_WORKFLOW) throw new MissionRejected(`${id} is not a mission (${d.type})`);
  await refuseUnlessStopped(old, id, d.status.name);
  const chain = await fetchChain(client, id);
  const started = chain.at(-1)!.history.events?.[0]?.workflowExecutionStartedEventAttributes;
  const input = decodeFirst<MissionInput & { runId?: string }>(started?.input);
  if (!input) throw new MissionRejected(`the start of ${id} cannot be read from its history`);
  const remains = await remainsOf(old, chain);
  const carried: CarriedState = {
    journal: remains.journal,
    journalVersion: 1,
    summaries: remains.summaries,
    ledger: remains.ledger,
    passes: 0,
    errorPasses: 0,
    lastError: null,
    toolCalls: 0,
    tokens: 0,
    startedAtMs: Date.now(),
    chain: [],
  };
  const newId = opts.id ?? `${id}-resumed-${Math.random().toString(16).slice(2, 8)}`;
  const handle = await client.workflow.start(MISSION_WORKFLOW, {
    taskQueue: opts.taskQueue ?? d.taskQueue,
    workflowId: newId,
    args: [
      {
        agent: input.agent,
        input: input.input ?? {},
        options: { ...(input.options ?? {}), ...(opts.options ?? {}) },
        runId: input.runId ?? id,
        carried,
        resumedFrom: { workflowId: id, runId: d.runId },
      },
    ],
    staticSummary: `Navigator mission: ${input.agent} (resumed from ${id})`,
  });
  return new MissionHandle(handle, client);
}

async function refuseUnlessStopped(
  old: ReturnType<Client['workflow']['getHandle']>,
  id: string,
  status: string,
): Promise<void> {
  if (status === 'RUNNING') throw new MissionRejected(`mission ${id} is still running: nothing to resume`);
  if (status === 'CONTINUED_AS_NEW')
    throw new MissionRejected(`mission ${id} continued as new and is still running: nothing to resume`);
  if (status !== 'COMPLETED') return;
  const result = (await old.result().catch(() => null)) as { status?: unknown } | null;
  if (result?.status !== 'budget_exhausted') throw new MissionRejected(`mission ${id} completed: nothing to resume`);
}

async function remainsOf(
  old: ReturnType<Client['workflow']['getHandle']>,
  chain: Awaited<ReturnType<typeof fetchChain>>,
): Promise<Remains> {
  try {
    // a stopped mission: its history replayed here with the workflow code (no worker needed, src/history/reader.ts)
    const state = await readerOf(old.client).fromHistory(old.workflowId);
    const journal = answerOf<{ entries: JournalEntries }>(state, m.journalQuery.name);
    return {
      journal: journal.entries,
      summaries: answerOf(state, m.summariesQuery.name),
      ledger: answerOf(state, m.ledgerQuery.name),
      from: 'workflow',
    };
  } catch {
    // its code changed (the history does not replay): rebuild the journal from the events alone
    const rebuilt = reconstruct(chain);
    return { journal: rebuilt.journal as Array<[string, Json]>, summaries: {}, ledger: [], from: 'history' };
  }
}
