/**
 * A model endpoint that fails (5xx) is retried with backoff inside the pass, never counted
 * as a failed pass and never shown to the model; passes that do end in errors wait 1 s,
 * 2 s, ... before the next one. Real worker, real provider code against a local HTTP server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, type Agent } from '../../src/navigator/index.ts';
import { createProviderModel, createScriptedModel } from '../../src/llm/index.ts';
import { EventType } from '../../src/history/fetch.ts';
import { statusQuery } from '../../src/workflows/mission/messages.ts';
import { type FakeServer, openaiCompletion, openaiError, startFakeServer } from '../llm/fake-server.ts';
import { missionEnv, type MissionEnv } from './harness.ts';

const fenced = (code: string) => '```clojure\n' + code + '\n```';
const answerAgent = (name: string) =>
  defineAgent({ name, prompt: 'Answer.', input: z.object({}), output: z.unknown() }) as unknown as Agent;

let m: MissionEnv;
let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
  m = await missionEnv();
  await m.startWorker([
    // no retries inside the provider: every failed answer fails the pass activity at once
    {
      agent: answerAgent('remote'),
      model: () => createProviderModel(`openai-compatible:${server.url}/v1#m`, { env: {}, maxRetries: 0 }),
    },
    { agent: answerAgent('erring'), model: () => createScriptedModel([{ answer: fenced('(+ 1 "a")'), repeat: true }]) },
  ]);
});
afterAll(async () => {
  await m?.shutdown();
  await server?.close();
});

const historyOf = async (workflowId: string) =>
  (await m.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
const seconds = (d: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(d?.seconds ?? 0) + (d?.nanos ?? 0) / 1e9;

describe('a model endpoint answering 503', () => {
  it(
    'is retried inside the pass until it answers: no failed pass, nothing shown to the model',
    { timeout: 180_000 },
    async () => {
      // five tries of the first pass (the activity's retries), then one more of the next pass
      const overloaded = { status: 503, body: openaiError('overloaded', 'server_error') };
      server.reply(...Array.from({ length: 6 }, () => overloaded), {
        body: openaiCompletion(fenced('(return {:answer 42})')),
      });
      const handle = await m.start({ agent: 'remote' });
      expect(await handle.result()).toEqual({ answer: 42 });

      const status = await handle.query(statusQuery);
      // the dropped pass and the one that answered; neither ended in an error
      expect(status.passes).toBe(2);
      expect(status.error).toBeUndefined();
      expect(server.received).toHaveLength(7);
      for (const call of server.received) expect(JSON.stringify(call.body)).not.toMatch(/Previous pass|503|overloaded/);

      const events = await historyOf(handle.workflowId);
      const failures = events.filter((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED);
      expect(failures.map((e) => e.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo?.type)).toEqual([
        'ModelUnavailable',
      ]);
      expect(failures[0]!.activityTaskFailedEventAttributes?.failure?.message).toContain('HTTP 503');
      // the pass that never reached the model is run again after a second
      const timers = events.filter((e) => e.eventType === EventType.EVENT_TYPE_TIMER_STARTED);
      expect(timers.map((e) => seconds(e.timerStartedEventAttributes?.startToFireTimeout))).toEqual([1]);
      const audit = await m.audit(handle.workflowId);
      expect(audit.ok).toBe(true);
    },
  );
});

describe('passes that end in errors', () => {
  it('back off 1 s, 2 s, ... before the next pass', { timeout: 120_000 }, async () => {
    const handle = await m.start({ agent: 'erring', options: { maxPasses: 3 } });
    const failure = await handle.result().catch((e: Error) => e);
    expect(String((failure as { cause?: Error }).cause?.message)).toMatch(/3 passes ended in errors/);
    const events = await historyOf(handle.workflowId);
    const timers = events.filter((e) => e.eventType === EventType.EVENT_TYPE_TIMER_STARTED);
    expect(timers.map((e) => seconds(e.timerStartedEventAttributes?.startToFireTimeout))).toEqual([1, 2]);
    // each pass starts after the wait of the pass before
    const passStarts = events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runPass')
      .map((e) => Number(e.eventId));
    const timerFired = events
      .filter((e) => e.eventType === EventType.EVENT_TYPE_TIMER_FIRED)
      .map((e) => Number(e.eventId));
    expect(passStarts[1]).toBeGreaterThan(timerFired[0]!);
    expect(passStarts[2]).toBeGreaterThan(timerFired[1]!);
  });
});

describe('activity timeouts by default', () => {
  it('a pass or effect whose worker died is retried after 5 s without a heartbeat', { timeout: 120_000 }, async () => {
    // started without the harness's test timeouts: the mission's own defaults
    const handle = await m.client.workflow.start('navigatorMission', {
      taskQueue: m.taskQueue,
      workflowId: `defaults-${process.pid}`,
      args: [{ agent: 'erring', options: { maxPasses: 1 } }],
    });
    await handle.result().catch(() => undefined);
    const scheduled = (await historyOf(handle.workflowId)).filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runPass',
    );
    expect(scheduled.map((e) => seconds(e.activityTaskScheduledEventAttributes?.heartbeatTimeout))).toEqual([5]);
  });
});
