/**
 * History per effect stays small: a suspended pass crosses the activity boundary as a
 * patch of its packed state, so a 4 KB program is stored once and each further effect
 * adds only what changed. Byte counts, not times: the protobuf size of the events.
 *
 * Bounds are the sizes measured on a real server (temporal server start-dev 1.29.1, which
 * the embedded server now matches within a few bytes) plus about 10%: 12.6 KB for the
 * pass with 3 effects, 3.0 KB per further effect. Most of an effect's bytes are fixed
 * per event: the worker's build id stamp (~100 bytes) on every task started and
 * completed event, a trace context header (~120 bytes) on every scheduled activity.
 */
import type { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegisteredAgent } from '../../src/activities/agents.ts';
import { benchAgents, sequentialProgram } from '../../bench/agents/mission-agents.ts';
import { historySize, passEvents } from '../../bench/pass-history.ts';
import { type MissionEnv, missionEnv } from './harness.ts';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const size = historySize;

const payload = (e: HistoryEvent) =>
  Buffer.from(e.activityTaskCompletedEventAttributes?.result?.payloads?.[0]?.data ?? []).toString();

let m: MissionEnv;
beforeAll(async () => {
  m = await missionEnv();
  await m.startWorker(benchAgents.filter((e): e is RegisteredAgent => e.agent.name === 'bench-sequential'));
}, 60_000);
afterAll(() => m?.shutdown());

async function run(n: number) {
  const handle = await m.start({ agent: 'bench-sequential', input: { n } });
  const result = await handle.result();
  const evs = (await handle.fetchHistory()).events ?? [];
  const pass = passEvents(evs);
  return { handle, result, events: pass.events, resumes: pass.completions.slice(1) };
}

describe('history bytes of a pass with sequential effects', () => {
  it('a 4 KB program with 3 sequential effects adds under 13.5 KB, each resume well under 1 KB of state', async () => {
    expect(sequentialProgram.length).toBeGreaterThan(3900);
    const three = await run(3);
    expect(three.result).toEqual({ count: 3 });
    expect(size(three.events)).toBeLessThan(13.5 * 1024);
    // the whole program is in the first suspension only
    expect(three.resumes).toHaveLength(3);
    for (const e of three.resumes) {
      expect(payload(e)).not.toContain('quality-notes');
      expect(size([e])).toBeLessThan(1024);
    }
    const audit = await m.audit(three.handle.workflowId);
    expect(audit.ok, JSON.stringify(audit.problems)).toBe(true);
  }, 120_000);

  it('each further effect costs about the same: the state does not grow with every suspension', async () => {
    const one = await run(1);
    const three = await run(3);
    const perEffect = (size(three.events) - size(one.events)) / 2;
    // the resumes that suspended again (the last one ends the pass)
    const suspended = three.resumes.filter((e) => payload(e).includes('"kind":"effects"')).map((e) => size([e]));
    expect(suspended).toHaveLength(2);
    expect(Math.abs(suspended[1]! - suspended[0]!)).toBeLessThan(64);
    // two activities per effect (the tool, the resumed pass), each with a ~120-byte trace
    // context header from the tracing interceptors (bundled whether tracing is on or not),
    // and two workflow tasks: 12 events, 6 of them with the worker's ~100-byte build id stamp
    expect(perEffect).toBeLessThan(3.25 * 1024);
  }, 120_000);
});
