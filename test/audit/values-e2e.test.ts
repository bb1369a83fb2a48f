/**
 * Value replay of live missions on the embedded server: the programs run again on the
 * input they saw, which the agent's schema may have changed (a default), and the audit
 * passes; the pass result records that input only when it differs from the mission's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fetchChain } from '../../src/history/fetch.ts';
import { decodeFirst } from '../../src/history/fetch.ts';
import { type Agent, defineAgent } from '../../src/navigator/index.ts';
import type { PassResponse } from '../../src/workflows/mission/contract.ts';
import { repeatingModel } from '../../bench/agents/mission-agents.ts';
import { type MissionEnv, missionEnv } from '../mission/harness.ts';

const withDefault = defineAgent({
  name: 'values-default-input',
  prompt: 'Return {{n}} doubled.',
  input: z.object({ n: z.number().default(21) }),
  output: z.object({ doubled: z.number() }),
  limits: { maxTurns: 2 },
});

let m: MissionEnv;
beforeAll(async () => {
  m = await missionEnv();
  await m.startWorker([
    { agent: withDefault as unknown as Agent, model: repeatingModel('(return {:doubled (* 2 data/n)})') },
  ]);
}, 60_000);
afterAll(() => m?.shutdown());

const passResults = async (workflowId: string): Promise<Array<Extract<PassResponse, { kind: 'done' }>>> => {
  const chain = await fetchChain(m.client, workflowId);
  return chain.flatMap((r) =>
    (r.history.events ?? [])
      .map((e) => decodeFirst<PassResponse>(e.activityTaskCompletedEventAttributes?.result))
      .filter((x): x is Extract<PassResponse, { kind: 'done' }> => x?.kind === 'done'),
  );
};

describe('value replay of live missions', () => {
  it(
    're-runs a program on the input the agent schema gave it (a default), recorded only because it differs',
    { timeout: 120_000 },
    async () => {
      const defaulted = await m.start({ agent: 'values-default-input', input: {} });
      expect(await defaulted.result()).toEqual({ doubled: 42 });
      const given = await m.start({ agent: 'values-default-input', input: { n: 5 } });
      expect(await given.result()).toEqual({ doubled: 10 });

      expect((await passResults(defaulted.workflowId)).map((d) => d.programInput)).toEqual([{ n: 21 }]);
      expect((await passResults(given.workflowId)).map((d) => d.programInput)).toEqual([undefined]);
      for (const id of [defaulted.workflowId, given.workflowId]) {
        const report = await m.audit(id);
        expect(report.valueReplay.mismatches).toEqual([]);
        expect(report.valueReplay.passes.map((p) => p.status)).toEqual(['ok']);
        expect(report.ok).toBe(true);
      }
    },
  );
});
