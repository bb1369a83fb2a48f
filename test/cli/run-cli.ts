/** The real `navigator` CLI in a child process: its exit code and output. */
import { spawn } from 'node:child_process';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `bin/navigator.mjs ARGS` with `env` (the whole environment of the child). */
export function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/navigator.mjs', ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
