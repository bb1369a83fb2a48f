/**
 * Containment on a real worker: one mission's runaway program (a loop bounded only by an
 * 8 s deadline) runs in a sandbox thread, so another mission on the same worker starts,
 * runs and finishes while the runaway program is still going.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createScriptedModel } from '../../src/llm/index.ts';
import type { ChatModel } from '../../src/llm/model.ts';
import { type Agent, defineAgent } from '../../src/navigator/index.ts';
import { eventually, missionEnv, type MissionEnv } from './harness.ts';

let runawayStarted = false;
const fenced = (code: string) => '```clojure\n' + code + '\n```';

const runaway = {
  agent: defineAgent({
    name: 'runaway',
    prompt: 'Spin.',
    input: z.object({}),
    output: z.unknown(),
    limits: { fuel: 1e13, timeoutMs: 8000, maxTurns: 1 },
  }) as unknown as Agent,
  model: (): ChatModel => {
    const inner = createScriptedModel([{ answer: fenced('(loop [i 0] (recur (inc i)))'), repeat: true }]);
    return { id: inner.id, generate: (req) => ((runawayStarted = true), inner.generate(req)) };
  },
};
const quick = {
  agent: defineAgent({
    name: 'quick',
    prompt: 'Answer.',
    input: z.object({}),
    output: z.unknown(),
  }) as unknown as Agent,
  model: () => createScriptedModel([{ answer: fenced('(return {:answer 42})'), repeat: true }]),
};

let m: MissionEnv;
beforeAll(async () => {
  m = await missionEnv();
  await m.startWorker([runaway, quick]);
});
afterAll(async () => m?.shutdown());

describe('a runaway program', () => {
  it('does not hold up another mission on the same worker', { timeout: 120_000 }, async () => {
    const spinning = await m.start({ agent: 'runaway', options: { maxPasses: 1 } });
    await eventually(() => runawayStarted, 30_000, 'the runaway program to start');
    const other = await m.start({ agent: 'quick' });
    expect(await other.result()).toEqual({ answer: 42 });
    const failure = await spinning.result().catch((e: Error) => e);
    expect(String((failure as { cause?: Error }).cause?.message)).toMatch(/passes ended in errors/);
    // by the server's clock: the other mission completed before the runaway pass ended
    // (evaluated in-process, the loop would block this worker until its deadline)
    const { EventType } = await import('../../src/history/fetch.ts');
    const eventsOf = async (id: string) => (await m.client.workflow.getHandle(id).fetchHistory()).events ?? [];
    const ms = (e: { eventTime?: { seconds?: unknown; nanos?: number | null } | null }) =>
      Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6);
    const otherDone = ms(
      (await eventsOf(other.workflowId)).find(
        (e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
      )!,
    );
    const spinEvents = await eventsOf(spinning.workflowId);
    const passScheduled = spinEvents.find(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runPass',
    )!;
    const passDone = ms(
      spinEvents.find(
        (e) => Number(e.activityTaskCompletedEventAttributes?.scheduledEventId) === Number(passScheduled.eventId),
      )!,
    );
    expect(otherDone).toBeLessThan(passDone);
  });
});
