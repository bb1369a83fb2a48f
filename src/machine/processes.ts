/**
 * Whether a process of this machine still runs: the embedded server's state-file lock and
 * the console link `navigator run` prints both name the process that holds them, and a
 * process killed with SIGKILL never releases what it holds.
 */

/** Whether process `pid` runs (one of another user that runs counts: EPERM). */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
