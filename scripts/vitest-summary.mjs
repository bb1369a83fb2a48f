#!/usr/bin/env node
// Prints `P F` (passed and failed tests) from a vitest JSON report. A test file that failed
// outside any test (an error in beforeAll or at import) counts as one failed test, and a run
// that failed with no failed test (unhandled errors) as one: vitest's own numFailedTests
// leaves both out, and a lane must not say "0 failed" when it failed.
import { readFileSync } from 'node:fs';

try {
  const r = JSON.parse(readFileSync(process.argv[2], 'utf8'));
  const fileErrors = r.testResults.filter(
    (f) => f.status === 'failed' && !f.assertionResults.some((a) => a.status === 'failed'),
  ).length;
  const failed = r.numFailedTests + fileErrors;
  // errors outside any test file's tests (vitest's "Unhandled Errors") fail the run too
  console.log(`${r.numPassedTests} ${failed === 0 && r.success === false ? 1 : failed}`);
} catch {
  console.log('0 1'); // no report: vitest failed before running tests
}
