/**
 * Mission commands as a new user types them, the real CLI in a child process against the
 * embedded server and an in-process worker: `list --status waiting` finds a mission that
 * waits for a decision (Temporal calls it RUNNING); `decide ID KEY approved` takes the bare
 * word; `watch` prints the result and exits 0, a failed mission's reason and exit 1.
 */
import { runCli } from './run-cli.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MissionEnv, missionEnv, waitForStatus } from '../mission/harness.ts';

const KEY = 'manager_decision_bob_5000';
let m: MissionEnv;
beforeAll(async () => {
  m = await missionEnv();
  await m.startWorker();
}, 120_000);
afterAll(async () => m?.shutdown());

const cli = (...args: string[]) =>
  runCli(args, {
    ...process.env,
    TEMPORAL_ADDRESS: m.env.server.address,
    TEMPORAL_NAMESPACE: m.env.server.namespace,
    NAVIGATOR_TASK_QUEUE: m.taskQueue,
  });

describe('a mission waiting for a person, from the CLI', () => {
  it(
    'list --status waiting finds it; decide takes a bare word; watch ends with the result',
    { timeout: 180_000 },
    async () => {
      const handle = await m.start({ agent: 'wire-transfer', input: { recipient: 'bob', amount: 5000 } });
      await waitForStatus(handle, (s) => s.status === 'waiting');

      const waiting = await cli('list', '--status', 'waiting', '--missions');
      expect(waiting.code).toBe(0);
      expect(waiting.stdout).toMatch(new RegExp(`mission\\s+waiting\\s+${handle.workflowId}`));
      const all = await cli('list', '--json');
      expect(JSON.parse(all.stdout)).toContainEqual(
        expect.objectContaining({ kind: 'mission', workflowId: handle.workflowId, status: 'waiting' }),
      );

      const status = await cli('status', handle.workflowId);
      expect(status.stdout).toContain(`decide ${handle.workflowId} ${KEY} approved`);
      const spaced = await cli('decide', handle.workflowId, KEY, 'not json');
      expect(spaced.code).toBe(2);
      expect(spaced.stderr).toContain(`needs JSON quotes: '"not json"'`);
      const decided = await cli('decide', handle.workflowId, KEY, 'approved');
      expect(decided.stderr).toBe('');
      expect(decided.stdout).toContain(`${KEY} = "approved" recorded on ${handle.workflowId}`);

      const watched = await cli('watch', handle.workflowId);
      expect(watched.code).toBe(0);
      expect(watched.stdout).toMatch(/result: \{"status":"sent"/);
      expect((await cli('list', '--status', 'waiting', '--missions')).stdout).not.toContain(handle.workflowId);
    },
  );

  it('watch of a mission that failed prints the reason and exits 1', { timeout: 120_000 }, async () => {
    const handle = await m.start({ agent: 'no-such-agent', input: {} });
    await handle.result().catch(() => undefined);
    const watched = await cli('watch', handle.workflowId);
    expect(watched.code).toBe(1);
    expect(watched.stdout).toMatch(/reason: .*unknown agent "no-such-agent"/);
    // no tasks, online: an empty journal on both sides is a match, not "offline"
    const audit = await cli('audit', handle.workflowId);
    expect(audit.stdout).toContain('journal rebuilt from history: 0 task(s), matches the workflow');
  });
});
