/**
 * `npm run temporal:build`: builds the pinned Temporal CLI (the real `temporal server
 * start-dev`) from the Go module proxy, or finds it in the per-machine cache, and prints
 * its absolute path as the last line. `--if-go` exits 0 with one line when Go is missing
 * (CI's real-server lane is then skipped, not failed).
 */
import { GoMissingError, buildTemporalCli } from '../src/temporal/cli-server.ts';

try {
  const path = buildTemporalCli({ log: (line) => console.error(line) });
  console.log(path);
} catch (e) {
  if (e instanceof GoMissingError && process.argv.includes('--if-go')) {
    console.error(e.message);
    process.exit(0);
  }
  console.error((e as Error).message);
  process.exit(1);
}
