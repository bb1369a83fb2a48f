/**
 * What the dev terminal shows: `dev --no-worker` says there is no worker and still serves
 * the console; a worker run from the CLI logs a failure caused from another terminal (an
 * unknown agent) as one line, not a stack trace.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logLine } from '../../src/cli/worker-log.ts';
import { eventually, type MissionEnv, missionEnv } from '../mission/harness.ts';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

function start(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['bin/navigator.mjs', ...args], { env: { ...process.env, ...env } });
  children.push(child);
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d) => (out.stdout += d));
  child.stderr!.on('data', (d) => (out.stderr += d));
  return { child, out };
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

describe('logLine', () => {
  it('one line: level, message, where, and the first line of the cause', () => {
    const error = new Error('unknown agent "nosuch"; this worker runs: wire-transfer');
    const line = logLine({
      level: 'WARN',
      message: 'Activity failed',
      timestampNanos: 1_700_000_000_000_000_000n,
      meta: { workflowId: 'nosuch-1', activityType: 'describeAgent', error },
    });
    expect(line).toMatch(
      /^\d\d:\d\d:\d\d WARN Activity failed \(workflow nosuch-1, activity describeAgent\): unknown agent "nosuch"; this worker runs: wire-transfer$/,
    );
  });
});

describe('dev --no-worker', () => {
  it('says there is no worker and still serves the console', { timeout: 120_000 }, async () => {
    const [port, consolePort] = [await freePort(), await freePort()];
    // its state file in a folder of its own (dev keeps state in the per-user data folder by default)
    const { child, out } = start(
      ['dev', '--no-worker', '--port', String(port), '--console-port', String(consolePort)],
      { NAVIGATOR_DATA_DIR: mkdtempSync(join(tmpdir(), 'navigator-data-')) },
    );
    await eventually(() => out.stdout.includes('No Navigator worker'), 90_000, 'dev to start');
    await eventually(() => out.stdout.includes('Console at'), 30_000, 'the console');
    expect(out.stdout).toContain('start one with `npx navigator worker`');
    // a one-time link: it sets the console's cookie, which then opens its pages
    const link = out.stdout.match(/Console at (\S+)/)![1]!;
    const signIn = await fetch(link, { redirect: 'manual' });
    expect(signIn.status).toBe(303);
    const page = await fetch(new URL('/', link), {
      headers: { cookie: signIn.headers.get('set-cookie')!.split(';')[0]! },
    });
    expect(page.status).toBe(200);
    child.kill('SIGINT');
  });
});

describe('a worker run from the CLI', () => {
  let m: MissionEnv;
  beforeAll(async () => {
    m = await missionEnv();
  }, 120_000);
  afterAll(async () => m?.shutdown());

  it('logs a mission of an unknown agent in one line, no stack trace', { timeout: 180_000 }, async () => {
    const { child, out } = start(['worker'], {
      TEMPORAL_ADDRESS: m.env.server.address,
      TEMPORAL_NAMESPACE: m.env.server.namespace,
      NAVIGATOR_TASK_QUEUE: m.taskQueue,
    });
    await eventually(() => out.stdout.includes('running agents'), 120_000, 'the worker');
    const handle = await m.start({ agent: 'nosuch', input: {} });
    await handle.result().catch(() => undefined);
    await eventually(() => out.stderr.includes('nosuch'), 30_000, 'the failure in the worker log');
    child.kill('SIGINT');
    expect(out.stderr).toMatch(/unknown agent "nosuch"/);
    expect(out.stderr).not.toMatch(/\n\s+at /);
  });
});
