/**
 * The console link `navigator run` prints: NAVIGATOR_CONSOLE_URL, else the console a
 * `navigator dev` on this machine serves for the same Temporal address (dev remembers it in
 * the cache folder when its console starts, and forgets it when it stops). Only the
 * console's address is kept, never its one-time sign-in link, with the process that serves
 * it: a dev killed with SIGKILL never forgets its console, so a link whose process is gone
 * is not printed.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cacheDirOf } from '../machine/folders.ts';
import { processRuns } from '../machine/processes.ts';

const file = (env: NodeJS.ProcessEnv) => join(cacheDirOf('consoles', env), 'consoles.json');

/** A console remembered: its address and the process serving it (entries written before the pid was kept are bare addresses). */
type Remembered = string | { url: string; pid: number };

function read(env: NodeJS.ProcessEnv): Record<string, Remembered> {
  try {
    const path = file(env);
    return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, Remembered>) : {};
  } catch {
    return {};
  }
}

/**
 * Remembers (or, with null, forgets) the console serving Temporal at `address`, served by
 * process `pid`. Best effort: a link is a convenience.
 */
export function rememberConsole(
  address: string,
  url: string | null,
  env: NodeJS.ProcessEnv = process.env,
  pid: number = process.pid,
): void {
  try {
    const all = read(env);
    if (url === null) delete all[address];
    else all[address] = { url, pid };
    mkdirSync(dirname(file(env)), { recursive: true });
    writeFileSync(file(env), JSON.stringify(all, null, 2));
  } catch {
    // a read-only cache folder: no link printed, nothing else changes
  }
}

/** The console page of `path` (`/missions/ID`) for Temporal at `address`, or null when no console is known. */
export function consoleLink(address: string, path: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const kept = read(env)[address];
  const remembered = typeof kept === 'string' ? kept : kept && processRuns(kept.pid) ? kept.url : undefined;
  const base = env.NAVIGATOR_CONSOLE_URL?.trim() || remembered;
  return base ? `${base.replace(/\/+$/, '')}${path}` : null;
}
