/**
 * Replay workers of one process take turns to build and to close (src/history/replay-workers.ts).
 * The SDK's native runtime shuts down with its last native worker, and a replay worker
 * takes the runtime before it builds: one closing while another builds left the second
 * with a runtime that was gone ("failed to downcast any to ... Runtime"). That is what a
 * client script saw reading a finished mission and then auditing it (the read replayer
 * closing idle while the audit's replay worker was built): `audit().ok` was false.
 *
 * This process holds no other native object (no worker, no native connection), so the
 * runtime really does shut down whenever the last replay worker closes, as in a user's
 * client script. Recorded history, no server.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { HistoryAndWorkflowId } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { historiesFromJson } from '../../src/history/fetch.ts';
import { bundleOnce } from '../../src/devserver/testing.ts';
import { replayHistories } from '../../src/history/replay-workers.ts';
import { silentSpanSinks } from '../../src/telemetry/setup.ts';
import { workflowInterceptorModules, workflowsPath } from '../../src/worker/index.ts';

const HISTORY = readFileSync(
  fileURLToPath(new URL('../audit/fixtures/wire-transfer.history.json', import.meta.url)),
  'utf8',
);
const wire = (workflowId: string): HistoryAndWorkflowId => ({
  workflowId,
  history: historiesFromJson(HISTORY, workflowId)[0]!.history,
});

/** A feed that gives one history and then ends when `end` is called. */
function heldFeed(first: HistoryAndWorkflowId): { feed: AsyncIterable<HistoryAndWorkflowId>; end: () => void } {
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  async function* feed() {
    yield first;
    await ended;
  }
  return { feed: feed(), end };
}

async function outcomes(
  replays: AsyncIterable<{ workflowId: string; error?: Error }>,
): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  for await (const r of replays) out.push([r.workflowId, r.error ? r.error.message : 'ok']);
  return out;
}

describe('replay workers in one process', () => {
  it(
    'one closing while the next is built: both replay, the second is not left without a runtime',
    { timeout: 120_000 },
    async () => {
      const bundle = await bundleOnce(workflowsPath, workflowInterceptorModules);
      const options = { workflowBundle: bundle, sinks: silentSpanSinks };
      const fromSources = {
        workflowsPath,
        interceptors: { workflowModules: [...workflowInterceptorModules] },
        sinks: silentSpanSinks,
      };
      {
        const round = 0;
        const held = heldFeed(wire(`first-${round}`));
        let second: Promise<Array<[string, string]>> | undefined;
        const first = replayHistories({ ...options, replayName: 'turns-first' }, held.feed);
        const firstDone = (async () => {
          const got: Array<[string, string]> = [];
          for await (const r of first) {
            got.push([r.workflowId, r.error ? r.error.message : 'ok']);
            // the first has replayed: the second starts building, and the first closes at once
            if (got.length === 1) {
              // built from the workflow sources, as an audit without a bundle builds it: seconds of bundling
              second = outcomes(
                replayHistories({ ...fromSources, replayName: 'turns-second' }, [wire(`second-${round}`)]),
              );
              held.end();
            }
          }
          return got;
        })();
        expect(await firstDone).toEqual([[`first-${round}`, 'ok']]);
        expect(await second!).toEqual([[`second-${round}`, 'ok']]);
      }
    },
  );
});
