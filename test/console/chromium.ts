/** Debian's Chromium (or another installed Chrome) for the browser tests; null when none is installed. */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export function chromiumPath(): string | null {
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    try {
      const path = execFileSync('which', [name], { encoding: 'utf8' }).trim();
      if (path && existsSync(path)) return path;
    } catch {
      // not installed under this name
    }
  }
  return null;
}
