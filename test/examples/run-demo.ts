/** Runs `navigator demo [which]` as a person would: a child process, no Temporal settings of the test's own. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** `drop`: more variables of the test's environment the demo must not see. */
export function runDemo(
  args: string[],
  env: Record<string, string>,
  cwd: string,
  drop: string[] = [],
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', ...drop].includes(k)),
    );
    const child = spawn(process.execPath, [join(process.cwd(), 'bin/navigator.mjs'), 'demo', ...args], {
      cwd,
      env: { ...inherited, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => resolve({ code, out }));
  });
}
