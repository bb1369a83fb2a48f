/**
 * The law of a pass step's context in its input (src/workflows/mission/pass-context.ts with the
 * worker's src/activities/pass-contexts.ts): whatever people write between and during
 * steps, whichever of two workers runs each step, whatever a worker forgot, a step given
 * its context (whole, or rebuilt from its worker's base and the input's changes) reads
 * exactly what the workflow's query answered when the step was scheduled; and a step
 * without it asks by query. The workflow side is MissionState, driven as mission-loop.ts
 * drives it; requests and answers cross the boundary as JSON, as they do in Temporal.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PassContexts, contextFrom, stepBase } from '../../src/activities/pass-contexts.ts';
import { canonicalJson } from '../../src/lisp/json.ts';
import {
  MissionInput,
  type Json,
  type PassContext,
  type PassRequest,
  type PassResponse,
} from '../../src/workflows/mission/contract.ts';
import { applyPatch, diffJson } from '../../src/kernel/json-patch.ts';
import { MissionState } from '../../src/workflows/mission/state.ts';
import {
  MAX_CONTEXT_INPUT_CHARS,
  applyJournalOps,
  compactContext,
  wholeContext,
} from '../../src/workflows/mission/pass-context.ts';

type Done = Extract<PassResponse, { kind: 'done' }>;

const wire = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const key = fc.constantFrom('a', 'b', 'c', 'd', '__proto__');
const value: fc.Arbitrary<Json> = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 6 }),
  fc.constant(null),
  fc.dictionary(fc.constantFrom('x', 'y'), fc.integer(), { maxKeys: 2 }),
);

/** What happens next in a mission, as data. */
type Action =
  | { kind: 'write'; key: string; value: Json }
  | { kind: 'reset'; key: string }
  | { kind: 'forget'; worker: number }
  | {
      kind: 'step';
      worker: number;
      /** a person writes this after the step is scheduled, before its worker reads */
      during: { key: string; value: Json } | null;
      /** a done pass (commits, resets, summaries, a tool call), effects (a new state), or a failed activity */
      answer:
        | {
            kind: 'done';
            commits: Array<[string, Json]>;
            resets: string[];
            summary: string | null;
            tool: string | null;
          }
        | { kind: 'effects'; n: number; state: Json }
        | { kind: 'failed' };
      /** the answer history records is another attempt's, which this worker never saw */
      otherAttempt: boolean;
    };

const action: fc.Arbitrary<Action> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('write' as const), key, value }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('reset' as const), key }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('forget' as const), worker: fc.nat(1) }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('step' as const),
      worker: fc.oneof({ arbitrary: fc.constant(0), weight: 4 }, { arbitrary: fc.constant(1), weight: 1 }),
      during: fc.option(fc.record({ key, value }), { freq: 4 }),
      answer: fc.oneof(
        {
          arbitrary: fc.record({
            kind: fc.constant('done' as const),
            commits: fc.array(fc.tuple(key, value), { maxLength: 3 }),
            resets: fc.array(key, { maxLength: 1 }),
            summary: fc.option(fc.string({ maxLength: 5 })),
            tool: fc.option(fc.constantFrom('look', 'find')),
          }),
          weight: 4,
        },
        {
          arbitrary: fc.record({
            kind: fc.constant('effects' as const),
            n: fc.integer({ min: 1, max: 2 }),
            state: value,
          }),
          weight: 3,
        },
        { arbitrary: fc.constant({ kind: 'failed' as const }), weight: 1 },
      ),
      otherAttempt: fc.integer({ min: 0, max: 7 }).map((n) => n === 0),
    }),
    weight: 6,
  },
);

/** Runs a mission's steps as mission-loop.ts does, checking every step's context. */
function simulate(actions: Action[], journal: Array<[string, Json]>) {
  const state = new MissionState(MissionInput.parse({ agent: 'a', input: { n: 1 }, journal }), 'wf', 0);
  const workers = [new PassContexts(), new PassContexts()];
  let effects: string[] = [];
  let asked = 0;
  for (const a of actions) {
    if (a.kind === 'write') state.writeByPerson(a.key, a.value);
    else if (a.kind === 'reset') state.resetByPerson(a.key);
    else if (a.kind === 'forget') workers[a.worker]!.clear();
    else {
      const resume = state.passState !== null;
      if (!resume) state.beginPass();
      const req = wire<PassRequest>({
        agent: 'a',
        pass: state.passes,
        journalVersion: state.journalVersion,
        resume,
        step: state.passStep,
        ...contextOf(state, resume, effects),
      });
      const scheduled = wire(state.passContext());
      if (a.during) state.writeByPerson(a.during.key, a.during.value);
      const worker = workers[a.worker]!;
      const given = worker.contextOf('wf', 'run', req);
      if (given) {
        expect(canonicalJson(given as unknown as Json)).toBe(canonicalJson(scheduled as unknown as Json));
        expect(Object.keys(given.effectResults)).toEqual(Object.keys(scheduled.effectResults));
      } else asked++;
      const read = given ?? wire(state.passContext());
      effects = step(state, worker, read, a);
    }
  }
  return { asked, counts: workers.map((w) => w.counts) };
}

function contextOf(state: MissionState, resume: boolean, settled: string[]): Pick<PassRequest, 'context'> {
  const context = state.passContextInput(resume, settled);
  if (context) expect(JSON.stringify(context).length).toBeLessThanOrEqual(MAX_CONTEXT_INPUT_CHARS);
  return context ? { context } : {};
}

/** The worker answers; the workflow records the answer and applies it. Returns the effects run for the next step. */
function step(
  state: MissionState,
  worker: PassContexts,
  read: PassContext,
  a: Extract<Action, { kind: 'step' }>,
): string[] {
  const journalRead = { version: read.journalVersion, hash: 'h', order: 'key' as const };
  if (a.answer.kind === 'failed') {
    // failedPass in mission-loop.ts
    state.contextFeed.lost();
    state.passState = null;
    state.passStep = 0;
    state.effectResults = {};
    state.applyPass(done({ basedOnVersion: read.journalVersion }));
    return [];
  }
  let res: PassResponse;
  if (a.answer.kind === 'effects') {
    const next = { turn: state.passStep, held: a.answer.state };
    const ids = Array.from({ length: a.answer.n }, (_, i) => `e${state.passes}-${state.passStep}-${i}`);
    // an effect's id is left out when it is its idempotency key
    const effects = ids.map((id, i) => ({
      ...(i % 2 ? { id } : {}),
      tool: 'send',
      args: {},
      idempotencyKey: i % 2 ? `key-${id}` : id,
      taskId: null,
    }));
    res = { kind: 'effects', effects, patch: diffJson(read.passState, next) ?? { o: {} }, journalRead };
  } else {
    const { commits, resets, summary, tool } = a.answer;
    res = done({
      basedOnVersion: read.journalVersion,
      journalDelta: commits,
      resets,
      summaries: summary === null ? {} : { [`s${state.passes}`]: summary },
      toolCalls:
        tool === null
          ? []
          : [
              {
                tool,
                taskId: null,
                idempotencyKey: `k${state.passes}`,
                sideEffect: 'read_only',
                result: { n: state.passes % 2 ? 1 : 'x' },
              },
            ],
      journalRead,
    });
  }
  const ref = worker.remember('wf', 'run', read, res);
  const recorded = wire({ ...res, ref: a.otherAttempt ? 'another-attempt' : ref });
  state.contextFeed.answered(recorded);
  if (recorded.kind === 'done') {
    state.applyPass(recorded);
    return [];
  }
  state.passState = applyPatch(state.passState, recorded.patch!) as Json;
  state.passStep++;
  const ids = recorded.effects.map((e) => e.id ?? e.idempotencyKey);
  // effects settle in any order; a person may write while they run
  for (const id of [...ids].reverse())
    state.effectResults[id] = id.endsWith('1') ? { error: 'failed' } : { ok: { id } };
  return ids;
}

function done(partial: Partial<Done>): Done {
  return {
    kind: 'done',
    outcome: { kind: 'return', value: null },
    basedOnVersion: 0,
    journalDelta: [],
    resets: [],
    summaries: {},
    toolCalls: [],
    tokens: 0,
    ...partial,
  };
}

describe('a pass step given its context', () => {
  it('reads exactly what the query answered when it was scheduled, on any worker, whatever people wrote', () => {
    let rebuilt = 0;
    let asked = 0;
    fc.assert(
      fc.property(
        fc.array(action, { minLength: 10, maxLength: 40 }),
        fc.array(fc.tuple(key, value), { maxLength: 3 }),
        (actions, journal) => {
          const out = simulate(actions, journal);
          rebuilt += out.counts.reduce((n, c) => n + c.rebuilt, 0);
          asked += out.asked;
        },
      ),
      { numRuns: 300 },
    );
    // both ways were taken, many times
    expect(rebuilt).toBeGreaterThan(800);
    expect(asked).toBeGreaterThan(300);
  });

  it('a run whose steps all run on one worker that keeps them never asks', () => {
    const steps: Action[] = [];
    for (let i = 0; i < 20; i++) {
      steps.push({ kind: 'write', key: `d${i}`, value: i });
      steps.push({
        kind: 'step',
        worker: 0,
        during: null,
        answer:
          i % 3
            ? { kind: 'done', commits: [[`t${i}`, { i }]], resets: [], summary: 'ok', tool: 'look' }
            : { kind: 'effects', n: 2, state: { i } },
        otherAttempt: false,
      });
    }
    const out = simulate(steps, [['seed', 1]]);
    expect(out.asked).toBe(0);
    expect(out.counts[0]).toEqual({ given: 1, rebuilt: 19, missed: 0 });
  });

  it('a step after too many journal changes asks by query (its whole context is too big), then steps are given it again', () => {
    const writes: Action[] = Array.from({ length: 300 }, (_, i) => ({
      kind: 'write',
      key: `w${i % 7}`,
      value: `${i}`.repeat(1500),
    }));
    const next: Action = {
      kind: 'step',
      worker: 0,
      during: null,
      answer: { kind: 'done', commits: [], resets: [], summary: null, tool: null },
      otherAttempt: false,
    };
    const out = simulate([next, ...writes, next, { kind: 'write', key: 'a', value: 1 }, next], []);
    expect(out.counts[0]).toEqual({ given: 1, rebuilt: 1, missed: 1 });
  });
});

describe('the worker base', () => {
  const read: PassContext = {
    journalVersion: 3,
    journal: [
      ['a', 1],
      ['b', 2],
    ],
    summaries: { s1: 'one' },
    input: { n: 1 },
    lastError: 'boom',
    runId: 'r',
    passState: null,
    passStep: 0,
    effectResults: {},
    toolShapes: {},
  };

  it('a whole context leaves out the keys at their defaults, and stands for the same context', () => {
    const first = new MissionState(MissionInput.parse({ agent: 'a', input: { n: 1 } }), 'wf', 0);
    expect(compactContext(first.passContext(), 'wf')).toEqual({ input: { n: 1 } });
    expect(compactContext(read, 'r')).toEqual({
      journalVersion: 3,
      journal: read.journal,
      summaries: read.summaries,
      input: read.input,
      lastError: 'boom',
    });
    const context: fc.Arbitrary<PassContext> = fc.record({
      journalVersion: fc.nat(3),
      journal: fc.array(fc.tuple(key, value), { maxLength: 2 }),
      summaries: fc.dictionary(key, fc.string(), { maxKeys: 1 }),
      input: fc.oneof(value, fc.constant({} as Json), fc.constant([] as Json)),
      lastError: fc.option(fc.string()),
      runId: fc.constantFrom('wf', 'other'),
      passState: fc.option(value),
      passStep: fc.nat(2),
      effectResults: fc.dictionary(fc.string(), fc.constant({ ok: 1 }), { maxKeys: 1 }),
      toolShapes: fc.dictionary(fc.string(), fc.string(), { maxKeys: 1 }),
    });
    const same = (c: PassContext) =>
      canonicalJson(wire(wholeContext(wire(compactContext(c, 'wf')), 'wf')) as unknown as Json) ===
      canonicalJson(wire(c) as unknown as Json);
    fc.assert(fc.property(context, same));
  });

  it('rebuilds the journal in the workflow order: a written key moves to the end, a commit by reference', () => {
    expect(
      applyJournalOps(
        read.journal,
        [['c', 9]],
        [
          ['s', 'a', 5],
          ['c', 'c'],
          ['d', 'b'],
        ],
      ),
    ).toEqual([
      ['a', 5],
      ['c', 9],
    ]);
    expect(applyJournalOps(read.journal, [], [['c', 'a']])).toBeNull();
  });

  it('a done pass leaves its summaries merged and no suspended state; an effects step its patched state', () => {
    const base = stepBase(read, done({ summaries: { s2: 'two' }, journalDelta: [['c', 3]] }));
    expect(base).toMatchObject({
      next: 'pass',
      commits: [['c', 3]],
      context: { summaries: { s1: 'one', s2: 'two' }, passState: null },
    });
    const suspended = stepBase(read, { kind: 'effects', effects: [], patch: { r: { turn: 1 } } });
    expect(suspended).toMatchObject({ next: 'resume', commits: [], context: { passState: { turn: 1 } } });
  });

  it('refuses changes that do not fit the base: a new pass after effects, a resume without its results', () => {
    const pass = stepBase(read, done({}));
    const req: PassRequest = { agent: 'a', pass: 2, journalVersion: 4, resume: true, step: 1 };
    expect(contextFrom(pass, req, { base: 'x', settled: [] })).toBeNull();
    const resume = stepBase(read, {
      kind: 'effects',
      effects: [
        { tool: 't', args: {}, idempotencyKey: 'k0', taskId: null },
        { id: 'e1', tool: 't', args: {}, idempotencyKey: 'k1', taskId: null },
      ],
      patch: { r: 1 },
    });
    expect(contextFrom(resume, req, { base: 'x', journal: [] })).toBeNull();
    expect(contextFrom(resume, { ...req, resume: false }, { base: 'x', journal: [], lastError: null })).toBeNull();
    expect(contextFrom(resume, req, { base: 'x', settled: [[2, { ok: 1 }]] })).toBeNull();
    const rebuilt = contextFrom(resume, req, {
      base: 'x',
      journal: [['s', 'z', 0]],
      settled: [
        [1, { ok: 1 }],
        [0, { error: 'no' }],
      ],
    });
    expect(rebuilt).toMatchObject({
      journalVersion: 4,
      passStep: 1,
      journal: [
        ['a', 1],
        ['b', 2],
        ['z', 0],
      ],
      lastError: 'boom',
    });
    // the effect ids the workflow gives them (the id, else the idempotency key), in the order they settled
    expect(Object.entries(rebuilt!.effectResults)).toEqual([
      ['e1', { ok: 1 }],
      ['k0', { error: 'no' }],
    ]);
  });

  it('keeps at most its bound of missions and characters, oldest out first', () => {
    const contexts = new PassContexts({ maxMissions: 2, maxChars: 2000 });
    const refs = ['w1', 'w2', 'w3'].map((w) => contexts.remember(w, 'r', read, done({})));
    expect(contexts.size).toBe(2);
    const next = (w: string, ref: string) =>
      contexts.contextOf(w, 'r', {
        agent: 'a',
        pass: 2,
        journalVersion: 3,
        resume: false,
        context: { base: ref, journal: [], lastError: null },
      });
    expect(next('w1', refs[0]!)).toBeNull();
    expect(next('w3', refs[2]!)).toMatchObject({ lastError: null, summaries: { s1: 'one' } });
    // a base bigger than the bound is not kept
    const big = { ...read, journal: [['big', 'x'.repeat(3000)]] as PassContext['journal'] };
    const ref = contexts.remember('w4', 'r', big, done({}));
    expect(next('w4', ref)).toBeNull();
    // and a stale ref is no match
    expect(next('w3', 'stale')).toBeNull();
    expect(contexts.counts).toEqual({ given: 0, rebuilt: 1, missed: 3 });
  });
});
