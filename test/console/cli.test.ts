/**
 * `navigator console` as a user types it, against the embedded dev server (no worker
 * needed): another host without a token refuses to start, and so does an empty secret
 * (`--token "ana:$ANA_SECRET"` with the variable unset); on 127.0.0.1 it prints
 * `Console at http://127.0.0.1:PORT/?login=CODE`, a one-time link that signs the browser
 * in, serves the start form naming the agents of `--agents` beside the examples, refuses
 * other Host names, and stops on SIGTERM; `--no-auth` serves without sign-in.
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
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: server.namespace,
      NAVIGATOR_CONSOLE_TOKEN: '',
      NAVIGATOR_CONSOLE_TOKENS_FILE: '',
    },
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

const statusOf = (url: URL, host: string, cookie = '') =>
  new Promise<number>((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: '/start', headers: { host, cookie } },
      (res) => (res.resume(), resolve(res.statusCode!)),
    );
    req.on('error', reject);
    req.end();
  });

describe('navigator console', () => {
  it('refuses another host than the loopback without a token', async () => {
    const child = navigator('console', '--host', '0.0.0.0', '--port', '0');
    const err = await output(child, 'stderr', /token/);
    expect(err).toMatch(/^navigator: the console binds to 0\.0\.0\.0.*give a token/);
    const code = await new Promise((resolve) =>
      child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve),
    );
    expect(code).toBe(2);
  }, 60_000);

  it('refuses an empty secret, naming what was probably unset', async () => {
    const child = navigator('console', '--port', '0', '--token', 'ana:');
    expect(await output(child, 'stderr', /unset/)).toMatch(
      /^navigator: the secret of ana in --token .* is empty: the variable it was made from was probably unset/,
    );
    expect(
      await new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve))),
    ).toBe(2);
  }, 60_000);

  it('serves on 127.0.0.1 through a one-time link, with the agents of --agents in the start form, and stops on SIGTERM', async () => {
    const child = navigator('console', '--port', '0', '--agents', './test/plans/fixtures/lab-agents.ts');
    const line = await output(child, 'stdout', /Console at \S+.*\n/);
    const link = new URL(/Console at (\S+)/.exec(line)![1]!);
    expect(link.hostname).toBe('127.0.0.1');
    expect(link.searchParams.get('login')).toMatch(/^[\w-]{32}$/);
    expect((await fetch(`${link.origin}/start`)).status).toBe(401);
    const signIn = await fetch(link, { redirect: 'manual' });
    expect(signIn.status).toBe(303);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const form = await (await fetch(`${link.origin}/start`, { headers: { cookie } })).text();
    expect(form).toContain('<option value="lab"></option>');
    expect(form).toContain('<option value="wire-transfer"></option>');
    expect(await statusOf(link, `127.0.0.1:${link.port}`, cookie)).toBe(200);
    expect(await statusOf(link, `rebound.example:${link.port}`, cookie)).toBe(421);
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  }, 60_000);

  it('--no-auth serves 127.0.0.1 without sign-in, and is refused on another host', async () => {
    const refused = navigator('console', '--host', '0.0.0.0', '--port', '0', '--no-auth');
    expect(await output(refused, 'stderr', /no-auth/)).toMatch(/--no-auth is only for 127\.0\.0\.1/);
    const child = navigator('console', '--port', '0', '--no-auth');
    const url = new URL(/Console at (\S+)/.exec(await output(child, 'stdout', /Console at \S+\n/))![1]!);
    expect(url.search).toBe('');
    expect((await fetch(`${url.origin}/start`)).status).toBe(200);
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  }, 60_000);
});
