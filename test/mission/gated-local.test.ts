/**
 * A tool that waits for approval waits in a mission whatever its side-effect class: a
 * `local` tool with `requiresApproval: true`, and a `local` destructive one under
 * `approvals: {destructive: true}`, are parked like an external effect until a person
 * approves, then run once in their own activity. (They used to run inside the pass, with
 * nobody asked, although the workflow listed them as gated.) Ends with an audit.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getMission } from '../../src/client/mission/client.ts';
import gatedAgents, { ran } from './fixtures/gated-local-agent.ts';
import { missionEnv, waitForStatus, type MissionEnv } from './harness.ts';

let m: MissionEnv;
beforeAll(async () => {
  m = await missionEnv();
  await m.startWorker(Object.values(gatedAgents));
}, 120_000);
afterAll(async () => m?.shutdown());

type Waiting = { effectApprovals?: Array<{ tool: string }> };
const waitingFor = (tool: string) => (s: Waiting) => (s.effectApprovals ?? []).some((e) => e.tool === tool);

describe('gated tools that are not external', () => {
  it('wait for approval before they run, then run once each; the audit passes', { timeout: 120_000 }, async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gated-local-')), 'ran.jsonl');
    process.env.GATED_FILE = file;
    const handle = await m.start({ agent: 'gated-local', input: { name: 'billing' } });
    const mission = getMission(m.client, handle.workflowId);

    await waitForStatus(handle, waitingFor('rotate_key'));
    expect(ran(file)).toEqual([]);
    await mission.approveEffect({ by: 'ana' });

    await waitForStatus(handle, waitingFor('wipe_cache'));
    expect(ran(file)).toEqual([{ tool: 'rotate_key', name: 'billing' }]);
    await mission.approveEffect({ by: 'ana' });

    expect(await handle.result()).toEqual({ rotated: 'billing', wiped: 'billing' });
    expect(ran(file)).toEqual([
      { tool: 'rotate_key', name: 'billing' },
      { tool: 'wipe_cache', name: 'billing' },
    ]);
    const status = await mission.status();
    expect(status.approvals?.map((a) => [a.tool, a.outcome, a.by])).toEqual([
      ['rotate_key', 'approved', 'ana'],
      ['wipe_cache', 'approved', 'ana'],
    ]);
    const report = await m.audit(handle.workflowId);
    if (!report.ok) console.log('AUDIT', JSON.stringify(report, null, 1));
    expect(report.problems).toEqual([]);
    expect(report.values.mismatches).toEqual([]);
    expect(report.replay.errors).toEqual([]);
    expect(report.duplicateEffects).toEqual([]);
    expect(report.ok).toBe(true);
  });
});
