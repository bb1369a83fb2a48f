/**
 * The audit checks values, not only events. A real wire-transfer history (recorded by
 * test/audit/record-fixtures.ts, exported as `temporal workflow show --output json`
 * writes it) passes as recorded; each single edited value fails it, with the events on
 * both sides named: the wire's result, pass 1's committed hold id, the manager's decision,
 * a recorded program, a recorded tool result. Histories written before programs and
 * journal hashes were recorded still pass (value replay: not recorded).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AuditReport, auditChain, formatValueChecks } from '../../src/audit/mission/audit.ts';
import { historiesFromJson } from '../../src/history/fetch.ts';
import type { ValueMismatch } from '../../src/audit/mission/values.ts';
import { bundleOnce } from '../../src/devserver/testing.ts';
import { workflowInterceptorModules, workflowsPath } from '../../src/worker/index.ts';

const fixture = (name: string) => readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)), 'utf8');
const WIRE = fixture('wire-transfer-values.history.json');
const OLD = fixture('wire-transfer.history.json');

type Obj = Record<string, any>;
const history = (text = WIRE): { events: Obj[] } => JSON.parse(text);
const event = (h: { events: Obj[] }, id: number): Obj => h.events.find((e) => Number(e.eventId) === id)!;

/** The first payload of an event's attributes at `path` (e.g. `activityTaskCompletedEventAttributes.result`), decoded, changed by `edit`, encoded again. */
function editPayload(e: Obj, path: string, edit: (value: any) => void): void {
  const payloads = path.split('.').reduce((o, k) => o[k], e).payloads as Obj[];
  const value = JSON.parse(Buffer.from(payloads[0]!.data, 'base64').toString('utf8'));
  edit(value);
  payloads[0]!.data = Buffer.from(JSON.stringify(value)).toString('base64');
}
const result = 'activityTaskCompletedEventAttributes.result';

let bundle: { code: string };
beforeAll(async () => {
  bundle = await bundleOnce(workflowsPath, workflowInterceptorModules);
}, 120_000);

const audit = (h: unknown, replay = false) =>
  auditChain(historiesFromJson(JSON.stringify(h), 'test'), null, {
    workflowBundle: bundle,
    skipReplay: !replay,
    requireClosed: true,
  });

/** Every value failure of a report: broken links and value replay. */
const failures = (r: AuditReport): ValueMismatch[] => [...r.values.mismatches, ...r.valueReplay.mismatches];
const eventIdsOf = (m: ValueMismatch) => m.sides.map((s) => s.eventId);

describe('value links and value replay of a recorded wire transfer', () => {
  it(
    'pass as recorded: links agree, both passes re-derived, workflow replay deterministic',
    { timeout: 60_000 },
    async () => {
      const r = await audit(history(), true);
      expect(r.problems).toEqual([]);
      expect(failures(r)).toEqual([]);
      expect(r.values.checked).toBeGreaterThanOrEqual(5);
      expect(r.valueReplay.passes.map((p) => [p.pass, p.eventId, p.status])).toEqual([
        [1, 13, 'ok'],
        [2, 40, 'ok'],
      ]);
      expect(r.ok).toBe(true);
      expect(formatValueChecks(r).join('\n')).toContain('value replay: 2 pass(es): 2 re-derived');
    },
  );

  it('fails when the execute_wire result is changed: the tool result event and the pass that committed the task are named', async () => {
    const h = history();
    editPayload(event(h, 34), result, (v) => (v.result.reference = 'wire_forged000'));
    const r = await audit(h);
    expect(r.ok).toBe(false);
    const m = failures(r).find((x) => x.message.includes('wire_forged000'))!;
    expect(eventIdsOf(m).sort()).toEqual([34, 40]);
    expect(m.sides.map((s) => (s.value as Obj).reference).sort()).toEqual(['wire_5c06e533d6', 'wire_forged000']);
    expect(formatValueChecks(r).join('\n')).toMatch(
      /event 40 \(pass 2 committed execute_wire_bob_5000\) has .*wire_5c06e533d6.*event 34 .*wire_forged000/,
    );
  });

  it('fails when pass 1 committed another hold id while the wire was scheduled with the original', async () => {
    const h = history();
    editPayload(event(h, 13), result, (v) => (v.journalDelta[0][1].hold_id = 'hold_tampered00'));
    const r = await audit(h);
    expect(r.ok).toBe(false);
    // the journal pass 2 read is not the one rebuilt: pass 1's commit (event 13) is named
    const read = r.values.mismatches.find(
      (m) => m.check === 'journal-read' && m.message.includes('prepare_wire_bob_5000'),
    )!;
    expect(eventIdsOf(read)).toEqual([26, 13]);
    expect((read.sides[1].value as Obj).hold_id).toBe('hold_tampered00');
    // replayed on the rebuilt journal, pass 2 asks for the wire of the tampered hold; it asked for the original (event 26)
    const replay = r.valueReplay.mismatches.find((m) => m.message.includes('requests execute_wire'))!;
    expect(replay.sides[0]).toMatchObject({ eventId: 26, value: { args: { hold_id: 'hold_758430e04d' } } });
    expect(replay.sides[1]).toMatchObject({ value: { args: { hold_id: 'hold_tampered00' } } });
  });

  it('fails when the accepted decision says rejected while the wire was still sent', async () => {
    const h = history();
    const accepted = event(h, 21);
    editPayload(
      accepted.workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest.input,
      'args',
      (v) => (v.value = 'rejected'),
    );
    const r = await audit(h);
    expect(r.ok).toBe(false);
    // pass 1's commits, re-derived by value replay, are not suspects: only the decision is named
    const reads = r.values.mismatches.filter((m) => m.check === 'journal-read');
    expect(reads.map(eventIdsOf)).toEqual([
      [26, 21],
      [40, 21],
    ]);
    const read = reads[0]!;
    expect(read.sides[1]).toMatchObject({
      what: 'decide update committed manager_decision_bob_5000',
      value: 'rejected',
    });
    // pass 2's program, run on the rejected decision, does not send the wire
    const replay = r.valueReplay.mismatches.find((m) => m.sides[0].eventId === 26)!;
    expect(replay.message).toMatch(/the replay does not request this effect|ends with fail|requests/);
    expect(r.valueReplay.passes.find((p) => p.pass === 2)?.status).toBe('failed');
  });

  it('value replay fails on a changed program', async () => {
    const h = history();
    editPayload(
      event(h, 13),
      result,
      (v) =>
        (v.programs[0].code = v.programs[0].code.replace(
          '(str "request_approval_" subject)',
          '(str "ask_approval_" subject)',
        )),
    );
    const r = await audit(h);
    expect(r.ok).toBe(false);
    expect(r.values.mismatches).toEqual([]);
    const m = r.valueReplay.mismatches;
    // the changed task id gives the approval request another idempotency key, whose result history does not have
    expect(m.map((x) => x.message).join('\n')).toMatch(
      /event 13 \(pass 1 turn 1 program gave\) has \{"status":"return"\}; event 11 \(replay of pass 1 .*history records no result of request_approval/,
    );
    expect(m.every((x) => x.sides[0].eventId === 13)).toBe(true);
  });

  it('value replay fails on a changed tool result (answered from history, never called)', async () => {
    const h = history();
    editPayload(event(h, 13), result, (v) => (v.toolCalls[0].result.hold_id = 'hold_other0000'));
    const r = await audit(h);
    expect(r.ok).toBe(false);
    const m = r.valueReplay.mismatches.find((x) => x.message.includes('prepare_wire_bob_5000'))!;
    expect(m.sides[0]).toMatchObject({ eventId: 13, value: { hold_id: 'hold_758430e04d' } });
    expect(m.sides[1]).toMatchObject({ value: { hold_id: 'hold_other0000' } });
  });

  it('a program that stopped at a limit of the agent (not in history) is not replayed, and not a failure', async () => {
    const h = history();
    editPayload(
      event(h, 13),
      result,
      (v) => (v.programs[0].result = { status: 'error', error: 'limit_exceeded: fuel exhausted' }),
    );
    const r = await audit(h);
    expect(failures(r)).toEqual([]);
    expect(r.valueReplay.passes.map((p) => p.status)).toEqual(['limit', 'ok']);
    expect(formatValueChecks(r).join('\n')).toContain("1 stopped at a limit of the agent's (not replayed)");
  });

  it('a history written before programs and journal hashes were recorded still passes: value replay says not recorded', async () => {
    const r = await audit(history(OLD));
    expect(failures(r)).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.valueReplay.passes.map((p) => p.status)).toEqual(['not recorded', 'not recorded']);
    expect(r.values.unrecordedReads).toBe(3);
    expect(formatValueChecks(r).join('\n')).toContain('2 not recorded');
  });

  it('the old history still fails when its wire result is changed (the link, without programs to replay)', async () => {
    const h = history(OLD);
    editPayload(event(h, 32), result, (v) => (v.result.reference = 'wire_forged000'));
    const r = await audit(h);
    expect(r.ok).toBe(false);
    const m = r.values.mismatches.find((x) => x.check === 'effect-result')!;
    expect(eventIdsOf(m)).toEqual([32, 38]);
  });
});

describe('navigator audit --history names the events of a failed value check', () => {
  const cli = (...args: string[]): Promise<{ code: number; stdout: string }> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, ['bin/navigator.mjs', ...args], {
        env: { ...process.env, NAVIGATOR_CODEC: '' },
      });
      let stdout = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.on('exit', (code) => resolve({ code: code ?? -1, stdout }));
    });

  it('in text and in --json, exit 1', { timeout: 120_000 }, async () => {
    const h = history();
    editPayload(event(h, 34), result, (v) => (v.result.reference = 'wire_forged000'));
    const file = join(mkdtempSync(join(tmpdir(), 'audit-values-')), 'wire.json');
    writeFileSync(file, JSON.stringify(h));
    const text = await cli('audit', '--history', file);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/value replay: 2 pass\(es\): 1 re-derived, 1 FAILED/);
    expect(text.stdout).toMatch(
      /event 40 \(pass 2 committed execute_wire_bob_5000\) has .*"wire_5c06e533d6".*event 34 \(execute_wire result, which the replay of pass 2 commits as execute_wire_bob_5000\) has .*"wire_forged000"/,
    );
    expect(text.stdout).toMatch(/audit FAILED/);
    const json = await cli('audit', '--history', file, '--json');
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as AuditReport;
    // the commit (named with the effect's result event), then the summaries and the return value that follow from it
    expect(report.valueReplay.mismatches.map((m) => m.sides.map((s) => s.eventId))).toEqual([
      [40, 34],
      [40, 24],
      [40, 24],
    ]);
    expect(report.valueReplay.mismatches.map((m) => m.sides[0].what)).toEqual([
      'pass 2 committed execute_wire_bob_5000',
      'pass 2 summaries',
      'pass 2 returned',
    ]);
    expect(report.valueReplay.mismatches[0]!.sides[1].value).toMatchObject({ reference: 'wire_forged000' });
  });
});
