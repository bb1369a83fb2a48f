/**
 * Following a mission live (`navigator run` / `watch`): the model answering with its
 * tokens so far (from the pass activity's heartbeat details), the program running, each
 * external effect, then what it waits for; and stopping to follow leaves it running.
 */
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createActivities } from '../../src/activities/index.ts';
import type { RegisteredAgent } from '../../src/activities/agents.ts';
import { describeNow, follow } from '../../src/cli/mission/follow.ts';
import type { ChatModel } from '../../src/llm/model.ts';
import { type Agent, defineAgent, defineDecision, defineTool } from '../../src/navigator/index.ts';
import { buildRegistry } from '../../src/worker/agents.ts';
import type { StatusView } from '../../src/workflows/mission/contract.ts';
import { type MissionEnv, eventually, missionEnv } from './harness.ts';

const send = defineTool({
  name: 'send',
  description: 'Sends a note. External.',
  input: z.object({ n: z.number() }),
  output: z.object({ sent: z.number() }),
  sideEffect: 'external',
  handler: ({ n }) => ({ sent: n }),
});

const goAhead = defineDecision({
  name: 'go_ahead',
  description: 'Someone lets it finish.',
  key: () => 'go_ahead',
  values: z.enum(['approved', 'rejected']),
});

const agent = defineAgent({
  name: 'follow-me',
  prompt: 'Send note 1, then wait for go_ahead.',
  input: z.object({}),
  output: z.any(),
  tools: [send],
  decisions: [goAhead],
  limits: { maxTurns: 2 },
});

const PROGRAM =
  '```clojure\n(task "send_1" (tool/send {:n 1}))\n(let [d (task "go_ahead" (return {:status :waiting :decision "go_ahead"}))] (return {:decision d}))\n```';

/** Streams "812 tokens", then answers only when the test opens the gate. */
let openGate: () => void = () => undefined;
function gatedModel(): ChatModel {
  return {
    id: 'gated',
    async generate(req) {
      req.onProgress?.(812);
      await new Promise<void>((resolve) => (openGate = resolve));
      return { text: PROGRAM, usage: { inputTokens: 10, outputTokens: 812 } };
    },
  };
}

let m: MissionEnv;
let worker: Worker;
let running: Promise<void>;
beforeAll(async () => {
  m = await missionEnv();
  const agents = new Map(await buildRegistry());
  agents.set('follow-me', { agent: agent as unknown as Agent, model: gatedModel } satisfies RegisteredAgent);
  worker = await m.env.createWorker({
    activities: createActivities({ agents, client: m.client, heartbeatEveryMs: 50 }),
    maxHeartbeatThrottleInterval: '50 milliseconds',
  });
  running = worker.run();
}, 60_000);
afterAll(async () => {
  openGate();
  worker?.shutdown();
  await running?.catch(() => undefined);
  await m?.shutdown();
});

describe('following a mission live', () => {
  it('shows the model answering with its tokens, the effect, then the wait', async () => {
    const handle = await m.start({ agent: 'follow-me', input: {} });
    const lines: string[] = [];
    const followed = follow(handle, { write: (l) => lines.push(l), pollMs: 50, now: () => '--' });
    await eventually(
      () => lines.some((l) => l.includes('model answering, 812 tokens')),
      30_000,
      'the model progress line',
    );
    openGate();
    const settled = await followed;
    expect(settled.status?.status).toBe('waiting');
    const text = lines.map((l) => l.replace(/^-- /, ''));
    const at = (re: RegExp) => text.findIndex((l) => re.test(l));
    expect(at(/^pass 1, turn 1: model answering, 812 tokens$/)).toBeGreaterThanOrEqual(0);
    expect(at(/^effect send_1 \(tool send\): done$/)).toBeGreaterThan(at(/model answering, 812 tokens/));
    expect(text[text.length - 1]).toBe('waiting for go_ahead');
    expect(new Set(text).size).toBe(text.length);
  }, 60_000);

  it('stopping to follow returns at once and leaves the mission running', async () => {
    const handle = await m.start({ agent: 'follow-me', input: {} });
    const stop = new AbortController();
    const lines: string[] = [];
    const followed = follow(handle, { write: (l) => lines.push(l), pollMs: 50, signal: stop.signal });
    await eventually(() => lines.some((l) => l.includes('model answering')), 30_000, 'the model line');
    stop.abort();
    const settled = await followed;
    expect(settled.closed).toBeNull();
    expect(settled.status?.status).toBe('running');
    openGate();
    const described = await handle.describe();
    expect(described.status.name).toBe('RUNNING');
  }, 60_000);
});

describe('describeNow', () => {
  const status = (s: Partial<StatusView>): StatusView =>
    ({ status: 'running', passes: 2, pending: null, journalSize: 0, ...s }) as StatusView;

  it('a running pass without details says so; waiting names the key and deadline', () => {
    expect(describeNow(status({}), null, [])).toEqual(['pass 2: running']);
    const waiting = status({
      status: 'waiting',
      pending: {
        key: 'k',
        allowed: null,
        since: 'x',
        deadline: '2026-01-01T00:00:00.000Z',
        onTimeout: 'fail',
      } as StatusView['pending'],
    });
    expect(describeNow(waiting, 'ignored while waiting', [])).toEqual(['waiting for k until 2026-01-01T00:00:00.000Z']);
    expect(describeNow(status({ status: 'completed' }), null, [])).toEqual(['completed']);
  });

  it('lists external effects only, with their state', () => {
    const entry = { seq: 1, pass: 1, taskId: 't', tool: 'x', idempotencyKey: 'k', attempts: 1, activity: 'a' };
    const lines = describeNow(status({}), 'pass 2, turn 1: running the program', [
      { ...entry, sideEffect: 'read_only', status: 'completed' },
      { ...entry, sideEffect: 'external', status: 'running' },
      { ...entry, taskId: null, sideEffect: 'external', status: 'failed', error: 'boom' },
    ]);
    expect(lines).toEqual([
      'pass 2, turn 1: running the program',
      'effect t (tool x): running',
      'effect x (tool x): failed: boom',
    ]);
  });
});
