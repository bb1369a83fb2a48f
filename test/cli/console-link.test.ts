/**
 * The console link `navigator run` prints (src/cli/console-link.ts): NAVIGATOR_CONSOLE_URL,
 * else what a `navigator dev` serving the same Temporal address remembered; nothing once it
 * stopped (or was killed: its process is gone), or for another address.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { consoleLink, rememberConsole } from '../../src/cli/console-link.ts';

describe('the console link of a started mission', () => {
  it('is the console dev serves for that Temporal address, or NAVIGATOR_CONSOLE_URL', () => {
    const env = { NAVIGATOR_CACHE_DIR: mkdtempSync(join(tmpdir(), 'console-link-')) };
    expect(consoleLink('127.0.0.1:7233', '/missions/m1', env)).toBeNull();
    rememberConsole('127.0.0.1:7233', 'http://127.0.0.1:8233', env);
    expect(consoleLink('127.0.0.1:7233', '/missions/m1', env)).toBe('http://127.0.0.1:8233/missions/m1');
    expect(consoleLink('10.0.0.5:7233', '/missions/m1', env)).toBeNull();
    expect(
      consoleLink('10.0.0.5:7233', '/missions/m1', { ...env, NAVIGATOR_CONSOLE_URL: 'https://ops.example/' }),
    ).toBe('https://ops.example/missions/m1');
    rememberConsole('127.0.0.1:7233', null, env);
    expect(consoleLink('127.0.0.1:7233', '/missions/m1', env)).toBeNull();
  });

  it('is not printed when the process that served it is gone (a dev killed with SIGKILL never forgets it)', () => {
    const env = { NAVIGATOR_CACHE_DIR: mkdtempSync(join(tmpdir(), 'console-link-')) };
    // a process that ran and exited: its pid names no process now
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    rememberConsole('127.0.0.1:7233', 'http://127.0.0.1:8233', env, gone);
    expect(consoleLink('127.0.0.1:7233', '/missions/m1', env)).toBeNull();
    rememberConsole('127.0.0.1:7233', 'http://127.0.0.1:8233', env, process.pid);
    expect(consoleLink('127.0.0.1:7233', '/missions/m1', env)).toBe('http://127.0.0.1:8233/missions/m1');
  });
});
