/**
 * HistoryReplayer: one replay worker fed by many audits. Recorded histories (no server):
 * outcomes come back to each caller in its order while callers overlap, a history the code
 * cannot reproduce fails alone and the worker goes on, an audit through it reports what an
 * audit with its own replay worker reports, and an idle or closed replayer builds a new
 * worker when asked again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditChain } from '../../src/audit/mission/audit.ts';
import { historiesFromJson } from '../../src/history/fetch.ts';
import { HistoryReplayer } from '../../src/history/replayer.ts';
import { bundleOnce } from '../../src/devserver/testing.ts';
import { silentSpanSinks } from '../../src/telemetry/setup.ts';
import { workflowInterceptorModules, workflowsPath } from '../../src/worker/index.ts';
import { fixture, nondeterministicHistory } from './fixture-histories.ts';

const HISTORY = fixture('wire-transfer.history.json');
const CHAIN = fixture('wire-transfer-chain.history.json');

let bundle: { code: string };
let replayer: HistoryReplayer;
beforeAll(async () => {
  bundle = await bundleOnce(workflowsPath, workflowInterceptorModules);
  replayer = new HistoryReplayer({ workflowBundle: bundle, sinks: silentSpanSinks }, 200);
}, 120_000);
afterAll(() => replayer?.close());

const wire = (workflowId: string) => ({ workflowId, history: historiesFromJson(HISTORY, 'wire')[0]!.history });

/** The recorded history made nondeterministic, as workflow `workflowId`: replay must fail. */
function nondeterministic(workflowId: string) {
  return { workflowId, history: nondeterministicHistory().history };
}

describe('HistoryReplayer', () => {
  it(
    'answers overlapping callers each in its own order, one bad history failing alone',
    { timeout: 60_000 },
    async () => {
      const [a, b] = await Promise.all([
        replayer.replay([wire('a1'), nondeterministic('a2'), wire('a3')]),
        replayer.replay([wire('b1'), wire('b2')]),
      ]);
      expect(a.map((o) => [o.workflowId, o.error === undefined])).toEqual([
        ['a1', true],
        ['a2', false],
        ['a3', true],
      ]);
      expect(a[1]!.error!.message).toMatch(/[Nn]ondetermin|runPassFromOlderCode|does not match/);
      expect(b.map((o) => [o.workflowId, o.error === undefined])).toEqual([
        ['b1', true],
        ['b2', true],
      ]);
    },
  );

  it('gives an audit the same report as a replay worker of its own', { timeout: 60_000 }, async () => {
    const chain = () => historiesFromJson(CHAIN, 'chain');
    const own = await auditChain(chain(), null, { workflowBundle: bundle, requireClosed: true });
    const shared = await auditChain(chain(), null, { workflowBundle: bundle, requireClosed: true, replayer });
    expect(own.ok).toBe(true);
    expect(shared).toEqual(own);
    const bad = await auditChain(
      [nondeterministic('w')].map((h, i) => ({ ...historiesFromJson(HISTORY, 'wire')[i]!, history: h.history })),
      null,
      { workflowBundle: bundle, requireClosed: true, replayer },
    );
    expect(bad.replay.ok).toBe(false);
  });

  it('stops its worker when idle or closed, and builds a new one when asked again', { timeout: 60_000 }, async () => {
    await replayer.replay([wire('c1')]);
    expect(replayer.running).toBe(true);
    // closed by its idle timer (200 ms here), however late that fires on a loaded machine
    while (replayer.running) await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await replayer.replay([wire('c2')]))[0]!.error).toBeUndefined();
    await replayer.close();
    expect(replayer.running).toBe(false);
    expect((await replayer.replay([wire('c3')]))[0]!.error).toBeUndefined();
  });
});
