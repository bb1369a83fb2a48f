/**
 * The layering rules of .dependency-cruiser.cjs (issue 40) hold: no folder-level cycles,
 * workflow code imports no activities, only tests, benchmarks and `navigator dev`/`demo`
 * import the embedded server, the CLI and the console go through src/client. Run here so
 * that `npm test` fails on a violation; each violation is printed with its rule.
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}
interface CruiseSummary {
  violations: Violation[];
  totalCruised: number;
}

it('src keeps the layering rules of .dependency-cruiser.cjs', async () => {
  // dependency-cruiser exits non-zero on a violation; the JSON report is on stdout either way.
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [bin, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'],
    {
      cwd: root,
      maxBuffer: 64 << 20,
    },
  ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  const { summary } = JSON.parse(stdout) as { summary: CruiseSummary };
  expect(summary.totalCruised).toBeGreaterThan(300);
  expect(summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([]);
}, 300_000);
