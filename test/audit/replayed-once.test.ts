/**
 * An online audit of a closed run replays its latest run once (src/audit/workflow-answer.ts):
 * the reader's replay of that run, which gave the journal the workflow holds, is also its
 * determinism check. Recorded histories, no server: the reader's read-out of a history the
 * code cannot reproduce carries the replay error; an audit told a run was replayed does not
 * replay it again and keeps that run's verdict, pass or fail; the runs before it are replayed.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { fixture, nondeterministicHistory } from './fixture-histories.ts';
import { auditChain } from '../../src/audit/mission/audit.ts';
import { type History, historiesFromJson } from '../../src/history/fetch.ts';
import { closeReadReplayer, HistoryReplayError, readOut, readReplayer } from '../../src/history/replay.ts';
import type { HistoryReplayer } from '../../src/history/replayer.ts';

const chain = () => historiesFromJson(fixture('wire-transfer-chain.history.json'), 'chain');

/** The process's read replayer, with the histories it is given written down. */
async function counted(): Promise<{ replayer: HistoryReplayer; runs: string[] }> {
  const real = await readReplayer();
  const runs: string[] = [];
  const replayer = {
    replay: (histories: ReadonlyArray<{ workflowId: string; history: History }>) => {
      for (const h of histories)
        runs.push(h.history.events?.[0]?.workflowExecutionStartedEventAttributes?.originalExecutionRunId ?? '?');
      return real.replay(histories);
    },
  } as unknown as HistoryReplayer;
  return { replayer, runs };
}

afterAll(() => closeReadReplayer());

describe('an audit with a run replayed by the reader', () => {
  it('the reader’s read-out of a history its code cannot reproduce says so', { timeout: 120_000 }, async () => {
    const bad = nondeterministicHistory();
    const out = await readOut(bad.workflowId, bad.history).catch((err: unknown) => err);
    // answers from the last point reached and the error, or no answers at all: never a silent pass
    if (out instanceof HistoryReplayError) expect(out.message).toMatch(/does not replay it/);
    else
      expect((out as { replayError?: string }).replayError).toMatch(
        /[Nn]ondetermin|runPassFromOlderCode|does not match/,
      );
  });

  it('replays only the runs before the one replayed, and keeps that run’s verdict', { timeout: 120_000 }, async () => {
    const runs = chain();
    const last = runs.at(-1)!;
    const { replayer, runs: replayed } = await counted();
    const passed = await auditChain(runs, null, { replayer, replayed: { runId: last.runId, error: null } });
    expect(replayed).toEqual(runs.slice(0, -1).map((r) => r.runId));
    expect(passed.replay).toEqual({ ok: true, errors: [] });
    expect(passed.ok).toBe(true);

    const failed = await auditChain(chain(), null, {
      replayer,
      replayed: { runId: last.runId, error: 'Nondeterminism: activity type runPass does not match' },
    });
    expect(failed.replay).toEqual({
      ok: false,
      errors: [`run ${last.runId}: Nondeterminism: activity type runPass does not match`],
    });
    expect(failed.ok).toBe(false);
  });
});
