/**
 * `npm run demo:report` (`navigator demo report`) as a person runs it: a worker process is
 * SIGKILLed after the storage service stored the report and before its activity answered,
 * a fresh worker process finishes the mission, the upload and the email are each applied
 * once, the ledger says why the upload was retried, and the audit passes.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readServices } from '../../examples/report-job/index.ts';
import { startTestServer, testServerKind } from '../../src/devserver/testing.ts';
import { runDemo } from './run-demo.ts';

describe('npm run demo:report', () => {
  it(
    'kills the worker mid-upload, a fresh one finishes: each effect once, audit passes',
    { timeout: 300_000 },
    async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'demo-report-'));
      const real =
        testServerKind() === 'temporal'
          ? await startTestServer({ searchAttributes: { NavigatorStatus: 'Keyword' } })
          : null;
      const env: Record<string, string> = real
        ? { TEMPORAL_ADDRESS: real.address, TEMPORAL_NAMESPACE: real.namespace }
        : {};
      try {
        const { code, out } = await runDemo(['report'], env, cwd, [
          'REPORT_JOB_SERVICES_FILE',
          'REPORT_JOB_UPLOAD_PAUSE_MS',
          'NAVIGATOR_TASK_QUEUE',
        ]);
        expect(out, out).toMatch(
          /the storage service stored the report; worker 1 \(pid \d+\) is killed with SIGKILL before its upload activity answered/,
        );
        expect(out).toMatch(/started worker 2 \(pid \d+/);
        expect(out).toMatch(/worker 2 was ready [\d.]+ s after it started; it retried the upload [\d.]+ s after that/);
        expect(out).toMatch(/Mission report-job-demo-\w+: completed/);
        expect(out).toMatch(
          /upload_report \[external\] task upload_report_shop\.example_2026-W47 attempts 2 via [\w-]+ → .*\n    attempt 1 failed: no error recorded: the worker stopped/,
        );
        expect(out).toContain('applied: upload_report 1 time(s), send_email 1 time(s)');
        expect(out).toContain('external effects run twice: 0');
        expect(out).toContain('audit passed');
        expect(code).toBe(0);
        const file = readdirSync(join(cwd, '.navigator')).find((f) => f.startsWith('report-job-services-'))!;
        const records = readServices(join(cwd, '.navigator', file));
        expect(records.map((r) => `${r.operation} ${r.outcome}`)).toEqual([
          'upload_report applied',
          'upload_report deduplicated',
          'send_email applied',
        ]);
      } finally {
        await real?.shutdown();
      }
    },
  );
});
