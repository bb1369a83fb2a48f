/**
 * What an online audit asks of the workflow (the mission's journal, the plan), and the
 * replay of its latest run, done once.
 *
 * An audit compares what history rebuilds with what the workflow holds, and replays every
 * run against the workflow code. For a closed run the reader (src/history/reader.ts) gets
 * what the workflow holds by replaying its history here, so asking it and then replaying
 * the same history again for determinism did the same work twice: about 0.9 s of a 2.5 s
 * audit of a 500-pass mission. The reader's replay is a determinism check too (the
 * read-out only adds a memo the workflow code never sees), so its verdict stands for that
 * run, and the audit replays only the runs before it.
 *
 * Only when the audit replays with the reader's code: the caller gave no workflow code of
 * its own (`workflowsPath`, `workflowBundle`, `replayer`). The audit's other replays then go
 * to the same replay worker, the process's read replayer.
 */
import type { Client } from '@temporalio/client';
import type { RunHistory } from '../history/fetch.ts';
import { answerOf, isClosed, readerOf } from '../history/reader.ts';
import { readReplayer } from '../history/replay.ts';
import type { HistoryReplayer } from '../history/replayer.ts';

/** A run already replayed against the workflow code, and the error that replay met (null: none). */
export interface ReplayedRun {
  runId: string;
  error: string | null;
}

/** The workflow code an audit is given (none: the reader's, on the process's read replayer). */
export interface AuditCode {
  workflowsPath?: string;
  workflowBundle?: { code: string };
  replayer?: HistoryReplayer;
}

export const givesCode = (opts: AuditCode): boolean =>
  Boolean(opts.workflowsPath || opts.workflowBundle || opts.replayer);

/**
 * The answer of the query `name` as the workflow holds it at the end of the chain, and, when
 * that came from replaying the closed latest run here, that run's replay verdict; plus the
 * replayer the audit's other replays use (the read replayer, unless the caller gave code).
 */
export async function workflowAnswer<T>(
  client: Client,
  chain: readonly RunHistory[],
  name: string,
  opts: AuditCode,
): Promise<{ answer: T; replayed?: ReplayedRun; replayer?: HistoryReplayer }> {
  const workflowId = chain.at(-1)?.workflowId ?? '';
  const reader = readerOf(client.workflow);
  if (givesCode(opts)) return { answer: await reader.queryOrHistory<T>(workflowId, name) };
  // built while the history is read and replayed (the reader builds the same one)
  const replayer = readReplayer();
  const description = await reader.describe(workflowId);
  const last = chain.at(-1);
  if (isClosed(description) && last?.runId === description.runId) {
    // a history this code cannot replay at all: asked as any read would be (a worker with the run's code may answer)
    const state = await reader.fromHistory(workflowId, description).catch(() => null);
    if (state && state.at > 0)
      return {
        answer: answerOf<T>(state, name),
        replayed: { runId: state.runId, error: state.replayError ?? null },
        replayer: await replayer,
      };
  }
  return { answer: await reader.queryOrHistory<T>(workflowId, name), replayer: await replayer };
}
