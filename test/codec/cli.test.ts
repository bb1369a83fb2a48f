/**
 * `navigator codec-server` as a user types it: beyond 127.0.0.1 without authorization it
 * refuses to start (exit 2, saying what to give); on 127.0.0.1 it prints a generated
 * secret once with the endpoint for the Temporal UI, which decodes and nothing else does;
 * `--authorization "Bearer "` (its variable unset) is refused.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const KEYS = `k1:${Buffer.alloc(32, 3).toString('base64')}`;

function navigator(...args: string[]): ChildProcess {
  return spawn(process.execPath, ['bin/navigator.mjs', '--codec', 'aes-gcm', 'codec-server', ...args], {
    env: {
      ...process.env,
      NAVIGATOR_CODEC_KEYS: KEYS,
      NAVIGATOR_CODEC_AUTHORIZATION: '',
      NAVIGATOR_CODEC_SECRET: '',
      NAVIGATOR_PAYLOAD_STORE: 'off',
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

const exitCode = (child: ChildProcess) =>
  new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));

describe('navigator codec-server', () => {
  it('refuses 0.0.0.0 without authorization, and an empty credential', async () => {
    const open = navigator('--host', '0.0.0.0', '--port', '0');
    expect(await output(open, 'stderr', /authorization/)).toMatch(
      /^navigator: the codec server binds to 0\.0\.0\.0.*give --authorization VALUE or --secret/,
    );
    expect(await exitCode(open)).toBe(2);
    const empty = navigator('--port', '0', '--authorization', 'Bearer ');
    expect(await output(empty, 'stderr', /empty/)).toMatch(/credential of --authorization.*is empty/);
    expect(await exitCode(empty)).toBe(2);
  }, 60_000);

  it('on 127.0.0.1 prints a generated secret once with the UI endpoint; stops on SIGTERM', async () => {
    const child = navigator('--port', '0');
    const text = await output(child, 'stdout', /--codec-auth .*\n/);
    const endpoint = /Temporal UI codec endpoint: (\S+)/.exec(text)![1]!;
    const secret = /shown once\): (\S+)/.exec(text)![1]!;
    expect(endpoint.endsWith(`/${secret}`)).toBe(true);
    const url = endpoint.slice(0, -secret.length - 1);
    expect((await fetch(`${url}/decode`, { method: 'POST', body: '{"payloads":[]}' })).status).toBe(401);
    expect((await fetch(`${endpoint}/decode`, { method: 'POST', body: '{"payloads":[]}' })).status).toBe(200);
    expect(
      (
        await fetch(`${url}/decode`, {
          method: 'POST',
          headers: { authorization: `Bearer ${secret}` },
          body: '{"payloads":[]}',
        })
      ).status,
    ).toBe(200);
    child.kill('SIGTERM');
    expect(await exitCode(child)).toBe(0);
  }, 60_000);
});
