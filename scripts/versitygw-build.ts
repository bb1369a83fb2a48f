/**
 * `npm run versitygw:build`: builds the pinned Versity Gateway (the S3 server the S3 payload
 * store is tested and benchmarked on) from the Go module proxy, or finds it in the per-machine
 * cache, and prints its absolute path as the last line. `--if-go` exits 0 with one line when
 * Go is missing.
 */
import { GoMissingError } from '../src/temporal/cli-server.ts';
import { buildVersityGw } from '../src/machine/versitygw.ts';

try {
  const path = buildVersityGw({ log: (line) => console.error(line) });
  console.log(path);
} catch (e) {
  if (e instanceof GoMissingError && process.argv.includes('--if-go')) {
    console.error(e.message);
    process.exit(0);
  }
  console.error((e as Error).message);
  process.exit(1);
}
