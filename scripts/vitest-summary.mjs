#!/usr/bin/env node
// Prints `P F` (passed and failed tests) from a vitest JSON report. A test file that failed
// outside any test (an error in beforeAll or at import) counts as one failed test: vitest's
// own numFailedTests leaves it out, and a lane must not say "0 failed" then.
import { readFileSync } from 'node:fs';

try {
  const r = JSON.parse(readFileSync(process.argv[2], 'utf8'));
  const fileErrors = r.testResults.filter((f) => f.status === 'failed' && !f.assertionResults.some((a) => a.status === 'failed')).length;
  console.log(`${r.numPassedTests} ${r.numFailedTests + fileErrors}`);
} catch {
  console.log('0 1'); // no report: vitest failed before running tests
}
