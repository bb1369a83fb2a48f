/**
 * `navigator console` as a user types it, against the embedded dev server (no worker
 * needed): another host without a token refuses to start; on 127.0.0.1 it prints
 * `Console at http://127.0.0.1:PORT`, serves the start form naming the agents of
 * `--agents` beside the examples, refuses other Host names, and stops on SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/devserver/index.ts';
import { startTestServer } from '../../src/devserver/testing.ts';

let server: DevServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.shutdown());

function navigator(...args: string[]): ChildProcess {
  return spawn(process.execPath, ['bin/navigator.mjs', ...args], {
    env: { ...process.env, TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: server.namespace, NAVIGATOR_CONSOLE_TOKEN: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

const output = (child: ChildProcess, stream: 'stdout' | 'stderr', until: RegExp) =>
  new Promise<string>((resolve, reject) => {
    let text = '';
    child[stream]!.on('data', (d: Buffer) => {
      text += d.toString();
      if (until.test(text)) resolve(text);
    });
    child.once('exit', () => (until.test(text) ? resolve(text) : reject(new Error(`exited with: ${text}`))));
  });

const statusOf = (url: URL, host: string) =>
  new Promise<number>((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: '/start', headers: { host } }, (res) => (res.resume(), resolve(res.statusCode!)));
    req.on('error', reject);
    req.end();
  });

describe('navigator console', () => {
  it('refuses another host than the loopback without a token', async () => {
    const child = navigator('console', '--host', '0.0.0.0', '--port', '0');
    const err = await output(child, 'stderr', /token/);
    expect(err).toMatch(/^navigator: the console binds to 0\.0\.0\.0.*give a token/);
    const code = await new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));
    expect(code).toBe(2);
  }, 60_000);

  it('serves on 127.0.0.1 with the agents of --agents in the start form, and stops on SIGTERM', async () => {
    const child = navigator('console', '--port', '0', '--agents', './test/plans/fixtures/lab-agents.ts');
    const line = await output(child, 'stdout', /Console at \S+\n/);
    const url = new URL(/Console at (\S+)/.exec(line)![1]!);
    expect(url.hostname).toBe('127.0.0.1');
    const form = await (await fetch(`${url.origin}/start`)).text();
    expect(form).toContain('<option value="lab"></option>');
    expect(form).toContain('<option value="wire-transfer"></option>');
    expect(await statusOf(url, `127.0.0.1:${url.port}`)).toBe(200);
    expect(await statusOf(url, `rebound.example:${url.port}`)).toBe(421);
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  }, 60_000);
});
