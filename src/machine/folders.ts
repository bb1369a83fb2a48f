/**
 * The per-user folders of this machine, one definition each: the cache (rebuildable: Go
 * builds of the servers, workflow bundles, the console's link) and the data folder (what
 * must survive: the dev server's state, the default payload store).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$NAVIGATOR_CACHE_DIR` or `$XDG_CACHE_HOME/navigator-on-temporal` or `~/.cache/navigator-on-temporal`, then `folder`. */
export function cacheDirOf(folder: string, env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.NAVIGATOR_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'navigator-on-temporal');
  return join(base, folder);
}

/** The per-user data folder: NAVIGATOR_DATA_DIR, else $XDG_DATA_HOME/navigator-on-temporal, else ~/.local/share/navigator-on-temporal. */
export function navigatorDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return (
    env.NAVIGATOR_DATA_DIR ?? join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'navigator-on-temporal')
  );
}
