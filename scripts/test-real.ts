/**
 * `npm run test:real`: the end-to-end suites on the real Temporal server (vitest.real.config.ts),
 * with the pinned Temporal CLI found or built first (`npm run temporal:build`), and the pinned
 * Versity Gateway the S3 payload store is tested on (`npm run versitygw:build`). Prints
 * `N passed, M failed` last and exits non-zero when a test failed. Arguments go to vitest
 * (a file filter, `-t NAME`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildVersityGw } from '../src/machine/versitygw.ts';
import { buildTemporalCli, findTemporalCli } from '../src/temporal/cli-server.ts';

let binary: string;
let versitygw: string;
try {
  binary = findTemporalCli() ?? buildTemporalCli({ log: (line) => console.error(line) });
  versitygw = buildVersityGw({ log: (line) => console.error(line) });
} catch (e) {
  console.error(`test:real: ${(e as Error).message}`);
  process.exit(1);
}
console.error(`test:real: Temporal CLI ${binary}, Versity Gateway ${versitygw}`);
const dir = mkdtempSync(join(tmpdir(), 'navigator-test-real-'));
const report = join(dir, 'report.json');
const vitest = spawnSync(
  process.execPath,
  [
    'node_modules/vitest/vitest.mjs',
    'run',
    '--config',
    'vitest.real.config.ts',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...process.argv.slice(2),
  ],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      NAVIGATOR_TEMPORAL_CLI: binary,
      NAVIGATOR_VERSITYGW: versitygw,
      NAVIGATOR_TEST_SERVER: 'temporal',
    },
  },
);
const counts = spawnSync(process.execPath, ['scripts/vitest-summary.mjs', report], { encoding: 'utf8' })
  .stdout.trim()
  .split(' ');
const summary = `${counts[0] ?? 0} passed, ${counts[1] ?? 1} failed`;
// each failed test on a line of its own (.ci/run repeats them at the end of its log)
const failed = spawnSync(process.execPath, ['scripts/vitest-summary.mjs', '--failures', report], { encoding: 'utf8' })
  .stdout.split('\n')
  .filter((line) => line !== '');
for (const line of failed) console.log(`real-server: ${line}`);
rmSync(dir, { recursive: true, force: true });
console.log(`real-server: ${summary}`);
process.exit(vitest.status === 0 ? 0 : 1);
