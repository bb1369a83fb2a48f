#!/usr/bin/env node
// Prints `P F` (passed and failed tests) from a vitest JSON report. A test file that failed
// outside any test (an error in beforeAll or at import) counts as one failed test, and a run
// that failed with no failed test (unhandled errors) as one: vitest's own numFailedTests
// leaves both out, and a lane must not say "0 failed" when it failed.
//
// `--failures` prints instead one line per failed test (file, test name, first lines of its
// message): CI shows only the tail of its log, so .ci/run repeats these last, where a reader
// of a failed run finds which test failed without the whole log.
import { readFileSync } from 'node:fs';

const failuresMode = process.argv.includes('--failures');
const file = process.argv.slice(2).find((a) => a !== '--failures');

function firstLines(messages) {
  const text = (messages ?? []).join('\n').replace(/\x1b\[[0-9;]*m/g, '');
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(0, 3)
    .join(' | ')
    .slice(0, 400);
}

function failures(r) {
  const lines = [];
  for (const f of r.testResults) {
    const name = f.name.replace(process.cwd() + '/', '');
    const failed = f.assertionResults.filter((a) => a.status === 'failed');
    for (const a of failed) lines.push(`FAILED ${name} > ${a.fullName}: ${firstLines(a.failureMessages)}`);
    if (f.status === 'failed' && failed.length === 0)
      lines.push(`FAILED ${name} (outside a test): ${firstLines([f.message])}`);
  }
  if (lines.length === 0 && r.success === false)
    lines.push('FAILED: vitest reported errors outside any test file (see "Unhandled Errors" above)');
  return lines;
}

try {
  const r = JSON.parse(readFileSync(file, 'utf8'));
  if (failuresMode) {
    for (const line of failures(r)) console.log(line);
  } else {
    const fileErrors = r.testResults.filter(
      (f) => f.status === 'failed' && !f.assertionResults.some((a) => a.status === 'failed'),
    ).length;
    const failed = r.numFailedTests + fileErrors;
    // errors outside any test file's tests (vitest's "Unhandled Errors") fail the run too
    console.log(`${r.numPassedTests} ${failed === 0 && r.success === false ? 1 : failed}`);
  }
} catch {
  console.log(failuresMode ? 'FAILED: no vitest report (vitest failed before running tests)' : '0 1');
}
