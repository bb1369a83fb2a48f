/**
 * The mission client library (src/client/missions.ts) and the CLI commands built on it,
 * against the embedded dev server and an in-process worker: start, settle, a refused
 * decision changes nothing, verdict, journal/ledger/progress/timeline/audit, list; and
 * the CLI (`status`, `approve`, `journal --json`, `list --json`, errors) as a user types it.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MissionNotFound, MissionRejected, NoVerdict, getMission, listMissions, startMission } from '../../src/client/missions.ts';
import { freshBankFile, missionEnv, type MissionEnv } from '../mission/harness.ts';

const KEY = 'manager_decision_bob_5000';
const wire = { agent: 'wire-transfer', input: { recipient: 'bob', amount: 5000 } };

let m: MissionEnv;
beforeAll(async () => {
  m = await missionEnv();
  await m.startWorker();
});
afterAll(async () => m?.shutdown());

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/navigator.mjs', ...args], {
      env: { ...process.env, TEMPORAL_ADDRESS: m.env.server.address, TEMPORAL_NAMESPACE: m.env.server.namespace, NAVIGATOR_TASK_QUEUE: m.taskQueue, NAVIGATOR_USER: 'cli-user' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe('MissionHandle', () => {
  it('settles at the decision, refuses a bad value without change, approves, and reads every view', async () => {
    freshBankFile();
    const mission = await startMission(m.client, { ...wire, taskQueue: m.taskQueue, id: 'client-wire-1' });
    const waiting = await mission.settle();
    expect(waiting.status?.status).toBe('waiting');
    expect(waiting.status?.pending).toMatchObject({ key: KEY, allowed: ['approved', 'rejected'] });
    expect(await mission.check({ running: true })).toBe('RUNNING');

    const before = await mission.journal();
    await expect(mission.decide(KEY, 'maybe', { by: 'ana' })).rejects.toBeInstanceOf(MissionRejected);
    expect((await mission.journal()).version).toBe(before.version);

    expect(await mission.verdict('approve', { by: 'ana', note: 'fine' })).toEqual({ key: KEY, value: 'approved' });
    const done = await mission.settle({ untilClosed: true });
    expect(done.closed?.status).toBe('COMPLETED');
    await expect(mission.verdict('approve')).rejects.toBeInstanceOf(NoVerdict);

    const { entries } = await mission.journal();
    expect(entries.map(([k]) => k)).toEqual(['prepare_wire_bob_5000', 'request_approval_bob_5000', KEY, 'execute_wire_bob_5000']);
    expect((await mission.ledger()).map((e) => e.tool)).toContain('execute_wire');
    expect(await mission.progress()).toContain('- [x] `finish`');
    const lines = await mission.timeline();
    expect(lines.some((l) => l.text.startsWith('decide (update)') && l.text.includes('"by":"ana"'))).toBe(true);
    expect(lines.every((l) => l.eventId > 0)).toBe(true);
    const report = await mission.audit({ workflowBundle: m.env.bundle });
    expect(report.ok).toBe(true);

    const rows = await listMissions(m.client, {});
    expect(rows.map((r) => r.workflowId)).toContain('client-wire-1');
  });

  it('names unknown ids and refuses an invalid start', async () => {
    await expect(getMission(m.client, 'no-such-mission').check()).rejects.toBeInstanceOf(MissionNotFound);
    await expect(startMission(m.client, { agent: '', taskQueue: m.taskQueue })).rejects.toThrow();
  });
});

describe('the mission CLI on the client library', () => {
  it('status, approve, journal --json, list --json and one-line errors', { timeout: 90_000 }, async () => {
    freshBankFile();
    const mission = await startMission(m.client, { ...wire, taskQueue: m.taskQueue, id: 'cli-wire-1' });
    await mission.settle();

    const status = await cli('status', 'cli-wire-1');
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`waiting for ${KEY}`);

    const bad = await cli('decide', 'cli-wire-1', KEY, '"maybe"');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^navigator: rejected: /);

    const ok = await cli('approve', 'cli-wire-1', '--note', 'from the test');
    expect(ok.stdout).toBe(`${KEY} = "approved" recorded on cli-wire-1\n`);
    await mission.settle({ untilClosed: true });
    const timeline = await mission.timeline();
    expect(timeline.some((l) => l.text.includes('"by":"cli-user"'))).toBe(true);

    const journal = JSON.parse((await cli('journal', 'cli-wire-1', '--json')).stdout) as { entries: Array<[string, unknown]> };
    expect(journal.entries.find(([k]) => k === KEY)?.[1]).toBe('approved');

    const list = JSON.parse((await cli('list', '--json')).stdout) as Array<{ workflowId: string; status: string; startTime: string }>;
    expect(list.find((r) => r.workflowId === 'cli-wire-1')).toEqual({ workflowId: 'cli-wire-1', status: 'COMPLETED', startTime: expect.any(String) });

    const again = await cli('approve', 'cli-wire-1');
    expect(again.stderr).toBe('navigator: mission cli-wire-1 has already finished (completed)\n');
    const unknown = await cli('journal', 'nope-123');
    expect(unknown.stderr).toBe('navigator: no mission with id nope-123\n');
  });
});
