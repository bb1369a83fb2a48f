/**
 * The audit must be able to fail. A recorded wire-transfer history (no server needed) is
 * audited as is (ok), then tampered with: an external effect completed twice, a pass
 * result changed, a committing event removed, the history cut short, an unknown event
 * type, a payload that does not decode. Each must give `ok: false` naming the problem,
 * never a crash.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditChain } from '../../src/audit/mission/audit.ts';
import { historiesFromJson } from '../../src/history/fetch.ts';
import { bundleOnce } from '../../src/devserver/testing.ts';
import { workflowInterceptorModules, workflowsPath } from '../../src/worker/index.ts';

const fixture = (name: string) => readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)), 'utf8');
const HISTORY = fixture('wire-transfer.history.json');
/** the same mission with continueAsNewAfterEvents 15: two runs */
const CHAIN = fixture('wire-transfer-chain.history.json');
const JOURNAL = JSON.parse(fixture('wire-transfer.journal.json')) as Array<[string, never]>;

type Json = Record<string, unknown>;
let bundle: { code: string };
beforeAll(async () => {
  bundle = await bundleOnce(workflowsPath, workflowInterceptorModules);
}, 120_000);

/** The recorded history as plain JSON, for tampering. */
const raw = (): { events: Json[] } => JSON.parse(HISTORY);
const audit = (history: unknown, opts: { journal?: boolean; replay?: boolean } = {}) =>
  auditChain(historiesFromJson(JSON.stringify(history), 'test'), opts.journal === false ? null : JOURNAL, {
    workflowBundle: bundle,
    skipReplay: opts.replay === false,
    requireClosed: true,
  });

const isType = (e: Json, type: string) => e.eventType === type;
const scheduledOf = (h: { events: Json[] }, activityType: string) =>
  h.events.filter(
    (e) =>
      (e.activityTaskScheduledEventAttributes as Json | undefined)?.activityType &&
      ((e.activityTaskScheduledEventAttributes as Json).activityType as Json).name === activityType,
  );

describe('audit of a recorded mission', () => {
  it('passes on the history as recorded', { timeout: 60_000 }, async () => {
    const report = await audit(raw());
    expect(report.problems).toEqual([]);
    expect(report.replay.errors).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.provenance.map((p) => p.key)).toEqual(JOURNAL.map(([k]) => k));
  });

  it('fails when an external effect completed twice for one idempotency key', async () => {
    const h = raw();
    const scheduled = scheduledOf(h, 'runTool')[0]!;
    const completed = h.events.find(
      (e) =>
        isType(e, 'EVENT_TYPE_ACTIVITY_TASK_COMPLETED') &&
        (e.activityTaskCompletedEventAttributes as Json).scheduledEventId === scheduled.eventId,
    )!;
    // a second completion of the same activity's schedule, as a duplicate would leave it
    // (inserted before the closing event, which moves one id up)
    const last = h.events.at(-1)!;
    h.events.splice(h.events.length - 1, 0, { ...structuredClone(completed), eventId: last.eventId });
    last.eventId = String(Number(last.eventId) + 1);
    const report = await audit(h, { replay: false });
    expect(report.ok).toBe(false);
    expect(report.duplicateEffects).toEqual([
      expect.objectContaining({ tool: 'execute_wire', taskId: 'execute_wire_bob_5000', completions: 2 }),
    ]);
    expect(report.problems).toContain(
      'external effect execute_wire (task execute_wire_bob_5000) completed 2 times for one idempotency key',
    );
  });

  it('fails when a pass result in history differs from the journal the workflow reports', async () => {
    const h = raw();
    const pass = scheduledOf(h, 'runPass')[0]!;
    const done = h.events.find(
      (e) =>
        isType(e, 'EVENT_TYPE_ACTIVITY_TASK_COMPLETED') &&
        (e.activityTaskCompletedEventAttributes as Json).scheduledEventId === pass.eventId,
    )!;
    const payload = (((done.activityTaskCompletedEventAttributes as Json).result as Json).payloads as Json[])[0]!;
    const text = Buffer.from(payload.data as string, 'base64').toString('utf8');
    payload.data = Buffer.from(text.replace(/hold_[0-9a-f]{10}/g, 'hold_tampered00')).toString('base64');
    const report = await audit(h, { replay: false });
    expect(report.ok).toBe(false);
    expect(report.journal.matches).toBe(false);
    expect(report.journal.differences.join('\n')).toMatch(/prepare_wire_bob_5000: history has .*hold_tampered00/);
  });

  it('fails when the event that committed a task is missing', async () => {
    const h = raw();
    const decide = h.events.find((e) => isType(e, 'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED'))!;
    h.events.splice(h.events.indexOf(decide), 1);
    const report = await audit(h, { replay: false });
    expect(report.ok).toBe(false);
    expect(report.journal.differences.join('\n')).toMatch(/manager_decision_bob_5000/);
  });

  it('fails with a clear problem for a history cut short', async () => {
    const h = raw();
    h.events = h.events.slice(0, 12);
    const report = await audit(h, { journal: false, replay: false });
    expect(report.ok).toBe(false);
    expect(report.problems).toContain(
      `run ${report.runs[0]}: the history ends at event 12 without the workflow closing (cut short, or exported while it ran)`,
    );
  });

  it('fails with a clear error for an unknown event type or a payload that does not decode', async () => {
    const unknown = raw();
    unknown.events[3] = { ...unknown.events[3], eventType: 'EVENT_TYPE_FROM_THE_FUTURE' };
    const future = await audit(unknown, { replay: false });
    expect(future.ok).toBe(false);
    expect(future.problems.join('\n')).toMatch(/event 4 has an unknown type/);

    const garbled = raw();
    const pass = scheduledOf(garbled, 'runPass')[0]!;
    const done = garbled.events.find(
      (e) =>
        isType(e, 'EVENT_TYPE_ACTIVITY_TASK_COMPLETED') &&
        (e.activityTaskCompletedEventAttributes as Json).scheduledEventId === pass.eventId,
    )!;
    const payload = (((done.activityTaskCompletedEventAttributes as Json).result as Json).payloads as Json[])[0]!;
    payload.data = Buffer.from('{not json').toString('base64');
    const report = await audit(garbled, { replay: false });
    expect(report.ok).toBe(false);
    expect(report.problems.join('\n')).toMatch(/the history could not be read: /);
  });

  it('reads a list of histories as a chain, and says what is wrong with a file that is not one', () => {
    expect(historiesFromJson(JSON.stringify([raw()]), 'chain.json')).toHaveLength(1);
    expect(() => historiesFromJson('{"events": [}', 'broken.json')).toThrow(/broken\.json is not JSON/);
    expect(() => historiesFromJson('{"events": []}', 'empty.json')).toThrow(
      /empty\.json: the first event is not WorkflowExecutionStarted/,
    );
  });

  it(
    'fails replay for a history the current workflow code cannot reproduce (non-determinism)',
    { timeout: 60_000 },
    async () => {
      const h = raw();
      const pass = scheduledOf(h, 'runPass')[0]!;
      ((pass.activityTaskScheduledEventAttributes as Json).activityType as Json).name = 'runPassFromOlderCode';
      const report = await audit(h, { journal: false });
      expect(report.ok).toBe(false);
      expect(report.replay.ok).toBe(false);
      expect(report.replay.errors.join('\n')).toMatch(/[Nn]ondetermin|runPassFromOlderCode|does not match/);
    },
  );
});

describe('audit of a continue-as-new chain', () => {
  const chain = (): Json[] => JSON.parse(CHAIN);
  const auditList = (list: unknown) =>
    auditChain(historiesFromJson(JSON.stringify(list), 'chain'), null, { workflowBundle: bundle, requireClosed: true });

  it('passes on the chain as recorded', { timeout: 60_000 }, async () => {
    const report = await auditList(chain());
    expect(report.problems).toEqual([]);
    expect(report.runs).toHaveLength(2);
    expect(report.ok).toBe(true);
  });

  it('fails when a run carries a journal that differs from the one rebuilt from the run before', async () => {
    const list = chain();
    const started = ((list[1]!.events as Json[])[0]!.workflowExecutionStartedEventAttributes as Json).input as Json;
    const payload = (started.payloads as Json[])[0]!;
    const input = JSON.parse(Buffer.from(payload.data as string, 'base64').toString('utf8')) as {
      carried: { journal: Array<[string, unknown]> };
    };
    input.carried.journal[0]![1] = { hold_id: 'hold_forged' };
    payload.data = Buffer.from(JSON.stringify(input)).toString('base64');
    const report = await auditChain(historiesFromJson(JSON.stringify(list), 'chain'), null, {
      workflowBundle: bundle,
      skipReplay: true,
    });
    expect(report.ok).toBe(false);
    expect(report.problems.join('\n')).toMatch(
      /started with a journal that differs from the one rebuilt from the run before it/,
    );
  });
});
