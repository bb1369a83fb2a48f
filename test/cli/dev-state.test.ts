/**
 * `navigator dev` keeps its server's state in a file of the per-user data folder by default
 * (issue 44, part 4), and says where. Its worker and console run in the same process as the
 * embedded server: here that process is killed with SIGKILL (as a native abort in the
 * worker or the sandbox would end it) with one mission finished and one waiting for a
 * decision, `navigator dev` is started again on the same port, and every run is still
 * there: the finished one reads as it ended, the waiting one still waits and completes when
 * approved. A second dev server on the same state file is refused with the first one's pid.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { NavigatorClient } from '../../src/client/index.ts';
import { eventually, until } from '../mission/harness.ts';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

const dataDir = mkdtempSync(join(tmpdir(), 'navigator-data-'));
const bank = join(mkdtempSync(join(tmpdir(), 'bank-')), 'bank.jsonl');

function dev(args: string[]) {
  const child = spawn(process.execPath, ['bin/navigator.mjs', 'dev', ...args], {
    env: { ...process.env, NAVIGATOR_DATA_DIR: dataDir, WIRE_TRANSFER_BANK_FILE: bank },
  });
  children.push(child);
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d) => (out.stdout += d));
  child.stderr!.on('data', (d) => (out.stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out, exited };
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

describe('navigator dev', () => {
  it(
    'keeps its state in a file: SIGKILLed with its worker and console, started again, every run is there',
    { timeout: 300_000 },
    async () => {
      const [port, consolePort] = [await freePort(), await freePort()];
      const args = ['--port', String(port), '--console-port', String(consolePort)];
      const first = dev(args);
      await eventually(() => first.out.stdout.includes('running agents'), 120_000, 'dev to start its worker');
      const stateFile = join(dataDir, 'dev-server', `embedded-${port}.jsonl`);
      expect(first.out.stdout).toContain(`Server state kept in ${stateFile}`);

      // a second dev server on the same state is refused, naming the first
      const second = dev(args);
      expect(await second.exited).toBe(1);
      expect(second.out.stderr).toContain(`${stateFile} is in use by another dev server (pid ${first.child.pid})`);

      const connect = async () => {
        const connection = await Connection.connect({ address: `127.0.0.1:${port}` });
        return {
          connection,
          navigator: new NavigatorClient({ client: new Client({ connection }), taskQueue: 'navigator' }),
        };
      };
      let { connection, navigator } = await connect();
      const done = await navigator.start('wire-transfer', { recipient: 'bob', amount: 5000 });
      await until(
        () => done.status().catch(() => null),
        (s) => s?.status === 'waiting',
        60_000,
        'the first mission to wait',
      );
      await done.approve({ by: 'ana' });
      await done.result();
      const open = await navigator.start('wire-transfer', { recipient: 'cy', amount: 7000 });
      await until(
        () => open.status().catch(() => null),
        (s) => s?.status === 'waiting',
        60_000,
        'the second mission to wait',
      );
      await connection.close();

      // the worker, the console and the server go down together, without a chance to write anything more
      first.child.kill('SIGKILL');
      await first.exited;
      expect(existsSync(stateFile)).toBe(true);

      const again = dev(args);
      await eventually(() => again.out.stdout.includes('running agents'), 120_000, 'dev to start again');
      ({ connection, navigator } = await connect());
      try {
        expect(await navigator.mission(done.id).status()).toMatchObject({
          status: 'completed',
          result: { status: 'sent' },
        });
        expect((await navigator.mission(open.id).status()).pending?.key).toBe('manager_decision_cy_7000');
        const listed = (await navigator.list({ limit: 50 })).map((w) => w.workflowId);
        expect(listed).toEqual(expect.arrayContaining([done.id, open.id]));
        // the restarted worker takes the waiting one on
        await navigator.mission(open.id).approve({ by: 'ana' });
        expect(await navigator.mission(open.id).result()).toMatchObject({ status: 'sent' });
      } finally {
        await connection.close();
      }
      again.child.kill('SIGINT');
      expect(await again.exited).toBe(0);
      // a clean stop gives the state file free again
      expect(existsSync(`${stateFile}.lock`)).toBe(false);
    },
  );
});
