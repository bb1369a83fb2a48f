/**
 * A pass step is given its context in its input (issue 30): the whole context on a run's
 * first step when it is small, then what changed since the step before it, rebuilt on the
 * worker that ran that step. Real server, worker and client; the activities' client
 * counts the `passContext` queries they make. Every mission ends with the history audit,
 * which checks the journal each step read against the one rebuilt from history.
 *
 * The agent: per round k an external effect (`ping`, its own suspension), a read-only
 * call (`look`: its result shape reaches the next passes), then a decision `step_k`;
 * after round n it returns what every round saw.
 */
import { Client, type WorkflowClientInterceptor } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../src/activities/index.ts';
import type { AgentRegistry } from '../../src/activities/agents.ts';
import { PassContexts } from '../../src/activities/pass-contexts.ts';
import { type Agent, defineAgent, defineTool } from '../../src/navigator/index.ts';
import type { AuditReport } from '../../src/audit/mission/audit.ts';
import { decideUpdate } from '../../src/workflows/mission/messages.ts';
import type { Json, MissionInput } from '../../src/workflows/mission/contract.ts';
import { ping, repeatingModel } from '../../bench/agents/mission-agents.ts';
import { type MissionEnv, missionEnv, waitForStatus } from './harness.ts';

const look = defineTool({
  name: 'look',
  description: 'Looks at a round (read-only, no output schema: its result shape is learned).',
  input: z.object({ k: z.number().int() }),
  sideEffect: 'read_only',
  handler: ({ k }) => ({ seen: k }),
});

const program = `
(loop [k 1 got []]
  (let [p (task (str "ping_" k) (tool/ping {:i k}))
        l (task (str "look_" k) (tool/look {:k k}))
        d (task (str "step_" k) (return {:status :waiting :decision (str "step_" k)}))
        got (conj got [(:pong p) (:seen l) d])]
    (if (< k data/n) (recur (inc k) got) (return {:got got}))))`;

const rounds = defineAgent({
  name: 'context-rounds',
  prompt: 'Do {{n}} rounds: ping, look, wait for the decision step_k.',
  input: z.object({ n: z.number().int().positive() }),
  output: z.unknown(),
  tools: [ping, look],
  limits: { maxTurns: 2 },
});
const agents: AgentRegistry = new Map([
  [rounds.name, { agent: rounds as unknown as Agent, model: repeatingModel(program) }],
]);

const N = 3;
const expected = { got: [1, 2, 3].map((k) => [k, k, k * 10]) };

let m: MissionEnv;
let queries = 0;
let client: Client;
const workers: Array<{ worker: Worker; done: Promise<void> }> = [];

beforeAll(async () => {
  m = await missionEnv();
  const counting: WorkflowClientInterceptor = {
    query: (input, next) => {
      if (input.queryType === 'passContext') queries++;
      return next(input);
    },
  };
  client = new Client({
    connection: m.env.connection,
    namespace: m.env.server.namespace,
    interceptors: { workflow: [counting] },
  });
});
afterAll(async () => {
  for (const w of workers) if (w.worker.getState() === 'RUNNING') w.worker.shutdown();
  await Promise.allSettled(workers.map((w) => w.done));
  await m?.shutdown();
});

/** A worker with its own kept contexts (a fresh worker keeps none). */
async function startWorker(): Promise<{ contexts: PassContexts; stop: () => Promise<void> }> {
  const contexts = new PassContexts();
  const worker = await m.env.createWorker({
    activities: createActivities({ agents, client, heartbeatEveryMs: 500, passContexts: contexts }),
  });
  const running = { worker, done: worker.run() };
  workers.push(running);
  return { contexts, stop: async () => (worker.shutdown(), await running.done) };
}

/** Runs the rounds, calling `between(k)` before deciding `step_k`; returns the result and the queries made. */
async function runRounds(input: Partial<MissionInput>, between: (k: number) => Promise<void> = async () => undefined) {
  const before = queries;
  const handle = await m.start({ agent: rounds.name, input: { n: N }, ...input });
  for (let k = 1; k <= N; k++) {
    await waitForStatus(handle, (s) => s.status === 'waiting' && s.pending?.key === `step_${k}`);
    await between(k);
    await handle.executeUpdate(decideUpdate, { args: [{ key: `step_${k}`, value: k * 10, by: 'test' }] });
  }
  const result = (await handle.result()) as Json;
  return { result, queries: queries - before, audit: await auditOk(handle.workflowId) };
}

async function auditOk(workflowId: string): Promise<AuditReport> {
  const report = await m.audit(workflowId);
  expect(report.problems).toEqual([]);
  expect(report.values.mismatches).toEqual([]);
  expect(report.values.unrecordedReads).toBe(0);
  expect(report.replay.errors).toEqual([]);
  expect(report.ok).toBe(true);
  return report;
}

/** What the audit checked, comparable between runs of the same mission. */
const checked = (a: AuditReport) => ({
  values: a.values.checked,
  journal: a.journal.fromHistory,
  replayed: a.valueReplay.passes.map((p) => [p.pass, p.status, p.programs]),
});

describe('a pass step given its context in its input', () => {
  let reference: Awaited<ReturnType<typeof runRounds>>;

  it('consecutive steps on one worker never query the workflow', async () => {
    const w = await startWorker();
    try {
      reference = await runRounds({});
      expect(reference.result).toEqual(expected);
      expect(reference.queries).toBe(0);
      // passes 1-3 each stop once at their ping, pass 4 returns: 7 steps, the first given whole
      expect(w.contexts.counts).toEqual({ given: 1, rebuilt: 6, missed: 0 });
    } finally {
      await w.stop();
    }
  }, 180_000);

  it('a step after the worker forgot, or on a fresh worker, queries; result and audit are the same', async () => {
    const first = await startWorker();
    let fresh: Awaited<ReturnType<typeof startWorker>> | undefined;
    try {
      const run = await runRounds({}, async (k) => {
        if (k === 2) first.contexts.clear();
        if (k === 3) {
          await first.stop();
          fresh = await startWorker();
        }
      });
      expect(run.result).toEqual(reference.result);
      // the first step of pass 3 (forgotten; its resume is rebuilt) and pass 4 (on a fresh worker)
      expect(run.queries).toBe(2);
      expect(first.contexts.counts).toEqual({ given: 1, rebuilt: 4, missed: 1 });
      expect(fresh!.contexts.counts).toEqual({ given: 0, rebuilt: 0, missed: 1 });
      expect(checked(run.audit)).toEqual(checked(reference.audit));
    } finally {
      await fresh?.stop();
    }
  }, 180_000);

  it('a first step whose whole context is too big for its input queries, and the next steps are rebuilt', async () => {
    const w = await startWorker();
    try {
      const seed = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`notes_${i}`, 'x'.repeat(1000)]));
      const run = await runRounds({ journal: seed });
      expect(run.result).toEqual(expected);
      expect(run.queries).toBe(1);
      expect(w.contexts.counts).toEqual({ given: 0, rebuilt: 6, missed: 1 });
      expect(run.audit.journal.fromHistory.slice(0, 10)).toEqual(Object.entries(seed));
    } finally {
      await w.stop();
    }
  }, 180_000);
});
